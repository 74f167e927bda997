// The explorer's URLs, under the base Vite builds it for (/explorer/):
//   /explorer                        home: every collection, the world bosses
//   /explorer/search?q=TEXT          every kind of record whose name has TEXT: &kind=KIND, &after=&start= page
//   /explorer/KIND                   a list: ?q=&sort=&dir=&after=|before=|last=1 and filters
//   /explorer/KIND/ID                a record's page
// KIND is a path of kinds.js (items, monsters, quests, base-camps, …). A
// list's whole state is in its URL, so every view is a link.

import { BY_PATH, KINDS } from './kinds.js';

// (Outside Vite, as under node's test runner, there is no import.meta.env:
// the base is the one vite.config.js sets.)
export const BASE = (import.meta.env?.BASE_URL ?? '/explorer/').replace(/\/+$/, '');

export const paths = {
  home: () => BASE,
  // kind (a list field), after (a cursor) and start (how many results
  // came before) narrow and page a search.
  search: (q, { kind = null, after = null, start = 0 } = {}) =>
    `${BASE}/search?${new URLSearchParams({ q, ...(kind ? { kind: KINDS[kind].path } : {}), ...(after ? { after, start: String(start) } : {}) })}`,
  record: (field, id) => `${BASE}/${KINDS[field].path}/${encodeURIComponent(id)}`,
  list: (field, params = {}) => {
    const query = String(new URLSearchParams(Object.entries(params).filter(([, v]) => v != null && v !== '')));
    return `${BASE}/${KINDS[field].path}${query ? `?${query}` : ''}`;
  },
  item: (id) => paths.record('items', id),
  monster: (id) => paths.record('monsters', id),
};

// Whether a same-origin path is one of the explorer's own (and so is
// shown without loading the page again).
export function isExplorerPath(pathname) {
  return pathname === BASE || pathname.startsWith(`${BASE}/`);
}

// The route a location names: { name, ...params }.
export function match(location) {
  const path = location.pathname.replace(/\/+$/, '') || '/';
  if (path === BASE) return { name: 'home' };
  if (!path.startsWith(`${BASE}/`)) return { name: 'not-found' };
  const rest = path.slice(BASE.length + 1).split('/');
  const params = new URLSearchParams(location.search);
  if (rest.length === 1 && rest[0] === 'search') {
    const q = (params.get('q') || '').trim();
    if (!q) return { name: 'home' };
    const after = params.get('after') || null;
    const start = Number(params.get('start'));
    return { name: 'search', q, kind: BY_PATH[params.get('kind')] ?? null, after, start: after && Number.isInteger(start) && start > 0 ? start : 0 };
  }
  const field = BY_PATH[rest[0]];
  if (!field) return { name: 'not-found' };
  if (rest.length === 1) return { name: 'list', field, state: listState(field, params) };
  if (rest.length === 2) {
    // ids are GraphQL Int: 32-bit.
    const id = /^\d{1,10}$/.test(rest[1]) ? Number(rest[1]) : NaN;
    if (Number.isInteger(id) && id <= 2147483647) return { name: 'record', field, id };
    return { name: 'not-found', field, raw: decodeSafe(rest[1]) };
  }
  return { name: 'not-found' };
}

// A list's state from its URL parameters; what the schema cannot take
// (an unknown sort, a level that is not a number) is left out.
function listState(field, params) {
  const kind = KINDS[field];
  const sort = (params.get('sort') || '').toUpperCase();
  const filter = {};
  const q = (params.get('q') || '').trim();
  if (q) filter.nameContains = q;
  for (const f of kind.filters) {
    const raw = (params.get(f.param) || '').trim();
    if (!raw) continue;
    if (f.type === 'bool') {
      if (raw === 'yes' || raw === 'no') filter[f.key] = raw === 'yes';
    } else if (f.type === 'number') {
      if (Number.isFinite(Number(raw))) filter[f.key] = Number(raw);
    } else filter[f.key] = raw;
  }
  return {
    sort: kind.sorts.includes(sort) ? sort : null,
    desc: params.get('dir') === 'desc',
    after: params.get('after') || null,
    before: params.get('before') || null,
    last: params.get('last') === '1',
    filter,
  };
}

// The URL parameters of a list state: the inverse of listState.
export function listParams(field, state) {
  const kind = KINDS[field];
  const p = {};
  if (state.filter.nameContains) p.q = state.filter.nameContains;
  for (const f of kind.filters) {
    const v = state.filter[f.key];
    if (v == null || v === '') continue;
    p[f.param] = f.type === 'bool' ? (v ? 'yes' : 'no') : String(v);
  }
  if (state.sort) p.sort = state.sort.toLowerCase();
  if (state.sort && state.desc) p.dir = 'desc';
  if (state.after) p.after = state.after;
  if (state.before) p.before = state.before;
  if (state.last) p.last = '1';
  return p;
}

function decodeSafe(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
