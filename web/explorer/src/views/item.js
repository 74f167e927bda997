import { h } from '../dom.js';
import { bestDrop } from '../drops.js';
import { amount, chance, num, rarityBadge } from '../format.js';
import { PAGES } from '../queries.js';
import { paths } from '../routes.js';
import { dropTable, empty, infobox, itemRef, link, pageHeader, ref, section, stats, table, withInfobox } from './common.js';

export const item = {
  operation: (route) => ({ ...PAGES.items, variables: { id: route.id } }),
  // null: not found.
  found: (data) => data.item != null,
  title: (data) => data.item.name,
  render(data) {
    const it = data.item;
    return h(
      'article',
      { class: 'item-page with-infobox', 'data-testid': 'item-page' },
      withInfobox(
        pageHeader('item-name', it.name, h('span', { class: 'badge' }, `Item #${it.id}`)),
        itemBox(it),
        it.description ? h('p', { class: 'description' }, it.description) : null,
        itemStats(it),
        skillUses(it),
        droppedBy(it),
        otherSources(it),
        chestContents(it),
        quests(it),
        baseCamps(it),
        madeFrom(it),
        recipes(it),
      ),
    );
  },
};

// The infobox: rarity, type, value, tradability, and where the item is
// most likely to drop (the monster drop of the highest chance, and the
// monster's area).
function itemBox(it) {
  const best = bestDrop(it.monsterDrops);
  return infobox('item', it.name, [
    ['Rarity', it.rarity ? link(paths.list('items', { rarity: it.rarity }), rarityBadge(it.rarity)) : null],
    ['Type', it.type ? link(paths.list('items', { type: it.type }), it.type) : null],
    ['Value', `${num(it.value)} coins`],
    ['Tradable', it.tradable ? 'Yes' : 'No'],
    [
      'Obtained from',
      best
        ? h(
            'span',
            { 'data-testid': 'obtained-from' },
            best.monster ? link(paths.monster(best.monster.id), best.monster.name ?? best.monsterName) : best.monsterName,
            ` (${chance(best.baseChance)})`,
            best.monster?.area ? h('span', { class: 'sub' }, `in ${best.monster.area}`) : null,
          )
        : null,
    ],
  ], {}, it.image);
}

// The stats that mean something for this item beyond its infobox: the
// bonuses and levels when not zero. No section when there is none.
function itemStats(it) {
  const nonZero = (label, v) => [label, v ? num(v) : null];
  const pairs = [
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
  ];
  if (!pairs.some(([, v]) => v != null)) return null;
  return section('item-section-stats', 'Stats', stats('item-stats', pairs));
}

