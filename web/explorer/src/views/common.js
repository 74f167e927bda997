import { h } from '../dom.js';
import { amount, chance, chanceCell } from '../format.js';

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
