package resolvers_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/loader"
)

// TestReferences resolves every kind of reference the contract names, once
// to an existing record and once dangling, over the fixture catalogue.
func TestReferences(t *testing.T) {
	srv := serve(t, storeOf(fixture(t)), loader.Options{})
	tests := []struct {
		name, query, want string
	}{
		{"ItemAmount.item (crafting materials)",
			`{ item(id: 2) { crafting { materials { itemId item { name } } } } }`,
			`{"item":{"crafting":{"materials":[{"itemId":1,"item":{"name":"Copper Ore"}},{"itemId":999,"item":null}]}}}`},
		{"CookingMaterial.item",
			`{ item(id: 3) { cooking { materials { item { id } } } } }`,
			`{"item":{"cooking":{"materials":[{"item":{"id":1}}]}}}`},
		{"ChestContent.item, present and absent itemId",
			`{ item(id: 2) { chest { itemId item { id } } } }`,
			`{"item":{"chest":[{"itemId":1,"item":{"id":1}},{"itemId":null,"item":null}]}}`},
		{"ItemMonsterDrop.monster",
			`{ item(id: 1) { monsterDrops { monsterId monster { name } } } }`,
			`{"item":{"monsterDrops":[{"monsterId":1,"monster":{"name":"Goblin"}},{"monsterId":555,"monster":null}]}}`},
		{"DiscoveryDrop.location",
			`{ item(id: 1) { discoveryDrops { locationId location { discoveryLocation } } } }`,
			`{"item":{"discoveryDrops":[{"locationId":1,"location":{"discoveryLocation":"Cave"}},{"locationId":9,"location":null}]}}`},
		{"EventDrop.chest and ChestFind.chest",
			`{ item(id: 1) { eventDrops { chest { name } } foundInChests { chestId chest { name } } } }`,
			`{"item":{"eventDrops":[{"chest":{"name":"Spring Chest"}}],"foundInChests":[{"chestId":88,"chest":null}]}}`},
		{"UsedIn references",
			`{ item(id: 1) { usedIn {
				cooking { cookingId cooking { name } }
				fletching { fletching { name } }
				farming { farming { seedName } }
				forestry { forestry { tree } }
				quests { quest { questName } }
				basecamps { BaseTowerLevel basecamp { baseTowerLevel } }
			} } }`,
			`{"item":{"usedIn":{
				"cooking":[{"cookingId":1,"cooking":{"name":"Fish & Chips"}},{"cookingId":77,"cooking":null}],
				"fletching":[{"fletching":{"name":"Arrow"}}],
				"farming":[{"farming":{"seedName":"Copper Seed"}}],
				"forestry":[{"forestry":{"tree":"Oak"}}],
				"quests":[{"quest":{"questName":"Second Steps"}}],
				"basecamps":[{"BaseTowerLevel":"Level 1","basecamp":{"baseTowerLevel":"Level 1"}}]}}}`},
		{"MonsterDrop.item, present, dangling and absent",
			`{ monster(id: 1) { drops { item { id } } } m2: monster(id: 2) { drops { itemId item { id } } } }`,
			`{"monster":{"drops":[{"item":{"id":1}},{"item":{"id":2}},{"item":null},{"item":{"id":1}}]},
			  "m2":{"drops":[{"itemId":null,"item":null}]}}`},
		{"SecretRare.item",
			`{ secretRares { nodes { itemId item { name } } } }`,
			`{"secretRares":{"nodes":[{"itemId":3,"item":{"name":"Fish & Chips"}},{"itemId":404,"item":null}]}}`},
		{"Quest references and prerequisite",
			`{ quests { nodes { questName prerequisiteQuest prerequisite { id }
				questItems { item { id } } questRewards { itemId item { id } } } } }`,
			`{"quests":{"nodes":[
				{"questName":"First Steps","prerequisiteQuest":"","prerequisite":null,"questItems":[],
				 "questRewards":[{"itemId":2,"item":{"id":2}},{"itemId":0,"item":null}]},
				{"questName":"Second Steps","prerequisiteQuest":"First Steps","prerequisite":{"id":1},
				 "questItems":[{"item":{"id":1}}],"questRewards":[{"itemId":2,"item":{"id":2}}]},
				{"questName":"Lost Steps","prerequisiteQuest":"Nonexistent Quest","prerequisite":null,
				 "questItems":[{"item":null}],"questRewards":[]}]}}`},
		{"BaseCamp references",
			`{ baseCamp(id: 1) { baseTowerItems { item { id } } baseTowerRewards { item { id } } } }`,
			`{"baseCamp":{"baseTowerItems":[{"item":{"id":1}}],"baseTowerRewards":[{"item":{"id":2}}]}}`},
		{"DiscoveryLocationDrop.item",
			`{ discoveryLocation(id: 1) { drops { item { id } } } }`,
			`{"discoveryLocation":{"drops":[{"item":{"id":1}}]}}`},
		{"MiningRock.item",
			`{ miningRocks { nodes { itemId item { id } } } }`,
			`{"miningRocks":{"nodes":[{"itemId":1,"item":{"id":1}},{"itemId":999,"item":null}]}}`},
		{"CookingRecipe.item, burntItem and materials",
			`{ cookingRecipe(id: 1) { item { id } burntId burntItem { id } materials { item { id } } } }`,
			`{"cookingRecipe":{"item":{"id":3},"burntId":4,"burntItem":null,"materials":[{"item":{"id":1}}]}}`},
		{"FarmingSeed.item and rewardItem",
			`{ farmingSeed(id: 1) { item { id } rewardItem { name } } }`,
			`{"farmingSeed":{"item":{"id":1},"rewardItem":{"name":"Bronze Bar"}}}`},
		{"ForestryTree.item",
			`{ forestryTree(id: 1) { item { id } } }`,
			`{"forestryTree":{"item":{"id":1}}}`},
		{"FletchingRecipe.item and materials",
			`{ fletchingRecipe(id: 1) { item { id } materials { item { id } } } }`,
			`{"fletchingRecipe":{"item":{"id":2},"materials":[{"item":{"id":1}},{"item":null}]}}`},
		{"EventChest.item from a number, a string, null, junk and nothing; drops",
			`{ eventChests { nodes { itemId item { id } drops { item { id } } } } }`,
			`{"eventChests":{"nodes":[
				{"itemId":1,"item":{"id":1},"drops":[{"item":{"id":1}}]},
				{"itemId":"2","item":{"id":2},"drops":[]},
				{"itemId":null,"item":null,"drops":[]},
				{"itemId":"abc","item":null,"drops":[{"item":null}]},
				{"itemId":null,"item":null,"drops":[]}]}}`},
		{"one-record lookups that miss are null",
			`{ item(id: 12345) { id } monster(id: 0) { id } quest(id: -1) { id } worldBoss(id: 9) { id } }`,
			`{"item":null,"monster":null,"quest":null,"worldBoss":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := data(t, srv, tt.query, nil)
			if diff := cmp.Diff(jsonValue(t, tt.want), any(got)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestReverseRelations checks the relations computed per snapshot.
func TestReverseRelations(t *testing.T) {
	srv := serve(t, storeOf(fixture(t)), loader.Options{})
	tests := []struct {
		name, query, want string
	}{
		{"item 1",
			`{ item(id: 1) { droppedByMonsters { id } requiredByQuests { id } requiredByBaseCamps { id }
				ingredientOf { id } usedInCookingRecipes { id } usedInFletchingRecipes { id }
				droppedAtDiscoveryLocations { id } inEventChests { id } rewardedByQuests { id } secretRares { id } } }`,
			`{"item":{"droppedByMonsters":[{"id":1}],"requiredByQuests":[{"id":2}],"requiredByBaseCamps":[{"id":1}],
				"ingredientOf":[{"id":2},{"id":3}],"usedInCookingRecipes":[{"id":1}],"usedInFletchingRecipes":[{"id":1}],
				"droppedAtDiscoveryLocations":[{"id":1}],"inEventChests":[{"id":1}],"rewardedByQuests":[],"secretRares":[]}}`},
		{"item 2",
			`{ item(id: 2) { rewardedByQuests { id } rewardedByBaseCamps { id } droppedByMonsters { id } } }`,
			`{"item":{"rewardedByQuests":[{"id":1},{"id":2}],"rewardedByBaseCamps":[{"id":1}],"droppedByMonsters":[{"id":1}]}}`},
		{"item 3 secret rares",
			`{ item(id: 3) { secretRares { id } } }`,
			`{"item":{"secretRares":[{"id":1}]}}`},
		{"monster dropped items, deduplicated, dangling left out",
			`{ monster(id: 1) { droppedItems { id } } m2: monster(id: 2) { droppedItems { id } } }`,
			`{"monster":{"droppedItems":[{"id":1},{"id":2}]},"m2":{"droppedItems":[]}}`},
		{"quest unlocks",
			`{ quest(id: 1) { unlocks { id } } q3: quest(id: 3) { unlocks { id } } }`,
			`{"quest":{"unlocks":[{"id":2}]},"q3":{"unlocks":[]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := data(t, srv, tt.query, nil)
			if diff := cmp.Diff(jsonValue(t, tt.want), any(got)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestDroppedByWorldBosses checks Item.droppedByWorldBosses, which matches
// a boss's loot to items by name: every item of a shared name lists the
// boss (WorldBossLoot.item resolves to the first only), a boss naming an
// item twice is listed once, bosses come in upstream order, and a name no
// item has is nobody's.
func TestDroppedByWorldBosses(t *testing.T) {
	bodies := upstreamtest.FixtureBodies(t)
	// A second "Copper Ore" (id 6), after item 1 of that name.
	var items []map[string]any
	decodeJSON(t, bodies[catalogue.Items], &items)
	twin := map[string]any{}
	for k, v := range items[0]["results"].([]any)[0].(map[string]any) {
		twin[k] = v
	}
	twin["id"] = 6
	items[0]["results"] = append(items[0]["results"].([]any), twin)
	bodies[catalogue.Items] = encodeJSON(t, items)
	// Boss 1's loot names Copper Ore twice, Bronze Bar and an unknown
	// item; boss 2, a copy, names Copper Ore only.
	var envs []map[string]any
	decodeJSON(t, bodies[catalogue.WorldBosses], &envs)
	boss := envs[0]["world_bosses"].([]any)[0].(map[string]any)
	shard := boss["loot"].([]any)[0].(map[string]any)
	lootNamed := func(name string) map[string]any {
		l := map[string]any{}
		for k, v := range shard {
			l[k] = v
		}
		l["name"] = name
		return l
	}
	boss["loot"] = []any{lootNamed("Copper Ore"), lootNamed("Bronze Bar"), lootNamed("Copper Ore"), lootNamed("Nowhere")}
	boss2 := map[string]any{}
	for k, v := range boss {
		boss2[k] = v
	}
	boss2["id"] = 2
	boss2["loot"] = []any{lootNamed("Copper Ore")}
	envs[0]["world_bosses"] = []any{boss, boss2}
	bodies[catalogue.WorldBosses] = encodeJSON(t, envs)

	var parts []*catalogue.Part
	for c, raw := range bodies {
		p, err := catalogue.Decode(c, raw)
		if err != nil {
			t.Fatalf("decoding %s: %v", c, err)
		}
		parts = append(parts, p)
	}
	srv := serve(t, storeOf(catalogue.NewSnapshot(parts...)), loader.Options{})
	tests := []struct {
		name, query, want string
	}{
		{"the first of a shared name, each boss once, in upstream order",
			`{ item(id: 1) { droppedByWorldBosses { id } } }`,
			`{"item":{"droppedByWorldBosses":[{"id":1},{"id":2}]}}`},
		{"the other of the shared name lists them too",
			`{ item(id: 6) { name droppedByWorldBosses { id } } }`,
			`{"item":{"name":"Copper Ore","droppedByWorldBosses":[{"id":1},{"id":2}]}}`},
		{"a name only one boss gives",
			`{ item(id: 2) { droppedByWorldBosses { id name } } }`,
			`{"item":{"droppedByWorldBosses":[{"id":1,"name":"Colossus"}]}}`},
		{"an item no loot names",
			`{ item(id: 3) { droppedByWorldBosses { id } } }`,
			`{"item":{"droppedByWorldBosses":[]}}`},
		{"the loot's own item stays the first of the name",
			`{ worldBoss(id: 2) { loot { name item { id } } } }`,
			`{"worldBoss":{"loot":[{"name":"Copper Ore","item":{"id":1}}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := data(t, srv, tt.query, nil)
			if diff := cmp.Diff(jsonValue(t, tt.want), any(got)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestDroppedByWorldBossesEmbedded checks the case the explorer shows:
// Kraken Ink (item 772) is the Kraken of the Abyss's loot.
func TestDroppedByWorldBossesEmbedded(t *testing.T) {
	srv := serve(t, storeOf(embedded(t)), loader.Options{})
	got := data(t, srv, `{ item(id: 772) { name droppedByWorldBosses { id name } } }`, nil)
	want := `{"item":{"name":"Kraken Ink","droppedByWorldBosses":[{"id":5,"name":"Kraken of the Abyss"}]}}`
	if diff := cmp.Diff(jsonValue(t, want), any(got)); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func decodeJSON(t testing.TB, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding the fixture: %v", err)
	}
}

func encodeJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding the fixture: %v", err)
	}
	return b
}
