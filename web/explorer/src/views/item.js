import { h } from '../dom.js';
import { amount, chance, num, rarityBadge } from '../format.js';
import { PAGES } from '../queries.js';
import { paths } from '../routes.js';
import { bestSource, bossDrops, chestSources, counted, limitedText, usedIn } from '../sources.js';
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

// The infobox: rarity, type, value, tradability, whether it is a limited
// item, and where it is most likely got (sources.js, bestSource: the
// monster or world boss drop of the highest chance, else a chest).
function itemBox(it) {
  return infobox('item', it.name, [
    ['Rarity', it.rarity ? link(paths.list('items', { rarity: it.rarity }), rarityBadge(it.rarity)) : null],
    ['Type', it.type ? link(paths.list('items', { type: it.type }), it.type) : null],
    ['Value', `${num(it.value)} coins`],
    ['Tradable', it.tradable ? 'Yes' : 'No'],
    ['Limited edition', limitedText(it.limited)],
    ['Obtained from', obtainedFrom(bestSource(it))],
  ], {}, it.image);
}

function obtainedFrom(best) {
  if (!best) return null;
  const { kind, drop } = best;
  const where =
    kind === 'monster'
      ? [drop.monster ? link(paths.monster(drop.monster.id), drop.monster.name ?? drop.monsterName) : drop.monsterName,
        ` (${chance(drop.baseChance)})`, drop.monster?.area ? h('span', { class: 'sub' }, `in ${drop.monster.area}`) : null]
      : kind === 'boss'
        ? [ref('worldBosses', drop.boss), ` (${chance(drop.chance)})`, h('span', { class: 'sub' }, 'world boss')]
        : [ref('eventChests', drop.chest) ?? drop.chestName, drop.chanceText ? ` (${drop.chanceText})` : null, h('span', { class: 'sub' }, 'event chest')];
  return h('span', { 'data-testid': 'obtained-from' }, where);
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
  ];
  if (!pairs.some(([, v]) => v != null)) return null;
  return section('item-section-stats', 'Stats', stats('item-stats', pairs));
}

// Who drops the item: monsters and world bosses in one table, sorted by
// chance. No section when nobody does.
function droppedBy(it) {
  const drops = it.monsterDrops ?? [];
  const bosses = bossDrops(it);
  if (drops.length === 0 && bosses.length === 0) return null;
  const counts = [
    drops.length ? (drops.length === 1 ? '1 monster' : `${drops.length} monsters`) : null,
    bosses.length ? (bosses.length === 1 ? '1 world boss' : `${bosses.length} world bosses`) : null,
  ].filter(Boolean);
  // A boss's loot gives a quantity and a chance; no luck, no drop rarity.
  const bossRows = bosses.map((b) => ({ baseChance: b.chance, boss: b.boss, quantity: b.quantity }));
  return section(
    'dropped-by',
    `Dropped by ${counts.join(' and ')}`,
    dropTable({}, bosses.length ? 'Monster or boss' : 'Monster', [...drops, ...bossRows], (d) => {
      if (d.boss) {
        return {
          name: d.boss.name,
          head: [
            ref('worldBosses', d.boss, null, { 'data-testid': 'boss-dropper-link', 'aria-describedby': `drop-chance-boss-${d.boss.id}` }),
            h('span', { class: 'sub' }, `world boss · level ${num(d.boss.level)}`),
          ],
          min: d.quantity,
          max: d.quantity,
          chanceAttrs: { id: `drop-chance-boss-${d.boss.id}`, 'data-testid': 'drop-chance' },
        };
      }
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

// Where else the item comes from: discovery, fishing and thieving spots,
// safes, explorations and chests (each chest once: sources.js,
// chestSources). "Obtained from" when nothing drops it.
function otherSources(it) {
  const rows = [
    ...(it.discoveryDrops ?? []).map((d) => ['Discovery', d.location ? ref('discoveryLocations', d.location) : d.locationName, chance(d.baseChance)]),
    ...(it.fishingDrops ?? []).map((d) => ['Fishing', d.locationName, chance(d.baseChance)]),
    ...(it.theivingDrops ?? []).map((d) => ['Thieving', d.locationName, chance(d.baseChance)]),
    ...(it.safesDrops ?? []).map((d) => ['Safe', `${d.safeName} (×${num(d.amount)})`, d.chance]),
    ...(it.explorationDrops ?? []).map((d) => ['Exploration', `${d.explorationName} (×${num(d.amount)})`, d.chance]),
    ...chestSources(it).map((c) => ['Event chest', [ref('eventChests', c.chest) ?? c.chestName, ` ×${amount(c.min, c.max)}`], c.chanceText]),
    ...(it.secrets ? [['Secret', it.secretRares?.[0] ? ref('secretRares', it.secretRares[0], 'secret rare drop') : 'secret rare drop', it.secrets.chanceText]] : []),
  ];
  if (rows.length === 0) return null;
  const dropped = (it.monsterDrops ?? []).length > 0 || (it.droppedByWorldBosses ?? []).length > 0;
  return section(
    'other-sources',
    dropped ? 'Also obtained from' : 'Obtained from',
    h(
      'ul',
      { class: 'plain-list', 'data-testid': 'sources-list' },
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
  if (rewarded.length === 0 && required.length === 0) return null;
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
          // Cooking's ingredients come with no amount: each counts once.
          counted(materials).map((mat) => {
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

// The recipes that use the item, each once (sources.js, usedIn): cooking
// and fletching recipes (with their levels), then the other items it goes
// into (crafting, alchemy). No section when none does.
const DETAIL = {
  cookingRecipes: (r) => `level ${num(r.requiredLevel)}`,
  fletchingRecipes: (r) => `level ${num(r.fletchingLevel)}`,
  farmingSeeds: (r) => `level ${num(r.seedLevel)}`,
  forestryTrees: (r) => `level ${num(r.minimumForestryLevel)}`,
  items: (r) => r.type,
};
const NAME = { farmingSeeds: (r) => r.seedName, forestryTrees: (r) => r.tree };
function recipes(it) {
  const rows = usedIn(it).map(({ kind, field, record }) => [kind, paths.record(field, record.id), (NAME[field] ?? ((r) => r.name))(record), DETAIL[field](record)]);
  if (rows.length === 0) return null;
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
