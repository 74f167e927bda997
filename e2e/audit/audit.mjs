// Runs graphql-http's GraphQL-over-HTTP server audits against a live URL.
//
//   node audit.mjs http://127.0.0.1:8080/graphql
//
// Prints one line per audit, then "N passed, M failed" counting the MUST
// and SHOULD audits, then the failing SHOULD audits. Exits 1 if any MUST or
// SHOULD audit fails (or the run cannot finish in time), 0 otherwise, 2 on
// bad usage. MAY audits are informational.
import { serverAudits } from 'graphql-http';

const RUN_TIMEOUT_MS = 60_000; // the whole run
const REQUEST_TIMEOUT_MS = 10_000; // one audit's request(s)
const REASON_MAX = 160; // characters of a failure reason shown

const url = process.argv[2];
if (!url || process.argv.length > 3) {
  console.error('usage: node audit.mjs <graphql-url>');
  process.exit(2);
}
try {
  const u = new URL(url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
} catch {
  console.error(`audit: not an http(s) URL: ${url}`);
  process.exit(2);
}

// Bound the run: abort every request once the deadline passes, and exit
// outright if something still hangs shortly after.
const deadline = new AbortController();
const abortTimer = setTimeout(
  () => deadline.abort(new Error(`run exceeded ${RUN_TIMEOUT_MS / 1000}s`)),
  RUN_TIMEOUT_MS,
);
abortTimer.unref();
const killTimer = setTimeout(() => {
  console.error(`audit: gave up after ${RUN_TIMEOUT_MS / 1000 + 5}s`);
  process.exit(1);
}, RUN_TIMEOUT_MS + 5_000);
killTimer.unref();

// Each request is aborted after REQUEST_TIMEOUT_MS or at the run's deadline.
// (A plain controller and timer: AbortSignal.any/timeout on Node 20 did not
// reliably fire for a request that hangs.)
async function fetchFn(input, init = {}) {
  const ctl = new AbortController();
  const onDeadline = () => ctl.abort(deadline.signal.reason);
  if (deadline.signal.aborted) onDeadline();
  deadline.signal.addEventListener('abort', onDeadline, { once: true });
  const timer = setTimeout(
    () => ctl.abort(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000}s`)),
    REQUEST_TIMEOUT_MS,
  );
  try {
    return await fetch(input, { ...init, signal: ctl.signal });
  } finally {
    // Headers are in; the audits read small bodies right away.
    clearTimeout(timer);
    deadline.signal.removeEventListener('abort', onDeadline);
  }
}

const oneLine = (s) => String(s).replace(/\s+/g, ' ').trim();
const abbrev = (s, n = REASON_MAX) => {
  const t = oneLine(s);
  return t.length > n ? t.slice(0, n - 1) + '…' : t;
};

// What the server answered, for a failure line: status, content type and
// the start of the body (when it has not been consumed by the audit).
async function describe(response) {
  if (!response) return '';
  let body = '';
  try {
    body = await response.clone().text();
  } catch {
    // body already read by the audit
  }
  const ct = response.headers?.get('content-type') ?? '-';
  return `got ${response.status} [${ct}]${body ? ' ' + abbrev(body, 100) : ''}`;
}

const levelOf = (name) => name.split(' ', 1)[0]; // MUST | SHOULD | MAY

const audits = serverAudits({ url, fetchFn });
const rows = [];
for (const a of audits) {
  const level = levelOf(a.name);
  let ok = false;
  let reason = '';
  try {
    const result = await a.fn();
    if (result.status === 'ok') {
      ok = true;
    } else {
      reason = `${result.reason}; ${await describe(result.response)}`;
    }
  } catch (err) {
    // graphql-http throws only for fatal problems (network, abort, ...).
    const cause = err?.cause ? `: ${err.cause.message ?? err.cause}` : '';
    reason = `fatal: ${err?.message ?? err}${cause}`;
  }
  rows.push({ id: a.id, level, name: a.name, ok, reason });
  const nameText = abbrev(a.name.slice(level.length + 1), 90);
  console.log(
    `${a.id.padEnd(4)} ${level.padEnd(6)} ${nameText}: ${ok ? 'ok' : 'FAIL ' + abbrev(reason)}`,
  );
}
clearTimeout(killTimer);

const musts = rows.filter((r) => r.level === 'MUST');
const mustFailed = musts.filter((r) => !r.ok);
const shouldFailed = rows.filter((r) => r.level === 'SHOULD' && !r.ok);
const mayFailed = rows.filter((r) => r.level === 'MAY' && !r.ok);

console.log('');
if (mayFailed.length > 0) {
  console.log(`MAY not met (informational): ${mayFailed.map((r) => r.id).join(' ')}`);
}
const shoulds = rows.filter((r) => r.level === 'SHOULD');
const checked = musts.length + shoulds.length;
const failed = mustFailed.length + shouldFailed.length;
console.log(`${checked - failed} passed, ${failed} failed`);
for (const r of shouldFailed) {
  console.log(`SHOULD failing: ${r.id} ${abbrev(r.name.slice('SHOULD '.length), 100)}`);
}
process.exitCode = failed > 0 ? 1 : 0;
