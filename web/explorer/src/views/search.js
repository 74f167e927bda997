import { h } from '../dom.js';
import { num } from '../format.js';
import { KINDS } from '../kinds.js';
import { FIELD_OF_TYPE, SEARCH } from '../queries.js';
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
    .map((s) => ({ field: FIELD_OF_TYPE[s.record.__typename], record: s.record, match: s.match, name: s.name }))
    .filter((s) => s.field);
}

// didYouMean is the best result when the text matched no name, but one
// with a typo forgiven: every result is FUZZY.
export function didYouMean(found) {
  return found.length && found.every((s) => s.match === 'FUZZY') ? found[0] : null;
}

// The search page: every kind's records whose name holds the text, best
// match first (the gateway's ranking), each with its kind, and "Did you
// mean …?" when the text is no name but one typo away from some.
export const search = {
  operation: (route) => ({ ...SEARCH, variables: { text: route.q, first: FIRST } }),
  title: (_data, route) => `Search “${route.q}”`,
  render(data, route) {
    const found = results(data);
    const guess = didYouMean(found);
    return h(
      'div',
      { class: 'search-page', 'data-testid': 'search-page' },
      h(
        'header',
        { class: 'page-header' },
        h('h1', { tabindex: '-1' }, 'Results for ', h('q', null, route.q)),
        h(
          'p',
          { class: 'lede' },
          found.length === 0 ? 'Nothing in the catalogue has that in its name.' : guess ? 'Nothing has that name.' : `${num(found.length)}${found.length === FIRST ? ' best' : ''} found.`,
        ),
        guess ? h('p', { class: 'did-you-mean', 'data-testid': 'did-you-mean' }, 'Did you mean ', ref(guess.field, guess.record, guess.name), '?') : null,
      ),
      found.length === 0
        ? empty('Try part of a name: “bread”, “troll”, “lantern”.')
        : section(
            'search-results',
            guess ? 'Close to it' : 'Best matches first',
            h(
              'ol',
              { class: 'plain-list results' },
              found.map((s) =>
                h(
                  'li',
                  null,
                  ref(s.field, s.record, s.name, { 'data-testid': `result-${KINDS[s.field].path}` }),
                  ' ',
                  h('span', { class: 'kind-tag', 'data-testid': 'result-kind' }, KINDS[s.field].one),
                  h('span', { class: 'muted' }, hint(s.field, s.record) ? ` ${hint(s.field, s.record)}` : ''),
                ),
              ),
            ),
          ),
    );
  },
};
