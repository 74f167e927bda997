// The explorer: a small frontend of the gateway's GraphQL API, and living
// documentation of how a frontend uses it.
//
// - URLs are real paths under /explorer, moved between with the History
//   API: links and the search form push a state, back and forward pop one,
//   and loading any of them anew shows the same view.
// - Each view sends exactly one request: a named GraphQL query with
//   variables, as a cacheable GET (see graphql.js); or, for the lists and
//   the world bosses, the same query marked @live, as one event stream
//   whose later answers are shown in place (askLive); or, for the record
//   pages with long drop tables, the query whose @stream asks for them in
//   parts, as one event stream whose parts are drawn as they come
//   (askInParts).
// - On the views that are not live, one subscription tells of catalogue
//   changes (live.js), and is renewed when the gateway completes it; a
//   notice then offers to ask the current view's query again, revalidating
//   past the browser's cache. A live view closes it: a page holds one
//   stream at a time.

import './style.css';
import { h, replace } from './dom.js';
import { fromNow, refreshBattles } from './format.js';
import { RequestError, requestURL, runQuery } from './graphql.js';
import { FIELDS, KINDS } from './kinds.js';
import { startLive, watchLive } from './live.js';
import { firstResult, mergePart } from './incremental.js';
import { inParts, liveQuery } from './queries.js';
import { isExplorerPath, match, paths } from './routes.js';
import { themeToggle } from './theme.js';
import { typeahead } from './typeahead.js';
import { home } from './views/home.js';
import { item } from './views/item.js';
import { filterURL, listView } from './views/list.js';
import { monster } from './views/monster.js';
import { RECORD_VIEWS } from './views/records.js';
import { search } from './views/search.js';

const SITE = 'Catalogue explorer';
const recordViews = { ...RECORD_VIEWS, items: item, monsters: monster };
const lists = {};

// The view that shows a route.
function viewOf(route) {
  if (route.name === 'home') return home;
  if (route.name === 'search') return search;
  if (route.name === 'record') return recordViews[route.field];
  if (route.name === 'list') return (lists[route.field] ??= listView(route.field));
  return null;
}

// Whether a view shows world bosses, which change by themselves and are
// refreshed as soon as the catalogue says so.
function showsBosses(route) {
  return route.name === 'home' || route.field === 'worldBosses';
}

const main = document.getElementById('main');
const form = document.getElementById('search-form');
const input = document.getElementById('search-input');
const notice = document.getElementById('change-notice');
const noticeText = document.getElementById('change-notice-text');
const reloadButton = document.getElementById('change-reload');
const liveStatus = document.getElementById('live-status');
const announce = document.getElementById('announce');
const how = {
  request: document.getElementById('how-request'),
  query: document.getElementById('query-text'),
  variablesLabel: document.getElementById('how-variables-label'),
  variablesBox: document.getElementById('how-variables-box'),
  variables: document.getElementById('how-variables'),
  response: document.getElementById('how-response'),
};

// The view on screen (or on its way): its route, operation and the
// controller that cancels its request.
let current = null;
// Once the catalogue changed, answers the browser cached before may be
// stale: from then on every query revalidates (a 304 when unchanged).
let catalogueChanged = false;
let changeCount = 0;
const changedCollections = new Set();

// ---------------------------------------------------------------------------
// Showing a view
// ---------------------------------------------------------------------------

