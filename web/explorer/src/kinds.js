// The catalogue's kinds of record as the explorer shows them: where their
// pages live, what a record is called, and how their lists sort and
// filter; which kinds there are is the schema's (filters.gen.json). The schema's names (list fields, order fields, filter inputs)
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

// words turns a field's or a type's name into a label: "questSeries" is
// "Quest series", "FarmingSeed" "Farming seed".
const words = (name) => {
  const s = name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`).trim();
  return s[0].toUpperCase() + s.slice(1);
};

// filtersOf reads a list's filters from the schema's description.
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

// How the explorer shows each kind: its path segment, its list's label,
// what one record is called and how a record is named, where the schema's
// names will not do, in the order the home page lists them. A list the
// schema adds (a 14th collection, in filters.gen.json) is shown all the
// same, from its names alone: see kindOf.
const PRESENTED = {
  items: { path: 'items', label: 'Items', one: 'item', name: (r) => r.name },
  monsters: { path: 'monsters', label: 'Monsters', one: 'monster', name: (r) => r.name ?? `Monster ${r.id}` },
  quests: { path: 'quests', label: 'Quests', one: 'quest', name: (r) => r.questName },
  baseCamps: { path: 'base-camps', label: 'Base camp levels', one: 'base camp level', name: (r) => r.baseTowerLevel },
  discoveryLocations: { path: 'discovery', label: 'Discovery locations', one: 'discovery location', name: (r) => r.discoveryLocation },
  miningRocks: { path: 'mining', label: 'Mining rocks', one: 'mining rock', name: (r) => r.miningRock },
  cookingRecipes: { path: 'cooking', label: 'Cooking recipes', one: 'cooking recipe', name: (r) => r.name },
  fletchingRecipes: { path: 'fletching', label: 'Fletching recipes', one: 'fletching recipe', name: (r) => r.name },
  farmingSeeds: { path: 'farming', label: 'Farming seeds', one: 'farming seed', name: (r) => r.seedName },
  forestryTrees: { path: 'forestry', label: 'Forestry trees', one: 'forestry tree', name: (r) => r.tree },
  eventChests: { path: 'event-chests', label: 'Event chests', one: 'event chest', name: (r) => r.name },
  secretRares: { path: 'secret-rares', label: 'Secret rares', one: 'secret rare', name: (r) => r.itemName },
  worldBosses: { path: 'world-bosses', label: 'World bosses', one: 'world boss', name: (r) => r.name },
};

// kindOf is the kind of list field as the explorer shows it: what
// presented says of it, and for anything it leaves out, what the
// schema's names give: "farmingSeeds" under /farming-seeds, labelled
// "Farming seeds", a record of type FarmingSeed a "farming seed", named by
// the field its name filter searches. Its sorts and filters are the
// schema's.
export function kindOf(field, list, presented = {}) {
  const one = presented.one ?? words(list.type).toLowerCase();
  const byName = list.filter?.fields?.find((f) => f.test === 'contains')?.field;
  return {
    path: presented.path ?? field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`),
    label: presented.label ?? words(field),
    one,
    name: presented.name ?? ((r) => (byName ? r[byName] : undefined) ?? `${words(one)} ${r.id}`),
    sorts: (list.order?.values ?? []).map((v) => v.value),
    filters: filtersOf(field),
  };
}

// KINDS are every list of the schema: those presented first, in their
// order, then any other, in the schema's.
export const KINDS = Object.fromEntries(
  [...Object.keys(PRESENTED).filter((f) => f in LISTS), ...Object.keys(LISTS).filter((f) => !(f in PRESENTED))]
    .map((field) => [field, kindOf(field, LISTS[field], PRESENTED[field])]),
);

export const FIELDS = Object.keys(KINDS);

// The field (items, monsters, …) whose pages live under a path segment.
export const BY_PATH = Object.fromEntries(FIELDS.map((f) => [KINDS[f].path, f]));
