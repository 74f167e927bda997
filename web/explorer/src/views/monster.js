import { h } from '../dom.js';
import { chance, num, rarityBadge } from '../format.js';
import { PAGES } from '../queries.js';
import { paths } from '../routes.js';
import { dropTable, empty, link, pageHeader, section, stats } from './common.js';

export const monster = {
  operation: (route) => ({ ...PAGES.monsters, variables: { id: route.id } }),
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
        h('span', { class: 'badge' }, `Monster #${m.id}`),
        m.area ? link(paths.list('monsters', { area: m.area }), m.area, { class: 'badge' }) : null,
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
    ['… max wishing well', m.treasureScrollChanceWithWwMax == null ? null : chance(m.treasureScrollChanceWithWwMax)],
    ['… and base camp 72', m.treasureScrollChanceWithWwMaxAndBC72 == null ? null : chance(m.treasureScrollChanceWithWwMaxAndBC72)],
  ]);
}

function lootTable(m) {
  const drops = m.drops ?? [];
  if (drops.length === 0) return section('loot', 'Loot', empty('This monster drops nothing.'));
  return section(
    'loot',
    `Loot (${drops.length === 1 ? '1 drop' : `${drops.length} drops`})`,
    dropTable({ 'data-testid': 'loot-table' }, 'Item', drops, (d) => {
      const name = d.item?.name ?? d.name ?? 'Unknown item';
      return {
        name,
        value: d.item?.value,
        head: [
          d.item ? link(paths.item(d.item.id), name, { 'data-testid': 'loot-item-link' }) : name,
          d.item ? h('span', { class: 'sub' }, rarityBadge(d.item.rarity), ` ${d.item.type}`) : null,
        ],
        min: d.min,
        max: d.max,
        chanceAttrs: {},
      };
    }, { value: true }),
  );
}
