import { h } from '../dom.js';
import { battleBadge, num, rarityBadge, timeCell } from '../format.js';
import { FIELDS, KINDS } from '../kinds.js';
import { HOME } from '../queries.js';
import { paths } from '../routes.js';
import { link, ref, section, table } from './common.js';

// The home page: the world bosses' battles (kept live) and the most
// valuable items, then every collection with its size. The bosses come
// first: they change by themselves, and on a phone the 13 collections
// would fill the first screen (the site's navigation lists them too).
export const home = {
  operation: () => ({ ...HOME, variables: {} }),
  title: () => null,
  render(data) {
    return h(
      'div',
      { class: 'home' },
      h(
        'header',
        { class: 'page-header' },
        h('h1', { tabindex: '-1' }, 'Explore the catalogue'),
        h('p', { class: 'lede' }, 'Every item, monster, quest, recipe and boss of the game, linked to each other. Search above, or browse a collection.'),
      ),
      h(
        'div',
        { class: 'columns' },
        section(
          'world-bosses',
          'World bosses',
          table({ 'data-testid': 'home-bosses' }, [
            { label: 'Boss', cell: (b) => [ref('worldBosses', b), h('span', { class: 'sub' }, `level ${num(b.level)} · ${b.location?.name ?? ''}`)] },
            { label: 'Status', cell: (b) => battleBadge(b) },
            { label: 'Battle', cell: (b) => timeCell(b.battleStartsAt) },
          ], data.worldBosses.nodes),
        ),
        section(
          'top-items',
          'Most valuable items',
          h(
            'ol',
            { class: 'plain-list' },
            data.topItems.nodes.map((it) => h('li', null, ref('items', it), ' ', rarityBadge(it.rarity), h('span', { class: 'muted' }, ` ${num(it.value)} coins`))),
          ),
        ),
      ),
      section(
        'collections',
        'Collections',
        h(
          'ul',
          { class: 'tiles', 'data-testid': 'collection-links' },
          FIELDS.map((f) => h('li', null, link(paths.list(f), [h('span', { class: 'tile-name' }, KINDS[f].label), h('span', { class: 'tile-count' }, num(data[f].totalCount))]))),
        ),
      ),
    );
  },
};
