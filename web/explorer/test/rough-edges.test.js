// Issue 36's pure parts: the search page's variables and kinds, its
// suggested words, a drop table's hidden columns, the remembered theme.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { hiddenColumnsText } from '../src/drops.js';
import { FIELDS } from '../src/kinds.js';
import { searchKind, searchVariables } from '../src/queries.js';
import { THEME_KEY, storedTheme } from '../src/theme.js';
import { suggestedWords } from '../src/views/search.js';

const graphDir = new URL('../../../graph/', import.meta.url).pathname;
const schemaText = readdirSync(graphDir).filter((f) => f.endsWith('.graphqls')).map((f) => readFileSync(join(graphDir, f), 'utf8')).join('\n');

test('every kind has its SearchKind, and the schema has no other', () => {
  const values = [...schemaText.match(/enum SearchKind \{([^}]*)\}/)[1].matchAll(/^\s+([A-Z_]+)\s*$/gm)].map((m) => m[1]);
  assert.deepEqual(FIELDS.map(searchKind).sort(), [...values].sort());
  assert.equal(searchKind('secretRares'), 'SECRET_RARE');
});

test('the search page asks for one result more than it shows, kinds and cursor only when chosen', () => {
  assert.deepEqual(searchVariables({ text: 'drgon', first: 50 }), { text: 'drgon', first: 51 });
  assert.deepEqual(searchVariables({ text: 'ore', first: 50, kind: 'miningRocks', after: 'abc' }), { text: 'ore', first: 51, kinds: ['MINING_ROCK'], after: 'abc' });
});

test('suggested words: distinct, not the text, only when every result is a typo', () => {
  const fuzzy = (suggestion) => ({ match: 'FUZZY', suggestion });
  assert.deepEqual(suggestedWords([fuzzy('dragon'), fuzzy('dragon'), fuzzy('dragons'), fuzzy('drago')], 'drgon'), ['dragon', 'dragons', 'drago']);
  assert.deepEqual(suggestedWords([fuzzy('a'), fuzzy('b'), fuzzy('c'), fuzzy('d')], 'x', 2), ['a', 'b']);
  assert.deepEqual(suggestedWords([{ match: 'PREFIX', suggestion: null }, fuzzy('dragon')], 'drag'), []);
  assert.deepEqual(suggestedWords([fuzzy('bones')], ' Bones '), []);
  assert.deepEqual(suggestedWords([], 'x'), []);
});

test('a drop table names the columns a phone hides', () => {
  assert.equal(hiddenColumnsText(['Amount', 'With luck', 'Extreme luck', 'Drop rarity']), 'Amount, With luck, Extreme luck and Drop rarity');
  assert.equal(hiddenColumnsText(['Drop rarity']), 'Drop rarity');
  assert.equal(hiddenColumnsText([]), '');
});

test('the theme is the system one unless a known choice is remembered', () => {
  const store = (v) => ({ getItem: (k) => (k === THEME_KEY ? v : null) });
  assert.equal(storedTheme(store('dark')), 'dark');
  assert.equal(storedTheme(store('light')), 'light');
  assert.equal(storedTheme(store('blue')), 'system');
  assert.equal(storedTheme(store(null)), 'system');
  assert.equal(storedTheme({ getItem: () => { throw new Error('refused'); } }), 'system');
  assert.equal(storedTheme(undefined), 'system');
});
