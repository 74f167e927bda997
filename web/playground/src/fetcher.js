// GraphiQL's fetcher: how the playground talks to the gateway. Queries go
// by GET where they fit (the gateway can cache those), everything else by
// POST, and subscriptions, and queries with @defer or @stream, over
// Server-Sent Events: GraphiQL shows each part as it arrives.
import { BREAK, Kind, parse, visit } from 'graphql';
import { createClient } from 'graphql-sse';

const endpoint = '/graphql';

// Beyond this many bytes a GET's URL risks the limits of servers and
// proxies on the way (the gateway's -max-url-bytes is 8192 by default), so
// such a query goes by POST instead.
const maxGetURLBytes = 8000;

const accept = 'application/graphql-response+json, application/json';

/**
 * @param {{query: string, variables?: object|null, operationName?: string|null}} params
 * @param {{headers?: Record<string, string>}} [opts] headers from GraphiQL's headers editor
 */
export function fetcher(params, opts) {
  const type = operationType(params.query, params.operationName);
  if (type === 'subscription' || (type === 'query' && incremental(params.query))) {
    return subscribe(params, opts?.headers);
  }
  const headers = new Headers(opts?.headers);
  if (!headers.has('Accept')) headers.set('Accept', accept);

  if (type === 'query') {
    const url = `${endpoint}?${queryString(params)}`;
    // URLSearchParams writes only ASCII, so the length counts bytes.
    if (url.length < maxGetURLBytes) {
      return send(url, { method: 'GET', headers });
    }
  }
  headers.set('Content-Type', 'application/json');
  return send(endpoint, { method: 'POST', headers, body: JSON.stringify(requestBody(params)) });
}

// operationType is the type of the operation the request runs: 'query',
// 'mutation' or 'subscription'; null when the document does not parse or
// names no single operation. The server then explains what is wrong, and
// such a request goes by POST.
function operationType(query, operationName) {
  let doc;
  try {
    doc = parse(query);
  } catch {
    return null;
  }
  const ops = doc.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const op = operationName ? ops.find((o) => o.name?.value === operationName) : ops.length === 1 && ops[0];
  return op ? op.operation : null;
}

// incremental reports a document with @defer or @stream: the gateway
// answers such a query in parts, as an event stream's next events, which
// GraphiQL merges as they come.
function incremental(query) {
  let found = false;
  visit(parse(query), {
    Directive(node) {
      if (node.name.value === 'defer' || node.name.value === 'stream') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

// requestBody is the request's parameters with only those that are set.
function requestBody({ query, variables, operationName }) {
  const body = { query };
  if (variables != null && Object.keys(variables).length > 0) body.variables = variables;
  if (operationName) body.operationName = operationName;
  return body;
}

function queryString(params) {
  const { query, variables, operationName } = requestBody(params);
  const qs = new URLSearchParams({ query });
  if (variables) qs.set('variables', JSON.stringify(variables));
  if (operationName) qs.set('operationName', operationName);
  return qs.toString();
}

// send returns the response's GraphQL result. A body that is not JSON (a
// proxy's error page, say) is thrown, and GraphiQL shows it.
async function send(url, init) {
  const res = await fetch(url, init);
  const text = await res.text();
  if (/json/i.test(res.headers.get('Content-Type') ?? '')) {
    try {
      return JSON.parse(text);
    } catch {
      // reported below
    }
  }
  throw new Error(`${res.status} ${res.statusText}: ${text}`);
}

// subscribe streams a subscription's results to GraphiQL as an async
// iterable; GraphiQL's stop button ends it, which closes the request.
// graphql-sse's default "distinct connections" mode POSTs each
// subscription with Accept: text/event-stream. A client per subscription,
// as each may carry its own headers; in that mode a client holds nothing
// open between subscriptions.
function subscribe(params, headers) {
  const client = createClient({
    url: endpoint,
    headers: () => headers ?? {},
    fetchFn: fetchEventStream,
    // Report a lost connection at once rather than after a minute of
    // retries: here a person is watching, and can run it again.
    retryAttempts: 0,
  });
  return client.iterate(requestBody(params));
}

// fetchEventStream is fetch for graphql-sse. The gateway refuses a
// subscription it cannot take (503 while too many are open, say) with
// GraphQL errors as JSON, which graphql-sse would report by status line
// alone: such a body is handed on as a stream of that one result instead.
async function fetchEventStream(url, init) {
  const res = await fetch(url, init);
  if (res.ok || !/json/i.test(res.headers.get('Content-Type') ?? '')) return res;
  // Encoded anew to be sure it is one line, as an event's data must be.
  const result = JSON.stringify(await res.json());
  return new Response(`event: next\ndata: ${result}\n\nevent: complete\n\n`, {
    headers: { 'Content-Type': 'text/event-stream' },
  });
}