async function show({ fresh = false, focus = false, scrollY = null, silent = false } = {}) {
  const route = match(window.location);
  if (!silent) {
    input.value = route.name === 'search' ? route.q : '';
    suggestions.reset();
  }
  if (current) current.controller.abort();

  const view = viewOf(route);
  markCollection(route.field);
  const controller = new AbortController();
  // streaming: the view's live query is open; updates: the answers it
  // sent after the first.
  const token = { route, controller, key: locationKey(), streaming: false, updates: 0 };
  current = token;

  if (!view) {
    followChanges(true);
    describe(null);
    finish(notFound(route), 'Not found', { focus, scrollY });
    return;
  }

  const live = Boolean(view.live);
  const operation = live ? liveQuery(view.operation(route)) : view.operation(route);
  const mode = howAsked(view, operation);
  if (!live) followChanges(true);
  const revalidate = fresh || catalogueChanged;
  const changesBefore = changeCount;
  describe(operation, null, mode);
  // The page on screen stays until the next one is ready (no blank flash,
  // no jump); a first load has nothing to keep.
  if (!main.querySelector('h1')) {
    replace(main, h('p', { class: 'loading', 'data-testid': 'loading', role: 'status' }, 'Loading…'));
  }
  main.setAttribute('aria-busy', 'true');

  let outcome;
  try {
    outcome = live
      ? await askLive(operation, token, view, route, revalidate)
      : mode === 'parts'
        ? await askInParts(operation, token, view, route, revalidate)
        : await runQuery(operation, { signal: controller.signal, fresh: revalidate });
  } catch (err) {
    if (err && err.name === 'AbortError') return;
    if (current !== token) return;
    describe(operation, { status: err instanceof RequestError ? err.status : 0, failed: true }, mode);
    finish(errorBox(err), 'Error', { focus, scrollY });
    return;
  }
  if (current !== token) return;
  if (revalidate && changeCount === changesBefore) hideNotice();
  present(token, view, route, operation, outcome, { focus, scrollY, silent, revalidate });
  token.presented = true;
}

// howAsked is how a view's operation is sent: 'live' (an event stream of
// answers), 'parts' (an event stream of one answer's parts, as its @stream
// asks) or 'get' (one cacheable GET).
function howAsked(view, operation) {
  if (view.live) return 'live';
  return inParts(operation) ? 'parts' : 'get';
}

// present shows a view's answer: a first one (focus, scrollY), or, silent,
// a live view's newer answer or more of an answer in parts in place, the
// reader's place kept (anchor: the row they are reading too).
function present(token, view, route, operation, outcome, { focus = false, scrollY = null, silent = false, revalidate = false, anchor = false }) {
  const { data, errors, response } = outcome;
  describe(operation, { ...response, revalidated: revalidate }, howAsked(view, operation));

  if (view.found && !view.found(data)) {
    // null with errors is a failure, not an absent record.
    if (errors.length) {
      finish(errorBox(new RequestError(errors.join('; '), { messages: errors })), 'Error', { focus, scrollY });
    } else {
      finish(notFound(route), 'Not found', { focus, scrollY });
    }
    return;
  }
  // A partial answer: show what came, and what went wrong.
  const partial = errors.length
    ? errorBox(new RequestError('Part of this page could not be loaded.', { messages: errors, head: 'Part of this page could not be loaded:' }), { retry: false, page: false })
    : null;
  if (silent) {
    // A live refresh, or a part of the answer, keeps the reader's place:
    // where they scrolled to, what has the focus, when it is still there,
    // and how they sorted its tables (placeOf).
    // A live list's filters keep what the reader typed and has not sent,
    // and stay unfolded on a phone if they were.
    const place = placeOf(anchor);
    const typed = [...main.querySelectorAll('form.filters [name]')].map((el) => [el.name, el.value]);
    const unfolded = main.querySelector('.filters-box.open') != null;
    const y = window.scrollY;
    finish([crumbs(route, data, view), partial, view.render(data, route)], view.title(data, route), { focus: false, scrollY: y });
    view.mounted?.(main);
    for (const [name, value] of typed) {
      const el = main.querySelector(`form.filters [name="${CSS.escape(name)}"]`);
      if (el) el.value = value;
    }
    if (unfolded) main.querySelector('[data-testid="filters-toggle"]')?.click();
    place();
    return;
  }
  finish([crumbs(route, data, view), partial, view.render(data, route)], view.title(data, route), { focus, scrollY });
  view.mounted?.(main);
}

