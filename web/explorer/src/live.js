// Word of catalogue changes, over Server-Sent Events: one subscription per
// page load, with graphql-sse's client in its default "distinct
// connections" mode (a POST to /graphql with Accept: text/event-stream).
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
      const backoff = 2000 * 2 ** retries + Math.floor(Math.random() * 2000);
      await sleep(Math.max(backoff, retryAfterMs));
    },
  });

  onStatus('connecting');
  const stop = client.subscribe(
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
        finish();
      },
      complete() {
        finish();
      },
    },
    {
      connected() {
        if (!ended) onStatus('live');
      },
      connecting(reconnecting) {
        if (!ended && reconnecting) onStatus('connecting');
      },
    },
  );

  function finish() {
    if (ended) return;
    ended = true;
    onStatus('off');
    stop();
    client.dispose();
  }

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
