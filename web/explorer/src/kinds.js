// The catalogue's 13 kinds of record as the explorer shows them: where
// their pages live, what a record is called, and how their lists sort and
// filter. The schema's names (list fields, order fields, filter inputs)
// are used as they are; queries.js asks with them.

// The sorts of a list are its ItemOrderField (…) values; the filters, the
// fields of its ItemFilter (…) input beyond nameContains, each with the
// URL parameter that holds it and how its value is read.
const text = (param, key, label) => ({ param, key, label, type: 'text' });
const bool = (param, key, label, yes, no) => ({ param, key, label, type: 'bool', yes, no });
const number = (param, key, label) => ({ param, key, label, type: 'number' });

export const KINDS = {
  items: {
    path: 'items', label: 'Items', one: 'item', name: (r) => r.name,
    sorts: ['ID', 'NAME', 'VALUE'],
    filters: [text('type', 'type', 'Type'), text('rarity', 'rarity', 'Rarity'), bool('tradable', 'tradable', 'Tradable', 'Tradable', 'Not tradable')],
  },
  monsters: {
    path: 'monsters', label: 'Monsters', one: 'monster', name: (r) => r.name ?? `Monster ${r.id}`,
    sorts: ['ID', 'NAME', 'COMBAT_LEVEL', 'SLAYER_LEVEL', 'HEALTH'],
    filters: [
      text('area', 'area', 'Area'),
      number('min', 'combatLevelMin', 'Combat level from'),
      number('max', 'combatLevelMax', 'to'),
      bool('god', 'isGod', 'Gods', 'Gods only', 'No gods'),
    ],
  },
  quests: {
    path: 'quests', label: 'Quests', one: 'quest', name: (r) => r.questName,
    sorts: ['ID', 'NAME'],
    filters: [text('series', 'questSeries', 'Quest series')],
  },
  baseCamps: { path: 'base-camps', label: 'Base camp levels', one: 'base camp level', name: (r) => r.baseTowerLevel, sorts: ['ID', 'NAME'], filters: [] },
  discoveryLocations: { path: 'discovery', label: 'Discovery locations', one: 'discovery location', name: (r) => r.discoveryLocation, sorts: ['ID', 'NAME', 'LEVEL', 'EXP'], filters: [] },
  miningRocks: { path: 'mining', label: 'Mining rocks', one: 'mining rock', name: (r) => r.miningRock, sorts: ['ID', 'NAME', 'LEVEL', 'EXP'], filters: [] },
  cookingRecipes: { path: 'cooking', label: 'Cooking recipes', one: 'cooking recipe', name: (r) => r.name, sorts: ['ID', 'NAME', 'LEVEL', 'EXP'], filters: [] },
  fletchingRecipes: { path: 'fletching', label: 'Fletching recipes', one: 'fletching recipe', name: (r) => r.name, sorts: ['ID', 'NAME', 'LEVEL', 'EXP'], filters: [] },
  farmingSeeds: { path: 'farming', label: 'Farming seeds', one: 'farming seed', name: (r) => r.seedName, sorts: ['ID', 'NAME', 'LEVEL', 'EXP'], filters: [] },
  forestryTrees: { path: 'forestry', label: 'Forestry trees', one: 'forestry tree', name: (r) => r.tree, sorts: ['ID', 'NAME', 'LEVEL', 'EXP'], filters: [] },
  eventChests: { path: 'event-chests', label: 'Event chests', one: 'event chest', name: (r) => r.name, sorts: ['ID', 'NAME'], filters: [] },
  secretRares: { path: 'secret-rares', label: 'Secret rares', one: 'secret rare', name: (r) => r.itemName, sorts: ['ID', 'NAME'], filters: [] },
  worldBosses: {
    path: 'world-bosses', label: 'World bosses', one: 'world boss', name: (r) => r.name,
    sorts: ['ID', 'NAME', 'LEVEL'],
    filters: [text('status', 'status', 'Status')],
  },
};

export const FIELDS = Object.keys(KINDS);

// The field (items, monsters, …) whose pages live under a path segment.
export const BY_PATH = Object.fromEntries(FIELDS.map((f) => [KINDS[f].path, f]));
