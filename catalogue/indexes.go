package catalogue

import (
	"fmt"
	"strconv"
)

// The per-collection indexes: which fields each collection can be filtered
// and ordered by. The field names are the upstream's.

func num(n Number) (float64, bool) { return n.Float64(), true }

func optNum(n *Number) (float64, bool) {
	if n == nil {
		return 0, false
	}
	return n.Float64(), true
}

func str(s string) (string, bool) { return s, true }

func optStr(s *string) (string, bool) {
	if s == nil {
		return "", false
	}
	return *s, true
}

func idKey(v int64) (float64, bool) { return float64(v), true }

// tableAndIndex indexes the records of collection c, a []T of its record
// type: by id (the *Table[T]) and for queries. It runs once per part, when
// a body is decoded, so a snapshot that swaps one collection rebuilds
// nothing of the others.
func tableAndIndex(c Collection, records any) (table any, index *Index) {
	switch c {
	case Items:
		t := newTable(records.([]Item), func(r *Item) int64 { return r.ID })
		return t, buildIndex(t, indexSpec[Item]{
			name: func(r *Item) string { return r.Name },
			equal: map[string]func(*Item) (string, bool){
				"type":     func(r *Item) (string, bool) { return r.Type, true },
				"rarity":   func(r *Item) (string, bool) { return r.Rarity, true },
				"tradable": func(r *Item) (string, bool) { return strconv.FormatBool(r.Tradable), true },
			},
			numeric: map[string]func(*Item) (float64, bool){
				"id":    func(r *Item) (float64, bool) { return idKey(r.ID) },
				"value": func(r *Item) (float64, bool) { return num(r.Value) },
			},
			byName: map[string]func(*Item) (string, bool){"name": func(r *Item) (string, bool) { return str(r.Name) }},
		})
	case Monsters:
		t := newTable(records.([]Monster), func(r *Monster) int64 { return r.ID })
		return t, buildIndex(t, indexSpec[Monster]{
			name: func(r *Monster) string { v, _ := optStr(r.Name); return v },
			equal: map[string]func(*Monster) (string, bool){
				"area": func(r *Monster) (string, bool) { return optStr(r.Area) },
				"isGod": func(r *Monster) (string, bool) {
					if r.IsGod == nil {
						return "", false
					}
					return strconv.FormatBool(*r.IsGod), true
				},
			},
			numeric: map[string]func(*Monster) (float64, bool){
				"id":          func(r *Monster) (float64, bool) { return idKey(r.ID) },
				"combatLevel": func(r *Monster) (float64, bool) { return optNum(r.CombatLevel) },
				"slayerLevel": func(r *Monster) (float64, bool) { return optNum(r.SlayerLevel) },
				"health":      func(r *Monster) (float64, bool) { return optNum(r.Health) },
			},
			byName: map[string]func(*Monster) (string, bool){"name": func(r *Monster) (string, bool) { return optStr(r.Name) }},
		})
	case SecretRares:
		t := newTable(records.([]SecretRare), func(r *SecretRare) int64 { return r.ID })
		return t, buildIndex(t, indexSpec[SecretRare]{
			name:    func(r *SecretRare) string { return r.ItemName },
			numeric: map[string]func(*SecretRare) (float64, bool){"id": func(r *SecretRare) (float64, bool) { return idKey(r.ID) }},
			byName:  map[string]func(*SecretRare) (string, bool){"itemName": func(r *SecretRare) (string, bool) { return str(r.ItemName) }},
		})
	case WorldBosses:
		t := newTable(records.([]WorldBoss), func(r *WorldBoss) int64 { return r.ID })
		return t, buildIndex(t, indexSpec[WorldBoss]{
			name:  func(r *WorldBoss) string { return r.Name },
			equal: map[string]func(*WorldBoss) (string, bool){"status": func(r *WorldBoss) (string, bool) { return str(r.Status) }},
			numeric: map[string]func(*WorldBoss) (float64, bool){
				"id":    func(r *WorldBoss) (float64, bool) { return idKey(r.ID) },
				"level": func(r *WorldBoss) (float64, bool) { return num(r.Level) },
			},
			byName: map[string]func(*WorldBoss) (string, bool){"name": func(r *WorldBoss) (string, bool) { return str(r.Name) }},
		})
	case Quests:
		t := newTable(records.([]Quest), func(r *Quest) int64 { return r.ID })
		return t, buildIndex(t, indexSpec[Quest]{
			name:    func(r *Quest) string { return r.QuestName },
			equal:   map[string]func(*Quest) (string, bool){"questSeries": func(r *Quest) (string, bool) { return str(r.QuestSeries) }},
			numeric: map[string]func(*Quest) (float64, bool){"id": func(r *Quest) (float64, bool) { return idKey(r.ID) }},
			byName:  map[string]func(*Quest) (string, bool){"questName": func(r *Quest) (string, bool) { return str(r.QuestName) }},
		})
	case BaseCamps:
		t := newTable(records.([]BaseCamp), func(r *BaseCamp) int64 { return r.ID })
		return t, buildIndex(t, indexSpec[BaseCamp]{
			name:    func(r *BaseCamp) string { return r.BaseTowerLevel },
			numeric: map[string]func(*BaseCamp) (float64, bool){"id": func(r *BaseCamp) (float64, bool) { return idKey(r.ID) }},
			byName:  map[string]func(*BaseCamp) (string, bool){"baseTowerLevel": func(r *BaseCamp) (string, bool) { return str(r.BaseTowerLevel) }},
		})
	case Discovery:
		t := newTable(records.([]DiscoveryLocation), func(r *DiscoveryLocation) int64 { return r.ID })
		return t, buildIndex(t, indexSpec[DiscoveryLocation]{
			name: func(r *DiscoveryLocation) string { return r.DiscoveryLocation },
			numeric: map[string]func(*DiscoveryLocation) (float64, bool){
				"id":             func(r *DiscoveryLocation) (float64, bool) { return idKey(r.ID) },
				"discoveryLevel": func(r *DiscoveryLocation) (float64, bool) { return num(r.DiscoveryLevel) },
				"discoveryExp":   func(r *DiscoveryLocation) (float64, bool) { return num(r.DiscoveryExp) },
			},
			byName: map[string]func(*DiscoveryLocation) (string, bool){"discoveryLocation": func(r *DiscoveryLocation) (string, bool) { return str(r.DiscoveryLocation) }},
		})
	case Mining:
		t := newTable(records.([]MiningRock), func(r *MiningRock) int64 { return r.ID })
		return t, buildIndex(t, indexSpec[MiningRock]{
			name: func(r *MiningRock) string { return r.MiningRock },
			numeric: map[string]func(*MiningRock) (float64, bool){
				"id":                 func(r *MiningRock) (float64, bool) { return idKey(r.ID) },
				"minimumMiningLevel": func(r *MiningRock) (float64, bool) { return num(r.MinimumMiningLevel) },
				"miningExp":          func(r *MiningRock) (float64, bool) { return num(r.MiningExp) },
			},
			byName: map[string]func(*MiningRock) (string, bool){"miningRock": func(r *MiningRock) (string, bool) { return str(r.MiningRock) }},
		})
	case Cooking:
		t := newTable(records.([]CookingRecipe), func(r *CookingRecipe) int64 { return r.ID })
		return t, buildIndex(t, indexSpec[CookingRecipe]{
			name: func(r *CookingRecipe) string { return r.Name },
			numeric: map[string]func(*CookingRecipe) (float64, bool){
				"id":            func(r *CookingRecipe) (float64, bool) { return idKey(r.ID) },
				"requiredLevel": func(r *CookingRecipe) (float64, bool) { return num(r.RequiredLevel) },
				"cookingExp":    func(r *CookingRecipe) (float64, bool) { return num(r.CookingExp) },
			},
			byName: map[string]func(*CookingRecipe) (string, bool){"name": func(r *CookingRecipe) (string, bool) { return str(r.Name) }},
		})
	case Farming:
		t := newTable(records.([]FarmingSeed), func(r *FarmingSeed) int64 { return r.ID })
		return t, buildIndex(t, indexSpec[FarmingSeed]{
			name: func(r *FarmingSeed) string { return r.SeedName },
			numeric: map[string]func(*FarmingSeed) (float64, bool){
				"id":        func(r *FarmingSeed) (float64, bool) { return idKey(r.ID) },
				"seedLevel": func(r *FarmingSeed) (float64, bool) { return num(r.SeedLevel) },
				"seedExp":   func(r *FarmingSeed) (float64, bool) { return num(r.SeedExp) },
			},
			byName: map[string]func(*FarmingSeed) (string, bool){"seedName": func(r *FarmingSeed) (string, bool) { return str(r.SeedName) }},
		})
	case Forestry:
		t := newTable(records.([]ForestryTree), func(r *ForestryTree) int64 { return r.ID })
		return t, buildIndex(t, indexSpec[ForestryTree]{
			name: func(r *ForestryTree) string { return r.Tree },
			numeric: map[string]func(*ForestryTree) (float64, bool){
				"id":                   func(r *ForestryTree) (float64, bool) { return idKey(r.ID) },
				"minimumForestryLevel": func(r *ForestryTree) (float64, bool) { return num(r.MinimumForestryLevel) },
				"forestryExp":          func(r *ForestryTree) (float64, bool) { return num(r.ForestryExp) },
			},
			byName: map[string]func(*ForestryTree) (string, bool){"tree": func(r *ForestryTree) (string, bool) { return str(r.Tree) }},
		})
	case Fletching:
		t := newTable(records.([]FletchingRecipe), func(r *FletchingRecipe) int64 { return r.ID })
		return t, buildIndex(t, indexSpec[FletchingRecipe]{
			name: func(r *FletchingRecipe) string { return r.Name },
			numeric: map[string]func(*FletchingRecipe) (float64, bool){
				"id":             func(r *FletchingRecipe) (float64, bool) { return idKey(r.ID) },
				"fletchingLevel": func(r *FletchingRecipe) (float64, bool) { return num(r.FletchingLevel) },
				"fletchingExp":   func(r *FletchingRecipe) (float64, bool) { return num(r.FletchingExp) },
			},
			byName: map[string]func(*FletchingRecipe) (string, bool){"name": func(r *FletchingRecipe) (string, bool) { return str(r.Name) }},
		})
	case Events:
		t := newTable(records.([]EventChest), func(r *EventChest) int64 { return r.ID })
		return t, buildIndex(t, indexSpec[EventChest]{
			name:    func(r *EventChest) string { return r.Name },
			numeric: map[string]func(*EventChest) (float64, bool){"id": func(r *EventChest) (float64, bool) { return idKey(r.ID) }},
			byName:  map[string]func(*EventChest) (string, bool){"name": func(r *EventChest) (string, bool) { return str(r.Name) }},
		})
	}
	panic(fmt.Sprintf("catalogue: no index for %s", c))
}

// Index returns the query index of collection c, or nil if c is missing.
func (s *Snapshot) Index(c Collection) *Index { return s.indexes[c] }
