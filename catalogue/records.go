package catalogue

// The record types mirror the upstream description field for field. Their
// Go names are also their GraphQL names: gqlgen binds the schema's types to
// them, so there is one copy of every shape.
//
// Decoding rules (see decode.go): a field whose json tag has "omitempty" is
// optional and may be missing or null, so its type is a pointer, a slice or
// [JSONValue]; every other field is required and must be present with the
// right JSON type. Numbers that are not ids are [Number]s, kept as the
// upstream wrote them; ids are int64.

// Item is a record of /items.
type Item struct {
	ID            int64  `json:"id"`
	ImageURL      string `json:"imageUrl"`
	Name          string `json:"name"`
	Rarity        string `json:"rarity"`
	Value         Number `json:"value"`
	Type          string `json:"type"`
	HealingAmount Number `json:"healingAmount"`
	FarmingLevel  Number `json:"farmingLevel"`
	AttackBonus   Number `json:"attackBonus"`
	StrengthBonus Number `json:"strengthBonus"`
	DefenceBonus  Number `json:"defenceBonus"`
	HealthBonus   Number `json:"healthBonus"`
	BowDamage     Number `json:"bowDamage"`
	BowCrit       Number `json:"bowCrit"`
	BowAccuracy   Number `json:"bowAccuracy"`
	BowSpeed      Number `json:"bowSpeed"`
	Description   string `json:"description"`
	Tradable      bool   `json:"tradable"`
	UsedIn        UsedIn `json:"usedIn"`

	Limited   *Number        `json:"limited,omitempty"`
	Crafting  *ItemCrafting  `json:"crafting,omitempty"`
	Cooking   *ItemCooking   `json:"cooking,omitempty"`
	Farming   *ItemFarming   `json:"farming,omitempty"`
	Mining    *ItemMining    `json:"mining,omitempty"`
	Fletching *ItemFletching `json:"fletching,omitempty"`
	Forestry  *ItemForestry  `json:"forestry,omitempty"`
	Alchemy   *ItemAlchemy   `json:"alchemy,omitempty"`
	Blessed   *ItemBlessed   `json:"blessed,omitempty"`
	Secrets   *ItemSecrets   `json:"secrets,omitempty"`

	Chest            []ChestContent    `json:"chest,omitempty"`
	MonsterDrops     []ItemMonsterDrop `json:"monsterDrops,omitempty"`
	FishingDrops     []LocationDrop    `json:"fishingDrops,omitempty"`
	DiscoveryDrops   []DiscoveryDrop   `json:"discoveryDrops,omitempty"`
	TheivingDrops    []LocationDrop    `json:"theivingDrops,omitempty"`
	SafesDrops       []SafeDrop        `json:"safesDrops,omitempty"`
	ExplorationDrops []ExplorationDrop `json:"explorationDrops,omitempty"`
	EventDrops       []EventDrop       `json:"eventDrops,omitempty"`
	FoundInChests    []ChestFind       `json:"foundInChests,omitempty"`
}

// ItemAmount is an amount of an item: a crafting or fletching material, a
// quest's required item, a base camp level's required item.
type ItemAmount struct {
	ItemID int64  `json:"itemId"`
	Name   string `json:"name"`
	Amount Number `json:"amount"`
}

// CookingMaterial is an ingredient of a cooking recipe.
type CookingMaterial struct {
	ItemID int64  `json:"itemId"`
	Name   string `json:"name"`
}

// AlchemyMaterial is an ingredient of an alchemy recipe.
type AlchemyMaterial struct {
	ItemID   int64  `json:"itemId"`
	ItemName string `json:"itemName"`
	Amount   Number `json:"amount"`
}

// ItemCrafting is how an item is crafted.
type ItemCrafting struct {
	Name          string       `json:"name"`
	Category      string       `json:"category"`
	CraftingLevel Number       `json:"craftingLevel"`
	CraftingExp   Number       `json:"craftingExp"`
	Materials     []ItemAmount `json:"materials"`
}