// placeOf notes what a redraw of main must keep of the reader's place,
// and returns the function that puts it back on the new content: the
// focus (on the same link, id, or the same one of the elements with its
// data-testid, a table's sort button say); each sortable table's sort and
// "Show all columns" (tables come in the same order in every drawing of a
// view); and, with anchor, when the page is scrolled, the row or heading
// at the top of the screen, found again by its id or text, at the same
// height: a drop table's rows that arrive sort in above what the reader
// is looking at, and would push it down.
function placeOf(anchor) {
  const focused = document.activeElement?.closest?.('main') ? document.activeElement : null;
  const testid = focused?.dataset.testid;
  const focus = focused && {
    href: focused.getAttribute('href'),
    id: focused.id,
    testid,
    nth: testid ? [...main.querySelectorAll(`[data-testid="${CSS.escape(testid)}"]`)].indexOf(focused) : -1,
  };
  const headers = (t) => [...(t.tHead?.rows[0]?.cells ?? [])];
  const sorts = [...main.querySelectorAll('table.sortable')].map((t) => {
    const column = headers(t).findIndex((th) => th.hasAttribute('aria-sort'));
    return {
      column,
      desc: headers(t)[column]?.getAttribute('aria-sort') === 'descending',
      all: t.closest('.drop-table')?.classList.contains('all-columns') ?? false,
    };
  });
  const marks = () => [...main.querySelectorAll('h2, tbody tr')];
  const keyOf = (el) => el.id || `${el.tagName} ${el.textContent}`;
  let top = null;
  if (anchor && window.scrollY > 0) {
    const all = marks();
    const el = all.find((x) => x.getBoundingClientRect().bottom > 0);
    if (el) top = { key: keyOf(el), nth: all.filter((x) => keyOf(x) === keyOf(el)).indexOf(el), y: el.getBoundingClientRect().top };
  }
  return () => {
    [...main.querySelectorAll('table.sortable')].forEach((t, i) => {
      const want = sorts[i];
      if (!want || want.column < 0) return;
      const th = headers(t)[want.column];
      const button = th?.querySelector('button');
      // A header's first click sorts by it in its own direction, the next
      // turns it round.
      if (button && !th.hasAttribute('aria-sort')) button.click();
      if (button && (th.getAttribute('aria-sort') === 'descending') !== want.desc) button.click();
      const toggle = t.closest('.drop-table')?.querySelector('.columns-toggle');
      if (want.all && toggle?.getAttribute('aria-pressed') === 'false') toggle.click();
    });
    if (top) {
      const same = marks().filter((x) => keyOf(x) === top.key)[top.nth];
      if (same) window.scrollBy(0, same.getBoundingClientRect().top - top.y);
    }
    if (!focus) return;
    const again = (focus.href && main.querySelector(`a[href="${CSS.escape(focus.href)}"]`))
      || (focus.id && document.getElementById(focus.id))
      || (focus.testid && main.querySelectorAll(`[data-testid="${CSS.escape(focus.testid)}"]`)[focus.nth]);
    if (again) again.focus({ preventScroll: true });
  };
}

// A record page's breadcrumbs: Explorer › its collection › the record,
// every one a link (the last to the page itself, as the current one).
function crumbs(route, data, view) {
  if (route.name !== 'record') return null;
  const trail = [
    [paths.home(), 'Explorer'],
    [paths.list(route.field), KINDS[route.field].label],
    [paths.record(route.field, route.id), view.title(data, route)],
  ];
  return h(
    'nav',
    { class: 'breadcrumbs', 'aria-label': 'Breadcrumb', 'data-testid': 'breadcrumbs' },
    h('ol', null, trail.map(([href, text], i) => h('li', null, h('a', { href, 'aria-current': i === trail.length - 1 ? 'page' : null }, text)))),
  );
}

