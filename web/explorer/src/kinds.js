// The catalogue's 13 kinds of record as the explorer shows them: where
// their pages live, what a record is called, and how their lists sort and
// filter. The schema's names (list fields, order fields, filter inputs)
// are used as they are; queries.js asks with them.

// Which sorts and filters each list has is the schema's: filters.gen.json
// is generated (go generate ./...) from the @contains, @equals, @atLeast,
// @atMost and @order directives of graph/schema.graphqls, and read here
// when the explorer is built. A list's sorts are its order enum's values;
// its filters, the fields of its filter input beyond the one @contains
// (the search box, nameContains), each with the URL parameter that holds
// it and how its value is read.
import LISTS from './filters.gen.json' with { type: 'json' };

// How a filter is shown, where its own name will not do: its URL
// parameter, its label, and a Boolean's two choices. A filter the schema
// adds is shown by its name ("questSeries": "Quest series"), from its
// type, with no change here.
export const SHOWN = {
  items: { tradable: { yes: 'Tradable', no: 'Not tradable' } },
  monsters: {
    isGod: { param: 'god', label: 'Gods', yes: 'Gods only', no: 'No gods' },
    combatLevelMin: { param: 'min', label: 'Combat level from' },
    combatLevelMax: { param: 'max', label: 'to' },
  },
  quests: { questSeries: { param: 'series' } },
};

const CONTROLS = { String: 'text', Boolean: 'bool', Float: 'number', Int: 'number' };

// words turns a field's name into a label: "questSeries" is "Quest series".
const words = (name) => {
  const s = name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
  return s[0].toUpperCase() + s.slice(1);
};

// sortsOf and filtersOf read a list's sorts and filters from the schema's
// description.
function sortsOf(field) {
  return (LISTS[field]?.order?.values ?? []).map((v) => v.value);
}

function filtersOf(field) {
  return (LISTS[field]?.filter?.fields ?? [])
    .filter((f) => f.test !== 'contains')
    .map((f) => {
      const shown = SHOWN[field]?.[f.name] ?? {};
      const filter = { param: shown.param ?? f.name, key: f.name, label: shown.label ?? words(f.name), type: CONTROLS[f.type] };
      if (filter.type === 'bool') Object.assign(filter, { yes: shown.yes ?? 'Yes', no: shown.no ?? 'No' });
      return filter;
    });
}

// sortBy is the value of a list's order enum that orders by a record
// field, or undefined when none does.
export const sortBy = (field, by) => LISTS[field]?.order?.values?.find((v) => v.by === by)?.value;

// nameField is the record field a list's name filter (its @contains)
// searches: the field its records are named by.
export const nameField = (field) => LISTS[field]?.filter?.fields?.find((f) => f.test === 'contains')?.field;

// kind is a kind of record: its path, its names, and its list's sorts and
// filters as the schema gives them.
const kind = (field, path, label, one, name) => ({ path, label, one, name, sorts: sortsOf(field), filters: filtersOf(field) });

export const KINDS = {
  items: kind('items', 'items', 'Items', 'item', (r) => r.name),
  monsters: kind('monsters', 'monsters', 'Monsters', 'monster', (r) => r.name ?? `Monster ${r.id}`),
  quests: kind('quests', 'quests', 'Quests', 'quest', (r) => r.questName),
  baseCamps: kind('baseCamps', 'base-camps', 'Base camp levels', 'base camp level', (r) => r.baseTowerLevel),
  discoveryLocations: kind('discoveryLocations', 'discovery', 'Discovery locations', 'discovery location', (r) => r.discoveryLocation),
  miningRocks: kind('miningRocks', 'mining', 'Mining rocks', 'mining rock', (r) => r.miningRock),
  cookingRecipes: kind('cookingRecipes', 'cooking', 'Cooking recipes', 'cooking recipe', (r) => r.name),
  fletchingRecipes: kind('fletchingRecipes', 'fletching', 'Fletching recipes', 'fletching recipe', (r) => r.name),
  farmingSeeds: kind('farmingSeeds', 'farming', 'Farming seeds', 'farming seed', (r) => r.seedName),
  forestryTrees: kind('forestryTrees', 'forestry', 'Forestry trees', 'forestry tree', (r) => r.tree),
  eventChests: kind('eventChests', 'event-chests', 'Event chests', 'event chest', (r) => r.name),
  secretRares: kind('secretRares', 'secret-rares', 'Secret rares', 'secret rare', (r) => r.itemName),
  worldBosses: kind('worldBosses', 'world-bosses', 'World bosses', 'world boss', (r) => r.name),
};

export const FIELDS = Object.keys(KINDS);

// The field (items, monsters, …) whose pages live under a path segment.
export const BY_PATH = Object.fromEntries(FIELDS.map((f) => [KINDS[f].path, f]));