// ItemCooking is how an item is cooked.
type ItemCooking struct {
	Name         string            `json:"name"`
	Burnt        string            `json:"burnt"`
	CookingLevel Number            `json:"cookingLevel"`
	BurntLevel   Number            `json:"burntLevel"`
	BurntChance  Number            `json:"burntChance"`
	CookingExp   Number            `json:"cookingExp"`
	Materials    []CookingMaterial `json:"materials"`
}

// ItemFarming is how an item is farmed.
type ItemFarming struct {
	Name             string `json:"name"`
	FarmingLevel     Number `json:"farmingLevel"`
	FarmingExp       Number `json:"farmingExp"`
	FarmingSeed      string `json:"farmingSeed"`
	ScythePercentage Number `json:"scythePercentage"`
	ScytheText       string `json:"scytheText"`
}

// ItemMining is how an item is mined.
type ItemMining struct {
	Name          string `json:"name"`
	MiningLevel   Number `json:"miningLevel"`
	MiningExp     Number `json:"miningExp"`
	GemPercentage Number `json:"gemPercentage"`
	GemText       string `json:"gemText"`
}

// ItemFletching is how an item is fletched.
type ItemFletching struct {
	Name           string       `json:"name"`
	Category       string       `json:"category"`
	FletchingLevel Number       `json:"fletchingLevel"`
	FletchingExp   Number       `json:"fletchingExp"`
	Materials      []ItemAmount `json:"materials"`
}

// ItemForestry is how an item is gathered by forestry.
type ItemForestry struct {
	Name            string `json:"name"`
	Tree            string `json:"tree"`
	ForestryLevel   Number `json:"forestryLevel"`
	ForestryExp     Number `json:"forestryExp"`
	ForestryBurnExp Number `json:"forestryBurnExp"`
}

// ItemAlchemy is how an item is made by alchemy.
type ItemAlchemy struct {
	AlchemyID          int64             `json:"alchemyId"`
	Name               string            `json:"name"`
	LevelRequired      Number            `json:"levelRequired"`
	AlchemyExpProvided Number            `json:"alchemyExpProvided"`
	Materials          []AlchemyMaterial `json:"materials"`
}

// ItemBlessed describes a blessed item.
type ItemBlessed struct {
	Name              string  `json:"name"`
	Level             string  `json:"level"`
	Description       string  `json:"description"`
	OriginalCost      Number  `json:"originalCost"`
	BaseCamp57Cost    Number  `json:"baseCamp57Cost"`
	TikiTheTicketCost Number  `json:"tikiTheTicketCost"`
	Requirement       string  `json:"requirement"`
	BothCost          *Number `json:"bothCost,omitempty"`
}

// SecretChances are the chances of a secret rare drop, the base chance and
// the optional chances with boosts, each a number with its textual form.
type SecretChances struct {
	Chance                                     Number   `json:"chance"`
	ChanceText                                 string   `json:"chanceText"`
	ImpactedByWishingWell                      bool     `json:"impactedByWishingWell"`
	Conditions                                 []string `json:"conditions"`
	ChanceWithMaxWw                            *Number  `json:"chanceWithMaxWw,omitempty"`
	ChanceWithMaxWwText                        *string  `json:"chanceWithMaxWwText,omitempty"`
	ChanceWithMaxWwAndBC65                     *Number  `json:"chanceWithMaxWwAndBC65,omitempty"`
	ChanceWithMaxWwAndBC65Text                 *string  `json:"chanceWithMaxWwAndBC65Text,omitempty"`
	ChanceWithMaxWwAndBC65AndRingOfSecrets     *Number  `json:"chanceWithMaxWwAndBC65AndRingOfSecrets,omitempty"`
	ChanceWithMaxWwAndBC65AndRingOfSecretsText *string  `json:"chanceWithMaxWwAndBC65AndRingOfSecretsText,omitempty"`
	ChanceWithSoulReaperPotion                 *Number  `json:"chanceWithSoulReaperPotion,omitempty"`
	ChanceWithSoulReaperPotionText             *string  `json:"chanceWithSoulReaperPotionText,omitempty"`
}