// askLive asks a live view's operation as one event stream (live.js) and
// resolves to its first answer; each later answer, sent by the gateway
// when the catalogue changed what the view shows, is shown in place. A
// stream the gateway does not open (an older gateway, too many streams)
// gives way to one GET of the same operation, answered once; one it
// completes (at its age, at shutdown) is asked again a few seconds later.
function askLive(operation, token, view, route, fresh) {
  return new Promise((resolve, reject) => {
    let first = true;
    let again = 0;
    const stop = watchLive(operation, {
      onResult(result) {
        const outcome = liveOutcome(result, token.updates);
        if (first) {
          first = false;
          token.streaming = true;
          if (current === token) {
            followChanges(false);
            setLiveStatus('live');
          }
          if (outcome.data == null) reject(new RequestError(outcome.errors.join('; ') || 'The answer had no data.', { status: 200, messages: outcome.errors }));
          else resolve(outcome);
          return;
        }
        catalogueChanged = true; // later GETs revalidate
        if (current !== token || outcome.data == null) return;
        token.updates++;
        outcome.response.updates = token.updates;
        announce.textContent = '';
        present(token, view, route, operation, outcome, { silent: true });
        announce.textContent = route.field === 'worldBosses' ? 'The world bosses were updated.' : 'This page was updated.';
      },
      onEnd(error, answered) {
        token.streaming = false;
        if (!answered) {
          // No stream: one GET, and word of changes the usual way.
          first = false;
          if (current === token) followChanges(true);
          resolve(runQuery(operation, { signal: token.controller.signal, fresh }));
          return;
        }
        if (current !== token) return;
        setLiveStatus('connecting');
        again = setTimeout(() => {
          if (current === token) show({ silent: true });
        }, AGAIN_MIN_MS + Math.floor(Math.random() * AGAIN_SPREAD_MS));
      },
    });
    token.controller.signal.addEventListener('abort', () => {
      stop();
      clearTimeout(again);
      if (first) reject(new DOMException('The view was left', 'AbortError'));
    });
  });
}

// askInParts asks a view's operation whose @stream asks for its answer in
// parts (its drop tables' rows after the first screenful) as one event
// stream (live.js, watchLive), and resolves to the first part: the page
// shows the first rows at once. Each later part is merged in
// (incremental.js) and the page drawn again with what has come, once a
// frame at most, the reader's place, sorts and focus kept (present,
// silent). It is still one request. A stream the gateway does not open
// gives way to one GET of the same operation, whose JSON answer is the
// parts merged; one cut before its last part leaves what came on screen,
// and says the rest did not come.
function askInParts(operation, token, view, route, fresh) {
  return new Promise((resolve, reject) => {
    let result = null;
    let parts = 0;
    let first = true;
    let frame = 0;
    const outcome = () => ({
      data: result.data,
      errors: messagesOf(result.errors),
      response: { status: 200, parts, done: !result.hasNext },
    });
    const draw = () => {
      frame = 0;
      if (current !== token) return;
      // Parts that came before the first was on screen wait for it.
      if (!token.presented) frame = requestAnimationFrame(draw);
      else present(token, view, route, operation, outcome(), { silent: true, anchor: true });
    };
    const later = () => {
      if (!frame) frame = requestAnimationFrame(draw);
    };
    const stop = watchLive(operation, {
      onResult(payload) {
        parts++;
        if (!first) {
          result = mergePart(result, payload);
          later();
          return;
        }
        first = false;
        result = firstResult(payload);
        if (result.data != null) {
          resolve(outcome());
          return;
        }
        stop();
        const messages = messagesOf(result.errors);
        reject(new RequestError(messages.join('; ') || 'The answer had no data.', { status: 200, messages }));
      },
      onEnd(error, answered) {
        if (!answered) {
          first = false;
          resolve(runQuery(operation, { signal: token.controller.signal, fresh }));
          return;
        }
        if (!result?.hasNext) return;
        result = {
          ...result,
          hasNext: false,
          errors: [...result.errors, { message: `The rest of this page did not arrive${error ? ` (${error.message})` : ''}: reload it to ask for all of it.` }],
        };
        later();
      },
    });
    token.controller.signal.addEventListener('abort', () => {
      stop();
      cancelAnimationFrame(frame);
      if (first) reject(new DOMException('The view was left', 'AbortError'));
    });
  });
}

const messagesOf = (errors) => errors.map((e) => (e && typeof e.message === 'string' ? e.message : JSON.stringify(e)));

// A live view asks again 1-5 s after its stream completes, at random, so
// that the pages a shutdown completed together do not come back together.
const AGAIN_MIN_MS = 1000;
const AGAIN_SPREAD_MS = 4000;

