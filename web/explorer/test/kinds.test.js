// The explorer's kinds are the schema's: every list filters.gen.json
// describes is browsable, and one the schema adds is shown from its names
// alone, with no change to the explorer.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import LISTS from '../src/filters.gen.json' with { type: 'json' };
import { FIELDS, KINDS, kindOf } from '../src/kinds.js';
import { COLLECTIONS } from '../src/queries.js';

test('every list of the schema is a kind and a collection', () => {
  assert.deepEqual([...FIELDS].sort(), Object.keys(LISTS).sort());
  assert.deepEqual(Object.keys(COLLECTIONS).sort(), Object.keys(LISTS).sort());
  for (const [field, list] of Object.entries(LISTS)) assert.equal(COLLECTIONS[field].type, list.type, field);
});

test("a list the schema adds is shown from the schema's names", () => {
  const pets = {
    type: 'PetCompanion',
    filter: { fields: [{ name: 'nameContains', type: 'String', test: 'contains', field: 'petName' }] },
    order: { values: [{ value: 'ID', by: 'id' }, { value: 'NAME', by: 'petName' }] },
  };
  const kind = kindOf('petCompanions', pets);
  assert.equal(kind.path, 'pet-companions');
  assert.equal(kind.label, 'Pet companions');
  assert.equal(kind.one, 'pet companion');
  assert.deepEqual(kind.sorts, ['ID', 'NAME']);
  assert.equal(kind.name({ id: 3, petName: 'Rex' }), 'Rex');
  assert.equal(kind.name({ id: 3 }), 'Pet companion 3');
});

test('the kinds keep their paths, labels and names', () => {
  assert.equal(KINDS.discoveryLocations.path, 'discovery');
  assert.equal(KINDS.baseCamps.label, 'Base camp levels');
  assert.equal(KINDS.monsters.name({ id: 7 }), 'Monster 7');
  assert.equal(FIELDS[0], 'items', 'the home page lists items first');
});