// ItemSecrets describes an item that is a secret rare drop.
type ItemSecrets struct {
	Name string `json:"name"`
	SecretChances
}

// ChestContent is one thing a chest item can contain.
type ChestContent struct {
	ItemID     *int64 `json:"itemId,omitempty"`
	Name       string `json:"name"`
	Min        Number `json:"min"`
	Max        Number `json:"max"`
	Percentage Number `json:"percentage"`
	Text       string `json:"text"`
}

// ItemMonsterDrop is a monster that drops the item, seen from the item.
type ItemMonsterDrop struct {
	DropID            int64   `json:"dropId"`
	MonsterID         int64   `json:"monsterId"`
	MonsterName       string  `json:"monsterName"`
	MinAmount         Number  `json:"minAmount"`
	MaxAmount         Number  `json:"maxAmount"`
	BaseChance        Number  `json:"baseChance"`
	LuckChance        Number  `json:"luckChance"`
	ExtremeLuckChance Number  `json:"extremeLuckChance"`
	Rarity            *string `json:"rarity,omitempty"`
}

// LocationDrop is a fishing or thieving location where the item drops.
type LocationDrop struct {
	DropID            int64  `json:"dropId"`
	LocationID        int64  `json:"locationId"`
	LocationName      string `json:"locationName"`
	LocationLevel     Number `json:"locationLevel"`
	BaseChance        Number `json:"baseChance"`
	LuckChance        Number `json:"luckChance"`
	ExtremeLuckChance Number `json:"extremeLuckChance"`
}

// DiscoveryDrop is a discovery location where the item drops. Its shape is
// that of [LocationDrop]; it is a type of its own because its locationId
// names a [DiscoveryLocation].
type DiscoveryDrop LocationDrop

// SafeDrop is a safe the item is found in.
type SafeDrop struct {
	SafeID     int64  `json:"safeId"`
	SafeName   string `json:"safeName"`
	Amount     Number `json:"amount"`
	Percentage Number `json:"percentage"`
	Chance     string `json:"chance"`
}

// ExplorationDrop is an exploration the item is found on.
type ExplorationDrop struct {
	ExplorationID   int64  `json:"explorationId"`
	ExplorationName string `json:"explorationName"`
	Amount          Number `json:"amount"`
	Percentage      Number `json:"percentage"`
	Chance          string `json:"chance"`
}

// EventDrop is an event chest the item drops from.
type EventDrop struct {
	ChestName        string `json:"chestName"`
	ChestID          int64  `json:"chestId"`
	Amount           Number `json:"amount"`
	ChancePercentage Number `json:"chancePercentage"`
	ChanceText       string `json:"chanceText"`
}

// ChestFind is a chest the item is found in, with an amount range.
type ChestFind struct {
	ChestName        string `json:"chestName"`
	ChestID          int64  `json:"chestId"`
	MinAmount        Number `json:"minAmount"`
	MaxAmount        Number `json:"maxAmount"`
	ChancePercentage Number `json:"chancePercentage"`
	ChanceText       string `json:"chanceText"`
}

// UsedIn lists what an item is used in. Every member is optional.
type UsedIn struct {
	Crafting  []UsedInCrafting  `json:"crafting,omitempty"`
	Alchemy   []UsedInAlchemy   `json:"alchemy,omitempty"`
	Cooking   []UsedInCooking   `json:"cooking,omitempty"`
	Fletching []UsedInFletching `json:"fletching,omitempty"`
	Farming   []UsedInFarming   `json:"farming,omitempty"`
	Forestry  []UsedInForestry  `json:"forestry,omitempty"`
	Quests    []UsedInQuest     `json:"quests,omitempty"`
	Basecamps []UsedInBasecamp  `json:"basecamps,omitempty"`
	Blessed   *UsedInBlessed    `json:"blessed,omitempty"`
}

