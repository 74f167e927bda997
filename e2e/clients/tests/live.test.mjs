// Live queries (@live) through the real clients: graphql-sse (POST, its
// distinct connections mode) and graphql-ws (over the ws package). Each
// client holds three live queries open; the stand-in upstream then renames
// the Chicken Feather (item 786). Only the query that selects the item's
// name is answered again, with the new name; the one reading another item
// and the one reading the item's rarity alone get nothing more.

import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createClient as createWSClient } from 'graphql-ws';
import { createClient as createSSEClient } from 'graphql-sse';
import WebSocket from 'ws';
import { startGateway, startUpstream } from '../../gateway.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const artifacts = process.env.ARTIFACTS_DIR || join(here, '..', 'artifacts');

const queries = {
  name: 'query Name @live { item(id: 786) { name } }',
  other: 'query Other @live { item(id: 1) { name } }',
  rarity: 'query Rarity @live { item(id: 786) { rarity } }',
};

// current is item 786's name as the upstream serves it now.
let upstream, gateway, edits = 0, current = 'Chicken Feather';

before(async () => {
  upstream = await startUpstream();
  gateway = await startGateway({ upstream, logName: 'clients-live-gateway', artifacts });
});

after(async () => {
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
  await upstream?.close();
});

// watch runs each query through subscribe (a client's subscribe), and
// collects its results; first resolves when every query has its first.
function watch(subscribe) {
  const results = Object.fromEntries(Object.keys(queries).map((k) => [k, []]));
  const waiters = [];
  const disposers = [];
  const notify = () => waiters.splice(0).forEach((w) => w());
  for (const [k, query] of Object.entries(queries)) {
    disposers.push(subscribe({ query }, {
      next: (r) => { results[k].push(r); notify(); },
      error: (e) => { results[k].push({ failed: e }); notify(); },
      complete: () => {},
    }));
  }
  // until waits, at most ms, for cond() over the results.
  const until = async (cond, ms, what) => {
    const deadline = Date.now() + ms;
    while (!cond()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${what}: not within ${ms} ms; results ${JSON.stringify(results)}`);
      await new Promise((r) => { waiters.push(r); setTimeout(r, left); });
    }
  };
  return { results, until, dispose: () => disposers.forEach((d) => d()) };
}

// liveTest is the test for one client: first answers, a rename, one
// answer again and only one.
async function liveTest(subscribe) {
  const w = watch(subscribe);
  try {
    await w.until(() => Object.values(w.results).every((r) => r.length >= 1), 20_000, 'the first answers');
    assert.deepEqual(w.results.name[0], { data: { item: { name: current } } });
    assert.equal(w.results.rarity[0].data.item.rarity, 'Epic', JSON.stringify(w.results.rarity[0]));
    edits++;
    const renamed = `Chicken Plume ${edits}`;
    upstream.change('items', (body) => body.replace(/(chicken-feather\.png","name":")[^"]*"/, `$1${renamed}"`));
    current = renamed;
    // The gateway reads the upstream every second, and runs the live
    // query again within two seconds of the new snapshot.
    await w.until(() => w.results.name.length >= 2, 15_000, 'the renamed answer');
    assert.deepEqual(w.results.name[1], { data: { item: { name: renamed } } });
    // Longer than a run after a change takes: nothing for the others.
    await new Promise((r) => setTimeout(r, 2_500));
    assert.equal(w.results.other.length, 1, `another item: ${JSON.stringify(w.results.other)}`);
    assert.equal(w.results.rarity.length, 1, `the rarity alone: ${JSON.stringify(w.results.rarity)}`);
    assert.equal(w.results.name.length, 2, `the name: ${JSON.stringify(w.results.name)}`);
  } finally {
    w.dispose();
  }
}

test('graphql-sse: a live query is answered again when what it read changed, and only then', async () => {
  const client = createSSEClient({ url: gateway.url + '/graphql', retryAttempts: 0 });
  try {
    await liveTest((payload, sink) => client.subscribe(payload, sink));
  } finally {
    client.dispose();
  }
});

test('graphql-ws: a live query is answered again when what it read changed, and only then', async () => {
  const client = createWSClient({ url: gateway.url.replace(/^http/, 'ws') + '/graphql', webSocketImpl: WebSocket, retryAttempts: 0 });
  try {
    await liveTest((payload, sink) => client.subscribe(payload, sink));
  } finally {
    await client.dispose();
  }
});

test('a live query asked as plain JSON is answered once', async () => {
  const res = await fetch(gateway.url + '/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ query: queries.other }),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /^application\/json/);
  const body = await res.json();
  assert.equal(typeof body.data.item.name, 'string', JSON.stringify(body));
});
