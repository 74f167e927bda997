import { h } from '../dom.js';
import { dropRarityRank, expectedCoins, hiddenColumnsText, meanAmount, sortRows } from '../drops.js';
import { amount, chance, chanceCell, num, rarityBadge } from '../format.js';
import { KINDS } from '../kinds.js';
import { paths } from '../routes.js';

export function link(href, text, attrs = {}) {
  return h('a', { href, ...attrs }, text);
}

// A section with an h2 heading; id makes it reachable from the page.
export function section(testid, title, ...content) {
  const id = `section-${testid}`;
  return h(
    'section',
    { class: 'card', 'data-testid': testid, 'aria-labelledby': id },
    h('h2', { id }, title),
    ...content,
  );
}

// A definition list of [label, value] pairs, leaving out null values.
export function stats(testid, pairs) {
  return h(
    'dl',
    { class: 'stats', 'data-testid': testid },
    pairs
      .filter(([, value]) => value != null && value !== '')
      .map(([label, value]) => h('div', { class: 'stat' }, h('dt', null, label), h('dd', null, value))),
  );
}

export function empty(text) {
  return h('p', { class: 'empty' }, text);
}

export function pageHeader(testid, title, ...badges) {
  return h(
    'header',
    { class: 'page-header' },
    h('h1', { 'data-testid': testid, tabindex: '-1' }, title),
    badges.some(Boolean) ? h('p', { class: 'badges' }, badges) : null,
  );
}

// A table whose rows sort by a click on a column's header, as a wiki's do:
// each header is a <button> (so a keyboard sorts too), and the sorted one
// carries aria-sort. columns are { label, num, extra, cell(row), key(row),
// desc } (key gives the value sorted by, a number or a string; desc makes
// the column sort highest first on its first click). sort is the column
// sorted by at first, as { column, desc }. Rows are built once and only
// reordered; the order is the view's, not the URL's.
export function sortableTable(attrs, columns, rows, sort) {
  let state = { ...sort };
  const trs = new Map(
    rows.map((r) => [
      r,
      h('tr', null, columns.map((c, i) => h(i === 0 ? 'th' : 'td', { scope: i === 0 ? 'row' : null, class: cls(c), ...(c.attrs?.(r) ?? {}) }, c.cell(r)))),
    ]),
  );
  const tbody = h('tbody');
  const ths = columns.map((c, i) =>
    h(
      'th',
      { scope: 'col', class: cls(c) },
      h(
        'button',
        {
          type: 'button',
          class: 'sort-button',
          'data-testid': 'sort-button',
          onclick: () => {
            state = state.column === i ? { column: i, desc: !state.desc } : { column: i, desc: !!c.desc };
            draw();
          },
        },
        c.label,
        h('span', { class: 'sort-mark', 'aria-hidden': 'true' }),
      ),
    ),
  );
  function draw() {
    ths.forEach((th, i) => {
      const sorted = i === state.column;
      if (sorted) th.setAttribute('aria-sort', state.desc ? 'descending' : 'ascending');
      else th.removeAttribute('aria-sort');
      th.querySelector('.sort-mark').textContent = sorted ? (state.desc ? ' ▼' : ' ▲') : '';
    });
    const key = columns[state.column].key ?? (() => null);
    tbody.replaceChildren(...sortRows(rows, key, state.desc).map((r) => trs.get(r)));
  }
  draw();
  return h(
    'div',
    { class: 'table-scroll' },
    h('table', { class: 'data sortable', ...attrs }, h('thead', null, h('tr', null, ths)), tbody),
  );
}

// A drop's rarity, as the catalogue names how often it drops ("Common",
// "Very Rare"): not the item's rarity, so drawn as a mark and a word
// rather than as the item's rarity badge.
export function dropRarity(rarity) {
  if (!rarity) return '';
  const slug = String(rarity).toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return h('span', { class: `drop-rarity drop-rarity-${slug}` }, rarity);
}

