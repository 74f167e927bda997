// Every operation the explorer sends, and the variables each view gives
// them: one named query per view, asking in one request for everything the
// view shows, relations nested. Values are variables, never spliced into
// the text. Nothing here touches the DOM, so `npm test` loads this module
// in Node and validates each operation against graph/*.graphqls.

import LISTS from './filters.gen.json' with { type: 'json' };

// The fields a list row shows, where the record's id and name will not do.
const ROWS = {
  items: 'id name type rarity value tradable',
  monsters: 'id name area combatLevel slayerLevel health isGod',
  quests: 'id questName questSeries prerequisite { id questName }',
  baseCamps: 'id baseTowerLevel baseTowerBenefit',
  discoveryLocations: 'id discoveryLocation discoveryLevel discoveryExp',
  miningRocks: 'id miningRock minimumMiningLevel miningExp item { id name }',
  cookingRecipes: 'id name requiredLevel cookingExp burntChance item { id name }',
  fletchingRecipes: 'id name category fletchingLevel fletchingExp item { id name }',
  farmingSeeds: 'id seedName seedLevel seedExp seedDurationInSeconds rewardItem { id name }',
  forestryTrees: 'id tree minimumForestryLevel forestryExp item { id name }',
  eventChests: 'id name item { id name }',
  secretRares: 'id itemName item { id name rarity }',
  worldBosses: 'id name level status battleStartsAt battleEndsAt location { id name }',
};

// nameOf is the field a list's records are named by: the one its name
// filter (@contains) searches.
const nameOf = (list) => list.filter?.fields?.find((f) => f.test === 'contains')?.field;

// The collections, as the schema names them (filters.gen.json, generated
// from it): list field, one-record field, type, and the fields a list row
// shows, in ROWS' order, then any other list the schema adds. The list and
// page queries below are built from this table.
export const COLLECTIONS = Object.fromEntries(
  [...Object.keys(ROWS).filter((f) => f in LISTS), ...Object.keys(LISTS).filter((f) => !(f in ROWS))].map((field) => [field, LISTS[field]]).map(([field, list]) => [field, {
    one: list.type[0].toLowerCase() + list.type.slice(1),
    type: list.type,
    row: ROWS[field] ?? ['id', nameOf(list)].filter(Boolean).join(' '),
  }]),
);

const opName = (type, suffix) => `${type}${suffix}`;

// ---------------------------------------------------------------------------
// Lists: a page of a collection, with cursors, a filter and an order.
// ---------------------------------------------------------------------------

function listQuery(field, { type, row }) {
  return `query ${opName(type, 'List')}($first: Int, $after: String, $last: Int, $before: String, $filter: ${type}Filter, $orderBy: ${type}Order) {
  ${field}(first: $first, after: $after, last: $last, before: $before, filter: $filter, orderBy: $orderBy) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    nodes { ${row} }
    facets { field values { value count } }
  }
}`;
}

export const LIST_QUERIES = Object.fromEntries(
  Object.entries(COLLECTIONS).map(([field, c]) => [field, { query: listQuery(field, c), operationName: opName(c.type, 'List') }]),
);

// A list's page size.
export const PAGE_SIZE = 25;

// listVariables turns a list's state (from its URL) into the variables of
// its query: { sort: 'VALUE', desc: true, after | before, filter: {...} }.
// A page before a cursor is the last PAGE_SIZE before it; `last: true`
// asks for the last page.
export function listVariables({ sort, desc, after, before, last, filter }) {
  const v = {};
  if (before) Object.assign(v, { last: PAGE_SIZE, before });
  else if (last) v.last = PAGE_SIZE;
  else {
    v.first = PAGE_SIZE;
    if (after) v.after = after;
  }
  const f = Object.fromEntries(Object.entries(filter || {}).filter(([, x]) => x !== undefined && x !== null && x !== ''));
  if (Object.keys(f).length) v.filter = f;
  if (sort) v.orderBy = { field: sort, direction: desc ? 'DESC' : 'ASC' };
  return v;
}