// UsedInCrafting is a crafting recipe that uses the item.
type UsedInCrafting struct {
	CraftingID    int64  `json:"craftingId"`
	Name          string `json:"name"`
	LevelRequired Number `json:"levelRequired"`
}

// UsedInAlchemy is an alchemy recipe that uses the item.
type UsedInAlchemy struct {
	AlchemyID     int64  `json:"alchemyId"`
	Name          string `json:"name"`
	LevelRequired Number `json:"levelRequired"`
}

// UsedInCooking is a cooking recipe that uses the item.
type UsedInCooking struct {
	CookingID     int64  `json:"cookingId"`
	Name          string `json:"name"`
	Burnt         string `json:"burnt"`
	LevelRequired Number `json:"levelRequired"`
}

// UsedInFletching is a fletching recipe that uses the item.
type UsedInFletching struct {
	FletchingID   int64  `json:"fletchingId"`
	Name          string `json:"name"`
	LevelRequired Number `json:"levelRequired"`
}

// UsedInFarming is a farming seed that uses the item.
type UsedInFarming struct {
	FarmingID     int64  `json:"farmingId"`
	Name          string `json:"name"`
	LevelRequired Number `json:"levelRequired"`
}

// UsedInForestry is a forestry tree that uses the item.
type UsedInForestry struct {
	ForestryID    int64  `json:"forestryId"`
	Name          string `json:"name"`
	LevelRequired Number `json:"levelRequired"`
}

// UsedInQuest is a quest that needs the item.
type UsedInQuest struct {
	QuestID     int64  `json:"questId"`
	QuestName   string `json:"questName"`
	QuestSeries string `json:"questSeries"`
	Amount      Number `json:"amount"`
}

// UsedInBasecamp is a base camp level that needs the item. The upstream
// spells the level's field BaseTowerLevel, with a capital B.
type UsedInBasecamp struct {
	BasecampID     int64  `json:"basecampId"`
	BaseTowerLevel string `json:"BaseTowerLevel"`
	Amount         Number `json:"amount"`
}

// UsedInBlessed is the blessing that uses the item.
type UsedInBlessed struct {
	BlessedID   int64  `json:"blessedId"`
	BlessedName string `json:"blessedName"`
}

// Monster is a record of /monsters. The upstream does not say which monster
// fields are always present, so every field but ID is optional.
type Monster struct {
	ID                                   int64         `json:"id"`
	Name                                 *string       `json:"name,omitempty"`
	ImageURL                             *string       `json:"imageUrl,omitempty"`
	IsGod                                *bool         `json:"isGod,omitempty"`
	Health                               *Number       `json:"health,omitempty"`
	Attack                               *Number       `json:"attack,omitempty"`
	Strength                             *Number       `json:"strength,omitempty"`
	Defence                              *Number       `json:"defence,omitempty"`
	CombatLevel                          *Number       `json:"combatLevel,omitempty"`
	AttackSpeedText                      *string       `json:"attackSpeedText,omitempty"`
	AttackSpeed                          *Number       `json:"attackSpeed,omitempty"`
	SlayerExp                            *Number       `json:"slayerExp,omitempty"`
	SlayerLevel                          *Number       `json:"slayerLevel,omitempty"`
	Weakness                             *string       `json:"weakness,omitempty"`
	Area                                 *string       `json:"area,omitempty"`
	TreasureScrollChance                 *Number       `json:"treasureScrollChance,omitempty"`
	TreasureScrollChanceWithWwMax        *Number       `json:"treasureScrollChanceWithWwMax,omitempty"`
	TreasureScrollChanceWithWwMaxAndBC72 *Number       `json:"treasureScrollChanceWithWwMaxAndBC72,omitempty"`
	Drops                                []MonsterDrop `json:"drops,omitempty"`
}

