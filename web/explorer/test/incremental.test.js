// An answer in parts put back together (src/incremental.js): merged in
// order, the parts of a @stream (and a @defer) are the whole answer.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstResult, mergeAll, mergePart } from '../src/incremental.js';

const drop = (n) => ({ itemId: n, name: `Drop ${n}`, baseChance: n / 2 });
const drops = (from, to) => Array.from({ length: to - from }, (_, i) => drop(from + i));

test('a streamed list gets its items at the index its path ends with, part after part', () => {
  const whole = { monster: { id: 16, name: 'Kobold', drops: drops(0, 25) } };
  const payloads = [
    { data: { monster: { id: 16, name: 'Kobold', drops: drops(0, 10) } }, hasNext: true },
    { incremental: [{ items: drops(10, 11), path: ['monster', 'drops', 10] }], hasNext: true },
    { incremental: [{ items: drops(11, 20), path: ['monster', 'drops', 11] }], hasNext: true },
    { incremental: [{ items: drops(20, 25), path: ['monster', 'drops', 20] }], hasNext: false },
  ];
  const steps = [firstResult(payloads[0])];
  for (const p of payloads.slice(1)) steps.push(mergePart(steps.at(-1), p));
  assert.deepEqual(steps.map((r) => r.data.monster.drops.length), [10, 11, 20, 25]);
  assert.deepEqual(steps.map((r) => r.hasNext), [true, true, true, false]);
  assert.deepEqual(steps.at(-1), { data: whole, errors: [], hasNext: false });
  assert.deepEqual(mergeAll(payloads).data, whole);
});

test('two streams in one payload, one nested in a list of the other, each at its own path', () => {
  const boss = (id, loot) => ({ id, name: `Boss ${id}`, loot });
  const payloads = [
    {
      data: { item: { id: 1, monsterDrops: drops(0, 2), droppedByWorldBosses: [boss(7, drops(0, 1))] } },
      hasNext: true,
    },
    {
      incremental: [
        { items: drops(2, 4), path: ['item', 'monsterDrops', 2] },
        { items: [boss(8, drops(0, 3))], path: ['item', 'droppedByWorldBosses', 1] },
        { items: drops(1, 3), path: ['item', 'droppedByWorldBosses', 0, 'loot', 1] },
      ],
      hasNext: false,
    },
  ];
  assert.deepEqual(mergeAll(payloads).data, {
    item: { id: 1, monsterDrops: drops(0, 4), droppedByWorldBosses: [boss(7, drops(0, 3)), boss(8, drops(0, 3))] },
  });
});

test('a streamed list inside a list of records (a search result\'s) is found by index', () => {
  const payloads = [
    { data: { search: [{ name: 'a', tags: ['x'] }, { name: 'b', tags: [] }] }, hasNext: true },
    { incremental: [{ items: ['y', 'z'], path: ['search', 1, 'tags', 0] }], hasNext: false },
  ];
  assert.deepEqual(mergeAll(payloads).data, { search: [{ name: 'a', tags: ['x'] }, { name: 'b', tags: ['y', 'z'] }] });
});

test('a deferred fragment\'s data is merged into the object at its path, nested objects field by field', () => {
  const payloads = [
    { data: { item: { id: 1, name: 'Bread', image: { url: '/a' } } }, hasNext: true },
    { incremental: [{ data: { rarity: 'Common', image: { width: 96 } }, path: ['item'], label: 'details' }], hasNext: false },
  ];
  assert.deepEqual(mergeAll(payloads).data, { item: { id: 1, name: 'Bread', rarity: 'Common', image: { url: '/a', width: 96 } } });
});

test('errors come from the first payload, each part and each entry, in order', () => {
  const e = (m) => ({ message: m });
  const payloads = [
    { data: { monster: { drops: [drop(0)] } }, errors: [e('first')], hasNext: true },
    { incremental: [{ items: [null], path: ['monster', 'drops', 1], errors: [e('entry')] }], errors: [e('part')], hasNext: false },
  ];
  const r = mergeAll(payloads);
  assert.deepEqual(r.errors.map((x) => x.message), ['first', 'part', 'entry']);
  assert.deepEqual(r.data.monster.drops, [drop(0), null]);
});

test('an entry whose path meets null (its parent nulled by an error) is left out', () => {
  const start = firstResult({ data: { monster: null }, hasNext: true });
  const r = mergePart(start, { incremental: [{ items: [drop(1)], path: ['monster', 'drops', 1] }], hasNext: false });
  assert.deepEqual(r.data, { monster: null });
  const none = mergePart(firstResult({ data: null, hasNext: true }), { incremental: [{ items: [1], path: ['x', 0] }] });
  assert.equal(none.data, null);
  assert.equal(none.hasNext, false, 'a payload without hasNext is the last');
});

test('merging changes nothing it was given: an earlier result stays as it was drawn', () => {
  const payload = { data: { monster: { id: 1, drops: drops(0, 2), other: { a: 1 } } }, hasNext: true };
  const first = firstResult(payload);
  const frozen = JSON.stringify(first);
  const next = mergePart(first, { incremental: [{ items: drops(2, 3), path: ['monster', 'drops', 2] }], hasNext: false });
  assert.equal(JSON.stringify(first), frozen);
  assert.equal(first.data.monster.drops.length, 2);
  assert.equal(next.data.monster.drops.length, 3);
  assert.equal(next.data.monster.other, first.data.monster.other, 'what the part did not touch is shared, not copied');
});

test('a payload with data (an answer sent whole) starts the result again', () => {
  const r = mergePart(firstResult({ data: { a: [1] }, hasNext: true }), { data: { a: [1, 2, 3] } });
  assert.deepEqual(r, { data: { a: [1, 2, 3] }, errors: [], hasNext: false });
});
