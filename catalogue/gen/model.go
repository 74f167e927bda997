package main

// The world model: every record of every collection, linked by pointers.
// Only forward relations are stored (a recipe knows its materials, a monster
// its drops); the reverse views the upstream also publishes (usedIn,
// monsterDrops, eventDrops, …) are derived from them when serialising, so the
// two directions always agree.

// Item is an item and everything that produces it.
type Item struct {
	ID          int
	sortKey     int // creation order plus jitter; ids are handed out in this order
	Level       int // not published; used to pick loot and requirements of a fitting tier
	Name        string
	Type        string
	Rarity      string
	Description string
	Value       int64
	Healing     int
	Farming     int // the published farmingLevel
	Attack      int
	Strength    int
	Defence     int
	Health      int
	BowDamage   float64
	BowCrit     float64
	BowAccuracy float64
	BowSpeed    float64
	Tradable    bool
	Limited     *int // nil: not published

	Crafting *Crafting
	Alchemy  *Alchemy
	Cooked   *CookingRecipe // the recipe that makes this dish
	Fletched *FletchingRecipe
	Farmed   *FarmingSeed // the seed this crop grows from
	Mined    *MiningRock
	Felled   *ForestryTree
	Blessing *Blessing
	Chest    []ChestEntry
	Secret   *SecretRare
	Fishing  []LocationDrop
	Thieving []LocationDrop
	Safes    []SiteDrop
	Explored []SiteDrop

	nulls nullMask // optional members written as an explicit null
}

// nullMask marks optional item members that are written as null rather than
// left out, the way a real upstream occasionally does.
type nullMask uint16

const (
	nullLimited nullMask = 1 << iota
	nullCrafting
	nullChest
	nullMonsterDrops
	nullFishingDrops
	nullSecrets
	nullUsedInBlessed
	nullUsedInQuests
)

// Material is an amount of an item consumed by a recipe or requirement.
type Material struct {
	Item   *Item
	Amount int
}

// Crafting is how an item is crafted; each material lists the crafted item
// in its usedIn.crafting.
type Crafting struct {
	Category  string
	Level     int
	Exp       float64
	Materials []Material
}

// Alchemy is how a potion is brewed. Alchemy has no collection of its own,
// so its ids are a private id space.
type Alchemy struct {
	ID        int
	Item      *Item
	Level     int
	Exp       float64
	Materials []Material
}

// CookingRecipe is a record of /cooking.
type CookingRecipe struct {
	ID          int
	Dish, Burnt *Item
	Level       int
	BurntLevel  int
	BurntChance float64
	Exp         float64
	Materials   []*Item
}

// FletchingRecipe is a record of /fletching.
type FletchingRecipe struct {
	ID        int
	Item      *Item
	Category  string
	Level     int
	Exp       float64
	Materials []Material
}

// FarmingSeed is a record of /farming: a seed item that grows a crop item.
type FarmingSeed struct {
	ID           int
	Seed, Crop   *Item
	Duration     int
	Level        int
	Exp          int
	ScytheChance float64 // a fraction; the crop's scythePercentage is this times 100
}

// ForestryTree is a record of /forestry.
type ForestryTree struct {
	ID      int
	Log     *Item
	Tree    string
	Speed   int
	Level   int
	Nest    float64
	Exp     float64
	BurnExp float64
}

// MiningRock is a record of /mining.
type MiningRock struct {
	ID      int
	Ore     *Item
	Rock    string
	Speed   int
	Level   int
	Success float64
	Exp     int
	Gem     float64 // a fraction; the ore's gemPercentage is this times 100
}

// Blessing makes a blessed item out of a base item; the base item names the
// blessed one in usedIn.blessed.
type Blessing struct {
	Base         *Item
	Tier         string
	Description  string
	OriginalCost int
	BC57Cost     int
	TikiCost     int
	Requirement  string
	BothCost     *int
	bothNull     bool
}

// ChestEntry is one thing a chest item holds. Item is nil for rewards that
// are not items (gold, experience).
type ChestEntry struct {
	Item     *Item
	Name     string
	Min, Max int
	Percent  float64
	Text     string
	idNull   bool // write "itemId": null rather than leaving it out
}

