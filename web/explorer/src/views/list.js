// A browse list of any collection: a page of records (a Relay connection,
// paged by cursor), sortable on the orderings the schema offers, filtered
// on its filter input. The whole state is in the URL (routes.js).

import { h } from '../dom.js';
import { battleBadge, duration, num, rarityBadge, timeCell } from '../format.js';
import { KINDS, nameField, sortBy } from '../kinds.js';
import { LIST_QUERIES, listVariables } from '../queries.js';
import { listParams, paths } from '../routes.js';
import { cls, link, ref } from './common.js';

const yesNo = (v) => (v == null ? '—' : v ? 'Yes' : 'No');
// A filter link: the list with this value as its filter.
const filterLink = (field, param, value) => (value ? link(paths.list(field, { [param]: value }), value) : '—');
const lvl = (label, key) => ({ label, num: true, by: key, cell: (r) => num(r[key]) });

// The columns of each list; `by` names the record field a column sorts by,
// when the list can be ordered by it (its order value is the schema's:
// columnsOf finds it).
const COLUMNS = {
  items: [
    { label: 'Type', cell: (r) => filterLink('items', 'type', r.type) },
    { label: 'Rarity', cell: (r) => (r.rarity ? link(paths.list('items', { rarity: r.rarity }), rarityBadge(r.rarity)) : '—') },
    { label: 'Value', num: true, by: 'value', cell: (r) => num(r.value) },
    { label: 'Tradable', extra: true, cell: (r) => yesNo(r.tradable) },
  ],
  monsters: [
    { label: 'Area', cell: (r) => filterLink('monsters', 'area', r.area) },
    lvl('Combat level', 'combatLevel'),
    { ...lvl('Slayer level', 'slayerLevel'), extra: true },
    { ...lvl('Health', 'health'), extra: true },
    { label: 'God', extra: true, cell: (r) => yesNo(r.isGod) },
  ],
  quests: [
    { label: 'Series', cell: (r) => filterLink('quests', 'series', r.questSeries) },
    { label: 'After', extra: true, cell: (r) => ref('quests', r.prerequisite) ?? '—' },
  ],
  baseCamps: [{ label: 'Benefit', cell: (r) => r.baseTowerBenefit }],
  discoveryLocations: [lvl('Level', 'discoveryLevel'), lvl('Experience', 'discoveryExp')],
  miningRocks: [{ label: 'Ore', cell: (r) => ref('items', r.item) ?? '—' }, lvl('Level', 'minimumMiningLevel'), lvl('Experience', 'miningExp')],
  cookingRecipes: [
    { label: 'Makes', extra: true, cell: (r) => ref('items', r.item) ?? '—' },
    lvl('Level', 'requiredLevel'),
    lvl('Experience', 'cookingExp'),
  ],
  fletchingRecipes: [
    { label: 'Category', extra: true, cell: (r) => r.category },
    lvl('Level', 'fletchingLevel'),
    lvl('Experience', 'fletchingExp'),
  ],
  farmingSeeds: [
    { label: 'Grows', cell: (r) => ref('items', r.rewardItem) ?? '—' },
    lvl('Level', 'seedLevel'),
    lvl('Experience', 'seedExp'),
    { label: 'Time', num: true, extra: true, cell: (r) => duration(r.seedDurationInSeconds) },
  ],
  forestryTrees: [{ label: 'Log', cell: (r) => ref('items', r.item) ?? '—' }, lvl('Level', 'minimumForestryLevel'), lvl('Experience', 'forestryExp')],
  eventChests: [{ label: 'Chest item', cell: (r) => ref('items', r.item) ?? '—' }],
  secretRares: [{ label: 'Item', cell: (r) => (r.item ? [ref('items', r.item), ' ', rarityBadge(r.item.rarity)] : '—') }],
  worldBosses: [
    lvl('Level', 'level'),
    { label: 'Status', cell: (r) => battleBadge(r) },
    { label: 'Battle', cell: (r) => timeCell(r.battleStartsAt) },
    { label: 'Location', extra: true, cell: (r) => r.location?.name },
  ],
};

// The columns every list starts with: the id and the name, both links.
// On a phone the id is an extra, as the name links the same page.
const leading = (field) => [
  { label: 'Name', by: nameField(field), cell: (r) => ref(field, r, null, { 'data-testid': 'list-link' }) },
  { label: 'ID', num: true, extra: true, by: 'id', cell: (r) => link(paths.record(field, r.id), `#${r.id}`, { 'aria-label': `${KINDS[field].one} ${r.id}` }) },
];

