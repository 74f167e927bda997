// Checks of the playground's own code, run by `npm test` (node's test
// runner; no browser needed).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { buildSchema, parse, validate } from 'graphql';
import { defaultQuery, defaultVariables } from './default-query.js';
import { fetcher } from './fetcher.js';

test('the default query and the subscription its comment shows are valid against the schema', () => {
  // Every schema file, the reference graph's directive declarations too,
  // and the federation directives they use (@link, @key), which gqlgen's
  // federation plugin declares when it generates.
  const dir = new URL('../../../graph/', import.meta.url);
  const sdl = readdirSync(dir)
    .filter((f) => f.endsWith('.graphqls'))
    .sort()
    .map((f) => readFileSync(new URL(f, dir), 'utf8'))
    .concat(`
directive @link(url: String!, import: [String!]) repeatable on SCHEMA
directive @key(fields: String!, resolvable: Boolean = true) repeatable on OBJECT | INTERFACE
`)
    .join('\n');
  const schema = buildSchema(sdl);
  const subscription = defaultQuery.match(/^# (subscription \{.*\})$/m)?.[1];
  assert.ok(subscription, 'the comment shows the subscription');
  for (const doc of [defaultQuery, subscription]) {
    assert.deepEqual(validate(schema, parse(doc)).map((e) => e.message), []);
  }
});

test("the playground opens on the README's first example, with its variables", () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const fences = [...readme.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)];
  const first = fences.findIndex(([, lang]) => lang === 'graphql');
  assert.ok(first >= 0, 'the README shows a GraphQL example');
  const query = defaultQuery.split('\n').filter((l) => !l.startsWith('#')).join('\n').trim();
  assert.equal(query, fences[first][2].trim());
  const variables = fences.slice(first + 1).find(([, lang]) => lang === 'json');
  assert.deepEqual(JSON.parse(defaultVariables), JSON.parse(variables[2]));
});

test('the opening comment is three short lines, so the example query is above the fold', () => {
  const lines = defaultQuery.split('\n');
  const comment = lines.findIndex((l) => !l.startsWith('#'));
  assert.equal(comment, 3, `the comment is ${comment} lines`);
  for (const line of lines.slice(0, 3)) {
    assert.ok(line.length <= 48, `"${line}" is ${line.length} characters, more than a narrow editor pane shows`);
  }
  assert.equal(lines[3], '');
  assert.match(lines[4], /^query \w+(\(.*\))? \{$/, 'the query starts on the fifth line');
});

// sent records the requests the fetcher makes, answering each with body.
function stubFetch(body, contentType = 'application/json') {
  const sent = [];
  globalThis.fetch = async (url, init) => {
    sent.push({ url, init });
    return new Response(body, { headers: { 'Content-Type': contentType } });
  };
  return sent;
}

test('a query goes by GET with only the parameters that are set', async () => {
  const sent = stubFetch('{"data":{"x":1}}');
  const result = await fetcher({ query: 'query Q($n: Int) { x(n: $n) }', variables: { n: 2 }, operationName: 'Q' });
  assert.deepEqual(result, { data: { x: 1 } });
  assert.equal(sent[0].init.method, 'GET');
  const url = new URL(sent[0].url, 'http://gateway');
  assert.equal(url.pathname, '/graphql');
  assert.deepEqual([...url.searchParams.keys()], ['query', 'variables', 'operationName']);
  assert.equal(url.searchParams.get('variables'), '{"n":2}');
  assert.equal(sent[0].init.headers.get('Accept'), 'application/graphql-response+json, application/json');

  await fetcher({ query: '{ x }', variables: null });
  assert.deepEqual([...new URL(sent[1].url, 'http://gateway').searchParams.keys()], ['query']);
});

test('a long query, a mutation and an unparsable document go by POST', async () => {
  const sent = stubFetch('{"data":null}');
  for (const query of [`{ x } # ${'y'.repeat(8000)}`, 'mutation { x }', '{ x']) {
    await fetcher({ query });
  }
  for (const { url, init } of sent) {
    assert.equal(url, '/graphql');
    assert.equal(init.method, 'POST');
    assert.equal(init.headers.get('Content-Type'), 'application/json');
    assert.deepEqual(Object.keys(JSON.parse(init.body)), ['query']);
  }
});

test('a subscription streams over SSE', async () => {
  const sent = stubFetch('event: next\ndata: {"data":{"n":1}}\n\nevent: next\ndata: {"data":{"n":2}}\n\nevent: complete\n\n', 'text/event-stream');
  const results = [];
  for await (const r of fetcher({ query: 'subscription S { n }', operationName: 'S' })) results.push(r);
  assert.deepEqual(results, [{ data: { n: 1 } }, { data: { n: 2 } }]);
  assert.equal(sent[0].init.method, 'POST');
  assert.equal(sent[0].init.headers.accept, 'text/event-stream');
  assert.deepEqual(JSON.parse(sent[0].init.body), { query: 'subscription S { n }', operationName: 'S' });
});

test('a query with @defer or @stream streams its parts over SSE', async () => {
  const parts = [
    '{"data":{"item":{"id":1}},"hasNext":true}',
    '{"incremental":[{"data":{"name":"Copper Ore"},"path":["item"]}],"hasNext":false}',
  ];
  const sent = stubFetch(parts.map((p) => `event: next\ndata: ${p}\n\n`).join('') + 'event: complete\n\n', 'text/event-stream');
  const results = [];
  for await (const r of fetcher({ query: '{ item(id: 1) { id ... @defer { name } } }' })) results.push(r);
  assert.deepEqual(results, parts.map((p) => JSON.parse(p)));
  assert.equal(sent[0].init.method, 'POST');
  assert.equal(sent[0].init.headers.accept, 'text/event-stream');
});

test("a refused subscription shows the server's errors", async () => {
  globalThis.fetch = async () =>
    new Response('{"errors":[{"message":"too many"}]}', { status: 503, headers: { 'Content-Type': 'application/json' } });
  const results = [];
  for await (const r of fetcher({ query: 'subscription { n }' })) results.push(r);
  assert.deepEqual(results, [{ errors: [{ message: 'too many' }] }]);
});