// Monster is a record of /monsters. The upstream does not promise any field
// but id, so absent and null list the fields this record leaves out or
// writes as null (bits indexed like monsterFields).
type Monster struct {
	ID              int
	Name            string
	IsGod           bool
	Health          int64
	Attack          int
	Strength        int
	Defence         int
	CombatLevel     int
	AttackSpeedText string
	AttackSpeed     float64
	SlayerExp       int
	SlayerLevel     int
	Weakness        string
	Area            string
	Treasure        [3]float64
	Drops           []MonsterDrop
	absent, null    uint32
}

// MonsterDrop is an entry of a monster's loot table.
type MonsterDrop struct {
	ID       int
	Item     *Item
	Min, Max int
	Chances  [3]float64 // base, luck, extreme luck
	Rarity   string
	rarity   presence
}

// presence says how an optional value is written.
type presence uint8

const (
	present presence = iota
	missing
	null
)

// DiscoveryLocation is a record of /discovery.
type DiscoveryLocation struct {
	ID    int
	Name  string
	Exp   int
	Level int
	Drops []DiscoveryDrop
}

// DiscoveryDrop is an entry of a discovery location's loot table.
type DiscoveryDrop struct {
	ID      int
	Item    *Item
	Rarity  string
	Chances [3]float64
}

// Place is a fishing or thieving location, a safe or an exploration. None of
// them has a collection; items refer to them by their own ids.
type Place struct {
	ID    int
	Name  string
	Level int
}

// LocationDrop is an item's fishing or thieving source.
type LocationDrop struct {
	ID      int
	Place   *Place
	Chances [3]float64
}

// SiteDrop is an item's safe or exploration source.
type SiteDrop struct {
	Place   *Place
	Amount  int
	Percent float64
	Chance  string
}

// Quest is a record of /quests.
type Quest struct {
	ID      int
	Name    string
	Series  string
	Skills  []SkillLevel
	Items   []Material
	Rewards []Reward
	Prereq  string
}

// SkillLevel is a skill requirement.
type SkillLevel struct {
	Skill string
	Level int
}

// Reward is a quest or base camp reward: an amount of an item, or of
// experience in a skill when Item is nil.
type Reward struct {
	Type   string
	Amount int
	Skill  string
	Item   *Item
}

// BaseCamp is a record of /basecamp, one level of the base tower.
type BaseCamp struct {
	ID      int
	Level   string
	Benefit string
	Skills  []SkillLevel
	Items   []Material
	Rewards []Reward
}

// EventChest is a record of /event. Chest is the chest item, nil when the
// upstream has no item for it (itemId null); ItemIDAsString writes the id as
// a JSON string, as the upstream does for some chests.
type EventChest struct {
	ID             int
	Name           string
	Chest          *Item
	ItemIDAsString bool
	Drops          []EventDrop
}

// EventDrop is an item an event chest gives.
type EventDrop struct {
	Item    *Item
	Min     int // the chest item's range is Min..Amount
	Amount  int
	Percent float64
	Text    string
}

// SecretRare is a record of /secretrares. The item's secrets object repeats
// the first drop.
type SecretRare struct {
	ID    int
	Item  *Item
	Drops []SecretDrop
}

// SecretDrop is one way of getting a secret rare: a base chance and the
// chances with boosts. A boost that does not apply is left out.
type SecretDrop struct {
	Chance     float64
	WW         bool
	Conditions []string
	Boosts     [4]secretBoost // max wishing well, +BC65, +ring of secrets, soul reaper potion
}

type secretBoost struct {
	How    presence
	Chance float64
}

var secretBoostKeys = [4]string{
	"chanceWithMaxWw",
	"chanceWithMaxWwAndBC65",
	"chanceWithMaxWwAndBC65AndRingOfSecrets",
	"chanceWithSoulReaperPotion",
}

// WorldBoss is a record of /worldboss.
type WorldBoss struct {
	ID         int
	Name       string
	Level      int
	LocationID int
	Location   string
	Loot       []BossLoot
	Status     string
	Starts     string
	Ends       string
}

// BossLoot is an entry of a world boss's loot table.
type BossLoot struct {
	Item     *Item
	Quality  string
	Quantity int
	Chance   float64
}
