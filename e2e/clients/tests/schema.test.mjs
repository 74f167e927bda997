// /schema.graphql is what code generators read: a valid SDL document,
// with the descriptions, that graphql-js builds into the same schema the
// endpoint serves by introspection, but for the federation subgraph's
// fields.

import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildClientSchema, buildSchema, getIntrospectionQuery, lexicographicSortSchema, printSchema } from 'graphql';
import { startGateway } from '../../gateway.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const artifacts = process.env.ARTIFACTS_DIR || join(here, '..', 'artifacts');
let gateway;

before(async () => { gateway = await startGateway({ logName: 'schema-gateway', artifacts }); });
after(async () => { assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly'); });

test('the SDL builds, with descriptions, into the schema introspection gives', async () => {
  const res = await fetch(`${gateway.url}/schema.graphql`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  const sdl = await res.text();
  const schema = buildSchema(sdl);
  assert.ok(schema.getSubscriptionType().getFields().catalogueChanged, 'catalogueChanged');
  assert.match(schema.getType('Item').description ?? '', /\S/, 'Item has its description');

  const introspection = await fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: getIntrospectionQuery() }),
  }).then((r) => r.json());
  // Introspection describes what /graphql runs, a federation subgraph's
  // _entities and _service with it, as any subgraph's does; the SDL is
  // the API schema, without them (a router reads _service { sdl }).
  const subgraphTypes = new Set(['_Any', '_Entity', '_Service']);
  const subgraphFields = new Set(['_entities', '_service']);
  const types = introspection.data.__schema.types;
  const query = types.find((t) => t.name === introspection.data.__schema.queryType.name);
  assert.deepEqual(query.fields.filter((f) => subgraphFields.has(f.name)).map((f) => f.name).sort(), ['_entities', '_service']);
  introspection.data.__schema.types = types.filter((t) => !subgraphTypes.has(t.name));
  query.fields = query.fields.filter((f) => !subgraphFields.has(f.name));
  // The same schema, in whatever order each lists it.
  const print = (s) => printSchema(lexicographicSortSchema(s));
  assert.equal(print(schema), print(buildClientSchema(introspection.data)));

  const etag = res.headers.get('etag');
  const again = await fetch(`${gateway.url}/schema.graphql`, { headers: { 'If-None-Match': etag } });
  assert.equal(again.status, 304);
});