// The columns as shown in this order: the sorted column is never an extra
// (hidden on a phone), so the reader sees what the list is sorted by.
const shownColumns = (columns, state) => columns.map((c) => (c.extra && c.sort && c.sort === state.sort ? { ...c, extra: false } : c));

// columnsOf is a list's columns, leading ones first, each with the value
// of its list's order enum that orders by its field (filters.gen.json,
// from the schema's @order directives), if there is one:
// test/columns.test.js holds every column with a field to a value.
export const columnsOf = (field) => [...leading(field), ...COLUMNS[field]].map((c) => (c.by ? { ...c, sort: sortBy(field, c.by) } : c));

export function listView(field) {
  const kind = KINDS[field];
  const allColumns = columnsOf(field);
  return {
    operation: (route) => ({ ...LIST_QUERIES[field], variables: listVariables(route.state) }),
    // A list on screen follows the catalogue: asked @live (main.js).
    live: true,
    title: (_data, route) => (filtered(route.state) ? `${kind.label} (filtered)` : kind.label),
    mounted: showSorted,
    render(data, route) {
      const conn = data[field];
      const state = route.state;
      const columns = shownColumns(allColumns, state);
      return h(
        'div',
        { class: 'list-page', 'data-testid': 'list-page' },
        h(
          'header',
          { class: 'page-header' },
          h('h1', { tabindex: '-1' }, kind.label),
          h('p', { class: 'lede', 'data-testid': 'list-count' }, `${num(conn.totalCount)} ${conn.totalCount === 1 ? kind.one : kind.label.toLowerCase()}${filtered(state) ? ' match' : ''}.`),
        ),
        filterForm(field, state, conn.facets),
        conn.nodes.length
          ? h(
              'div',
              { class: 'table-scroll' },
              h(
                'table',
                { class: 'data list', 'data-testid': 'list-table' },
                h('caption', { class: 'visually-hidden' }, `${kind.label}${sortCaption(columns, state)}`),
                h('thead', null, h('tr', null, columns.map((c) => header(field, c, state)))),
                h(
                  'tbody',
                  null,
                  conn.nodes.map((r) =>
                    h('tr', null, columns.map((c, i) => h(i === 0 ? 'th' : 'td', { scope: i === 0 ? 'row' : null, class: cls(c) }, c.cell(r)))),
                  ),
                ),
              ),
            )
          : h('p', { class: 'empty card' }, `No ${kind.label.toLowerCase()} match these filters.`),
        pager(field, state, conn),
      );
    },
  };
}

function filtered(state) {
  return Object.keys(state.filter).length > 0;
}

// showSorted scrolls a table wider than its box (a phone's) so that the
// sorted column is in view beside the name, which stays put (sticky).
function showSorted(root) {
  const box = root.querySelector('.list-page .table-scroll');
  const sorted = box?.querySelector('thead th[aria-sort="ascending"], thead th[aria-sort="descending"]');
  if (!sorted || box.scrollWidth <= box.clientWidth) return;
  const over = sorted.getBoundingClientRect().right - box.getBoundingClientRect().right;
  if (over > 0) box.scrollLeft += over;
}

function sortCaption(columns, state) {
  const c = columns.find((x) => x.sort && x.sort === state.sort);
  return c ? `, by ${c.label.toLowerCase()}, ${state.desc ? 'descending' : 'ascending'}` : '';
}

// A column header; a sortable one is a link to the list in that order
// (numbers largest first at the first click, names A to Z), and says how
// the list is sorted with aria-sort.
function header(field, c, state) {
  const attrs = { scope: 'col', class: cls(c) };
  if (!c.sort) return h('th', attrs, c.label);
  const active = state.sort === c.sort;
  const desc = active ? !state.desc : Boolean(c.num) && c.sort !== 'ID';
  const href = paths.list(field, listParams(field, { ...state, sort: c.sort, desc, after: null, before: null, last: false }));
  return h(
    'th',
    { ...attrs, 'aria-sort': active ? (state.desc ? 'descending' : 'ascending') : 'none' },
    link(href, [c.label, h('span', { class: 'sort-mark', 'aria-hidden': 'true' }, active ? (state.desc ? ' ▼' : ' ▲') : ' ↕')], {
      class: 'sort',
      'data-testid': `sort-${c.sort.toLowerCase()}`,
    }),
  );
}

