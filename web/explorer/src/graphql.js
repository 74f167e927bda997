// The one way the explorer asks the gateway: a named query with variables,
// sent as a GET so that the browser (and any CDN) can cache the answer.
//
// The gateway answers a GET query with an ETag and
// `Cache-Control: public, max-age=N`. A normal fetch may reuse a cached
// answer for N seconds without asking; after the catalogue changed, pass
// `fresh: true`: `cache: 'no-cache'` makes the browser revalidate with
// If-None-Match, so an unchanged answer costs a 304 and a changed one comes
// back new.

export const ENDPOINT = '/graphql';

const ACCEPT = 'application/graphql-response+json, application/json';

// The GET URL of an operation. Values travel only in `variables`, never
// spliced into the query text.
export function requestURL({ query, variables, operationName }) {
  const params = new URLSearchParams();
  params.set('query', query);
  if (variables && Object.keys(variables).length > 0) {
    params.set('variables', JSON.stringify(variables));
  }
  if (operationName) params.set('operationName', operationName);
  return `${ENDPOINT}?${params}`;
}

// A failed request: an HTTP error, an answer that is not GraphQL, or a
// GraphQL answer with errors and no data.
export class RequestError extends Error {
  constructor(message, { status = 0, messages = [], head = '' } = {}) {
    super(message);
    this.name = 'RequestError';
    this.status = status;
    // The GraphQL errors' messages, when the answer had any.
    this.messages = messages;
    // A headline for them: the HTTP status, when it failed.
    this.head = head;
  }
}

// Runs an operation. Resolves to { data, errors, response } where errors are
// GraphQL errors that came with data (a partial answer); rejects with a
// RequestError when there is no data to show, and with the fetch's own
// AbortError when `signal` aborts it.
export async function runQuery(operation, { signal, fresh = false } = {}) {
  const url = requestURL(operation);
  let res;
  try {
    res = await fetch(url, {
      method: 'GET',
      headers: { Accept: ACCEPT },
      signal,
      cache: fresh ? 'no-cache' : 'default',
    });
  } catch (err) {
    if (err && err.name === 'AbortError') throw err;
    throw new RequestError('The gateway could not be reached. Check your connection and try again.');
  }
  const response = {
    status: res.status,
    statusText: res.statusText,
    etag: res.headers.get('ETag'),
    cacheControl: res.headers.get('Cache-Control'),
    url,
  };

  let body = null;
  const type = res.headers.get('Content-Type') || '';
  if (/json/i.test(type)) {
    try {
      body = await res.json();
    } catch (err) {
      if (err && err.name === 'AbortError') throw err;
      body = null;
    }
  }
  const messages = errorMessages(body);

  if (!res.ok) {
    // application/graphql-response+json answers a request that failed
    // validation with a 4xx and the reasons in errors[].
    const head = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
    throw new RequestError(messages.length ? `${head}: ${messages.join('; ')}` : head, {
      status: res.status,
      messages,
      head,
    });
  }
  if (!body || typeof body !== 'object') {
    throw new RequestError(`The gateway's answer was not GraphQL (HTTP ${res.status}, ${type || 'no type'}).`, {
      status: res.status,
    });
  }
  if (body.data == null) {
    throw new RequestError(messages.length ? messages.join('; ') : 'The answer had no data.', {
      status: res.status,
      messages,
    });
  }
  return { data: body.data, errors: messages, response };
}

function errorMessages(body) {
  if (!body || !Array.isArray(body.errors)) return [];
  return body.errors.map((e) => (e && typeof e.message === 'string' ? e.message : JSON.stringify(e)));
}
