import { h } from '../dom.js';
import { amount, chance, num, rarityBadge } from '../format.js';
import { ITEM_PAGE } from '../queries.js';
import { paths } from '../routes.js';
import { dropTable, empty, link, pageHeader, section, stats } from './common.js';

export const item = {
  operation: (route) => ({ query: ITEM_PAGE, variables: { id: route.id }, operationName: 'ItemPage' }),
  // null: not found.
  found: (data) => data.item != null,
  title: (data) => data.item.name,
  render(data) {
    const it = data.item;
    return h(
      'article',
      { class: 'item-page', 'data-testid': 'item-page' },
      pageHeader('item-name', it.name, rarityBadge(it.rarity), h('span', { class: 'badge' }, it.type)),
      it.description ? h('p', { class: 'description' }, it.description) : null,
      section('item-section-stats', 'Stats', itemStats(it)),
      droppedBy(it),
      otherSources(it),
      quests(it),
      madeFrom(it),
      recipes(it),
    );
  },
};

// The stats that mean something for this item: always its rarity, type,
// value and tradability; the bonuses and levels only when not zero.
function itemStats(it) {
  const nonZero = (label, v) => [label, v ? num(v) : null];
  return stats('item-stats', [
    ['Rarity', it.rarity],
    ['Type', it.type],
    ['Value', `${num(it.value)} coins`],
    ['Tradable', it.tradable ? 'Yes' : 'No'],
    nonZero('Healing', it.healingAmount),
    nonZero('Farming level', it.farmingLevel),
    nonZero('Attack bonus', it.attackBonus),
    nonZero('Strength bonus', it.strengthBonus),
    nonZero('Defence bonus', it.defenceBonus),
    nonZero('Health bonus', it.healthBonus),
    nonZero('Bow damage', it.bowDamage),
    nonZero('Bow critical', it.bowCrit),
    nonZero('Bow accuracy', it.bowAccuracy),
    nonZero('Bow speed', it.bowSpeed),
    ['Limited', it.limited != null ? num(it.limited) : null],
  ]);
}

function droppedBy(it) {
  const drops = [...(it.monsterDrops ?? [])].sort((a, b) => b.baseChance - a.baseChance);
  if (drops.length === 0) return section('dropped-by', 'Dropped by', empty('No monster drops this item.'));
  return section(
    'dropped-by',
    `Dropped by ${drops.length === 1 ? '1 monster' : `${drops.length} monsters`}`,
    dropTable({}, 'Monster', drops, (d) => {
      const m = d.monster;
      const name = m?.name ?? d.monsterName;
      return {
        head: [
          m
            ? link(paths.monster(m.id), name, {
                'data-testid': 'dropper-link',
                'aria-describedby': `drop-chance-${d.monsterId}`,
              })
            : name,
          m ? h('span', { class: 'sub' }, `level ${num(m.combatLevel)}${m.area ? ` · ${m.area}` : ''}`) : null,
        ],
        min: d.minAmount,
        max: d.maxAmount,
        chanceAttrs: { id: `drop-chance-${d.monsterId}`, 'data-testid': 'drop-chance' },
      };
    }),
  );
}

// Where else the item comes from: discovery, fishing and thieving spots and
// chests. These have no page of their own here.
function otherSources(it) {
  const rows = [
    ...(it.discoveryDrops ?? []).map((d) => ['Discovery', d.locationName, chance(d.baseChance)]),
    ...(it.fishingDrops ?? []).map((d) => ['Fishing', d.locationName, chance(d.baseChance)]),
    ...(it.theivingDrops ?? []).map((d) => ['Thieving', d.locationName, chance(d.baseChance)]),
    ...(it.foundInChests ?? []).map((c) => ['Chest', `${c.chestName} (×${amount(c.minAmount, c.maxAmount)})`, c.chanceText]),
  ];
  if (rows.length === 0) return null;
  return section(
    'other-sources',
    'Also found',
    h(
      'ul',
      { class: 'plain-list' },
      rows.map(([kind, where, odds]) => h('li', null, h('span', { class: 'kind' }, kind), ' ', where, h('span', { class: 'muted' }, ` ${odds}`))),
    ),
  );
}

