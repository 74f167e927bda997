// The lists' columns against the schema: a column sorts by a value of its
// list's order enum (filters.gen.json, generated from the schema's @order
// directives), so a renamed or removed ordering fails here, not in a
// user's browser.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FIELDS, KINDS } from '../src/kinds.js';
import { columnsOf } from '../src/views/list.js';

test("every column with a field sorts by one of its list's orderings", () => {
  for (const field of FIELDS) {
    const sorts = KINDS[field].sorts;
    assert.ok(sorts.length > 0, `${field} has no orderings`);
    for (const column of columnsOf(field)) {
      if (column.by) assert.ok(sorts.includes(column.sort), `${field}'s column ${column.label} shows ${column.by}, which no value of its order enum orders by`);
    }
  }
});

test('every collection has its columns', () => {
  for (const field of FIELDS) assert.ok(columnsOf(field).length > 2, `${field} shows only the leading columns`);
});
