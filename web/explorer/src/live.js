// Word of catalogue changes, over Server-Sent Events: one subscription at
// a time, with graphql-sse's client in its default "distinct connections"
// mode (a POST to /graphql with Accept: text/event-stream); the live
// views' queries (watchLive), each one stream of its view's answers; and
// the record pages whose drop tables come in parts (@stream), each one
// stream of its answer's parts.
//
// The gateway ends every stream after a while (-subscription-max-age, 30
// min by default) and at shutdown, with the protocol's "complete", so that
// no stream holds its place for good and a page comes back to whichever
// replica answers now. So complete is not the end: the explorer subscribes
// again, after a few seconds.
//
// Live updates are a nicety: when the gateway does not offer them (an
// older gateway, a proxy that buffers streams, too many streams open), the
// explorer works as before. A refusal is not an error to report: the
// client tries again a few times, politely (honouring Retry-After), then
// gives up quietly.

import { createClient } from 'graphql-sse';
import { ENDPOINT } from './graphql.js';
import { CATALOGUE_CHANGED } from './queries.js';

const RETRY_ATTEMPTS = 3;

// After complete, subscribe again 1–5 s later, at random: one shutdown
// completes every page's stream in the same instant, and the pages should
// not all come back in the same instant too.
const AGAIN_MIN_MS = 1000;
const AGAIN_SPREAD_MS = 4000;

// The gateway ends no stream for its age sooner than 0.9 s after it
// opened (-subscription-max-age is at least 1 s, less up to a tenth). A
// stream completed sooner was ended for another reason (a gateway shutting
// down, a server or proxy that ends every stream at once) that asking
// again every few seconds may not change: such ends in a row count as
// failed tries, with a refusal's backoff and limit.
const QUICK_END_MS = 500;

// watchLive asks operation as an event stream: a query marked @live, or
// one whose @stream asks for its answer in parts. onResult(result) for
// each event (a live query's first answer, then each one the catalogue
// changed; a streamed query's first part, then each later part), then
// onEnd(error, answered) once, when the stream ends: error when it was
// refused or cut (null when the gateway completed it: after a streamed
// query's last part, at a live query's age, at shutdown), and whether
// any event came. It is one request, whatever the events; it returns a
// function that ends it.
export function watchLive(operation, { onResult, onEnd }) {
  if (typeof fetch !== 'function' || typeof ReadableStream !== 'function') {
    onEnd(new Error('no event streams here'), false);
    return () => {};
  }
  let status = 0;
  let ended = false;
  let answered = false;
  let unsubscribe = () => {};
  const client = createClient({
    url: ENDPOINT,
    retryAttempts: 0,
    onNonLazyError: () => {},
    async fetchFn(input, init) {
      const res = await fetch(input, init);
      status = res.status;
      const type = res.headers.get('Content-Type') || '';
      if (res.ok && !/^text\/event-stream/i.test(type)) {
        // A gateway without live queries answers once, as JSON: the
        // caller asks again the usual way.
        res.body?.cancel().catch(() => {});
        return new Response(null, { status: 406, statusText: 'Not an event stream' });
      }
      return res;
    },
  });
  const stop = () => {
    if (ended) return false;
    ended = true;
    unsubscribe();
    client.dispose();
    return true;
  };
  const end = (error) => {
    if (stop()) onEnd(error, answered);
  };
  unsubscribe = client.subscribe(
    { query: operation.query, variables: operation.variables, operationName: operation.operationName },
    {
      next(result) {
        if (ended) return;
        answered = true;
        onResult(result);
      },
      error(err) {
        end(err instanceof Error ? err : new Error(`live query refused (HTTP ${status})`));
      },
      complete() {
        end(null);
      },
    },
  );
  return stop;
}

