// The page of a record of any kind but items and monsters (item.js,
// monster.js): what it is, what it needs and gives, every reference a link.

import { h } from '../dom.js';
import { bossTiming } from '../drops.js';
import { battleBadge, chance, chanceCell, duration, fromNow, localTime, num, rarityBadge, timeCell } from '../format.js';
import { KINDS } from '../kinds.js';
import { COLLECTIONS, LIVE_PAGES, PAGES } from '../queries.js';
import { paths } from '../routes.js';
import { clockNow, counted } from '../sources.js';
import { dropTable, empty, infobox, itemRef, link, linkList, materials, pageHeader, picture, ref, section, skills, sortableTable, stats, withInfobox } from './common.js';

// recordView makes the view of one kind's page from its title and body:
// the operation is the kind's page query, and a null record is "not found".
export function recordView(field, render, pageClass) {
  const one = COLLECTIONS[field].one;
  const name = KINDS[field].name;
  return {
    operation: (route) => ({ ...PAGES[field], variables: { id: route.id } }),
    live: LIVE_PAGES.has(field),
    found: (data) => data[one] != null,
    title: (data) => name(data[one]),
    render: (data) => {
      const r = data[one];
      return h(
        'article',
        { class: pageClass ? `record-page ${pageClass}` : 'record-page', 'data-testid': 'record-page', 'data-kind': KINDS[field].path },
        render(r, name(r)),
        h('p', { class: 'muted back' }, 'All ', link(paths.list(field), KINDS[field].label.toLowerCase()), '.'),
      );
    },
  };
}

// The header of a page: the record's name, its kind and id.
const head = (field, r, title, ...badges) =>
  pageHeader('record-name', title, h('span', { class: 'badge' }, `${cap(KINDS[field].one)} #${r.id}`), ...badges);
const cap = (s) => s[0].toUpperCase() + s.slice(1);
const n = (v) => (v == null ? null : num(v));
const ms = (v) => (v == null ? null : `${num(Number(v) / 1000)} s`);

function questChain(q) {
  // Up the prerequisites, nearest last; then this quest; then down the
  // first quest each unlocks (the others are listed under "Unlocks").
  const before = [];
  for (let p = q.prerequisite; p; p = p.prerequisite) before.unshift(p);
  const after = [];
  for (let u = q.unlocks?.[0]; u; u = u.unlocks?.[0]) after.push(u);
  return h(
    'ol',
    { class: 'chain', 'data-testid': 'quest-chain' },
    before.map((p, i) => h('li', null, ref('quests', p, null, i === before.length - 1 ? { 'data-testid': 'prerequisite-link' } : undefined))),
    h('li', { 'aria-current': 'page' }, h('strong', null, q.questName)),
    after.map((u, i) => h('li', null, ref('quests', u, null, i === 0 ? { 'data-testid': 'unlock-link' } : undefined))),
  );
}

