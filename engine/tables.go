package engine

import (
	"reflect"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/loader"
)

// references are the reference fields the plan resolves itself: the
// record type, the GraphQL field, the Go field holding the id, and the
// kind of record it names. They are those of records.resolvers.go, where
// gqlgen's executor resolves the same fields one by one; TestCompiledMatchesGQLGen
// checks the two agree on every reference of the golden queries.
var references = map[reflect.Type]map[string]struct {
	idField string
	kind    loader.Kind
}{
	reflect.TypeFor[catalogue.AlchemyMaterial]():       {"item": {"ItemID", loader.ItemKind}},
	reflect.TypeFor[catalogue.BaseTowerReward]():       {"item": {"ItemID", loader.ItemKind}},
	reflect.TypeFor[catalogue.ChestContent]():          {"item": {"ItemID", loader.ItemKind}},
	reflect.TypeFor[catalogue.ChestFind]():             {"chest": {"ChestID", loader.EventChestKind}},
	reflect.TypeFor[catalogue.CookingMaterial]():       {"item": {"ItemID", loader.ItemKind}},
	reflect.TypeFor[catalogue.CookingRecipe]():         {"item": {"ItemID", loader.ItemKind}, "burntItem": {"BurntID", loader.ItemKind}},
	reflect.TypeFor[catalogue.DiscoveryDrop]():         {"location": {"LocationID", loader.DiscoveryLocationKind}},
	reflect.TypeFor[catalogue.DiscoveryLocationDrop](): {"item": {"ItemID", loader.ItemKind}},
	reflect.TypeFor[catalogue.EventChest]():            {"item": {"ItemID", loader.ItemKind}},
	reflect.TypeFor[catalogue.EventChestDrop]():        {"item": {"ItemID", loader.ItemKind}},
	reflect.TypeFor[catalogue.EventDrop]():             {"chest": {"ChestID", loader.EventChestKind}},
	reflect.TypeFor[catalogue.FarmingSeed]():           {"item": {"ItemID", loader.ItemKind}, "rewardItem": {"RewardID", loader.ItemKind}},
	reflect.TypeFor[catalogue.FletchingRecipe]():       {"item": {"ItemID", loader.ItemKind}},
	reflect.TypeFor[catalogue.ForestryTree]():          {"item": {"ItemID", loader.ItemKind}},
	reflect.TypeFor[catalogue.ItemAmount]():            {"item": {"ItemID", loader.ItemKind}},
	reflect.TypeFor[catalogue.ItemMonsterDrop]():       {"monster": {"MonsterID", loader.MonsterKind}},
	reflect.TypeFor[catalogue.MiningRock]():            {"item": {"ItemID", loader.ItemKind}},
	reflect.TypeFor[catalogue.MonsterDrop]():           {"item": {"ItemID", loader.ItemKind}},
	reflect.TypeFor[catalogue.QuestReward]():           {"item": {"ItemID", loader.ItemKind}},
	reflect.TypeFor[catalogue.SecretRare]():            {"item": {"ItemID", loader.ItemKind}},
	reflect.TypeFor[catalogue.UsedInBasecamp]():        {"basecamp": {"BasecampID", loader.BaseCampKind}},
	reflect.TypeFor[catalogue.UsedInCooking]():         {"cooking": {"CookingID", loader.CookingRecipeKind}},
	reflect.TypeFor[catalogue.UsedInFarming]():         {"farming": {"FarmingID", loader.FarmingSeedKind}},
	reflect.TypeFor[catalogue.UsedInFletching]():       {"fletching": {"FletchingID", loader.FletchingRecipeKind}},
	reflect.TypeFor[catalogue.UsedInForestry]():        {"forestry": {"ForestryID", loader.ForestryTreeKind}},
	reflect.TypeFor[catalogue.UsedInQuest]():           {"quest": {"QuestID", loader.QuestKind}},
}

// namedReferences are the references by name the plan resolves itself:
// the Go field holding the name, the kind of record, and how the snapshot
// finds the id of the record of that name. The record is then loaded by
// that id, through the loader, as the resolver (prerequisite) does.
var namedReferences = map[reflect.Type]map[string]struct {
	nameField string
	kind      loader.Kind
	byName    func(s *catalogue.Snapshot, name string) (int64, bool)
}{
	reflect.TypeFor[catalogue.Quest](): {"prerequisite": {"PrerequisiteQuest", loader.QuestKind, questIDNamed}},
}

// questIDNamed is the id of the first quest of that name; none for an
// empty name.
func questIDNamed(s *catalogue.Snapshot, name string) (int64, bool) {
	if s == nil || name == "" {
		return 0, false
	}
	q, ok := s.QuestNamed(name)
	if !ok {
		return 0, false
	}
	return q.ID, true
}