// liveOutcome is a live answer as runQuery gives one.
function liveOutcome(result, updates) {
  const errors = Array.isArray(result?.errors)
    ? result.errors.map((e) => (e && typeof e.message === 'string' ? e.message : JSON.stringify(e)))
    : [];
  return { data: result?.data ?? null, errors, response: { status: 200, live: true, updates } };
}

function finish(content, title, { focus, scrollY }) {
  replace(main, content);
  main.removeAttribute('aria-busy');
  document.title = title ? `${title} · ${SITE}` : SITE;
  if (scrollY != null) window.scrollTo(0, scrollY);
  if (focus) {
    const target = (typeof focus === 'string' && main.querySelector(focus)) || main.querySelector('h1') || main;
    target.focus({ preventScroll: scrollY != null && typeof focus !== 'string' });
  }
}

function errorBox(err, { retry = true, page = true } = {}) {
  const messages = err instanceof RequestError ? err.messages : [];
  const headline = messages.length ? err.head || 'The gateway answered with errors:' : err.message || 'Something went wrong.';
  const box = h(
    'div',
    { class: 'error', 'data-testid': 'error', role: 'alert' },
    h('p', { class: 'error-title' }, headline),
    messages.length ? h('ul', null, messages.map((m) => h('li', null, m))) : null,
    retry ? h('button', { type: 'button', onclick: () => show({ fresh: true, focus: true }) }, 'Try again') : null,
  );
  return page ? [h('h1', { tabindex: '-1' }, 'This page could not be loaded'), box] : box;
}

function notFound(route) {
  const what = route.field ? KINDS[route.field].one : null;
  const id = route.id ?? route.raw;
  return h(
    'div',
    { class: 'not-found', 'data-testid': 'not-found' },
    h('h1', { tabindex: '-1' }, what ? `No such ${what}` : 'Page not found'),
    h('p', null, what ? `The catalogue has no ${what} with id “${id}”.` : 'The explorer has no page at this address.'),
    h('p', null, what ? [h('a', { href: paths.list(route.field) }, `All ${KINDS[route.field].label.toLowerCase()}`), ' · '] : null, h('a', { href: paths.home() }, 'Home')),
  );
}

// The "How this page asks" footer: the operation the view sent, as a
// frontend developer would write it, and how the gateway answered.
function describe(operation, response, mode = 'get') {
  if (!operation) {
    replace(how.request, 'This view sent no query: there is nothing to ask for at this address.');
    how.query.textContent = '';
    how.variablesLabel.hidden = how.variablesBox.hidden = true;
    replace(how.response);
    return;
  }
  const url = requestURL(operation);
  const stream = (what) => [': one ', h('code', null, 'POST /graphql'), ' with ', h('code', null, 'Accept: text/event-stream'), `, which sends ${what} (as a `,
    h('code', null, 'GET'), ', '];
  replace(
    how.request,
    h('strong', null, operation.operationName),
    mode === 'live'
      ? [' — one live query, marked ', h('code', null, '@live'), stream('the answer, then the answer again each time the catalogue changes it')]
      : mode === 'parts'
        ? [' — one query whose drop tables are marked ', h('code', null, '@stream'), stream('the answer in parts, the first rows of each table in the first')]
        : [' — one ', h('code', null, 'GET /graphql'), ` (a ${url.length}-character URL; `],
    h('a', { href: url, target: '_blank', rel: 'noopener' }, mode === 'get' ? 'open the raw answer' : mode === 'parts' ? 'answered whole' : 'answered once'),
    '):',
  );
  how.query.textContent = operation.query;
  const hasVariables = operation.variables && Object.keys(operation.variables).length > 0;
  how.variablesLabel.hidden = how.variablesBox.hidden = !hasVariables;
  how.variables.textContent = hasVariables ? JSON.stringify(operation.variables, null, 2) : '';
  if (!response) {
    replace(how.response, 'Waiting for the answer…');
    return;
  }
  if (response.failed && !response.status) {
    replace(how.response, 'No answer: the request failed.');
    return;
  }
  const parts = [`Answer: HTTP ${response.status}`];
  if (response.parts) parts.push(`${response.parts} part${response.parts === 1 ? '' : 's'}${response.done ? '' : ' so far'}`);
  if (response.live) parts.push(`live: ${response.updates ? `${response.updates} update${response.updates === 1 ? '' : 's'} so far` : 'updates as the catalogue changes'}`);
  if (response.cacheControl) parts.push(`Cache-Control: ${response.cacheControl}`);
  if (response.etag) parts.push(`ETag: ${response.etag}`);
  if (response.revalidated) parts.push("asked with cache: 'no-cache' (revalidated)");
  replace(how.response, parts.join(' · '));
}

