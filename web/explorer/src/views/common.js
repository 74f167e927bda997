import { h } from '../dom.js';

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