// ---------------------------------------------------------------------------
// Home and search
// ---------------------------------------------------------------------------

export const HOME = {
  operationName: 'Home',
  query: `query Home {
  ${Object.keys(COLLECTIONS).filter((f) => f !== 'worldBosses').map((f) => `${f}(first: 0) { totalCount }`).join('\n  ')}
  worldBosses(first: 20) {
    totalCount
    nodes { id name level status battleStartsAt battleEndsAt location { name } }
  }
  topItems: items(first: 8, orderBy: { field: VALUE, direction: DESC }) {
    nodes { id name rarity type value }
  }
}`,
};

// What a search result shows of each kind: its id, its name and a hint
// (the search asks for the name apart, as `name`, the same on every kind).
const SEARCH_FIELDS = {
  items: 'id type rarity',
  monsters: 'id area combatLevel',
  quests: 'id questSeries',
  baseCamps: 'id',
  discoveryLocations: 'id discoveryLevel',
  miningRocks: 'id minimumMiningLevel',
  cookingRecipes: 'id requiredLevel',
  fletchingRecipes: 'id fletchingLevel',
  farmingSeeds: 'id seedLevel',
  forestryTrees: 'id minimumForestryLevel',
  eventChests: 'id',
  secretRares: 'id',
  worldBosses: 'id level status',
};

// One query finds a text in the names of every kind at once, ranked by
// the gateway (exact, prefix, word start, substring, then one typo): the
// search page asks for more, the suggestions under the search box for
// fewer. `record` is a union: each kind's fields by its type.
export const SEARCH = {
  operationName: 'Search',
  query: `query Search($text: String!, $first: Int!, $after: String, $kinds: [SearchKind!]) {
  search(text: $text, first: $first, after: $after, kinds: $kinds) {
    match
    name
    suggestion
    cursor
    record {
      __typename
      ${Object.entries(COLLECTIONS).map(([f, c]) => `... on ${c.type} { ${SEARCH_FIELDS[f] ?? 'id'} }`).join('\n      ')}
    }
  }
}`,
};

// searchKind is the schema's SearchKind of a list field: its record
// type in capitals, words split by underscores (SecretRare: SECRET_RARE).
export const searchKind = (field) => COLLECTIONS[field].type.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

// searchVariables are the search page's: one more result than it shows,
// so that it knows whether there is a next page; a kind and a cursor only
// when chosen.
export function searchVariables({ text, first, kind = null, after = null }) {
  const v = { text, first: first + 1 };
  if (kind) v.kinds = [searchKind(kind)];
  if (after) v.after = after;
  return v;
}

// The list field (items, monsters, …) of a search result's record type.
export const FIELD_OF_TYPE = Object.fromEntries(Object.entries(COLLECTIONS).map(([f, c]) => [c.type, f]));

// ---------------------------------------------------------------------------
// Record pages: one record, its references resolved, its reverse relations.
// ---------------------------------------------------------------------------

const page = (operationName, query) => ({ operationName, query });

// How many rows of a drop table come with the rest of its page: about a
// screenful (a row is 2-3 rem high). The others follow in later parts of
// the same answer, as @stream asks (main.js, askInParts): the drop tables
// of an item ("dropped by", 62 monsters for Bones), a monster, a
// discovery location and an event chest. A world boss's page is a live
// query, which the gateway answers whole (README), so its loot is not
// streamed.
export const STREAM_FIRST = 10;
const STREAM = `@stream(initialCount: ${STREAM_FIRST})`;

// inParts reports whether an operation asks for its answer in parts.
export const inParts = (operation) => /@stream\b|@defer\b/.test(operation.query);

