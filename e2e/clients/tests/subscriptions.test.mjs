// The real clients subscribe to catalogueChanged: graphql-ws (over the ws
// package) by WebSocket, graphql-sse by POST in its distinct connections
// mode, and a bare GET stream as a browser's EventSource opens it. Each
// gets an event when the stand-in upstream changes and the gateway, which
// reads it every second, swaps in the new snapshot.

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
const subscription = 'subscription { catalogueChanged { version collections } }';

let upstream, gateway, edits = 0;

before(async () => {
  upstream = await startUpstream();
  gateway = await startGateway({ upstream, logName: 'clients-gateway', artifacts });
});

after(async () => {
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
  await upstream?.close();
});

// changeUntil changes /items in the upstream, again every 3 s, until
// received() resolves: a subscription has no acknowledgement, so the first
// change may come before the gateway has the subscriber. At most 30 s.
async function changeUntil(received) {
  let got = false;
  const result = received.then((v) => { got = true; return v; });
  for (const deadline = Date.now() + 30_000; !got;) {
    if (Date.now() > deadline) throw new Error('no event within 30 s of changing the upstream');
    edits++;
    upstream.change('items', (body) => body.replace(/"Steel Arrowheads[^"]*"/, `"Steel Arrowheads ${edits}"`));
    await Promise.race([result, new Promise((r) => setTimeout(r, 3_000))]);
  }
  return result;
}

// firstEvent returns the first result of an async iterator, then leaves it.
async function firstEvent(iterator) {
  const { value, done } = await iterator.next();
  await iterator.return?.();
  assert.equal(done, false, 'the subscription ended without an event');
  return value;
}

function checkChange(result) {
  assert.equal(result.errors, undefined, JSON.stringify(result.errors));
  const change = result.data.catalogueChanged;
  assert.match(change.version, /^[0-9a-f]+$/);
  assert.deepEqual(change.collections, ['items']);
}

test('graphql-ws over ws: a query, then catalogueChanged', async () => {
  const client = createWSClient({
    url: gateway.url.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    retryAttempts: 0,
  });
  try {
    const answer = await firstEvent(client.iterate({ query: '{ items(first: 1) { totalCount } }' }));
    assert.ok(answer.data.items.totalCount > 0, JSON.stringify(answer));
    checkChange(await changeUntil(firstEvent(client.iterate({ query: subscription }))));
  } finally {
    await client.dispose();
  }
});

test('graphql-ws: a limit refuses the operation with its code', async () => {
  const client = createWSClient({ url: gateway.url.replace(/^http/, 'ws') + '/graphql', webSocketImpl: WebSocket, retryAttempts: 0 });
  try {
    const deep = '{ item(id: 1) { droppedByMonsters { drops { item { droppedByMonsters { drops { item { droppedByMonsters { drops { item { droppedByMonsters { drops { item { name } } } } } } } } } } } } } }';
    await assert.rejects(firstEvent(client.iterate({ query: deep })), (errs) => {
      assert.equal(errs[0].extensions.code, 'QUERY_TOO_DEEP', JSON.stringify(errs));
      return true;
    });
  } finally {
    await client.dispose();
  }
});

test('graphql-sse, distinct connections mode: catalogueChanged', async () => {
  const client = createSSEClient({ url: gateway.url + '/graphql', retryAttempts: 0 });
  try {
    checkChange(await changeUntil(firstEvent(client.iterate({ query: subscription }))));
  } finally {
    client.dispose();
  }
});

test('graphql-sse: a subscription refused before it runs gets its errors, no data, and completes', async () => {
  const client = createSSEClient({ url: gateway.url + '/graphql', retryAttempts: 0 });
  try {
    const results = [];
    for await (const result of client.iterate({
      query: 'subscription($b: Boolean!) { catalogueChanged @include(if: $b) { version } }',
      variables: { b: 'true' },
    })) {
      results.push(result);
    }
    assert.equal(results.length, 1, JSON.stringify(results));
    assert.equal('data' in results[0], false, JSON.stringify(results[0]));
    assert.equal(results[0].errors?.[0]?.extensions?.code, 'GRAPHQL_VALIDATION_FAILED', JSON.stringify(results[0]));
  } finally {
    client.dispose();
  }
});

test('a refused subscription asked as a stream or JSON: a 400 JSON answer with no data', async () => {
  const res = await fetch(gateway.url + '/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ query: 'subscription { catalogueChanged { nowhere } }' }),
  });
  assert.equal(res.status, 400);
  assert.equal(res.headers.get('content-type'), 'application/json');
  const body = await res.json();
  assert.equal('data' in body, false, JSON.stringify(body));
  assert.equal(body.errors[0].extensions.code, 'GRAPHQL_VALIDATION_FAILED', JSON.stringify(body));
});

test('a GET stream, as EventSource asks: catalogueChanged', async () => {
  const ac = new AbortController();
  try {
    const res = await fetch(`${gateway.url}/graphql?query=${encodeURIComponent(subscription)}`, {
      headers: { Accept: 'text/event-stream' }, signal: ac.signal,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    const event = (async () => {
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended without an event');
        buf += value;
        const m = buf.match(/event: next\ndata: (.*)\n\n/);
        if (m) return JSON.parse(m[1]);
      }
    })();
    checkChange(await changeUntil(event));
  } finally {
    ac.abort();
  }
});
