package catalogue_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// The files under testdata/hostile stand for upstream bytes. They were
// written by hand, once, to be awkward: HTML-special characters, \uXXXX
// escapes (surrogate pairs included), raw non-ASCII text, CRLF and bare CR
// line endings, odd indentation, keys out of the documented order, numbers
// such as 1.50, 3000000000, 9007199254740993, 1e-06, -0.0 and 1E+2, no final
// newline, several envelope objects in one body, optional fields missing and
// null, and fields the description does not list. Never regenerate them from
// the gateway's own output: they are what keeps the decoder honest about
// what a real upstream sends.

type num = catalogue.Number

// hostileCase is one hostile fixture and every record the decoder must make
// of it, in upstream order.
type hostileCase struct {
	file       string
	collection catalogue.Collection
	// records lists the decoded records of the collection.
	records func(*catalogue.Snapshot) any
	want    any
}

// rows lists a table's records in upstream order.
func rows[T any](t *catalogue.Table[T]) []T {
	out := make([]T, t.Len())
	for i := range out {
		out[i] = *t.At(i)
	}
	return out
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "hostile", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

var hostileCases = []hostileCase{
	{
		file:       "items.json",
		collection: catalogue.Items,
		records:    func(s *catalogue.Snapshot) any { return rows(s.Items()) },
		want: []catalogue.Item{
			{
				ID:            9007199254740993,
				ImageURL:      "https://img.example.test/item?id=1&size=<big>",
				Name:          "Tom & Jerry's <Sword> \"Deluxe\" 🐉",
				Rarity:        "légendaire",
				Value:         "3000000000",
				Type:          "武器",
				HealingAmount: "1.50",
				FarmingLevel:  "-0.0",
				AttackBonus:   "1E+2",
				StrengthBonus: "1e-06",
				DefenceBonus:  "9007199254740993",
				HealthBonus:   "0",
				BowDamage:     "-12",
				BowCrit:       "0.1",
				BowAccuracy:   "1.0",
				BowSpeed:      "2.5e3",
				Description:   "Caf\u00e9 \U0001F600 & <b>bold</b> \"quoted\" \\ back/slash\nnew line",
				Tradable:      true,
				UsedIn: catalogue.UsedIn{
					Crafting:  []catalogue.UsedInCrafting{{CraftingID: 4294967296, Name: `"Quoted" Bench`, LevelRequired: "1.50"}},
					Quests:    []catalogue.UsedInQuest{{QuestID: 7, QuestName: "Caf\u00e9 Run", QuestSeries: "Main & <Side>", Amount: "3000000000"}},
					Basecamps: []catalogue.UsedInBasecamp{{BasecampID: 1, BaseTowerLevel: "Level 1", Amount: "2"}},
				},
				Crafting: &catalogue.ItemCrafting{
					Name:          "Sword",
					Category:      "Weapons & Armour",
					CraftingLevel: "3",
					CraftingExp:   "12.50",
					Materials: []catalogue.ItemAmount{
						{ItemID: 5, Name: "Iron <Ore>", Amount: "2"},
						{ItemID: 4294967297, Name: "Log", Amount: "1.50"},
					},
				},
				Chest: []catalogue.ChestContent{
					{Name: "Nothing", Min: "0", Max: "0", Percentage: "0.5", Text: "50%"},
					{Name: "Coins", Min: "1", Max: "3000000000", Percentage: "1e-06", Text: "0.0001%"},
					{ItemID: new(int64(5)), Name: "Ore", Min: "1", Max: "1", Percentage: "50", Text: "1/2"},
				},
				MonsterDrops: []catalogue.ItemMonsterDrop{
					{DropID: 1, MonsterID: 2, MonsterName: "Goblin", MinAmount: "1", MaxAmount: "2", BaseChance: "0.25", LuckChance: "0.30", ExtremeLuckChance: "0.350"},
					{DropID: 2, MonsterID: 3, MonsterName: "Orc", MinAmount: "1", MaxAmount: "1", BaseChance: "1", LuckChance: "1", ExtremeLuckChance: "1"},
					{DropID: 3, MonsterID: 4294967298, MonsterName: "Ogre", MinAmount: "1", MaxAmount: "1", BaseChance: "0.1", LuckChance: "0.2", ExtremeLuckChance: "0.3", Rarity: new("rare")},
				},
				Secrets: &catalogue.ItemSecrets{
					Name: "Secret <Sword>",
					SecretChances: catalogue.SecretChances{
						Chance:              "1e-06",
						ChanceText:          "1 in 1,000,000",
						Conditions:          []string{"Night & day", "\u2603 snow"},
						ChanceWithMaxWw:     new(num("2e-06")),
						ChanceWithMaxWwText: new("1 in 500,000"),
					},
				},
				Blessed: &catalogue.ItemBlessed{
					Name: "Blessed", Level: "5", OriginalCost: "100", BaseCamp57Cost: "90",
					TikiTheTicketCost: "80", Requirement: "none",
				},
			},
			{
				ID: 2, Name: "Plain", Rarity: "common", Value: "0", Type: "misc",
				HealingAmount: "0", FarmingLevel: "0", AttackBonus: "0", StrengthBonus: "0",
				DefenceBonus: "0", HealthBonus: "0", BowDamage: "0", BowCrit: "0",
				BowAccuracy: "0", BowSpeed: "0",
				// A raw U+2028 LINE SEPARATOR, legal in JSON, not in old JavaScript.
				Description: "tab\there\u2028",
			},
			{
				ID: 1, ImageURL: "i", Name: "Everything", Rarity: "epic", Value: "1", Type: "t",
				HealingAmount: "1", FarmingLevel: "1", AttackBonus: "1", StrengthBonus: "1",
				DefenceBonus: "1", HealthBonus: "1", BowDamage: "1", BowCrit: "1",
				BowAccuracy: "1", BowSpeed: "1", Description: "d", Tradable: true,
				Limited: new(num("5")),
				UsedIn: catalogue.UsedIn{
					Alchemy:   []catalogue.UsedInAlchemy{{AlchemyID: 11, Name: "Brew", LevelRequired: "2"}},
					Cooking:   []catalogue.UsedInCooking{{CookingID: 12, Name: "Stew", Burnt: "Burnt Stew", LevelRequired: "3"}},
					Fletching: []catalogue.UsedInFletching{{FletchingID: 13, Name: "Arrow", LevelRequired: "4"}},
					Farming:   []catalogue.UsedInFarming{{FarmingID: 14, Name: "Seed", LevelRequired: "5"}},
					Forestry:  []catalogue.UsedInForestry{{ForestryID: 15, Name: "Oak", LevelRequired: "6"}},
					Blessed:   &catalogue.UsedInBlessed{BlessedID: 16, BlessedName: "Holy"},
				},
				Cooking: &catalogue.ItemCooking{
					Name: "Stew", Burnt: "Burnt Stew", CookingLevel: "3", BurntLevel: "10",
					BurntChance: "0.25", CookingExp: "7",
					Materials: []catalogue.CookingMaterial{{ItemID: 2, Name: "Plain"}},
				},
				Farming: &catalogue.ItemFarming{Name: "F", FarmingLevel: "1", FarmingExp: "2", FarmingSeed: "S", ScythePercentage: "0.05", ScytheText: "5%"},
				Mining:  &catalogue.ItemMining{Name: "M", MiningLevel: "1", MiningExp: "2", GemPercentage: "1e-3", GemText: "0.1%"},
				Fletching: &catalogue.ItemFletching{
					Name: "Fl", Category: "Arrows", FletchingLevel: "1", FletchingExp: "2",
					Materials: []catalogue.ItemAmount{},
				},
				Forestry: &catalogue.ItemForestry{Name: "Fo", Tree: "Oak", ForestryLevel: "1", ForestryExp: "2", ForestryBurnExp: "3"},
				Alchemy: &catalogue.ItemAlchemy{
					AlchemyID: 11, Name: "Brew", LevelRequired: "2", AlchemyExpProvided: "3",
					Materials: []catalogue.AlchemyMaterial{{ItemID: 2, ItemName: "Plain", Amount: "1"}},
				},
				FishingDrops:     []catalogue.LocationDrop{{DropID: 21, LocationID: 22, LocationName: "Lake", LocationLevel: "1", BaseChance: "0.1", LuckChance: "0.2", ExtremeLuckChance: "0.3"}},
				DiscoveryDrops:   []catalogue.DiscoveryDrop{{DropID: 23, LocationID: 24, LocationName: "Cave", LocationLevel: "2", BaseChance: "0.1", LuckChance: "0.2", ExtremeLuckChance: "0.3"}},
				TheivingDrops:    []catalogue.LocationDrop{{DropID: 25, LocationID: 26, LocationName: "Market", LocationLevel: "3", BaseChance: "0.1", LuckChance: "0.2", ExtremeLuckChance: "0.3"}},
				SafesDrops:       []catalogue.SafeDrop{{SafeID: 27, SafeName: "Safe", Amount: "1", Percentage: "10", Chance: "10%"}},
				ExplorationDrops: []catalogue.ExplorationDrop{{ExplorationID: 28, ExplorationName: "Trip", Amount: "2", Percentage: "20", Chance: "20%"}},
				EventDrops:       []catalogue.EventDrop{{ChestName: "Event", ChestID: 29, Amount: "3", ChancePercentage: "30", ChanceText: "30%"}},
				FoundInChests:    []catalogue.ChestFind{{ChestName: "Box", ChestID: 30, MinAmount: "1", MaxAmount: "4", ChancePercentage: "40", ChanceText: "40%"}},
			},
		},
	},
	{
		file:       "monsters.json",
		collection: catalogue.Monsters,
		records:    func(s *catalogue.Snapshot) any { return rows(s.Monsters()) },
		want: []catalogue.Monster{
			{
				ID:                                   8589934592,
				Name:                                 new("Goblin \"King\" 🐉"),
				ImageURL:                             new("https://img.example.test/m?a=1&b=2"),
				IsGod:                                new(false),
				Health:                               new(num("3000000000")),
				Attack:                               new(num("30")),
				Strength:                             new(num("1E+2")),
				Defence:                              new(num("-0.0")),
				CombatLevel:                          new(num("50")),
				AttackSpeedText:                      new("Fast"),
				AttackSpeed:                          new(num("2.40")),
				SlayerExp:                            new(num("9007199254740993")),
				SlayerLevel:                          new(num("10")),
				Weakness:                             new("Fire"),
				Area:                                 new("Caf\u00e9 & <Bar>"),
				TreasureScrollChance:                 new(num("0.001")),
				TreasureScrollChanceWithWwMax:        new(num("0.002")),
				TreasureScrollChanceWithWwMaxAndBC72: new(num("0.0030")),
				Drops: []catalogue.MonsterDrop{
					{
						DropID: new(int64(1)), ItemID: new(int64(5)), Name: new("Iron <Ore>"),
						Min: new(num("1")), Max: new(num("3000000000")),
						BaseChance: new(num("1.50")), LuckChance: new(num("1e-06")), ExtremeLuckChance: new(num("1E+2")),
						Rarity: new("common"),
					},
					{}, // every field null
					{}, // every field missing
				},
			},
			{ID: 2},
			{ID: 3},
		},
	},
	{
		file:       "secretrares.json",
		collection: catalogue.SecretRares,
		records:    func(s *catalogue.Snapshot) any { return rows(s.SecretRares()) },
		want: []catalogue.SecretRare{{
			ID:       1,
			ItemName: `Ring of "Secrets"`,
			ItemID:   9007199254740993,
			SecretDrops: []catalogue.SecretChances{
				{
					Chance:                 "3.3333333333333335e-10",
					ChanceText:             "1 in 3,000,000,000",
					ImpactedByWishingWell:  true,
					Conditions:             []string{"Full moon & <night>", "Caf\u00e9", "雨"},
					ChanceWithMaxWw:        new(num("1e-06")),
					ChanceWithMaxWwText:    new("1 in 1,000,000"),
					ChanceWithMaxWwAndBC65: new(num("1.50")),
				},
				{Chance: "1", ChanceText: "always", Conditions: []string{}},
			},
		}},
	},
	{
		file:       "worldboss.json",
		collection: catalogue.WorldBosses,
		records:    func(s *catalogue.Snapshot) any { return rows(s.WorldBosses()) },
		want: []catalogue.WorldBoss{
			{
				ID:       9007199254740993,
				Name:     "Ancient \U0001F409 Dragon",
				ImageURL: "https://img.example.test/boss.png",
				Level:    "1.50",
				Location: catalogue.WorldBossLocation{ID: 4, Name: "Volcano & Ash"},
				Loot: []catalogue.WorldBossLoot{
					{HashedItemID: "a1b2&c3", Name: "Drag\u00f3n <Scale>", ImageURL: "https://img.example.test/loot?a=1&b=2", Quality: "legendary", Quantity: "1", Chance: "0.05"},
					{HashedItemID: "zz", Name: "Coin", Quality: "common", Quantity: "3000000000", Chance: "1E+2"},
				},
				Status:            "active",
				BattleStartsAt:    "2024-05-01T12:00:00Z",
				BattleEndsAt:      "2024-05-01T13:00:00Z",
				EndpointUpdatesAt: "2024-05-01T12:00:00.000Z",
			},
			{
				ID:                2,
				Name:              "Frost Giant — Ледяной",
				Level:             "-0.0",
				Location:          catalogue.WorldBossLocation{ID: 5, Name: "Tundra"},
				Loot:              []catalogue.WorldBossLoot{},
				Status:            "defeated",
				EndpointUpdatesAt: "2024-05-01T12:05:00Z",
			},
		},
	},
	{
		file:       "quests.json",
		collection: catalogue.Quests,
		records:    func(s *catalogue.Snapshot) any { return rows(s.Quests()) },
		want: []catalogue.Quest{
			{
				ID:             1,
				QuestName:      "Caf\u00e9 \"Run\"",
				QuestSeries:    "Main & Side",
				RequiredSkills: []catalogue.SkillRequirement{{Name: "Mining", Level: "10"}},
				QuestItems:     []catalogue.ItemAmount{{ItemID: 4294967297, Name: "Log", Amount: "3000000000"}},
				QuestRewards: []catalogue.QuestReward{
					{Type: "item", Amount: "1", ItemID: 5, Name: "Iron <Ore>"},
					{Type: "exp", Amount: "1.50", Skill: "Mining"},
				},
			},
			{
				ID:                2,
				QuestName:         "Second — 第二",
				QuestSeries:       "Main & Side",
				RequiredSkills:    []catalogue.SkillRequirement{},
				QuestItems:        []catalogue.ItemAmount{},
				QuestRewards:      []catalogue.QuestReward{},
				PrerequisiteQuest: "Caf\u00e9 \"Run\"",
			},
		},
	},
	{
		file:       "basecamp.json",
		collection: catalogue.BaseCamps,
		records:    func(s *catalogue.Snapshot) any { return rows(s.BaseCamps()) },
		want: []catalogue.BaseCamp{{
			ID:               1,
			BaseTowerLevel:   `Level "1"`,
			BaseTowerBenefit: "+10% \u2192 speed",
			RequiredSkills:   []catalogue.SkillRequirement{{Name: "Crafting", Level: "1.50"}},
			BaseTowerItems:   []catalogue.ItemAmount{{ItemID: 5, Name: "Iron & Steel", Amount: "3000000000"}},
			BaseTowerRewards: []catalogue.BaseTowerReward{{Type: "item", Name: "Tower <Key>", Amount: "1", ItemID: 9007199254740993}},
		}},
	},
	{
		file:       "discovery.json",
		collection: catalogue.DiscoveryLocations,
		records:    func(s *catalogue.Snapshot) any { return rows(s.DiscoveryLocations()) },
		want: []catalogue.DiscoveryLocation{{
			ID:                1,
			DiscoveryLocation: "Caf\u00e9 <Cave> & \"Grotto\"",
			DiscoveryExp:      "1.50",
			DiscoveryLevel:    "3000000000",
			Drops: []catalogue.DiscoveryLocationDrop{{
				DropID: 1, ItemID: 4294967297, Name: "Gem", Rarity: "rare",
				BaseChance: "1e-06", LuckChance: "1E+2", ExtremeLuckChance: "-0.0",
			}},
		}},
	},
	{
		file:       "mining.json",
		collection: catalogue.MiningRocks,
		records:    func(s *catalogue.Snapshot) any { return rows(s.MiningRocks()) },
		want: []catalogue.MiningRock{{
			ID:                            1,
			ItemID:                        9007199254740993,
			MiningRock:                    "R\u00f6ck \U0001FAA8 Stein",
			MiningBaseSpeedInMilliseconds: "3000000000",
			MinimumMiningLevel:            "1E+2",
			MiningSuccessBaseRate:         "0.50",
			MiningExp:                     "1.50",
			ChanceForIlluminantGem:        "1e-06",
			ChanceForIlluminantGemText:    "1 in 1,000,000 & <rare>",
		}},
	},
	{
		file:       "cooking.json",
		collection: catalogue.CookingRecipes,
		records:    func(s *catalogue.Snapshot) any { return rows(s.CookingRecipes()) },
		want: []catalogue.CookingRecipe{
			{
				ID: 1, ItemID: 10, Name: `Stew <hot> & "spicy"`, BurntID: 4294967297, Burnt: "Burnt Stew",
				RequiredLevel: "1E+2", BurntLevel: "3000000000", BurntChance: "1.50", CookingExp: "1e-06",
				Materials: []catalogue.CookingMaterial{
					{ItemID: 2, Name: "Caf\u00e9 beans"},
					{ItemID: 9007199254740993, Name: "Wasser ü"},
				},
			},
			{
				ID: 2, ItemID: 11, Name: "Second envelope", RequiredLevel: "0", BurntLevel: "0",
				BurntChance: "0", CookingExp: "-0.0", Materials: []catalogue.CookingMaterial{},
			},
		},
	},
	{
		file:       "farming.json",
		collection: catalogue.FarmingSeeds,
		records:    func(s *catalogue.Snapshot) any { return rows(s.FarmingSeeds()) },
		want: []catalogue.FarmingSeed{{
			ID: 1, ItemID: 20, SeedName: `Seed <of> "Life" & ☘`, SeedDurationInSeconds: "3000000000",
			SeedLevel: "1.50", SeedExp: "1e-06", RewardID: 9007199254740993, Reward: "Caf\u00e9 plant",
			ChanceForScythe: "1E+2", ChanceForScytheText: "100%",
		}},
	},
	{
		file:       "forestry.json",
		collection: catalogue.ForestryTrees,
		records:    func(s *catalogue.Snapshot) any { return rows(s.ForestryTrees()) },
		want: []catalogue.ForestryTree{{
			ID: 1, ItemID: 9007199254740993, Tree: "\u00c9rable \U0001F333", Log: "Oak <Log> & bark",
			ForestryBaseSpeedInMilliseconds: "3000000000", MinimumForestryLevel: "1E+2",
			NestChance: "1.50", ForestryExp: "1e-06", ForestryBurnExp: "-0.0",
		}},
	},
	{
		file:       "fletching.json",
		collection: catalogue.FletchingRecipes,
		records:    func(s *catalogue.Snapshot) any { return rows(s.FletchingRecipes()) },
		want: []catalogue.FletchingRecipe{{
			ID: 1, ItemID: 30, Name: `Arrow <Sharp> & "Fast"`, Category: "Arrows — Pfeile",
			FletchingLevel: "1.50", FletchingExp: "3000000000",
			Materials: []catalogue.ItemAmount{
				{ItemID: 9007199254740993, Name: "Feather \u00e9\U0001FAB6", Amount: "1e-06"},
				{ItemID: 2, Name: "Shaft", Amount: "1E+2"},
			},
		}},
	},
	{
		file:       "event.json",
		collection: catalogue.EventChests,
		records:    func(s *catalogue.Snapshot) any { return rows(s.EventChests()) },
		want: []catalogue.EventChest{
			{
				ID: 1, ItemID: catalogue.JSONValue("101"), Name: `Chest <A> & "B"`,
				Drops: []catalogue.EventChestDrop{
					{ItemID: 5, Name: "Ore", Amount: "2", Percentage: "12.50", Text: "12.5%"},
					{ItemID: 9007199254740993, Name: "Caf\u00e9 \U0001F381", Amount: "3000000000", Percentage: "1e-06", Text: "<1%"},
				},
			},
			{ID: 2, ItemID: catalogue.JSONValue(`"102"`), Name: "String chest", Drops: []catalogue.EventChestDrop{}},
			{ID: 3, Name: "Null chest", Drops: []catalogue.EventChestDrop{}},
			{ID: 4, Name: "Missing chest", Drops: []catalogue.EventChestDrop{}},
			// A string is kept as a JSON string, without HTML escaping.
			{ID: 5, ItemID: catalogue.JSONValue(`"<none> & \"more\""`), Name: "Odd chest", Drops: []catalogue.EventChestDrop{}},
			{ID: 6, ItemID: catalogue.JSONValue("1.50"), Name: "Fraction chest", Drops: []catalogue.EventChestDrop{}},
		},
	},
}
