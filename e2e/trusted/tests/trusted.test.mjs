// Trusted documents with manifests the ecosystem's own tools wrote from
// src/ (run.sh generates them): the real gateway in enforce mode answers
// the listed operations by id and by text, over POST and GET, and refuses
// an unlisted one with PERSISTED_QUERY_NOT_LISTED; Apollo Client, with
// its persisted query link reading the manifest, gets its answers by id.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { generatePersistedQueryIdsFromManifest } from '@apollo/persisted-query-lists';
import { parse } from 'graphql';

import { startGateway } from '../../gateway.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const generated = join(here, '..', 'generated');
const artifacts = process.env.ARTIFACTS_DIR ?? join(here, '..', 'artifacts');
const apolloFile = join(generated, 'persisted-query-manifest.json');
const codegenFile = join(generated, 'gql', 'persisted-documents.json');

// Each operation's variables, by name.
const variables = {
  MonsterPage: { id: 1 },
  ItemList: { first: 3, withDroppers: true },
  Search: { text: 'bone' },
};

// A query no manifest lists (the apps do not ship it).
const unlisted = '{ items(first: 1) { nodes { id } } }';

async function post(url, body, accept = 'application/json') {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: accept },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

function assertAnswered({ status, body }, what) {
  assert.equal(status, 200, `${what}: ${JSON.stringify(body)}`);
  assert.equal(body.errors, undefined, `${what}: ${JSON.stringify(body.errors)}`);
  assert.ok(body.data && Object.keys(body.data).length > 0, `${what}: no data`);
}

function assertRefused({ status, body }, what) {
  assert.ok(status === 422 || status === 400, `${what}: status ${status}`);
  assert.equal(body.errors?.[0]?.extensions?.code, 'PERSISTED_QUERY_NOT_LISTED', `${what}: ${JSON.stringify(body)}`);
  assert.equal(body.data, undefined, `${what}: data beside the refusal`);
}

describe("Apollo's persisted query manifest (generate-persisted-query-manifest)", () => {
  const manifest = JSON.parse(readFileSync(apolloFile, 'utf8'));
  let gw;
  before(async () => {
    gw = await startGateway({ logName: 'apollo', artifacts, args: ['-trusted-documents', apolloFile] });
  });
  after(async () => assert.equal(await gw?.stop(), 0));

  test('the tool wrote the three operations of src/', () => {
    assert.equal(manifest.format, 'apollo-persisted-query-manifest');
    assert.deepEqual(manifest.operations.map((o) => o.name).sort(), ['ItemList', 'MonsterPage', 'Search']);
  });

  test('each listed operation answers by id (the APQ hash) and by its text, POST and GET', async () => {
    for (const op of manifest.operations) {
      const vars = variables[op.name];
      const byId = { operationName: op.name, variables: vars,
        extensions: { persistedQuery: { version: 1, sha256Hash: op.id } } };
      assertAnswered(await post(gw.url, byId), `${op.name} by id`);
      assertAnswered(await post(gw.url, { query: op.body, operationName: op.name, variables: vars }), `${op.name} by text`);
      assertAnswered(await post(gw.url, { documentId: `sha256:${op.id}`, variables: vars }), `${op.name} by documentId`);
      const qs = new URLSearchParams({ operationName: op.name, variables: JSON.stringify(vars),
        extensions: JSON.stringify(byId.extensions) });
      const get = await fetch(`${gw.url}/graphql?${qs}`);
      assertAnswered({ status: get.status, body: await get.json() }, `${op.name} by id, GET`);
    }
  });

  test('an unlisted operation is refused, and its hash is not registered', async () => {
    assertRefused(await post(gw.url, { query: unlisted }), 'unlisted text');
    assertRefused(await post(gw.url, { query: unlisted }, 'application/graphql-response+json'), 'unlisted text, graphql-response+json');
    const hash = await sha256(unlisted);
    const register = { query: unlisted, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } };
    assertRefused(await post(gw.url, register), 'unlisted APQ registration');
    assertRefused(await post(gw.url, { extensions: register.extensions }), 'the unlisted hash, after');
  });

  test("Apollo Client's persisted query link, reading the manifest, gets its answers by id", async () => {
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      link: new PersistedQueryLink(generatePersistedQueryIdsFromManifest({ loadManifest: async () => manifest }))
        .concat(new HttpLink({ uri: `${gw.url}/graphql` })),
    });
    const { data } = await client.query({ query: parse(readFileSync(join(here, '..', 'src', 'monster.graphql'), 'utf8')),
      variables: variables.MonsterPage });
    assert.equal(data.monster.id, 1);
  });
});

describe("GraphQL Code Generator's persisted documents (client preset)", () => {
  const documents = JSON.parse(readFileSync(codegenFile, 'utf8'));
  let gw;
  before(async () => {
    gw = await startGateway({ logName: 'codegen', artifacts,
      args: ['-trusted-documents', codegenFile, '-trusted-documents-mode', 'enforce'] });
  });
  after(async () => assert.equal(await gw?.stop(), 0));

  test('each listed document answers by documentId and by its text; an unlisted one is refused', async () => {
    const ids = Object.keys(documents);
    assert.equal(ids.length, 2);
    for (const id of ids) {
      const name = parse(documents[id]).definitions[0].name.value;
      assertAnswered(await post(gw.url, { documentId: id, variables: variables[name] }), `${name} by documentId`);
      assertAnswered(await post(gw.url, { query: documents[id], variables: variables[name] }), `${name} by text`);
    }
    assertRefused(await post(gw.url, { query: unlisted }), 'unlisted text');
    assertRefused(await post(gw.url, { documentId: 'sha256:' + '0'.repeat(64) }), 'unknown documentId');
  });
});

async function sha256(text) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Buffer.from(digest).toString('hex');
}
