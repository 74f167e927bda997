// Every operation the explorer sends is checked against the gateway's
// schema (graph/*.graphqls) with graphql-js: it parses, it validates, its
// variables as the views build them coerce, and its GET URL fits the
// gateway's -max-url-bytes (8192 by default).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildSchema, getOperationAST, getVariableValues, parse, validate } from 'graphql';
import { requestURL } from '../src/graphql.js';
import { KINDS, SHOWN } from '../src/kinds.js';
import { ALL_QUERIES, CATALOGUE_CHANGED, LIVE_PAGES, LIST_QUERIES, PAGES, SEARCH, STREAM_FIRST, inParts, listVariables, searchVariables } from '../src/queries.js';

const root = new URL('../../../', import.meta.url).pathname;
const graphDir = join(root, 'graph');
// The federation directives the schema files use (@link, @key), which
// gqlgen's federation plugin declares when it generates.
const federationDirectives = `
directive @link(url: String!, import: [String!]) repeatable on SCHEMA
directive @key(fields: String!, resolvable: Boolean = true) repeatable on OBJECT | INTERFACE
`;
const schema = buildSchema(
  readdirSync(graphDir)
    .filter((f) => f.endsWith('.graphqls'))
    .sort()
    .map((f) => readFileSync(join(graphDir, f), 'utf8'))
    .concat(federationDirectives)
    .join('\n'),
);

const MAX_URL_BYTES = 8192;
// A cursor as long as the gateway's longest (they name the order, the
// snapshot and the record), and then some.
const cursor = 'Y'.repeat(120);

function check(operation, variableSets) {
  const doc = parse(operation.query);
  const errors = validate(schema, doc);
  assert.deepEqual(errors.map((e) => e.message), [], `${operation.operationName} validates`);
  const op = getOperationAST(doc, operation.operationName);
  assert.ok(op, `${operation.operationName} names its operation`);
  for (const variables of variableSets) {
    const coerced = getVariableValues(schema, op.variableDefinitions ?? [], variables);
    assert.deepEqual((coerced.errors ?? []).map((e) => e.message), [], `${operation.operationName} takes ${JSON.stringify(variables)}`);
    const url = requestURL({ ...operation, variables });
    assert.ok(url.length < MAX_URL_BYTES, `${operation.operationName}: a ${url.length}-byte URL`);
  }
}

test('every list query validates with every state a list URL can hold', () => {
  const filters = {
    items: { nameContains: 'bread', type: 'Food', rarity: 'Common', tradable: true },
    monsters: { nameContains: 'troll', area: 'Troll Peaks', isGod: false, combatLevelMin: 10, combatLevelMax: 99.5 },
    quests: { nameContains: 'lantern', questSeries: 'The Burning Lantern' },
    worldBosses: { nameContains: 'frost', status: 'upcoming' },
  };
  const sorts = {
    items: 'VALUE', monsters: 'COMBAT_LEVEL', quests: 'NAME', baseCamps: 'NAME', discoveryLocations: 'EXP',
    miningRocks: 'LEVEL', cookingRecipes: 'LEVEL', fletchingRecipes: 'EXP', farmingSeeds: 'LEVEL',
    forestryTrees: 'EXP', eventChests: 'NAME', secretRares: 'NAME', worldBosses: 'LEVEL',
  };
  for (const [field, operation] of Object.entries(LIST_QUERIES)) {
    const filter = filters[field] ?? { nameContains: 'a' };
    check(operation, [
      listVariables({}),
      listVariables({ sort: sorts[field], desc: true, after: cursor, filter }),
      listVariables({ sort: 'ID', before: cursor, filter: { nameContains: 'x'.repeat(100) } }),
      listVariables({ last: true }),
    ]);
  }
});

test('every record page, the home page and the search validate', () => {
  for (const operation of Object.values(PAGES)) check(operation, [{ id: 1 }, { id: 2147483647 }]);
  check(ALL_QUERIES.find((o) => o.operationName === 'Home'), [{}]);
  check(SEARCH, [{ text: 'troll', first: 5 }, { text: 'x'.repeat(100), first: 20 }, searchVariables({ text: 'x'.repeat(100), first: 50, kind: 'fletchingRecipes', after: cursor })]);
});

// The drop tables come in parts, each list field with @stream, the first
// STREAM_FIRST rows with the page; a live page is answered whole by the
// gateway, so it asks for no parts; nor do the pages without a drop table.
test('the drop tables, and only they, are asked for with @stream', () => {
  const streamed = (op) => [...op.query.matchAll(/(\w+) @stream\(initialCount: (\d+)\)/g)].map((m) => `${m[1]}:${m[2]}`);
  const n = String(STREAM_FIRST);
  assert.deepEqual(
    Object.fromEntries(Object.entries(PAGES).filter(([, op]) => inParts(op)).map(([field, op]) => [field, streamed(op)])),
    {
      items: [`monsterDrops:${n}`, `droppedByWorldBosses:${n}`],
      monsters: [`drops:${n}`],
      discoveryLocations: [`drops:${n}`],
      eventChests: [`drops:${n}`],
    },
  );
  for (const field of LIVE_PAGES) assert.equal(inParts(PAGES[field]), false, `${field} is live, so answered whole`);
  for (const op of Object.values(LIST_QUERIES)) assert.equal(inParts(op), false);
});

test('the change subscription validates', () => {
  const errors = validate(schema, parse(CATALOGUE_CHANGED));
  assert.deepEqual(errors.map((e) => e.message), []);
});

test('every operation has its own name, and no other module holds one', () => {
  const names = ALL_QUERIES.map((o) => o.operationName);
  assert.equal(new Set(names).size, names.length, 'operation names are distinct');
  const src = new URL('../src/', import.meta.url).pathname;
  const files = readdirSync(src, { recursive: true }).filter((f) => f.endsWith('.js') && f !== 'queries.js');
  for (const f of files) {
    const text = readFileSync(join(src, f), 'utf8');
    assert.doesNotMatch(text, /\b(query|subscription|mutation)\s+[A-Z]\w*\s*[({]/, `${f} holds an operation: they belong in queries.js`);
  }
});

// The lists' sorts and filters come from filters.gen.json, generated from
// the schema's directives: they are the schema's own, read here from
// graph/*.graphqls by graphql-js, and what kinds.js says of how to show
// a filter names one the schema has.
test('every list sorts and filters by what its schema field takes', () => {
  const query = schema.getQueryType().getFields();
  for (const [field, kind] of Object.entries(KINDS)) {
    const args = Object.fromEntries(query[field].args.map((a) => [a.name, a.type]));
    const enumType = args.orderBy.getFields().field.type.ofType;
    assert.deepEqual(kind.sorts, enumType.getValues().map((v) => v.name), `${field}: its sorts`);
    const inputs = Object.keys(args.filter.getFields()).filter((f) => f !== 'nameContains');
    assert.deepEqual(kind.filters.map((f) => f.key), inputs, `${field}: its filters`);
    for (const name of Object.keys(SHOWN[field] ?? {})) assert.ok(inputs.includes(name), `${field}: SHOWN names ${name}, which is no filter`);
    const params = kind.filters.map((f) => f.param);
    assert.equal(new Set([...params, 'q', 'sort', 'dir', 'after', 'before', 'last']).size, params.length + 6, `${field}: its URL parameters are distinct`);
  }
});