// MonsterDrop is an entry of a monster's loot table. Like every monster
// field, each of its fields is optional.
type MonsterDrop struct {
	DropID            *int64  `json:"dropId,omitempty"`
	ItemID            *int64  `json:"itemId,omitempty"`
	Name              *string `json:"name,omitempty"`
	Min               *Number `json:"min,omitempty"`
	Max               *Number `json:"max,omitempty"`
	BaseChance        *Number `json:"baseChance,omitempty"`
	LuckChance        *Number `json:"luckChance,omitempty"`
	ExtremeLuckChance *Number `json:"extremeLuckChance,omitempty"`
	Rarity            *string `json:"rarity,omitempty"`
}

// SecretRare is a record of /secretrares.
type SecretRare struct {
	ID          int64           `json:"id"`
	ItemName    string          `json:"itemName"`
	ItemID      int64           `json:"itemId"`
	SecretDrops []SecretChances `json:"secretDrops"`
}

// WorldBoss is a record of /worldboss. The upstream writes its fields in
// snake_case; the GraphQL schema gives them camelCase names.
type WorldBoss struct {
	ID             int64             `json:"id"`
	Name           string            `json:"name"`
	ImageURL       string            `json:"image_url"`
	Level          Number            `json:"level"`
	Location       WorldBossLocation `json:"location"`
	Loot           []WorldBossLoot   `json:"loot"`
	Status         string            `json:"status"`
	BattleStartsAt string            `json:"battle_starts_at"`
	BattleEndsAt   string            `json:"battle_ends_at"`

	// EndpointUpdatesAt is the endpoint_updates_at of the envelope object
	// the boss came in.
	EndpointUpdatesAt string `json:"-"`
}

// WorldBossLocation is where a world boss fights.
type WorldBossLocation struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// WorldBossLoot is an entry of a world boss's loot table.
type WorldBossLoot struct {
	HashedItemID string `json:"hashed_item_id"`
	Name         string `json:"name"`
	ImageURL     string `json:"image_url"`
	Quality      string `json:"quality"`
	Quantity     Number `json:"quantity"`
	Chance       Number `json:"chance"`
}

// Quest is a record of /quests.
type Quest struct {
	ID                int64              `json:"id"`
	QuestName         string             `json:"questName"`
	QuestSeries       string             `json:"questSeries"`
	RequiredSkills    []SkillRequirement `json:"requiredSkills"`
	QuestItems        []ItemAmount       `json:"questItems"`
	QuestRewards      []QuestReward      `json:"questRewards"`
	PrerequisiteQuest string             `json:"prerequisiteQuest"`
}

// SkillRequirement is a skill level needed for a quest or base camp level.
type SkillRequirement struct {
	Name  string `json:"name"`
	Level Number `json:"level"`
}

// QuestReward is a reward for finishing a quest.
type QuestReward struct {
	Type   string `json:"type"`
	Amount Number `json:"amount"`
	Skill  string `json:"skill"`
	ItemID int64  `json:"itemId"`
	Name   string `json:"name"`
}

// BaseCamp is a record of /basecamp: one level of the base tower.
type BaseCamp struct {
	ID               int64              `json:"id"`
	BaseTowerLevel   string             `json:"baseTowerLevel"`
	BaseTowerBenefit string             `json:"baseTowerBenefit"`
	RequiredSkills   []SkillRequirement `json:"requiredSkills"`
	BaseTowerItems   []ItemAmount       `json:"baseTowerItems"`
	BaseTowerRewards []BaseTowerReward  `json:"baseTowerRewards"`
}

// BaseTowerReward is a reward for reaching a base camp level.
type BaseTowerReward struct {
	Type   string `json:"type"`
	Name   string `json:"name"`
	Amount Number `json:"amount"`
	ItemID int64  `json:"itemId"`
}

// DiscoveryLocation is a record of /discovery.
type DiscoveryLocation struct {
	ID                int64                   `json:"id"`
	DiscoveryLocation string                  `json:"discoveryLocation"`
	DiscoveryExp      Number                  `json:"discoveryExp"`
	DiscoveryLevel    Number                  `json:"discoveryLevel"`
	Drops             []DiscoveryLocationDrop `json:"drops"`
}

