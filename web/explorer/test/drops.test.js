// The arithmetic of drop tables (src/drops.js): their order, the coins a
// kill is worth, a world boss's battle against its times.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bestDrop, bossTiming, dropRarityRank, expectedCoins, meanAmount, sortRows } from '../src/drops.js';

// A monster's drops as the catalogue gives them (Chicken's, abridged):
// chances are percentages, 100 for "Always".
const drops = [
  { name: 'Bones', baseChance: 100, rarity: 'Always' },
  { name: 'Bronze Sword', baseChance: 0.137, rarity: 'Very Rare' },
  { name: 'Cooked Herring', baseChance: 0.23, rarity: 'Rare' },
  { name: 'Oak Shortbow', baseChance: 3.5, rarity: 'Uncommon' },
  { name: 'Unknown', baseChance: null, rarity: null },
  { name: 'Feather', baseChance: 54, rarity: 'Common' },
];
const names = (rows) => rows.map((r) => r.name);

test('rows sort by chance, highest first, unknown chances last', () => {
  assert.deepEqual(names(sortRows(drops, (d) => d.baseChance, true)), ['Bones', 'Feather', 'Oak Shortbow', 'Cooked Herring', 'Bronze Sword', 'Unknown']);
  assert.deepEqual(names(sortRows(drops, (d) => d.baseChance, false)), ['Bronze Sword', 'Cooked Herring', 'Oak Shortbow', 'Feather', 'Bones', 'Unknown']);
});

test('0.11 % sorts below 1.67 %, as numbers and not as text', () => {
  const rows = [{ name: 'a', c: 0.11 }, { name: 'b', c: 1.67 }, { name: 'c', c: 10 }];
  assert.deepEqual(names(sortRows(rows, (r) => r.c, true)), ['c', 'b', 'a']);
});

test('names sort as text, and ties keep their order', () => {
  assert.deepEqual(names(sortRows(drops, (d) => d.name, false)).slice(0, 3), ['Bones', 'Bronze Sword', 'Cooked Herring']);
  const tied = [{ name: 'x', k: 1 }, { name: 'y', k: 1 }, { name: 'z', k: 2 }];
  assert.deepEqual(names(sortRows(tied, (r) => r.k, true)), ['z', 'x', 'y']);
  assert.deepEqual(names(sortRows(tied, (r) => r.k, false)), ['x', 'y', 'z']);
});

test('the drop rarity sorts by how often, not by spelling', () => {
  const byRarity = names(sortRows(drops, (d) => dropRarityRank(d.rarity), false));
  assert.deepEqual(byRarity, ['Bones', 'Feather', 'Oak Shortbow', 'Cooked Herring', 'Bronze Sword', 'Unknown']);
  assert.equal(dropRarityRank('very rare'), dropRarityRank('Very Rare'));
});

test('coins per kill: the chance as a percentage, times the mean amount, times the value', () => {
  // Always (100 %), 1 of an item worth 5: 5 coins a kill.
  assert.equal(expectedCoins(100, 5, 1, 1), 5);
  // 54 %, 1–3 (2 on average), worth 10: 10.8.
  assert.ok(Math.abs(expectedCoins(54, 10, 1, 3) - 10.8) < 1e-9);
  // 0.137 % of a 2,000-coin sword is 2.74 coins, not 274 (a fraction) .
  assert.ok(Math.abs(expectedCoins(0.137, 2000, 1, 1) - 2.74) < 1e-9);
  assert.equal(expectedCoins(null, 5, 1, 1), null);
  assert.equal(expectedCoins(50, null, 1, 1), null);
  assert.equal(meanAmount(null, null), 1);
  assert.equal(meanAmount(null, 4), 4);
});

test("a boss's battle against its times", () => {
  const start = '2026-11-22T11:50:00.000Z';
  const end = '2026-11-22T12:20:00.000Z';
  assert.equal(bossTiming(start, end, Date.parse('2026-11-22T11:00:00Z')), 'before');
  assert.equal(bossTiming(start, end, Date.parse('2026-11-22T12:00:00Z')), 'during');
  assert.equal(bossTiming(start, end, Date.parse('2026-11-25T12:00:00Z')), 'after');
  assert.equal(bossTiming(null, end), null);
});

test('the best drop is the one of the highest chance, the first of equals', () => {
  assert.equal(bestDrop(drops).name, 'Bones');
  assert.equal(bestDrop(drops.slice(1)).name, 'Feather');
  assert.equal(bestDrop([{ name: 'a', baseChance: 2 }, { name: 'b', baseChance: 2 }]).name, 'a');
  assert.equal(bestDrop([]), null);
  assert.equal(bestDrop([{ name: 'x', baseChance: null }]), null);
});
