// The differential test of input coercion: for each case (a request that
// tries one input, or every variable at once, written by
// `go run ./e2e/coercion/cases`), graphql-js's verdict — refused before
// execution (the document does not parse or validate, or the variables do
// not coerce) or executed — against the gateway's, read from its answer
// to the same request: a refused request has no data entry. Where the
// variables do not coerce, the number of errors must agree too: one for
// each problem in each variable. Each case's variables are sent as the
// JSON text the case holds, so that both read the same spelling.
//
//   node differential.mjs schema.graphql cases.json http://127.0.0.1:PORT/graphql
//
// Exits non-zero on any disagreement, on a refusal that is not
// GRAPHQL_VALIDATION_FAILED or GRAPHQL_PARSE_FAILED (a case that trips a
// limit of the gateway's own tries nothing), or on fewer than 1,000 cases.

import { readFileSync } from 'node:fs';
import { buildSchema, getOperationAST, parse, validate } from 'graphql';
import { getVariableValues } from 'graphql/execution/values.js';

const [schemaFile, casesFile, endpoint] = process.argv.slice(2);
if (!endpoint) {
  console.error('usage: node differential.mjs schema.graphql cases.json http://host:port/graphql');
  process.exit(2);
}
const schema = buildSchema(readFileSync(schemaFile, 'utf8'));
const cases = JSON.parse(readFileSync(casesFile, 'utf8'));
const refusalCodes = new Set(['GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED']);

// reference is graphql-js's verdict, and why.
function reference(c) {
  let doc;
  try {
    doc = parse(c.query);
  } catch (e) {
    return { runs: false, why: e.message };
  }
  const errors = validate(schema, doc);
  if (errors.length > 0) return { runs: false, why: errors[0].message };
  const op = getOperationAST(doc);
  if (!op) return { runs: false, why: 'no operation' };
  const inputs = c.variables ? JSON.parse(c.variables) : {};
  // As graphql-js's execute calls it: at most 50 errors, then one more.
  const coerced = getVariableValues(schema, op.variableDefinitions ?? [], inputs, { maxErrors: 50 });
  if (coerced.errors) return { runs: false, why: coerced.errors[0].message, variableErrors: coerced.errors.length };
  return { runs: true, why: 'valid' };
}

// gateway is the gateway's verdict. A refused request has no data entry;
// one whose data is null with only validation errors is counted refused
// too (as gateways before this test answered), and reported apart.
async function gateway(c) {
  const body = `{"query":${JSON.stringify(c.query)}${c.variables ? `,"variables":${c.variables}` : ''}}`;
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body,
  });
  const text = await res.text();
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    return { runs: null, why: `status ${res.status}, not JSON: ${text.slice(0, 200)}` };
  }
  const codes = (answer.errors ?? []).map((e) => e.extensions?.code);
  const why = answer.errors?.[0]?.message ?? 'executed';
  if (res.status !== 200) return { runs: null, why: `status ${res.status}: ${text.slice(0, 200)}` };
  const onlyRefusals = codes.length > 0 && codes.every((code) => refusalCodes.has(code));
  if (!('data' in answer)) {
    if (!onlyRefusals) return { runs: null, why: `refused with ${codes.join(', ')}: ${why}` };
    return { runs: false, why, errors: codes.length };
  }
  if (answer.data === null && onlyRefusals) return { runs: false, why, dataNull: true };
  return { runs: true, why };
}

let disagreements = 0;
let countsCompared = 0;
let withDataNull = 0;
let unusable = 0;
let specCases = 0;
let refused = 0;
const shown = [];
const queue = cases.entries();
async function worker() {
  for (const [, c] of queue) {
    const ref = reference(c);
    const want = c.spec ? { runs: c.spec !== 'refused', why: `the specification (graphql-js: ${ref.runs ? 'executed' : 'refused'})` } : ref;
    if (c.spec) specCases++;
    const got = await gateway(c);
    if (!want.runs) refused++;
    if (got.runs === null) {
      unusable++;
      shown.push(`UNUSABLE ${c.name}\n  query: ${c.query}\n  variables: ${c.variables ?? ''}\n  gateway: ${got.why}`);
      continue;
    }
    if (got.dataNull) withDataNull++;
    if (got.runs !== want.runs) {
      disagreements++;
      shown.push(`DISAGREE ${c.name}\n  query: ${c.query}\n  variables: ${c.variables ?? ''}\n` +
        `  expected: ${want.runs ? 'executed' : 'refused'} (${want.why})\n  gateway:  ${got.runs ? 'executed' : 'refused'} (${got.why})`);
    } else if (!c.spec && ref.variableErrors !== undefined && got.errors !== undefined) {
      countsCompared++;
      if (got.errors !== ref.variableErrors) {
        disagreements++;
        shown.push(`DISAGREE ${c.name}\n  query: ${c.query}\n  variables: ${c.variables ?? ''}\n` +
          `  expected: ${ref.variableErrors} errors (the first: ${ref.why})\n  gateway:  ${got.errors} errors (the first: ${got.why})`);
      }
    }
  }
}
await Promise.all([worker(), worker(), worker(), worker()]);

for (const line of shown.slice(0, 40)) console.log(line);
if (shown.length > 40) console.log(`… and ${shown.length - 40} more`);
console.log(`coercion: ${cases.length} cases (${refused} refused, ${cases.length - refused} executed, ` +
  `${specCases} where the specification overrides graphql-js; ${countsCompared} refusals for their variables, ` +
  `each with as many errors as graphql-js gives); ${disagreements} disagreements with graphql-js, ` +
  `${unusable} refused for another reason, ${withDataNull} refusals carrying "data": null`);
if (disagreements > 0 || unusable > 0 || withDataNull > 0 || cases.length < 1000) process.exit(1);