function droppedBy(it) {
  const drops = it.monsterDrops ?? [];
  if (drops.length === 0) return section('dropped-by', 'Dropped by', empty('No monster drops this item.'));
  return section(
    'dropped-by',
    `Dropped by ${drops.length === 1 ? '1 monster' : `${drops.length} monsters`}`,
    dropTable({}, 'Monster', drops, (d) => {
      const m = d.monster;
      const name = m?.name ?? d.monsterName;
      return {
        name,
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
    ...(it.discoveryDrops ?? []).map((d) => ['Discovery', d.location ? ref('discoveryLocations', d.location) : d.locationName, chance(d.baseChance)]),
    ...(it.fishingDrops ?? []).map((d) => ['Fishing', d.locationName, chance(d.baseChance)]),
    ...(it.theivingDrops ?? []).map((d) => ['Thieving', d.locationName, chance(d.baseChance)]),
    ...(it.safesDrops ?? []).map((d) => ['Safe', `${d.safeName} (×${num(d.amount)})`, d.chance]),
    ...(it.explorationDrops ?? []).map((d) => ['Exploration', `${d.explorationName} (×${num(d.amount)})`, d.chance]),
    ...(it.foundInChests ?? []).map((c) => ['Chest', [ref('eventChests', c.chest) ?? c.chestName, ` ×${amount(c.minAmount, c.maxAmount)}`], c.chanceText]),
    ...(it.eventDrops ?? []).map((c) => ['Event', [ref('eventChests', c.chest) ?? c.chestName, ` ×${num(c.amount)}`], c.chanceText]),
    ...(it.secrets ? [['Secret', it.secretRares?.[0] ? ref('secretRares', it.secretRares[0], 'secret rare drop') : 'secret rare drop', it.secrets.chanceText]] : []),
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
      ref('quests', q, null, { class: 'quest-name' }),
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
              itemRef(mat.item, name),
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
  const used = it.usedIn ?? {};
  for (const u of used.cooking ?? []) if (u.cooking) rows.push(['Cooking', paths.record('cookingRecipes', u.cooking.id), u.cooking.name, `level ${num(u.cooking.requiredLevel)}`]);
  for (const u of used.fletching ?? []) if (u.fletching) rows.push(['Fletching', paths.record('fletchingRecipes', u.fletching.id), u.fletching.name, `level ${num(u.fletching.fletchingLevel)}`]);
  for (const u of used.farming ?? []) if (u.farming) rows.push(['Farming', paths.record('farmingSeeds', u.farming.id), u.farming.seedName, `level ${num(u.farming.seedLevel)}`]);
  for (const u of used.forestry ?? []) if (u.forestry) rows.push(['Forestry', paths.record('forestryTrees', u.forestry.id), u.forestry.tree, `level ${num(u.forestry.minimumForestryLevel)}`]);
  for (const other of it.ingredientOf ?? []) {
    if (seen.has(other.id)) continue;
    seen.add(other.id);
    rows.push(['Ingredient of', paths.item(other.id), other.name, other.type]);
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
          link(target, name),
          detail ? h('span', { class: 'muted' }, ` ${detail}`) : null,
        ),
      ),
    ),
  );
}

// What the item means to a gathering skill (the item is a crop, an ore, a
// log) or to blessing.
function skillUses(it) {
  const rows = [
    it.farming && ['Farming', `level ${num(it.farming.farmingLevel)}, ${num(it.farming.farmingExp)} xp, from ${it.farming.farmingSeed}; scythe ${it.farming.scytheText}`],
    it.mining && ['Mining', `level ${num(it.mining.miningLevel)}, ${num(it.mining.miningExp)} xp; gem ${it.mining.gemText}`],
    it.forestry && ['Forestry', `${it.forestry.tree}: level ${num(it.forestry.forestryLevel)}, ${num(it.forestry.forestryExp)} xp, ${num(it.forestry.forestryBurnExp)} xp burnt`],
    it.blessed && ['Blessed', `${it.blessed.level}: ${it.blessed.description} (${it.blessed.requirement})`],
  ].filter(Boolean);
  if (!rows.length) return null;
  return section('skills', 'Skills', h('ul', { class: 'plain-list' }, rows.map(([k, v]) => h('li', null, h('span', { class: 'kind' }, k), ' ', v))));
}

// What the item holds, when it is a chest.
function chestContents(it) {
  if (!it.chest?.length) return null;
  return section(
    'chest',
    `Contents (${it.chest.length})`,
    table({ 'data-testid': 'item-chest' }, [
      { label: 'Item', cell: (c) => itemRef(c.item, c.name) },
      { label: 'Amount', num: true, cell: (c) => amount(c.min, c.max) },
      { label: 'Chance', num: true, cell: (c) => c.text },
    ], it.chest),
  );
}

function baseCamps(it) {
  const needed = it.requiredByBaseCamps ?? [];
  const rewarded = it.rewardedByBaseCamps ?? [];
  if (!needed.length && !rewarded.length) return null;
  const amountOf = (b) => (b.baseTowerItems ?? []).filter((x) => x.itemId === it.id).reduce((n, x) => n + Number(x.amount || 0), 0);
  return section(
    'base-camps',
    'Base camp',
    h(
      'ul',
      { class: 'plain-list' },
      needed.map((b) => h('li', null, h('span', { class: 'kind' }, 'Needed by'), ' ', ref('baseCamps', b), h('span', { class: 'muted' }, ` ×${num(amountOf(b))}`))),
      rewarded.map((b) => h('li', null, h('span', { class: 'kind' }, 'Reward of'), ' ', ref('baseCamps', b))),
    ),
  );
}
