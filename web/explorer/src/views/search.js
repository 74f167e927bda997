import { h } from '../dom.js';
import { num } from '../format.js';
import { FIELDS, KINDS } from '../kinds.js';
import { SEARCH } from '../queries.js';
import { paths } from '../routes.js';
import { empty, ref, section } from './common.js';

const FIRST = 10;

// A hint beside a result: what tells two records of a kind apart.
export function hint(field, r) {
  switch (field) {
    case 'items': return `${r.rarity} ${r.type}`;
    case 'monsters': return r.combatLevel != null ? `level ${num(r.combatLevel)}${r.area ? ` · ${r.area}` : ''}` : r.area;
    case 'quests': return r.questSeries;
    case 'discoveryLocations': return `level ${num(r.discoveryLevel)}`;
    case 'miningRocks': return `level ${num(r.minimumMiningLevel)}`;
    case 'cookingRecipes': return `level ${num(r.requiredLevel)}`;
    case 'fletchingRecipes': return `level ${num(r.fletchingLevel)}`;
    case 'farmingSeeds': return `level ${num(r.seedLevel)}`;
    case 'forestryTrees': return `level ${num(r.minimumForestryLevel)}`;
    case 'worldBosses': return `level ${num(r.level)} · ${r.status}`;
    default: return '';
  }
}

// The search page: what the suggestions found, with more of each kind,
// and a link to the whole filtered list.
export const search = {
  operation: (route) => ({ ...SEARCH, variables: { text: route.q, first: FIRST } }),
  title: (_data, route) => `Search “${route.q}”`,
  render(data, route) {
    const found = FIELDS.filter((f) => data[f].totalCount > 0);
    const total = found.reduce((n, f) => n + data[f].totalCount, 0);
    return h(
      'div',
      { class: 'search-page', 'data-testid': 'search-page' },
      h(
        'header',
        { class: 'page-header' },
        h('h1', { tabindex: '-1' }, 'Results for ', h('q', null, route.q)),
        h('p', { class: 'lede' }, total === 0 ? 'Nothing in the catalogue has that in its name.' : `${num(total)} found.`),
      ),
      total === 0
        ? empty('Try part of a name: “bread”, “troll”, “lantern”.')
        : h(
            'div',
            { class: 'columns' },
            found.map((f) =>
              section(
                `${KINDS[f].path}-results`,
                `${KINDS[f].label} (${num(data[f].totalCount)})`,
                h(
                  'ul',
                  { class: 'plain-list results' },
                  data[f].nodes.map((r) => h('li', null, ref(f, r, null, { 'data-testid': `result-${KINDS[f].path}` }), h('span', { class: 'muted' }, ` ${hint(f, r)}`))),
                ),
                data[f].totalCount > data[f].nodes.length
                  ? h('p', null, h('a', { href: paths.list(f, { q: route.q }) }, `All ${num(data[f].totalCount)} ${KINDS[f].label.toLowerCase()} named “${route.q}”`))
                  : null,
              ),
            ),
          ),
    );
  },
};