// The filter form. An equality filter is a choice among the values its
// facet gives, each with how many records the list would hold choosing it
// (the gateway counts them under the other filters, in the list's own
// request); the rest are typed.
function filterForm(field, state, facets = []) {
  const kind = KINDS[field];
  const id = (p) => `filter-${p}`;
  const counts = Object.fromEntries(facets.map((f) => [f.field, f.values]));
  const choice = (text, n) => (n == null ? text : `${text} (${num(n)})`);
  const control = (f) => {
    const value = state.filter[f.key];
    const values = counts[f.key];
    if (f.type === 'bool') {
      const n = (b) => (values ? (values.find((v) => v.value === String(b))?.count ?? 0) : null);
      return h(
        'select',
        { id: id(f.param), name: f.param },
        h('option', { value: '' }, 'Any'),
        h('option', { value: 'yes', selected: value === true }, choice(f.yes, n(true))),
        h('option', { value: 'no', selected: value === false }, choice(f.no, n(false))),
      );
    }
    if (values && f.type === 'text') {
      // The value in the URL may differ in case from the records' (the
      // gateway ignores case when none holds it exactly): choose the
      // record's; one no record holds stays, with no count.
      const current = value == null ? null : (values.find((v) => v.value === value) ?? values.find((v) => v.value.toLowerCase() === String(value).toLowerCase()));
      return h(
        'select',
        { id: id(f.param), name: f.param, 'data-testid': `choices-${f.param}` },
        h('option', { value: '' }, 'Any'),
        values.map((v) => h('option', { value: v.value, selected: v === current }, choice(v.value, v.count))),
        value != null && !current ? h('option', { value, selected: true }, value) : null,
      );
    }
    return h('input', {
      id: id(f.param),
      name: f.param,
      type: f.type === 'number' ? 'number' : 'text',
      step: f.type === 'number' ? 'any' : null,
      inputmode: f.type === 'number' ? 'decimal' : null,
      value: value ?? '',
      autocomplete: 'off',
    });
  };
  const fields = [{ param: 'q', key: 'nameContains', label: 'Name contains', type: 'text' }, ...kind.filters];
  const form = h(
    'form',
    { class: 'filters card', id: 'filters-form', 'data-testid': 'filters', 'aria-label': `Filter ${kind.label.toLowerCase()}`, action: paths.list(field), method: 'get' },
    fields.map((f) => h('div', { class: 'filter' }, h('label', { for: id(f.param) }, f.label), control(f))),
    state.sort ? h('input', { type: 'hidden', name: 'sort', value: state.sort.toLowerCase() }) : null,
    state.sort && state.desc ? h('input', { type: 'hidden', name: 'dir', value: 'desc' }) : null,
    h(
      'div',
      { class: 'filter-actions' },
      h('button', { type: 'submit' }, 'Filter'),
      filtered(state) ? link(paths.list(field, listParams(field, { ...state, filter: {}, after: null, before: null, last: false })), 'Clear filters') : null,
    ),
  );
  // On a phone the form folds behind a button that counts the filters in
  // use: style.css shows the button, and folds the form, on narrow screens
  // only; elsewhere the form is always open.
  const box = h('div', { class: 'filters-box' });
  const toggle = h(
    'button',
    {
      type: 'button',
      class: 'filters-toggle',
      'data-testid': 'filters-toggle',
      'aria-expanded': 'false',
      'aria-controls': form.id,
      onclick: () => toggle.setAttribute('aria-expanded', String(box.classList.toggle('open'))),
    },
    `Filters (${Object.keys(state.filter).length})`,
  );
  box.append(toggle, form);
  return box;
}

// First, previous, next and last pages, by cursor.
function pager(field, state, conn) {
  const { pageInfo } = conn;
  const at = (change) => paths.list(field, listParams(field, { ...state, after: null, before: null, last: false, ...change }));
  const hasPrev = pageInfo.hasPreviousPage && conn.nodes.length > 0;
  const hasNext = pageInfo.hasNextPage && conn.nodes.length > 0;
  const item = (on, href, text, rel, testid) =>
    h('li', null, on ? link(href, text, { rel, 'data-testid': testid }) : h('span', { class: 'disabled', 'aria-disabled': 'true' }, text));
  if (!hasPrev && !hasNext) return null;
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages', 'data-testid': 'pager' },
    h(
      'ul',
      null,
      item(hasPrev, at({}), '« First', null, 'page-first'),
      item(hasPrev, at({ before: pageInfo.startCursor }), '‹ Previous', 'prev', 'page-prev'),
      item(hasNext, at({ after: pageInfo.endCursor }), 'Next ›', 'next', 'page-next'),
      item(hasNext, at({ last: true }), 'Last »', null, 'page-last'),
    ),
  );
}

// The filter form's values as a list URL (main.js sends a submitted form
// here, so that a filter is a link like any other view).
export function filterURL(form) {
  const params = {};
  for (const [k, v] of new FormData(form)) if (String(v).trim()) params[k] = String(v).trim();
  const query = String(new URLSearchParams(params));
  const path = new URL(form.action).pathname;
  return query ? `${path}?${query}` : path;
}
