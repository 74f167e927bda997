import { h } from '../dom.js';
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

// A table of drops, as both an item's droppers and a monster's loot are
// shown: one row per drop, with its amount, its chances and its rarity.
// row(d) gives the first cell's content ({ head: [...] }), the drop's
// amount bounds ({ min, max }) and the chance cell's attributes.
export function dropTable(tableAttrs, firstColumn, drops, row) {
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { class: 'data', ...tableAttrs },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, firstColumn),
          h('th', { scope: 'col', class: 'num' }, 'Amount'),
          h('th', { scope: 'col', class: 'num' }, 'Chance'),
          h('th', { scope: 'col', class: 'num extra' }, 'With luck'),
          h('th', { scope: 'col', class: 'num extra' }, 'Extreme luck'),
          h('th', { scope: 'col', class: 'extra' }, 'Rarity'),
        ),
      ),
      h(
        'tbody',
        null,
        drops.map((d) => {
          const r = row(d);
          return h(
            'tr',
            null,
            h('th', { scope: 'row' }, ...r.head),
            h('td', { class: 'num' }, amount(r.min, r.max)),
            h('td', { class: 'num', ...r.chanceAttrs }, chanceCell(d.baseChance)),
            h('td', { class: 'num extra' }, chance(d.luckChance)),
            h('td', { class: 'num extra' }, chance(d.extremeLuckChance)),
            h('td', { class: 'extra' }, d.rarity ?? ''),
          );
        }),
      ),
    ),
  );
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