export const RECORD_VIEWS = {
  quests: recordView('quests', (q, title) => [
    head('quests', q, title, link(paths.list('quests', { series: q.questSeries }), q.questSeries, { class: 'badge' })),
    section('quest-chain', 'Quest chain', questChain(q)),
    // The chain shows the quest before and the first it unlocks; only
    // what it does not show is listed again.
    q.prerequisite == null && q.prerequisiteQuest
      ? section('prerequisite', 'Comes after', empty(`${q.prerequisiteQuest} (not in the catalogue)`))
      : null,
    q.unlocks.length > 1
      ? section('unlocks', 'Also unlocks', linkList('unlocks-list', q.unlocks.slice(1).map((u) => ref('quests', u)), ''))
      : null,
    section('required-skills', 'Required skills', skills(q.requiredSkills)),
    section('quest-items', 'Items needed', materials('quest-items-list', q.questItems)),
    section(
      'quest-rewards',
      'Rewards',
      q.questRewards.length
        ? h(
            'ul',
            { class: 'plain-list' },
            q.questRewards.map((w) =>
              h('li', null, w.item ? [`${num(w.amount)} × `, itemRef(w.item)] : w.skill ? `${num(w.amount)} ${w.skill} XP` : [`${num(w.amount)} × `, w.name || w.type]),
            ),
          )
        : empty('No reward.'),
    ),
  ]),

  baseCamps: recordView('baseCamps', (b, title) => [
    head('baseCamps', b, title),
    b.baseTowerBenefit ? h('p', { class: 'description' }, b.baseTowerBenefit) : null,
    section('required-skills', 'Required skills', skills(b.requiredSkills)),
    section('basecamp-items', 'Materials', materials('basecamp-materials', b.baseTowerItems)),
    section(
      'basecamp-rewards',
      'Rewards',
      b.baseTowerRewards.length
        ? h('ul', { class: 'plain-list' }, b.baseTowerRewards.map((w) => h('li', null, `${num(w.amount)} × `, w.item ? itemRef(w.item) : w.name || w.type)))
        : empty('No reward.'),
    ),
  ]),

  discoveryLocations: recordView('discoveryLocations', (d, title) => [
    head('discoveryLocations', d, title),
    section('stats', 'Discovery', stats('record-stats', [['Level', n(d.discoveryLevel)], ['Experience', n(d.discoveryExp)]])),
    section(
      'drops',
      `Drops here (${d.drops.length})`,
      d.drops.length
        ? dropTable({ 'data-testid': 'drop-table' }, 'Item', d.drops, (x) => ({ name: x.item?.name ?? x.name, head: [itemRef(x.item, x.name)], min: null, max: null, chanceAttrs: {} }))
        : empty('Nothing drops here.'),
    ),
  ]),

  miningRocks: recordView('miningRocks', (m, title) => [
    head('miningRocks', m, title),
    section(
      'stats',
      'Mining',
      stats('record-stats', [
        ['Ore', itemRef(m.item)],
        ['Level', n(m.minimumMiningLevel)],
        ['Experience', n(m.miningExp)],
        ['Base speed', ms(m.miningBaseSpeedInMilliseconds)],
        ['Success rate', n(m.miningSuccessBaseRate)],
        ['Illuminant gem', m.chanceForIlluminantGemText || chance(m.chanceForIlluminantGem)],
      ]),
    ),
  ]),

  cookingRecipes: recordView('cookingRecipes', (c, title) => [
    head('cookingRecipes', c, title),
    section(
      'stats',
      'Cooking',
      stats('record-stats', [
        ['Makes', itemRef(c.item)],
        ['Level', n(c.requiredLevel)],
        ['Experience', n(c.cookingExp)],
        ['Burns into', itemRef(c.burntItem, c.burnt)],
        ['Burn chance', chance(c.burntChance)],
        ['No burning from level', n(c.burntLevel)],
      ]),
    ),
    // The upstream gives cooking's ingredients no amount: each counts once.
    section('materials', 'Ingredients', materials('materials-list', counted(c.materials))),
  ]),

  fletchingRecipes: recordView('fletchingRecipes', (f, title) => [
    head('fletchingRecipes', f, title, h('span', { class: 'badge' }, f.category)),
    section('stats', 'Fletching', stats('record-stats', [['Makes', itemRef(f.item)], ['Level', n(f.fletchingLevel)], ['Experience', n(f.fletchingExp)]])),
    section('materials', 'Materials', materials('materials-list', f.materials)),
  ]),

  farmingSeeds: recordView('farmingSeeds', (s, title) => [
    head('farmingSeeds', s, title),
    section(
      'stats',
      'Farming',
      stats('record-stats', [
        ['Seed', itemRef(s.item)],
        ['Grows', itemRef(s.rewardItem, s.reward)],
        ['Level', n(s.seedLevel)],
        ['Experience', n(s.seedExp)],
        ['Growing time', duration(s.seedDurationInSeconds)],
        ['Scythe', s.chanceForScytheText || chance(s.chanceForScythe)],
      ]),
    ),
  ]),

  forestryTrees: recordView('forestryTrees', (t, title) => [
    head('forestryTrees', t, title),
    section(
      'stats',
      'Forestry',
      stats('record-stats', [
        ['Log', itemRef(t.item, t.log)],
        ['Level', n(t.minimumForestryLevel)],
        ['Experience', n(t.forestryExp)],
        ['Burning experience', n(t.forestryBurnExp)],
        ['Base speed', ms(t.forestryBaseSpeedInMilliseconds)],
        ['Nest chance', chance(t.nestChance)],
      ]),
    ),
  ]),

  eventChests: recordView('eventChests', (c, title) => withInfobox(
    head('eventChests', c, title),
    chestBox(c, title),
    section(
      'contents',
      `Contents (${c.drops.length})`,
      c.drops.length
        ? sortableTable({ 'data-testid': 'chest-contents' }, [
            { label: 'Item', key: (d) => d.item?.name ?? d.name, cell: (d) => itemRef(d.item, d.name) },
            { label: 'Amount', num: true, desc: true, key: (d) => Number(d.amount), cell: (d) => num(d.amount) },
            { label: 'Chance', num: true, desc: true, key: (d) => Number(d.percentage), cell: (d) => chanceCell(d.percentage) },
          ], c.drops, { column: 2, desc: true })
        : empty('This chest holds nothing.'),
    ),
  ), 'with-infobox'),

  secretRares: recordView('secretRares', (s, title) => [
    head('secretRares', s, title),
    h('p', null, 'The secret drop of ', itemRef(s.item, s.itemName), '.'),
    s.secretDrops.map((d, i) =>
      section(
        `secret-${i}`,
        s.secretDrops.length > 1 ? `Chance ${i + 1}` : 'Chance',
        stats('record-stats', [
          ['Base', d.chanceText],
          ['With max wishing well', d.chanceWithMaxWwText],
          ['With max wishing well and base camp 65', d.chanceWithMaxWwAndBC65Text],
          ['With those and a ring of secrets', d.chanceWithMaxWwAndBC65AndRingOfSecretsText],
          ['With a soul reaper potion', d.chanceWithSoulReaperPotionText],
          ['Wishing well helps', d.impactedByWishingWell ? 'Yes' : 'No'],
        ]),
        d.conditions.length ? [h('h3', null, 'Conditions'), h('ul', null, d.conditions.map((x) => h('li', null, x)))] : null,
      ),
    ),
  ]),

  worldBosses: recordView('worldBosses', (b, title) => withInfobox(
    head('worldBosses', b, title, battleBadge(b)),
    infobox('boss', title, [
      ['Status', h('span', { 'data-testid': 'boss-status-note' }, bossStatusNote(b))],
      ['Level', n(b.level)],
      ['Location', b.location?.name],
      ['Starts', timeCell(b.battleStartsAt)],
      ['Ends', timeCell(b.battleEndsAt)],
    ], { 'data-testid': 'battle' }, b.image),
    h('p', { class: 'muted' }, `Times are in your time zone. The game last updated this at ${localTime(b.endpointUpdatesAt)}.`),
    section(
      'loot',
      `Loot (${b.loot.length})`,
      b.loot.length
        ? sortableTable({ 'data-testid': 'boss-loot' }, [
            // Loot names its item by name (and a hashed id no collection
            // has): the gateway finds the catalogue's item of that name.
            {
              label: 'Item',
              key: (l) => l.name,
              cell: (l) => [
                picture('loot-picture', l.image, 24, '', 'boss-loot-picture'),
                l.item
                  ? [ref('items', l.item, l.name, { 'data-testid': 'boss-loot-link' }), l.item.rarity ? [' ', rarityBadge(l.item.rarity)] : null]
                  : [l.name, h('span', { class: 'sub', 'data-testid': 'boss-loot-missing' }, 'not in the catalogue')],
              ],
            },
            // On a phone the quality gives way, so that the chance fits.
            { label: 'Quality', extra: true, key: (l) => l.quality, cell: (l) => l.quality },
            { label: 'Quantity', num: true, desc: true, key: (l) => Number(l.quantity), cell: (l) => num(l.quantity) },
            { label: 'Chance', num: true, desc: true, key: (l) => Number(l.chance), cell: (l) => chanceCell(l.chance) },
          ], b.loot, { column: 3, desc: true })
        : empty('No loot is listed.'),
    ),
  ), 'with-infobox'),
};

