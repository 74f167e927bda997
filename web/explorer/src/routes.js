// The explorer's URLs, under the base Vite builds it for (/explorer/):
//   /explorer                   home, with the search box
//   /explorer/search?q=TEXT     items and monsters whose name contains TEXT
//   /explorer/items/ID          an item's page
//   /explorer/monsters/ID       a monster's page

export const BASE = import.meta.env.BASE_URL.replace(/\/+$/, '');

export const paths = {
  home: () => BASE,
  search: (q) => `${BASE}/search?${new URLSearchParams({ q })}`,
  item: (id) => `${BASE}/items/${encodeURIComponent(id)}`,
  monster: (id) => `${BASE}/monsters/${encodeURIComponent(id)}`,
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
  if (rest.length === 1 && rest[0] === 'search') {
    const q = (new URLSearchParams(location.search).get('q') || '').trim();
    return q ? { name: 'search', q } : { name: 'home' };
  }
  if (rest.length === 2 && (rest[0] === 'items' || rest[0] === 'monsters')) {
    const kind = rest[0] === 'items' ? 'item' : 'monster';
    // ids are GraphQL Int: 32-bit.
    const id = /^\d{1,10}$/.test(rest[1]) ? Number(rest[1]) : NaN;
    if (Number.isInteger(id) && id <= 2147483647) return { name: kind, id };
    return { name: 'not-found', what: kind, raw: decodeSafe(rest[1]) };
  }
  return { name: 'not-found' };
}

function decodeSafe(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
