import { h } from '../dom.js';
import { num, plural, rarityBadge } from '../format.js';
import { HOME } from '../queries.js';
import { paths } from '../routes.js';
import { link, section } from './common.js';

export const home = {
  operation: () => ({ query: HOME, variables: { first: 8 }, operationName: 'Home' }),
  title: () => null,
  render(data) {
    const { items, monsters, quests } = data;
    return h(
      'div',
      { class: 'home' },
      h(
        'header',
        { class: 'page-header' },
        h('h1', { tabindex: '-1' }, 'Explore the catalogue'),
        h(
          'p',
          { class: 'lede' },
          `${plural(items.totalCount, 'item', 'items')}, ${plural(monsters.totalCount, 'monster', 'monsters')} and ${plural(quests.totalCount, 'quest', 'quests')}. `,
          'Search by name above, or try ',
          link(paths.search('bread'), 'bread'),
          ', ',
          link(paths.search('troll'), 'troll'),
          ' or ',
          link(paths.search('dragon'), 'dragon'),
          '.',
        ),
      ),
      h(
        'div',
        { class: 'columns' },
        section(
          'top-items',
          'Most valuable items',
          h(
            'ol',
            { class: 'plain-list' },
            items.nodes.map((it) =>
              h(
                'li',
                null,
                link(paths.item(it.id), it.name),
                ' ',
                rarityBadge(it.rarity),
                h('span', { class: 'muted' }, ` ${num(it.value)} coins`),
              ),
            ),
          ),
        ),
        section(
          'top-monsters',
          'Strongest monsters',
          h(
            'ol',
            { class: 'plain-list' },
            monsters.nodes.map((m) =>
              h(
                'li',
                null,
                link(paths.monster(m.id), m.name ?? `Monster ${m.id}`),
                h('span', { class: 'muted' }, ` level ${num(m.combatLevel)}${m.area ? ` · ${m.area}` : ''}`),
              ),
            ),
          ),
        ),
      ),
    );
  },
};