// A table of drops, as an item's droppers, a monster's loot and a
// location's drops are shown: one row per drop, with its amount, its
// chances and its drop rarity, highest chance first, every column
// sortable. row(d) gives the first cell's content ({ head: [...] }), the
// name it sorts by ({ name }), the drop's amount bounds ({ min, max }), the
// chance cell's attributes and, with `value` set, the item's value in
// coins ({ value }): then the table adds the value and the coins a kill
// yields on average (drops.js, expectedCoins).
export function dropTable(tableAttrs, firstColumn, drops, row, { value = false } = {}) {
  const rows = drops.map((d) => ({ d, r: row(d) }));
  const columns = [
    { label: firstColumn, key: (x) => x.r.name ?? null, cell: (x) => x.r.head },
    // With the coins per kill (which count the amount in), a phone leaves
    // the amount out, so that four columns fit.
    { label: 'Amount', num: true, extra: value, desc: true, key: (x) => meanAmount(x.r.min, x.r.max), cell: (x) => amount(x.r.min, x.r.max) },
    { label: 'Chance', num: true, desc: true, key: (x) => numeric(x.d.baseChance), cell: (x) => chanceCell(x.d.baseChance), attrs: (x) => x.r.chanceAttrs },
    { label: 'With luck', num: true, extra: true, desc: true, key: (x) => numeric(x.d.luckChance), cell: (x) => chance(x.d.luckChance) },
    { label: 'Extreme luck', num: true, extra: true, desc: true, key: (x) => numeric(x.d.extremeLuckChance), cell: (x) => chance(x.d.extremeLuckChance) },
    { label: 'Drop rarity', extra: true, key: (x) => dropRarityRank(x.d.rarity), cell: (x) => dropRarity(x.d.rarity) },
  ];
  if (value) {
    const coins = (x) => expectedCoins(x.d.baseChance, x.r.value, x.r.min, x.r.max);
    columns.push(
      { label: 'Value', num: true, extra: true, desc: true, key: (x) => numeric(x.r.value), cell: (x) => (x.r.value == null ? '—' : num(x.r.value)) },
      { label: 'Coins per kill', num: true, desc: true, key: coins, cell: (x) => coinsText(coins(x)) },
    );
  }
  // A phone hides the extra columns (style.css); a toggle shows them,
  // the table then scrolling sideways in its box.
  const extras = hiddenColumnsText(columns.filter((c) => c.extra).map((c) => c.label));
  const box = h('div', { class: 'drop-table' });
  const toggle = h(
    'button',
    {
      type: 'button',
      class: 'columns-toggle',
      'aria-pressed': 'false',
      'data-testid': 'columns-toggle',
      onclick: () => toggle.setAttribute('aria-pressed', String(box.classList.toggle('all-columns'))),
    },
    'Show all columns',
    h('span', { class: 'muted' }, ` (${extras})`),
  );
  box.append(toggle, sortableTable(tableAttrs, columns, rows, { column: 2, desc: true }));
  return box;
}

const numeric = (v) => (v == null || !Number.isFinite(Number(v)) ? null : Number(v));
const smallCoins = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2 });
// Coins per kill: whole and tenths above 1, two significant digits below.
function coinsText(c) {
  if (c == null) return '—';
  return c >= 1 ? num(Math.round(c * 10) / 10) : smallCoins.format(c);
}

// A link to a record's page, named as the record is (or as given).
export function ref(field, record, text, attrs) {
  if (!record) return text ?? null;
  return link(paths.record(field, record.id), text ?? KINDS[field].name(record), attrs);
}

// An item's link, with its rarity when known.
export function itemRef(item, fallback) {
  if (!item) return fallback ?? 'Unknown item';
  return [ref('items', item), item.rarity ? [' ', rarityBadge(item.rarity)] : null];
}

// A plain data table: columns are { label, num, extra, cell(row) }; the
// first column's cells are row headers.
export function table(attrs, columns, rows) {
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { class: 'data', ...attrs },
      h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col', class: cls(c) }, c.label)))),
      h(
        'tbody',
        null,
        rows.map((r) =>
          h('tr', null, columns.map((c, i) => h(i === 0 ? 'th' : 'td', { scope: i === 0 ? 'row' : null, class: cls(c) }, c.cell(r)))),
        ),
      ),
    ),
  );
}

export function cls(c) {
  return [c.num && 'num', c.extra && 'extra'].filter(Boolean).join(' ') || null;
}

// A list of links, or a line saying there is none.
export function linkList(testid, entries, none) {
  if (!entries.length) return empty(none);
  return h('ul', { class: 'plain-list', 'data-testid': testid }, entries.map((e) => h('li', null, e)));
}

// "Skill 12" requirements as a line of chips.
export function skills(list) {
  if (!list?.length) return empty('No skill requirement.');
  return h('ul', { class: 'inline-list' }, list.map((s) => h('li', null, `${s.name} ${num(s.level)}`)));
}

// Items with amounts (materials, quest items, base camp items).
export function materials(testid, list) {
  if (!list?.length) return empty('None.');
  return h(
    'ul',
    { class: 'inline-list', 'data-testid': testid },
    list.map((m) => h('li', null, m.amount != null ? `${num(m.amount)} × ` : null, itemRef(m.item, m.name ?? m.itemName))),
  );
}

// A wiki's infobox: the record's key facts in a box beside the page on a
// desktop and first on a phone (style.css, .with-infobox), under its
// picture, which the gateway serves from its own origin (a placeholder it
// draws when it has none): sized by its attributes and the CSS, so the
// box does not move when it arrives. rows are [label, value] pairs; null
// values are left out.
export function infobox(kind, title, rows, attrs = {}, image = null) {
  return h(
    'aside',
    { class: 'infobox card', 'data-testid': 'infobox', 'aria-label': `${title} at a glance`, ...attrs },
    image ? picture(`infobox-picture picture-${kind}`, image, 96, `Picture of ${title}`, 'infobox-picture') : null,
    h('p', { class: 'infobox-title' }, title),
    h(
      'dl',
      { class: 'infobox-facts' },
      rows
        .filter(([, value]) => value != null && value !== '')
        .map(([label, value]) => h('div', { class: 'fact' }, h('dt', null, label), h('dd', null, value))),
    ),
  );
}

// A record's picture (its GraphQL image { url }), size × size, loaded
// lazily; alt '' where the name is beside it.
export function picture(cls, image, size, alt, testid) {
  return h('img', { class: cls, loading: 'lazy', decoding: 'async', width: size, height: size, alt, src: image.url, 'data-testid': testid });
}

// A page with an infobox: its header across, then the infobox, then the
// body (sections); on a desktop the infobox stands at the side.
export function withInfobox(header, box, ...body) {
  return [header, box, h('div', { class: 'page-body' }, ...body)];
}
