// @defer and @stream as real clients read them: Apollo Client 4 with its
// incremental handlers (deferSpec=20220824, and graphql-js 17's
// incrementalSpec=v0.2) and urql's fetch exchange, each over
// multipart/mixed. Each sees the answer arrive in more than one result,
// and ends with the answer the same query gives without the directives.

import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ApolloClient, HttpLink, InMemoryCache, gql as apolloGql } from '@apollo/client';
import { Defer20220824Handler, GraphQL17Alpha9Handler } from '@apollo/client/incremental';
import { Client as UrqlClient, fetchExchange, gql as urqlGql } from '@urql/core';
import { startGateway } from '../../gateway.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const artifacts = process.env.ARTIFACTS_DIR || join(here, '..', 'artifacts');

// query defers a labelled fragment on each listed item, and a nested one
// inside it, and streams the list after its first item.
const query = `query Deferred {
  items(first: 4) {
    totalCount
    nodes @stream(initialCount: 1) {
      id
      name
      ... @defer(label: "more") { rarity ... @defer { description } }
    }
  }
  item(id: 1) { id ... on Item @defer(label: "item") { name type } }
}`;
const plain = query.replace(/\s*@(defer|stream)(\([^)]*\))?/g, '');

let gateway;

before(async () => { gateway = await startGateway({ logName: 'incremental-gateway', artifacts }); });
after(async () => { assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly'); });

// collect subscribes to an observable of results until it completes or
// gives the result done accepts, within 20 s; leave unsubscribes then.
function collect(observable, done = (r) => false, leave = true) {
  return new Promise((resolve, reject) => {
    const results = [];
    const timer = setTimeout(() => { sub.unsubscribe(); reject(new Error(`no last result within 20 s: ${JSON.stringify(results)}`)); }, 20_000);
    const finish = () => { clearTimeout(timer); if (leave) sub.unsubscribe(); resolve(results); };
    const sub = observable.subscribe({
      next: (r) => { results.push(r); if (done(r)) finish(); },
      error: (e) => { clearTimeout(timer); reject(e); },
      complete: finish,
    });
  });
}

for (const [name, Handler] of [['deferSpec=20220824', Defer20220824Handler], ['incrementalSpec=v0.2', GraphQL17Alpha9Handler]]) {
  test(`Apollo Client 4, ${name}: @defer and @stream arrive in parts, and merge into the plain answer`, async () => {
    const accepts = [];
    const client = new ApolloClient({
      link: new HttpLink({
        uri: `${gateway.url}/graphql`,
        fetch: (url, init) => { accepts.push(new Headers(init.headers).get('accept')); return fetch(url, init); },
      }),
      cache: new InMemoryCache(),
      incrementalHandler: new Handler(),
    });
    const results = await collect(
      client.watchQuery({ query: apolloGql(query), fetchPolicy: 'no-cache', notifyOnNetworkStatusChange: true }),
      (r) => r.dataState === 'complete',
    );
    assert.match(accepts[0], name === 'deferSpec=20220824' ? /multipart\/mixed;deferSpec=20220824/ : /multipart\/mixed;incrementalSpec=v0\.2/);
    const streaming = results.filter((r) => r.dataState === 'streaming');
    assert.ok(streaming.length > 0, `results in parts before the last: ${JSON.stringify(results.map((r) => r.dataState))}`);
    const first = streaming[0].data;
    assert.equal(first.items.nodes.length, 1, 'the first result has the stream\'s initial item');
    assert.equal(first.items.nodes[0].rarity, undefined, 'and not the deferred rarity');
    const last = results.at(-1);
    assert.equal(last.error, undefined);
    const whole = await client.query({ query: apolloGql(plain), fetchPolicy: 'no-cache' });
    assert.deepEqual(last.data, whole.data);
    assert.equal(last.data.items.nodes.length, 4);
    assert.ok(last.data.items.nodes.every((n) => n.rarity && n.description !== undefined), 'every deferred field arrived');
  });
}

test('urql: @defer and @stream over multipart/mixed arrive in parts, and merge into the plain answer', async () => {
  const client = new UrqlClient({ url: `${gateway.url}/graphql`, exchanges: [fetchExchange], requestPolicy: 'network-only' });
  // urql's sources take a function, not an observer. Its last result
  // may come before it has read the response's close delimiter, and
  // leaving then aborts the read: the source, idle once the response
  // ends, is left to the garbage collector.
  const source = client.query(urqlGql(query), {});
  const results = await collect({
    subscribe: ({ next }) => source.subscribe(next),
  }, (r) => !r.hasNext, false);
  assert.ok(results.length > 1, `results: ${results.length}, want the parts one by one`);
  assert.equal(results[0].data.items.nodes.length, 1, 'the first result has the stream\'s initial item');
  assert.equal(results[0].data.items.nodes[0].rarity, undefined, 'and not the deferred rarity');
  const last = results.at(-1);
  assert.equal(last.error, undefined);
  const whole = await client.query(urqlGql(plain), {}).toPromise();
  assert.deepEqual(last.data, whole.data);
});