// relations are the reverse relations the plan answers itself: lists the
// snapshot computed once, by the id of the record asked about. They are
// those of records.resolvers.go (related), where gqlgen's executor answers
// the same fields; TestCompiledMatchesGQLGen checks the two agree.
var relations = map[reflect.Type]map[string]reverseRelation{
	reflect.TypeFor[catalogue.Item](): {
		"droppedByMonsters":           relationOf((*catalogue.Snapshot).MonstersDropping),
		"rewardedByQuests":            relationOf((*catalogue.Snapshot).QuestsRewarding),
		"requiredByQuests":            relationOf((*catalogue.Snapshot).QuestsRequiring),
		"requiredByBaseCamps":         relationOf((*catalogue.Snapshot).BaseCampsRequiring),
		"rewardedByBaseCamps":         relationOf((*catalogue.Snapshot).BaseCampsRewarding),
		"ingredientOf":                relationOf((*catalogue.Snapshot).ItemsUsing),
		"usedInCookingRecipes":        relationOf((*catalogue.Snapshot).CookingRecipesUsing),
		"usedInFletchingRecipes":      relationOf((*catalogue.Snapshot).FletchingRecipesUsing),
		"droppedAtDiscoveryLocations": relationOf((*catalogue.Snapshot).DiscoveryLocationsDropping),
		"inEventChests":               relationOf((*catalogue.Snapshot).EventChestsContaining),
		"secretRares":                 relationOf((*catalogue.Snapshot).SecretRaresOf),
	},
	reflect.TypeFor[catalogue.Monster](): {"droppedItems": relationOf((*catalogue.Snapshot).ItemsDroppedBy)},
	reflect.TypeFor[catalogue.Quest]():   {"unlocks": relationOf((*catalogue.Snapshot).QuestsUnlockedBy)},
}

// reverseRelation is a reverse relation: the Go type of its list, and how
// to read it for a record's id.
type reverseRelation struct {
	typ reflect.Type
	get func(s *catalogue.Snapshot, id int64) reflect.Value
}

func relationOf[T any](list func(*catalogue.Snapshot, int64) []*T) reverseRelation {
	return reverseRelation{typ: reflect.TypeFor[[]*T](), get: func(s *catalogue.Snapshot, id int64) reflect.Value {
		if s == nil {
			return reflect.ValueOf([]*T(nil))
		}
		return reflect.ValueOf(list(s, id))
	}}
}

// recordTypes are the Go types of the records each kind of reference names.
var recordTypes = [...]reflect.Type{
	loader.ItemKind:              reflect.TypeFor[*catalogue.Item](),
	loader.MonsterKind:           reflect.TypeFor[*catalogue.Monster](),
	loader.QuestKind:             reflect.TypeFor[*catalogue.Quest](),
	loader.BaseCampKind:          reflect.TypeFor[*catalogue.BaseCamp](),
	loader.EventChestKind:        reflect.TypeFor[*catalogue.EventChest](),
	loader.DiscoveryLocationKind: reflect.TypeFor[*catalogue.DiscoveryLocation](),
	loader.CookingRecipeKind:     reflect.TypeFor[*catalogue.CookingRecipe](),
	loader.FletchingRecipeKind:   reflect.TypeFor[*catalogue.FletchingRecipe](),
	loader.FarmingSeedKind:       reflect.TypeFor[*catalogue.FarmingSeed](),
	loader.ForestryTreeKind:      reflect.TypeFor[*catalogue.ForestryTree](),
}

// recordCollections are the collections each kind of record comes from.
var recordCollections = [...]catalogue.Collection{
	loader.ItemKind:              catalogue.Items,
	loader.MonsterKind:           catalogue.Monsters,
	loader.QuestKind:             catalogue.Quests,
	loader.BaseCampKind:          catalogue.BaseCamps,
	loader.EventChestKind:        catalogue.Events,
	loader.DiscoveryLocationKind: catalogue.Discovery,
	loader.CookingRecipeKind:     catalogue.Cooking,
	loader.FletchingRecipeKind:   catalogue.Fletching,
	loader.FarmingSeedKind:       catalogue.Farming,
	loader.ForestryTreeKind:      catalogue.Forestry,
}

// kindOf returns the kind of reference whose records are of type t.
func kindOf(t reflect.Type) (loader.Kind, bool) {
	for k, rt := range recordTypes {
		if rt == t {
			return loader.Kind(k), true
		}
	}
	return 0, false
}

// compiler builds the plan of one operation; a declined part makes the
// whole plan nil.