function quests(it) {
  const rewarded = it.rewardedByQuests ?? [];
  const required = it.requiredByQuests ?? [];
  const amountIn = (list) => {
    const total = (list ?? []).filter((x) => x.itemId === it.id).reduce((n, x) => n + Number(x.amount || 0), 0);
    return total ? ` ×${num(total)}` : '';
  };
  const questLine = (q, amountText) =>
    h(
      'li',
      null,
      h('span', { class: 'quest-name' }, q.questName),
      h('span', { class: 'muted' }, amountText),
      q.questSeries ? h('span', { class: 'sub' }, q.questSeries) : null,
    );
  if (rewarded.length === 0 && required.length === 0) {
    return section('quests', 'Quests', empty('No quest needs or rewards this item.'));
  }
  return section(
    'quests',
    'Quests',
    h(
      'div',
      { class: 'split' },
      h(
        'div',
        { 'data-testid': 'rewarded-by' },
        h('h3', null, 'Rewarded by'),
        rewarded.length
          ? h('ul', { class: 'plain-list' }, rewarded.map((q) => questLine(q, amountIn(q.questRewards))))
          : empty('No quest rewards it.'),
      ),
      h(
        'div',
        { 'data-testid': 'required-by' },
        h('h3', null, 'Needed by'),
        required.length
          ? h('ul', { class: 'plain-list' }, required.map((q) => questLine(q, amountIn(q.questItems))))
          : empty('No quest needs it.'),
      ),
    ),
  );
}

// How the item is made: its crafting, cooking, fletching or alchemy recipe.
function madeFrom(it) {
  const ways = [
    it.crafting && ['Crafting', it.crafting.category, it.crafting.craftingLevel, it.crafting.materials],
    it.cooking && ['Cooking', null, it.cooking.cookingLevel, it.cooking.materials],
    it.fletching && ['Fletching', null, it.fletching.fletchingLevel, it.fletching.materials],
    it.alchemy && ['Alchemy', null, it.alchemy.levelRequired, it.alchemy.materials],
  ].filter(Boolean);
  if (ways.length === 0) return null;
  return section(
    'made-from',
    'How it is made',
    ways.map(([skill, category, level, materials]) =>
      h(
        'div',
        { class: 'recipe' },
        h('h3', null, `${skill}${category ? ` (${category})` : ''}`, h('span', { class: 'muted' }, ` · level ${num(level)}`)),
        h(
          'ul',
          { class: 'inline-list' },
          materials.map((mat) => {
            const name = mat.item?.name ?? mat.name ?? mat.itemName;
            return h(
              'li',
              null,
              mat.amount != null ? `${num(mat.amount)} × ` : null,
              mat.item ? link(paths.item(mat.item.id), name) : name,
            );
          }),
        ),
      ),
    ),
  );
}

// The recipes that use the item: cooking and fletching recipes (with their
// levels), then the other items it goes into (crafting, alchemy).
function recipes(it) {
  const seen = new Set();
  const rows = [];
  for (const r of it.usedInCookingRecipes ?? []) {
    if (r.item) seen.add(r.item.id);
    rows.push(['Cooking', r.item, r.name, `level ${num(r.requiredLevel)}`]);
  }
  for (const r of it.usedInFletchingRecipes ?? []) {
    if (r.item) seen.add(r.item.id);
    rows.push(['Fletching', r.item, r.name, `level ${num(r.fletchingLevel)}`]);
  }
  for (const other of it.ingredientOf ?? []) {
    if (seen.has(other.id)) continue;
    seen.add(other.id);
    rows.push(['Ingredient of', other, other.name, other.type]);
  }
  if (rows.length === 0) return section('recipes', 'Used in recipes', empty('No recipe uses this item.'));
  return section(
    'recipes',
    `Used in ${rows.length === 1 ? '1 recipe' : `${rows.length} recipes`}`,
    h(
      'ul',
      { class: 'plain-list' },
      rows.map(([kind, target, name, detail]) =>
        h(
          'li',
          null,
          h('span', { class: 'kind' }, kind),
          ' ',
          target ? link(paths.item(target.id), name) : name,
          detail ? h('span', { class: 'muted' }, ` ${detail}`) : null,
        ),
      ),
    ),
  );
}