// DiscoveryLocationDrop is an item that drops at a discovery location.
type DiscoveryLocationDrop struct {
	DropID            int64  `json:"dropId"`
	ItemID            int64  `json:"itemId"`
	Name              string `json:"name"`
	Rarity            string `json:"rarity"`
	BaseChance        Number `json:"baseChance"`
	LuckChance        Number `json:"luckChance"`
	ExtremeLuckChance Number `json:"extremeLuckChance"`
}

// MiningRock is a record of /mining.
type MiningRock struct {
	ID                            int64  `json:"id"`
	ItemID                        int64  `json:"itemId"`
	MiningRock                    string `json:"miningRock"`
	MiningBaseSpeedInMilliseconds Number `json:"miningBaseSpeedInMilliseconds"`
	MinimumMiningLevel            Number `json:"minimumMiningLevel"`
	MiningSuccessBaseRate         Number `json:"miningSuccessBaseRate"`
	MiningExp                     Number `json:"miningExp"`
	ChanceForIlluminantGem        Number `json:"chanceForIlluminantGem"`
	ChanceForIlluminantGemText    string `json:"chanceForIlluminantGemText"`
}

// CookingRecipe is a record of /cooking.
type CookingRecipe struct {
	ID            int64             `json:"id"`
	ItemID        int64             `json:"itemId"`
	Name          string            `json:"name"`
	BurntID       int64             `json:"burntId"`
	Burnt         string            `json:"burnt"`
	RequiredLevel Number            `json:"requiredLevel"`
	BurntLevel    Number            `json:"burntLevel"`
	BurntChance   Number            `json:"burntChance"`
	CookingExp    Number            `json:"cookingExp"`
	Materials     []CookingMaterial `json:"materials"`
}

// FarmingSeed is a record of /farming.
type FarmingSeed struct {
	ID                    int64  `json:"id"`
	ItemID                int64  `json:"itemId"`
	SeedName              string `json:"seedName"`
	SeedDurationInSeconds Number `json:"seedDurationInSeconds"`
	SeedLevel             Number `json:"seedLevel"`
	SeedExp               Number `json:"seedExp"`
	RewardID              int64  `json:"rewardId"`
	Reward                string `json:"reward"`
	ChanceForScythe       Number `json:"chanceForScythe"`
	ChanceForScytheText   string `json:"chanceForScytheText"`
}

// ForestryTree is a record of /forestry.
type ForestryTree struct {
	ID                              int64  `json:"id"`
	ItemID                          int64  `json:"itemId"`
	Tree                            string `json:"tree"`
	Log                             string `json:"log"`
	ForestryBaseSpeedInMilliseconds Number `json:"forestryBaseSpeedInMilliseconds"`
	MinimumForestryLevel            Number `json:"minimumForestryLevel"`
	NestChance                      Number `json:"nestChance"`
	ForestryExp                     Number `json:"forestryExp"`
	ForestryBurnExp                 Number `json:"forestryBurnExp"`
}

// FletchingRecipe is a record of /fletching.
type FletchingRecipe struct {
	ID             int64        `json:"id"`
	ItemID         int64        `json:"itemId"`
	Name           string       `json:"name"`
	Category       string       `json:"category"`
	FletchingLevel Number       `json:"fletchingLevel"`
	FletchingExp   Number       `json:"fletchingExp"`
	Materials      []ItemAmount `json:"materials"`
}

// EventChest is a record of /event.
type EventChest struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	// ItemID's type is left open by the upstream: it is kept as sent.
	ItemID JSONValue        `json:"itemId,omitempty"`
	Drops  []EventChestDrop `json:"drops"`
}

// EventChestDrop is an item an event chest can give.
type EventChestDrop struct {
	ItemID     int64  `json:"itemId"`
	Name       string `json:"name"`
	Amount     Number `json:"amount"`
	Percentage Number `json:"percentage"`
	Text       string `json:"text"`
}
