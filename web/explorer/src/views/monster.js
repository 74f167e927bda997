import { h } from '../dom.js';
import { expectedCoins } from '../drops.js';
import { chance, num, rarityBadge } from '../format.js';
import { PAGES } from '../queries.js';
import { paths } from '../routes.js';
import { dropTable, empty, infobox, link, pageHeader, section, stats, withInfobox } from './common.js';

export const monster = {
  operation: (route) => ({ ...PAGES.monsters, variables: { id: route.id } }),
  found: (data) => data.monster != null,
  title: (data) => data.monster.name ?? `Monster ${data.monster.id}`,
  render(data) {
    const m = data.monster;
    const title = m.name ?? `Monster ${m.id}`;
    return h(
      'article',
      { class: 'monster-page with-infobox', 'data-testid': 'monster-page' },
      withInfobox(
        pageHeader('monster-name', title, h('span', { class: 'badge' }, `Monster #${m.id}`), m.isGod ? h('span', { class: 'badge god' }, 'God') : null),
        monsterBox(m, title),
        section('monster-section-stats', 'Stats', monsterStats(m)),
        lootTable(m),
      ),
    );
  },
};

const n = (v) => (v == null ? null : num(v));

// The infobox: level, health, where it lives, its weakness and speed, the
// slayer level, and its best drop (the most coins a kill yields of one
// drop, on average).
function monsterBox(m, title) {
  let best = null;
  let bestCoins = -1;
  for (const d of m.drops ?? []) {
    const c = expectedCoins(d.baseChance, d.item?.value, d.min, d.max);
    if (c != null && c > bestCoins) [best, bestCoins] = [d, c];
  }
  return infobox('monster', title, [
    ['Combat level', n(m.combatLevel)],
    ['Health', n(m.health)],
    ['Area', m.area ? link(paths.list('monsters', { area: m.area }), m.area) : null],
    ['Weakness', m.weakness],
    ['Attack speed', m.attackSpeedText],
    ['Slayer level', n(m.slayerLevel)],
    [
      'Best drop',
      best
        ? h('span', { 'data-testid': 'best-drop' }, best.item ? link(paths.item(best.item.id), best.item.name) : best.name, ` (${chance(best.baseChance)})`,
            h('span', { class: 'sub' }, `${num(Math.round(bestCoins * 10) / 10)} coins per kill`))
        : null,
    ],
  ], {}, m.image);
}

function monsterStats(m) {
  return stats('monster-stats', [
    ['Attack', n(m.attack)],
    ['Strength', n(m.strength)],
    ['Defence', n(m.defence)],
    ['Slayer experience', n(m.slayerExp)],
    ['Treasure scroll', m.treasureScrollChance == null ? null : chance(m.treasureScrollChance)],
    ['Treasure scroll with max wishing well', m.treasureScrollChanceWithWwMax == null ? null : chance(m.treasureScrollChanceWithWwMax)],
    ['Treasure scroll with max wishing well and base camp 72', m.treasureScrollChanceWithWwMaxAndBC72 == null ? null : chance(m.treasureScrollChanceWithWwMaxAndBC72)],
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
