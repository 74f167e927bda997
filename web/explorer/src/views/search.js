import { h } from '../dom.js';
import { num } from '../format.js';
import { FIELDS, KINDS } from '../kinds.js';
import { FIELD_OF_TYPE, SEARCH, searchVariables } from '../queries.js';
import { paths } from '../routes.js';
import { empty, ref, section } from './common.js';

const FIRST = 50;

// A hint beside a result: what tells two records of a kind apart. Parts a
// record lacks (a monster with no level or area) are left out, never shown
// as "null".
export function hint(field, r) {
  const level = (n) => (n != null ? `level ${num(n)}` : null);
  const parts = {
    items: () => [r.rarity, r.type],
    monsters: () => [level(r.combatLevel), r.area],
    quests: () => [r.questSeries],
    discoveryLocations: () => [level(r.discoveryLevel)],
    miningRocks: () => [level(r.minimumMiningLevel)],
    cookingRecipes: () => [level(r.requiredLevel)],
    fletchingRecipes: () => [level(r.fletchingLevel)],
    farmingSeeds: () => [level(r.seedLevel)],
    forestryTrees: () => [level(r.minimumForestryLevel)],
    worldBosses: () => [level(r.level), r.status],
  }[field];
  return parts ? parts().filter((p) => p != null && p !== '').join(' · ') : '';
}

// results turns the gateway's ranked search answer into { field, record,
// match } in the same order; a result of a type the explorer does not know
// is left out.
export function results(data) {
  return (data.search ?? [])
    .map((s) => ({ field: FIELD_OF_TYPE[s.record.__typename], record: s.record, match: s.match, name: s.name, suggestion: s.suggestion ?? null, cursor: s.cursor }))
    .filter((s) => s.field);
}

// didYouMean is the best result when the text matched no name, but one
// with a typo forgiven: every result is FUZZY.
export function didYouMean(found) {
  return found.length && found.every((s) => s.match === 'FUZZY') ? found[0] : null;
}

// suggestedWords are what a wiki offers for a text that is no name: the
// distinct words the typo-forgiving results were one typo from ("dragon"
// for "drgon"), best result first, at most max, none equal to the text.
export function suggestedWords(found, text, max = 3) {
  if (!didYouMean(found)) return [];
  const seen = new Set([String(text).trim().toLowerCase()]);
  const out = [];
  for (const s of found) {
    if (out.length >= max) break;
    if (s.suggestion && !seen.has(s.suggestion)) {
      seen.add(s.suggestion);
      out.push(s.suggestion);
    }
  }
  return out;
}

// The search page: every kind's records whose name holds the text, best
// match first (the gateway's ranking), each with its kind, and "Did you
// mean …?" when the text is no name but one typo away from some.
export const search = {
  operation: (route) => ({ ...SEARCH, variables: searchVariables({ text: route.q, first: FIRST, kind: route.kind, after: route.after }) }),
  title: (_data, route) => `Search “${route.q}”${route.kind ? ` in ${KINDS[route.kind].label.toLowerCase()}` : ''}`,
  render(data, route) {
    const all = results(data);
    const found = all.slice(0, FIRST);
    const next = all.length > FIRST ? found[found.length - 1] : null;
    const guess = route.after ? null : didYouMean(found);
    const words = route.after ? [] : suggestedWords(found, route.q);
    const start = route.after ? route.start : 0;
    const list = h('ol', { class: 'plain-list results' }, found.map((s) =>
      h(
        'li',
        null,
        ref(s.field, s.record, s.name, { 'data-testid': `result-${KINDS[s.field].path}` }),
        ' ',
        h('span', { class: 'kind-tag', 'data-testid': 'result-kind' }, KINDS[s.field].one),
        h('span', { class: 'muted' }, hint(s.field, s.record) ? ` ${hint(s.field, s.record)}` : ''),
      ),
    ));
    // A later page's numbers go on from the page before (set through the
    // CSSOM: the page's CSP refuses style attributes).
    if (start) list.style.counterReset = `rank ${start}`;
    const kindLink = (field, label) =>
      h('li', null, h('a', { href: paths.search(route.q, { kind: field }), 'aria-current': (route.kind ?? null) === field ? 'page' : null, 'data-testid': `search-kind-${field ? KINDS[field].path : 'all'}` }, label));
    return h(
      'div',
      { class: 'search-page', 'data-testid': 'search-page' },
      h(
        'header',
        { class: 'page-header' },
        h('h1', { tabindex: '-1' }, 'Results for ', h('q', null, route.q), route.kind ? ` in ${KINDS[route.kind].label.toLowerCase()}` : null),
        h(
          'p',
          { class: 'lede' },
          found.length === 0
            ? `Nothing in the ${route.kind ? KINDS[route.kind].label.toLowerCase() : 'catalogue'} has that in its name.`
            : start
              ? `Results ${num(start + 1)} to ${num(start + found.length)}.`
              : guess
                ? 'Nothing has that name.'
                : `${num(found.length)}${next ? ' best' : ''} found.`,
        ),
        words.length
          ? h('p', { class: 'did-you-mean', 'data-testid': 'did-you-mean' }, 'Did you mean ',
            words.map((w, i) => [i ? (i === words.length - 1 ? ' or ' : ', ') : null, h('a', { href: paths.search(w, { kind: route.kind }) }, w)]), '?')
          : null,
        h('nav', { class: 'search-kinds', 'aria-label': 'Kinds of record', 'data-testid': 'search-kinds' },
          h('ul', { class: 'inline-list' }, kindLink(null, 'All kinds'), FIELDS.map((f) => kindLink(f, KINDS[f].label)))),
      ),
      found.length === 0
        ? empty('Try part of a name: “bread”, “troll”, “lantern”.')
        : section('search-results', guess ? 'Close to it' : 'Best matches first', list),
      next || route.after
        ? h('nav', { class: 'pager', 'aria-label': 'Pages of results' }, h('ul', null,
          route.after ? h('li', null, h('a', { href: paths.search(route.q, { kind: route.kind }), 'data-testid': 'search-first' }, '« First results')) : null,
          next ? h('li', null, h('a', { href: paths.search(route.q, { kind: route.kind, after: next.cursor, start: start + FIRST }), 'data-testid': 'search-next', rel: 'next' }, `Next ${FIRST} results ›`)) : null))
        : null,
    );
  },
};
