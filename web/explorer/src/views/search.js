import { h } from '../dom.js';
import { num, rarityBadge } from '../format.js';
import { SEARCH } from '../queries.js';
import { paths } from '../routes.js';
import { empty, link, section } from './common.js';

const FIRST = 30;

export const search = {
  operation: (route) => ({ query: SEARCH, variables: { text: route.q, first: FIRST }, operationName: 'Search' }),
  title: (_data, route) => `Search “${route.q}”`,
  render(data, route) {
    const { items, monsters } = data;
    const total = items.totalCount + monsters.totalCount;
    return h(
      'div',
      { class: 'search-page', 'data-testid': 'search-page' },
      h(
        'header',
        { class: 'page-header' },
        h('h1', { tabindex: '-1' }, 'Results for ', h('q', null, route.q)),
        h('p', { class: 'lede' }, total === 0 ? 'Nothing in the catalogue has that in its name.' : `${num(total)} found.`),
      ),
      h(
        'div',
        { class: 'columns' },
        section(
          'item-results',
          `Items (${num(items.totalCount)})`,
          items.nodes.length
            ? h(
                'ul',
                { class: 'plain-list results' },
                items.nodes.map((it) =>
                  h(
                    'li',
                    null,
                    link(paths.item(it.id), it.name, { 'data-testid': 'result-item' }),
                    ' ',
                    rarityBadge(it.rarity),
                    h('span', { class: 'muted' }, ` ${it.type}`),
                  ),
                ),
              )
            : empty('No item matches.'),
          more(items),
        ),
        section(
          'monster-results',
          `Monsters (${num(monsters.totalCount)})`,
          monsters.nodes.length
            ? h(
                'ul',
                { class: 'plain-list results' },
                monsters.nodes.map((m) =>
                  h(
                    'li',
                    null,
                    link(paths.monster(m.id), m.name ?? `Monster ${m.id}`, { 'data-testid': 'result-monster' }),
                    h('span', { class: 'muted' }, ` level ${num(m.combatLevel)}${m.area ? ` · ${m.area}` : ''}`),
                  ),
                ),
              )
            : empty('No monster matches.'),
          more(monsters),
        ),
      ),
    );
  },
};

function more(conn) {
  if (conn.totalCount <= conn.nodes.length) return null;
  return h('p', { class: 'muted' }, `Showing the first ${num(conn.nodes.length)} of ${num(conn.totalCount)}: type more of the name to narrow it down.`);
}
