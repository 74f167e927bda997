// The operations the explorer sends: one per view, each asking in one
// request for everything the view shows, relations nested. Values are
// variables, never spliced into the text. The footer of every page shows
// the one its view sent.

export const HOME = `query Home($first: Int!) {
  items(first: $first, orderBy: { field: VALUE, direction: DESC }) {
    totalCount
    nodes { id name rarity type value }
  }
  monsters(first: $first, orderBy: { field: COMBAT_LEVEL, direction: DESC }) {
    totalCount
    nodes { id name combatLevel area }
  }
  quests(first: 0) { totalCount }
}`;

export const SEARCH = `query Search($text: String!, $first: Int!) {
  items(first: $first, filter: { nameContains: $text }, orderBy: { field: NAME }) {
    totalCount
    nodes { id name rarity type value }
  }
  monsters(first: $first, filter: { nameContains: $text }, orderBy: { field: NAME }) {
    totalCount
    nodes { id name combatLevel area }
  }
}`;

export const ITEM_PAGE = `query ItemPage($id: Int!) {
  item(id: $id) {
    id name rarity type value tradable description limited
    healingAmount farmingLevel attackBonus strengthBonus defenceBonus healthBonus
    bowDamage bowCrit bowAccuracy bowSpeed
    monsterDrops {
      monsterId monsterName minAmount maxAmount
      baseChance luckChance extremeLuckChance rarity
      monster { id name combatLevel area }
    }
    discoveryDrops { locationName baseChance }
    fishingDrops { locationName baseChance }
    theivingDrops { locationName baseChance }
    foundInChests { chestName minAmount maxAmount chanceText }
    rewardedByQuests { id questName questSeries questRewards { itemId amount } }
    requiredByQuests { id questName questSeries questItems { itemId amount } }
    crafting { category craftingLevel materials { amount name item { id name } } }
    cooking { cookingLevel materials { name item { id name } } }
    fletching { fletchingLevel materials { amount name item { id name } } }
    alchemy { levelRequired materials { amount itemName item { id name } } }
    usedInCookingRecipes { id name requiredLevel item { id name } }
    usedInFletchingRecipes { id name fletchingLevel item { id name } }
    ingredientOf { id name type }
  }
}`;

export const MONSTER_PAGE = `query MonsterPage($id: Int!) {
  monster(id: $id) {
    id name area isGod combatLevel health attack strength defence
    attackSpeedText weakness slayerLevel slayerExp treasureScrollChance
    drops {
      dropId itemId name min max
      baseChance luckChance extremeLuckChance rarity
      item { id name rarity type }
    }
  }
}`;

export const CATALOGUE_CHANGED = `subscription CatalogueChanged {
  catalogueChanged { version collections }
}`;
