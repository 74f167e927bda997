// What an item page and a world boss's badge derive from the data
// (src/sources.js): each chest once, the boss drops, the limited flag in
// words, counted ingredients, each recipe once, the best source, and a
// battle's state by its times rather than by the game's last word.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { battleState, bestSource, bossDrops, chestSources, counted, gameDisagrees, limitedText, usedIn } from '../src/sources.js';

// Item 1089 (Pumpkin Head Mask) of the embedded catalogue, abridged: its
// two chests, each under both lists.
const mask = {
  name: 'Pumpkin Head Mask',
  limited: 1,
  eventDrops: [
    { chestName: 'Halloween Chest', chestId: 1, amount: 1, chancePercentage: 0.8, chanceText: '0.8%', chest: { id: 1, name: 'Halloween Chest' } },
    { chestName: 'Snowball Sack', chestId: 20, amount: 1, chancePercentage: 2.4, chanceText: '2.4%', chest: { id: 20, name: 'Snowball Sack' } },
  ],
  foundInChests: [
    { chestName: 'Halloween Chest', chestId: 1, minAmount: 1, maxAmount: 1, chancePercentage: 0.8, chanceText: '0.8%', chest: { id: 1, name: 'Halloween Chest' } },
    { chestName: 'Snowball Sack', chestId: 20, minAmount: 1, maxAmount: 2, chancePercentage: 2.4, chanceText: '2.4%', chest: { id: 20, name: 'Snowball Sack' } },
  ],
};

test('a chest listed under foundInChests and eventDrops is one source', () => {
  const chests = chestSources(mask);
  assert.deepEqual(chests.map((c) => [c.chestId, c.min, c.max, c.chanceText]), [[1, 1, 1, '0.8%'], [20, 1, 2, '2.4%']]);
  assert.deepEqual(chestSources({ eventDrops: [mask.eventDrops[1]] }).map((c) => [c.chestId, c.min, c.max]), [[20, 1, 1]]);
  assert.deepEqual(chestSources({}), []);
});

test('an item only in chests is obtained from its likeliest chest', () => {
  const best = bestSource(mask);
  assert.equal(best.kind, 'chest');
  assert.equal(best.drop.chestName, 'Snowball Sack');
});

// Kraken Ink (item 772): three monsters, and the Kraken of the Abyss at 100 %.
const ink = {
  name: 'Kraken Ink',
  monsterDrops: [{ monsterId: 45, baseChance: 18 }, { monsterId: 94, baseChance: 23 }],
  droppedByWorldBosses: [{ id: 5, name: 'Kraken of the Abyss', loot: [{ name: 'Water Essence', quantity: 9, chance: 50 }, { name: 'Kraken Ink', quantity: 3, chance: 100 }] }],
};

test("a world boss's drop is read from its loot entry of the item's name, and can be the best source", () => {
  assert.deepEqual(bossDrops(ink).map((d) => [d.boss.id, d.quantity, d.chance]), [[5, 3, 100]]);
  const best = bestSource(ink);
  assert.equal(best.kind, 'boss');
  assert.equal(best.drop.boss.name, 'Kraken of the Abyss');
  assert.equal(bestSource({ ...ink, droppedByWorldBosses: [] }).drop.monsterId, 94);
  assert.equal(bestSource({}), null);
});

test('the limited flag reads as words', () => {
  assert.equal(limitedText(1), 'Yes');
  assert.equal(limitedText(0), 'No');
  assert.equal(limitedText(3), 'Yes (3)');
  assert.equal(limitedText(null), null);
  assert.equal(limitedText(undefined), null);
});

test('ingredients without amounts count once per listing; amounts add up', () => {
  assert.deepEqual(counted([{ itemId: 481, name: 'Raw Shrimp' }]).map((m) => [m.name, m.amount]), [['Raw Shrimp', 1]]);
  assert.deepEqual(
    counted([{ itemId: 1, name: 'A' }, { itemId: 2, name: 'B', amount: 3 }, { itemId: 1, name: 'A' }]).map((m) => [m.name, m.amount]),
    [['A', 2], ['B', 3]],
  );
  assert.deepEqual(counted(null), []);
});

test("a fletching recipe and the item it makes are one use, not two", () => {
  // Steel Arrowheads (item 197): the Steel Arrow recipe makes item 300,
  // which ingredientOf names again; item 400 is crafted from it.
  const it = {
    usedIn: {
      fletching: [{ fletching: { id: 7, itemId: 300, name: 'Steel Arrow' } }],
      cooking: [{ cooking: null }],
    },
    ingredientOf: [{ id: 300, name: 'Steel Arrow' }, { id: 400, name: 'Steel Shield' }, { id: 400, name: 'Steel Shield' }],
  };
  assert.deepEqual(usedIn(it).map((u) => [u.kind, u.record.id]), [['Fletching', 7], ['Ingredient of', 400]]);
});

test("a battle's state is its times against the clock, not the game's word", () => {
  const s = '2026-11-22T11:50:00.000Z';
  const e = '2026-11-22T12:20:00.000Z';
  assert.equal(battleState(s, e, Date.parse('2026-11-22T11:00:00Z')), 'upcoming');
  assert.equal(battleState(s, e, Date.parse('2026-11-22T12:00:00Z')), 'active');
  assert.equal(battleState(s, e, Date.parse('2026-11-28T12:00:00Z')), 'ended');
  assert.equal(battleState('', e, 0), null);
  assert.equal(gameDisagrees('ended', 'active'), true);
  assert.equal(gameDisagrees('ended', 'defeated'), false);
  assert.equal(gameDisagrees('active', 'Active'), false);
  assert.equal(gameDisagrees(null, 'active'), false);
});
