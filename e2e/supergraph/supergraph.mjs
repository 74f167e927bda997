// A supergraph on 127.0.0.1, from its parts: each subgraph's SDL fetched
// live (`_service { sdl }`), composed by a real composition library
// (@theguild/federation-composition, MIT), and served by a real federation
// gateway (Hive Gateway's runtime) behind node:http. A counting proxy, put
// in front of a subgraph, records what the router sends it.

import { createServer } from 'node:http';
import { composeServices } from '@theguild/federation-composition';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { parse } from 'graphql';

// post sends a GraphQL request and returns the parsed answer, refusing a
// non-200 status; every request is bounded in time.
export async function post(url, query, variables) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

// fetchSDL asks a subgraph for its SDL, as a composition step does.
export async function fetchSDL(url) {
  const answer = await post(url, '{ _service { sdl } }');
  if (answer.errors || typeof answer.data?._service?.sdl !== 'string') {
    throw new Error(`${url} gave no _service.sdl: ${JSON.stringify(answer).slice(0, 300)}`);
  }
  return answer.data._service.sdl;
}

// compose composes subgraphs ({ name, url, sdl }) into a supergraph. It
// returns { supergraphSdl } or { errors }, each error with its message and
// its extensions.code (the composition's rule, e.g. FIELD_TYPE_MISMATCH).
export function compose(subgraphs) {
  const result = composeServices(subgraphs.map(({ name, url, sdl }) => ({ name, url, typeDefs: parse(sdl) })));
  if (result.errors?.length) {
    return { errors: result.errors.map((e) => ({ message: e.message, code: e.extensions?.code })) };
  }
  return { supergraphSdl: result.supergraphSdl };
}

// composeLive fetches each subgraph's SDL and composes them, throwing with
// the composition's errors when it fails.
export async function composeLive(subgraphs) {
  const withSDL = await Promise.all(subgraphs.map(async (s) => ({ ...s, sdl: await fetchSDL(s.url) })));
  const result = compose(withSDL);
  if (result.errors) {
    throw new Error(`composition failed:\n${result.errors.map((e) => `  ${e.code}: ${e.message}`).join('\n')}`);
  }
  return { ...result, subgraphs: withSDL };
}

// listen starts server on 127.0.0.1:port (0: a free one) and returns its
// origin.
async function listen(server, port) {
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return `http://127.0.0.1:${server.address().port}`;
}

function closer(server) {
  return () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); });
}

// startRouter serves supergraphSdl with Hive Gateway's runtime at /graphql
// on 127.0.0.1. Its own logging is off unless logging says otherwise.
export async function startRouter(supergraphSdl, { port = 0, logging = false } = {}) {
  const gateway = createGatewayRuntime({
    supergraph: () => supergraphSdl,
    logging,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: false,
  });
  const server = createServer(gateway);
  const origin = await listen(server, port);
  const close = closer(server);
  return {
    url: `${origin}/graphql`,
    async close() {
      await close();
      await gateway.dispose();
    },
  };
}

// startCountingProxy forwards POSTs to target (a subgraph's /graphql)
// unchanged, and records each request's parsed body in requests, so that
// a test can count what the router asked that subgraph. entitiesRequests()
// are those asking `_entities`, each with its representations.
export async function startCountingProxy(target, { port = 0 } = {}) {
  const requests = [];
  const server = createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const body = Buffer.concat(chunks);
      try { requests.push(JSON.parse(body.toString())); } catch { requests.push({ unparsed: body.toString() }); }
      const upstream = await fetch(target, {
        method: req.method,
        headers: { 'Content-Type': req.headers['content-type'] ?? 'application/json', Accept: 'application/json' },
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
        signal: AbortSignal.timeout(20_000),
      });
      const answer = Buffer.from(await upstream.arrayBuffer());
      res.writeHead(upstream.status, { 'Content-Type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(answer);
    } catch (err) {
      res.writeHead(502, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ errors: [{ message: `proxy: ${err.message}` }] }));
    }
  });
  const origin = await listen(server, port);
  return {
    url: `${origin}/graphql`,
    requests,
    reset() { requests.length = 0; },
    entitiesRequests() {
      return requests
        .filter((r) => typeof r.query === 'string' && /\b_entities\b/.test(r.query))
        .map((r) => ({ query: r.query, representations: representations(r.variables) }));
    },
    close: closer(server),
  };
}

// representations are those in a request's variables, however the
// router named them (one list, or one per aliased _entities field when it
// batched several).
function representations(variables = {}) {
  return Object.values(variables ?? {})
    .filter((value) => Array.isArray(value) && value.every((v) => v && typeof v === 'object' && '__typename' in v))
    .flat();
}