// The boss's status is the game's word, as of its last update; the
// battle's times may tell another story by now (an "active" battle that
// ended days ago), so the note says both.
function bossStatusNote(b, now = clockNow()) {
  const timing = bossTiming(b.battleStartsAt, b.battleEndsAt, now);
  const byTimes =
    timing === 'after'
      ? `ended ${fromNow(b.battleEndsAt, now)} by its end time`
      : timing === 'during'
        ? `under way by its times, ending ${fromNow(b.battleEndsAt, now)}`
        : timing === 'before'
          ? `starts ${fromNow(b.battleStartsAt, now)} by its start time`
          : null;
  return `${b.status ?? 'unknown'} (as of the game's last update${byTimes ? `; ${byTimes}` : ''})`;
}

// An event chest's infobox: the item it is opened from (its picture), how
// many things it holds, and its likeliest and rarest.
function chestBox(c, title) {
  const byChance = c.drops.filter((d) => Number.isFinite(Number(d.percentage)));
  const pick = (better) => byChance.reduce((a, d) => (a == null || better(Number(d.percentage), Number(a.percentage)) ? d : a), null);
  const likeliest = pick((x, y) => x > y);
  const rarest = pick((x, y) => x < y);
  const drop = (d) => (d ? [ref('items', d.item) ?? d.name, ` (${chance(d.percentage)})`] : null);
  return infobox('chest', title, [
    ['Opened from', c.item ? ref('items', c.item) : null],
    ['Contents', `${num(c.drops.length)} ${c.drops.length === 1 ? 'item' : 'items'}`],
    ['Likeliest', drop(likeliest)],
    ['Rarest', byChance.length > 1 ? drop(rarest) : null],
  ], {}, c.item?.image ?? null);
}