// ---------------------------------------------------------------------------
// Navigation
// ---------------------------------------------------------------------------

function locationKey() {
  return window.location.pathname + window.location.search;
}

function navigate(to, { focus = true } = {}) {
  const target = new URL(to, window.location.href);
  const key = target.pathname + target.search;
  if (key === locationKey()) {
    history.replaceState(history.state, '', target);
  } else {
    history.replaceState({ ...(history.state || {}), scrollY: window.scrollY }, '');
    history.pushState({ scrollY: 0 }, '', target);
  }
  show({ focus, scrollY: 0 });
}

document.addEventListener('click', (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = e.target instanceof Element ? e.target.closest('a[href]') : null;
  if (!a || (a.target && a.target !== '_self') || a.hasAttribute('download')) return;
  const url = new URL(a.href, window.location.href);
  if (url.origin !== window.location.origin || !isExplorerPath(url.pathname)) return;
  // A link to a place on this page (the skip link) is the browser's.
  if (url.hash && url.pathname + url.search === locationKey()) return;
  e.preventDefault();
  // A sort or page link keeps the focus on itself in the new list, so that
  // a keyboard user sorts again or reads on from where they were.
  const testid = a.dataset.testid;
  navigate(url.pathname + url.search, { focus: /^(sort|page)-/.test(testid || '') ? `[data-testid="${testid}"]` : true });
});

form.addEventListener('submit', (e) => {
  e.preventDefault();
  const q = input.value.trim();
  if (!q) {
    input.focus();
    return;
  }
  navigate(paths.search(q));
});

// A list's filter form: its values become the list's URL.
main.addEventListener('submit', (e) => {
  const f = e.target;
  if (!(f instanceof HTMLFormElement) || !f.classList.contains('filters')) return;
  e.preventDefault();
  navigate(filterURL(f));
});

// The site's navigation: every collection's list. Where the links do
// not fit a line they wrap, but on a phone they stay on one line that
// scrolls sideways and rests only where a link starts (style.css). A fade
// at a cut edge shows that there is more that way: data-more-before and
// data-more-after say which edges cut links off, kept as the line
// scrolls and as its size changes.
const nav = document.querySelector('.site-nav');
const navList = document.getElementById('site-nav-list');
replace(
  navList,
  FIELDS.map((f) => h('li', null, h('a', { href: paths.list(f), 'data-field': f, 'data-label': KINDS[f].label }, KINDS[f].label))),
);

// navStops are the scroll positions at which a link starts the line,
// just after its padding: the only places the line rests.
function navStops() {
  const left = navList.getBoundingClientRect().left + navList.clientLeft - navList.scrollLeft;
  const pad = parseFloat(getComputedStyle(navList).scrollPaddingLeft) || 0;
  return [...navList.children].map((li) => li.getBoundingClientRect().left - left - pad);
}

// navRoom lengthens the line's end (--nav-room) just enough that its
// furthest scroll is where a link starts, so that showing the last links
// does not cut the first one seen mid-word.
function navRoom() {
  navList.style.setProperty('--nav-room', '0px');
  const max = navList.scrollWidth - navList.clientWidth;
  if (max <= 0) return;
  const stop = navStops().find((s) => s >= max - 0.5) ?? max;
  navList.style.setProperty('--nav-room', `${stop - max}px`);
}

function navHint() {
  const max = navList.scrollWidth - navList.clientWidth;
  nav.toggleAttribute('data-more-before', navList.scrollLeft > 1);
  nav.toggleAttribute('data-more-after', navList.scrollLeft < max - 1);
}
navList.addEventListener('scroll', navHint, { passive: true });
new ResizeObserver(() => {
  navRoom();
  navHint();
}).observe(navList);

