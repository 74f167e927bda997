// An answer in parts, put back together: the payloads a query with
// @stream (or @defer) is answered with, in the deferSpec=20220824 format
// the gateway sends over an event stream, one `next` event each:
//
//   {"data":{…},"hasNext":true}
//   {"incremental":[{"items":[…],"path":["monster","drops",10]}],"hasNext":false}
//
// A stream's part carries the list's next items, its path the list's and
// the index of the first of them; a deferred fragment's carries `data`
// to merge into the object at its path. Merged in order, the parts are the
// answer the query gives without the directives. Nothing here touches the
// DOM or the network, so that `npm test` runs it in Node; nothing is
// changed in place, so a view drawn from an earlier result keeps it.

// firstResult is the result so far after the first payload, as runQuery
// gives an answer: { data, errors, hasNext }.
export function firstResult(payload) {
  return {
    data: payload?.data ?? null,
    errors: errorsOf(payload),
    hasNext: payload?.hasNext === true,
  };
}

// mergePart is result with one later payload merged into it: each
// incremental entry's items or data at its path, and its errors. A
// payload that carries `data` (an answer sent whole) starts again from it.
// An entry whose path meets no object or list (its parent was nulled by
// an error) is left out, as the proposal says a client must.
export function mergePart(result, payload) {
  if (payload && 'data' in payload) return firstResult(payload);
  let data = result.data;
  const errors = [...result.errors, ...errorsOf(payload)];
  for (const entry of Array.isArray(payload?.incremental) ? payload.incremental : []) {
    errors.push(...errorsOf(entry));
    const path = Array.isArray(entry?.path) ? entry.path : null;
    if (!path || data == null) continue;
    if (Array.isArray(entry.items)) {
      const at = path[path.length - 1];
      if (!Number.isInteger(at) || at < 0) continue;
      data = update(data, path.slice(0, -1), (list) =>
        Array.isArray(list) ? [...list.slice(0, at), ...entry.items, ...list.slice(at + entry.items.length)] : undefined);
    } else if (entry.data && typeof entry.data === 'object') {
      data = update(data, path, (object) => (isObject(object) ? deepMerge(object, entry.data) : undefined));
    }
  }
  return { data, errors, hasNext: payload?.hasNext === true };
}

// mergeAll merges a whole sequence of payloads, the first first.
export function mergeAll(payloads) {
  return payloads.slice(1).reduce(mergePart, firstResult(payloads[0]));
}

// update is root with the value at path replaced by change(value), each
// object and list along the path copied; root itself when the path leads
// nowhere or change gives undefined.
function update(root, path, change) {
  if (path.length === 0) return change(root) ?? root;
  const [key, ...rest] = path;
  const child = Array.isArray(root) && Number.isInteger(key) ? root[key] : isObject(root) && typeof key === 'string' ? root[key] : undefined;
  if (child == null || typeof child !== 'object') return root;
  const next = update(child, rest, change);
  if (next === child) return root;
  if (Array.isArray(root)) return root.map((v, i) => (i === key ? next : v));
  return { ...root, [key]: next };
}

// deepMerge is a deferred fragment's fields merged into the object at its
// path: objects both hold are merged field by field, anything else the
// fragment's.
function deepMerge(into, from) {
  const out = { ...into };
  for (const [k, v] of Object.entries(from)) {
    out[k] = isObject(out[k]) && isObject(v) ? deepMerge(out[k], v) : v;
  }
  return out;
}

function isObject(v) {
  return v != null && typeof v === 'object' && !Array.isArray(v);
}

function errorsOf(x) {
  return Array.isArray(x?.errors) ? x.errors : [];
}