export const PAGES = {
  items: page('ItemPage', `query ItemPage($id: Int!) {
  item(id: $id) {
    id name rarity type value tradable description limited image { url }
    healingAmount farmingLevel attackBonus strengthBonus defenceBonus healthBonus
    bowDamage bowCrit bowAccuracy bowSpeed
    monsterDrops ${STREAM} {
      monsterId minAmount maxAmount baseChance luckChance extremeLuckChance rarity
      monster { id name combatLevel area }
    }
    discoveryDrops { locationId baseChance luckChance extremeLuckChance location { id discoveryLocation discoveryLevel } }
    fishingDrops { locationName locationLevel baseChance }
    theivingDrops { locationName locationLevel baseChance }
    safesDrops { safeName amount chance }
    explorationDrops { explorationName amount chance }
    eventDrops { chestId chestName amount chancePercentage chanceText chest { id name } }
    foundInChests { chestId chestName minAmount maxAmount chancePercentage chanceText chest { id name } }
    chest { min max text item { id name } name }
    secrets { chanceText impactedByWishingWell conditions }
    secretRares { id }
    rewardedByQuests { id questName questSeries questRewards { itemId amount } }
    requiredByQuests { id questName questSeries questItems { itemId amount } }
    requiredByBaseCamps { id baseTowerLevel baseTowerItems { itemId amount } }
    rewardedByBaseCamps { id baseTowerLevel }
    crafting { category craftingLevel craftingExp materials { amount name item { id name } } }
    cooking { cookingLevel cookingExp burnt burntLevel materials { name item { id name } } }
    fletching { category fletchingLevel fletchingExp materials { amount name item { id name } } }
    alchemy { levelRequired alchemyExpProvided materials { amount itemName item { id name } } }
    farming { farmingLevel farmingExp farmingSeed scytheText }
    mining { miningLevel miningExp gemText }
    forestry { tree forestryLevel forestryExp forestryBurnExp }
    blessed { level description requirement originalCost }
    usedIn {
      cooking { cooking { id itemId name requiredLevel } }
      fletching { fletching { id itemId name fletchingLevel } }
      farming { farming { id seedName seedLevel } }
      forestry { forestry { id tree minimumForestryLevel } }
    }
    ingredientOf { id name type }
    droppedByWorldBosses ${STREAM} { id name level loot { name quantity chance } }
  }
}`),
  monsters: page('MonsterPage', `query MonsterPage($id: Int!) {
  monster(id: $id) {
    id name area isGod combatLevel health attack strength defence image { url }
    attackSpeedText weakness slayerLevel slayerExp
    treasureScrollChance treasureScrollChanceWithWwMax treasureScrollChanceWithWwMaxAndBC72
    drops ${STREAM} {
      itemId name min max baseChance luckChance extremeLuckChance rarity
      item { id name rarity type value }
    }
  }
}`),
  quests: page('QuestPage', `query QuestPage($id: Int!) {
  quest(id: $id) {
    id questName questSeries prerequisiteQuest
    requiredSkills { name level }
    questItems { itemId name amount item { id name rarity } }
    questRewards { type amount skill itemId name item { id name rarity } }
    prerequisite { id questName prerequisite { id questName prerequisite { id questName prerequisite { id questName prerequisite { id questName } } } } }
    unlocks { id questName unlocks { id questName unlocks { id questName unlocks { id questName unlocks { id questName } } } } }
  }
}`),
  baseCamps: page('BaseCampPage', `query BaseCampPage($id: Int!) {
  baseCamp(id: $id) {
    id baseTowerLevel baseTowerBenefit
    requiredSkills { name level }
    baseTowerItems { itemId name amount item { id name rarity } }
    baseTowerRewards { type name amount itemId item { id name rarity } }
  }
}`),
  discoveryLocations: page('DiscoveryLocationPage', `query DiscoveryLocationPage($id: Int!) {
  discoveryLocation(id: $id) {
    id discoveryLocation discoveryExp discoveryLevel
    drops ${STREAM} { itemId name rarity baseChance luckChance extremeLuckChance item { id name rarity type } }
  }
}`),
  miningRocks: page('MiningRockPage', `query MiningRockPage($id: Int!) {
  miningRock(id: $id) {
    id miningRock miningBaseSpeedInMilliseconds minimumMiningLevel miningSuccessBaseRate
    miningExp chanceForIlluminantGem chanceForIlluminantGemText
    itemId item { id name rarity type value }
  }
}`),
  cookingRecipes: page('CookingRecipePage', `query CookingRecipePage($id: Int!) {
  cookingRecipe(id: $id) {
    id name burnt requiredLevel burntLevel burntChance cookingExp
    itemId item { id name rarity healingAmount }
    burntId burntItem { id name }
    materials { itemId name item { id name rarity } }
  }
}`),
  fletchingRecipes: page('FletchingRecipePage', `query FletchingRecipePage($id: Int!) {
  fletchingRecipe(id: $id) {
    id name category fletchingLevel fletchingExp
    itemId item { id name rarity }
    materials { itemId name amount item { id name rarity } }
  }
}`),
  farmingSeeds: page('FarmingSeedPage', `query FarmingSeedPage($id: Int!) {
  farmingSeed(id: $id) {
    id seedName seedDurationInSeconds seedLevel seedExp reward chanceForScythe chanceForScytheText
    itemId item { id name rarity }
    rewardId rewardItem { id name rarity }
  }
}`),
  forestryTrees: page('ForestryTreePage', `query ForestryTreePage($id: Int!) {
  forestryTree(id: $id) {
    id tree log forestryBaseSpeedInMilliseconds minimumForestryLevel nestChance forestryExp forestryBurnExp
    itemId item { id name rarity }
  }
}`),
  eventChests: page('EventChestPage', `query EventChestPage($id: Int!) {
  eventChest(id: $id) {
    id name itemId item { id name rarity image { url } }
    drops ${STREAM} { itemId name amount percentage text item { id name rarity } }
  }
}`),
  secretRares: page('SecretRarePage', `query SecretRarePage($id: Int!) {
  secretRare(id: $id) {
    id itemName itemId item { id name rarity type }
    secretDrops {
      chance chanceText impactedByWishingWell conditions
      chanceWithMaxWwText chanceWithMaxWwAndBC65Text chanceWithMaxWwAndBC65AndRingOfSecretsText chanceWithSoulReaperPotionText
    }
  }
}`),
  worldBosses: page('WorldBossPage', `query WorldBossPage($id: Int!) {
  worldBoss(id: $id) {
    id name level status battleStartsAt battleEndsAt endpointUpdatesAt image { url }
    location { id name }
    loot { name quality quantity chance image { url } item { id name rarity } }
  }
}`),
};

export const CATALOGUE_CHANGED = `subscription CatalogueChanged {
  catalogueChanged { version collections }
}`;

// The record pages asked as live queries: a world boss's status and times
// change by the minute. (Every list is live too.)
export const LIVE_PAGES = new Set(['worldBosses']);

// liveQuery is an operation marked @live: asked as an event stream, the
// gateway sends its answer, then the answer again each time a refresh
// changes what it read (the lists' and the world bosses' views, main.js).
// Asked as a GET, the gateway answers it once, as the operation itself.
export function liveQuery(operation) {
  const query = operation.query.replace(/^(query \w+(?:\([^)]*\))?) \{/, '$1 @live {');
  if (query === operation.query) throw new Error(`${operation.operationName}: no operation to mark @live`);
  return { ...operation, query };
}

// Every query the explorer sends, for the schema check in test/: the live
// ones as they are sent.
export const ALL_QUERIES = [HOME, SEARCH, ...Object.values(LIST_QUERIES).map(liveQuery),
  ...Object.entries(PAGES).map(([field, op]) => (LIVE_PAGES.has(field) ? liveQuery(op) : op))];