// markCollection marks the navigation's link to the collection on screen
// (aria-current) and, when the line scrolls, rests it where a link starts
// with that link whole and clear of the fades, as near the middle as
// such a place allows; the page does not scroll.
function markCollection(field) {
  for (const a of navList.querySelectorAll('a[aria-current]')) a.removeAttribute('aria-current');
  const a = field && navList.querySelector(`a[data-field="${field}"]`);
  if (!a) return;
  a.setAttribute('aria-current', 'page');
  navRoom();
  const max = navList.scrollWidth - navList.clientWidth;
  if (max <= 0) return;
  const fade = (side) => parseFloat(getComputedStyle(nav, side).width) || 0;
  const [before, after] = [fade('::before'), fade('::after')];
  const list = navList.getBoundingClientRect();
  const link = a.getBoundingClientRect();
  const from = link.left - list.left - navList.clientLeft + navList.scrollLeft;
  const to = from + link.width;
  const width = navList.clientWidth;
  const clear = (s) => from >= s + (s > 1 ? before : 0) - 0.5 && to <= s + width - (s < max - 1 ? after : 0) + 0.5;
  const middle = (from + to - width) / 2;
  const stops = navStops().filter((s) => s <= max + 0.5 && clear(s));
  if (stops.length === 0) return;
  navList.scrollLeft = stops.reduce((best, s) => (Math.abs(s - middle) < Math.abs(best - middle) ? s : best));
}

themeToggle(document.getElementById('theme-select'));
const suggestions = typeahead({ input, form, navigate: (to) => navigate(to) });

window.addEventListener('popstate', (e) => {
  // A hash change on the same page needs no new view.
  if (current && current.key === locationKey()) return;
  show({ focus: true, scrollY: e.state && typeof e.state.scrollY === 'number' ? e.state.scrollY : 0 });
});

// ---------------------------------------------------------------------------
// Live catalogue changes
// ---------------------------------------------------------------------------

function showNotice() {
  const names = [...changedCollections];
  noticeText.textContent = names.length ? `The catalogue changed (${names.join(', ')}).` : 'The catalogue changed.';
  notice.hidden = false;
}

function hideNotice() {
  notice.hidden = true;
  changedCollections.clear();
}

reloadButton.addEventListener('click', () => {
  hideNotice();
  show({ fresh: true, focus: true });
});

const liveText = { connecting: 'Live updates: connecting…', live: 'Live updates: on', off: 'Live updates: off' };

// ---------------------------------------------------------------------------
// Start
// ---------------------------------------------------------------------------

// "in 3 hours", and a battle's "active", stay true while the page is open.
setInterval(() => {
  for (const el of main.querySelectorAll('[data-from-now]')) el.textContent = fromNow(el.dataset.fromNow);
  refreshBattles(main);
}, 30_000);

if ('scrollRestoration' in history) history.scrollRestoration = 'manual';
// The change subscription's handlers: followChanges opens it for the
// views that are not live, and closes it on a live view, which hears of
// its own changes on its own stream: a page holds one stream at a time.
const changes = {
  onChange(change) {
    catalogueChanged = true;
    changeCount++;
    // World bosses change by the minute: a view of them takes the change
    // at once (the whole view is asked again, so it is all current).
    if (current && change.collections.includes('worldboss') && showsBosses(current.route)) {
      announce.textContent = '';
      show({ fresh: true, silent: true }).then(() => {
        announce.textContent = 'The world bosses were updated.';
      });
      return;
    }
    for (const name of change.collections) changedCollections.add(name);
    showNotice();
  },
  onStatus: setLiveStatus,
};
let stopChanges = null;

function followChanges(on) {
  if (on && !stopChanges) {
    stopChanges = startLive(changes);
  } else if (!on && stopChanges) {
    const stop = stopChanges;
    stopChanges = null;
    stop();
  }
}

function setLiveStatus(status) {
  liveStatus.textContent = liveText[status] || '';
  liveStatus.dataset.status = status;
}

show({ scrollY: history.state && typeof history.state.scrollY === 'number' ? history.state.scrollY : null });