// startLive subscribes and calls onChange({ version, collections }) for
// each change, and onStatus('connecting' | 'live' | 'off') as the
// subscription goes. It returns a function that ends the subscription.
export function startLive({ onChange, onStatus }) {
  if (typeof fetch !== 'function' || typeof ReadableStream !== 'function') {
    onStatus('off');
    return () => {};
  }

  // What the last attempt got, for the retry policy below.
  let lastStatus = 0;
  let retryAfterMs = 0;
  let ended = false;
  let unsubscribe = () => {};
  let again = 0; // the timer of the next subscription
  let openedAt = 0;
  let quickEnds = 0;

  const client = createClient({
    url: ENDPOINT,
    retryAttempts: RETRY_ATTEMPTS,
    // Only used with lazy: false; never log an expected failure.
    onNonLazyError: () => {},
    async fetchFn(input, init) {
      const res = await fetch(input, init);
      lastStatus = res.status;
      retryAfterMs = retryAfter(res.headers.get('Retry-After'));
      const type = res.headers.get('Content-Type') || '';
      if (res.ok && !/^text\/event-stream/i.test(type)) {
        // A gateway without subscriptions may answer the POST as a
        // plain query: that is a refusal, not a stream to wait on.
        res.body?.cancel().catch(() => {});
        lastStatus = 406;
        return new Response(null, { status: 406, statusText: 'Not an event stream' });
      }
      return res;
    },
    async retry(retries) {
      // A 4xx other than 408 and 429 will not change by asking again.
      if (lastStatus >= 400 && lastStatus < 500 && lastStatus !== 408 && lastStatus !== 429) {
        throw new Error(`subscriptions are not available (HTTP ${lastStatus})`);
      }
      await sleep(Math.max(backoff(retries), retryAfterMs));
    },
  });

  function subscribe() {
    onStatus('connecting');
    unsubscribe = client.subscribe(
      { query: CATALOGUE_CHANGED, operationName: 'CatalogueChanged' },
      {
        next(result) {
          const change = result && result.data && result.data.catalogueChanged;
          if (change) {
            onStatus('live');
            onChange({
              version: String(change.version ?? ''),
              collections: Array.isArray(change.collections) ? change.collections.map(String) : [],
            });
          } else if (result && Array.isArray(result.errors)) {
            // The gateway does not know the subscription: nothing to wait for.
            finish();
          }
        },
        error() {
          // A refusal, or failures past the retries: give up.
          finish();
        },
        complete() {
          // Also called after finish() ends the subscription.
          if (ended) return;
          quickEnds = Date.now() - openedAt < QUICK_END_MS ? quickEnds + 1 : 0;
          if (quickEnds > RETRY_ATTEMPTS) {
            finish();
            return;
          }
          onStatus('connecting');
          const wait = quickEnds
            ? backoff(quickEnds - 1)
            : AGAIN_MIN_MS + Math.floor(Math.random() * AGAIN_SPREAD_MS);
          again = setTimeout(subscribe, wait);
        },
      },
      {
        connected() {
          openedAt = Date.now();
          if (!ended) onStatus('live');
        },
        connecting(reconnecting) {
          if (!ended && reconnecting) onStatus('connecting');
        },
      },
    );
  }

  function finish() {
    if (ended) return;
    ended = true;
    clearTimeout(again);
    onStatus('off');
    unsubscribe();
    client.dispose();
  }

  subscribe();

  // Leaving the page ends the stream cleanly rather than by a cut.
  const onPageHide = (e) => {
    if (!e.persisted) finish();
  };
  window.addEventListener('pagehide', onPageHide);

  return () => {
    window.removeEventListener('pagehide', onPageHide);
    finish();
  };
}

// backoff is the wait before the nth retry, from 0: 2, 4, 8 s… up to 30 s,
// and up to 2 s more at random, so that pages refused together do not
// come back together.
function backoff(n) {
  return Math.min(2000 * 2 ** n, 30000) + Math.floor(Math.random() * 2000);
}

function retryAfter(header) {
  if (!header) return 0;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.min(Math.max(seconds, 0), 120) * 1000;
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.min(Math.max(date - Date.now(), 0), 120000) : 0;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
