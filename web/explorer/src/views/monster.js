import { h } from '../dom.js';
import { amount, chance, chanceCell, num, rarityBadge } from '../format.js';
import { MONSTER_PAGE } from '../queries.js';
import { paths } from '../routes.js';
import { empty, link, pageHeader, section, stats } from './common.js';

export const monster = {
  operation: (route) => ({ query: MONSTER_PAGE, variables: { id: route.id }, operationName: 'MonsterPage' }),
  found: (data) => data.monster != null,
  title: (data) => data.monster.name ?? `Monster ${data.monster.id}`,
  render(data) {
    const m = data.monster;
    return h(
      'article',
      { class: 'monster-page', 'data-testid': 'monster-page' },
      pageHeader(
        'monster-name',
        m.name ?? `Monster ${m.id}`,
        m.area ? h('span', { class: 'badge' }, m.area) : null,
        m.isGod ? h('span', { class: 'badge god' }, 'God') : null,
      ),
      section('monster-section-stats', 'Stats', monsterStats(m)),
      lootTable(m),
    );
  },
};

function monsterStats(m) {
  const n = (v) => (v == null ? null : num(v));
  return stats('monster-stats', [
    ['Combat level', n(m.combatLevel)],
    ['Health', n(m.health)],
    ['Attack', n(m.attack)],
    ['Strength', n(m.strength)],
    ['Defence', n(m.defence)],
    ['Attack speed', m.attackSpeedText],
    ['Weakness', m.weakness],
    ['Slayer level', n(m.slayerLevel)],
    ['Slayer experience', n(m.slayerExp)],
    ['Treasure scroll', m.treasureScrollChance == null ? null : chance(m.treasureScrollChance)],
  ]);
}

function lootTable(m) {
  const drops = m.drops ?? [];
  if (drops.length === 0) return section('loot', 'Loot', empty('This monster drops nothing.'));
  return section(
    'loot',
    `Loot (${drops.length === 1 ? '1 drop' : `${drops.length} drops`})`,
    h(
      'div',
      { class: 'table-scroll' },
      h(
        'table',
        { class: 'data', 'data-testid': 'loot-table' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            h('th', { scope: 'col' }, 'Item'),
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
            const name = d.item?.name ?? d.name ?? 'Unknown item';
            return h(
              'tr',
              null,
              h(
                'th',
                { scope: 'row' },
                d.item ? link(paths.item(d.item.id), name, { 'data-testid': 'loot-item-link' }) : name,
                d.item ? h('span', { class: 'sub' }, rarityBadge(d.item.rarity), ` ${d.item.type}`) : null,
              ),
              h('td', { class: 'num' }, amount(d.min, d.max)),
              h('td', { class: 'num' }, chanceCell(d.baseChance)),
              h('td', { class: 'num extra' }, chance(d.luckChance)),
              h('td', { class: 'num extra' }, chance(d.extremeLuckChance)),
              h('td', { class: 'extra' }, d.rarity ?? ''),
            );
          }),
        ),
      ),
    ),
  );
}
