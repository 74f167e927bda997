package resolvers

import (
	"reflect"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/loader"
)

// TODO(refgraph): these tables are the engine's, copied until both read
// the reference graph generated from the schema.

var (
	numberType    = reflect.TypeFor[catalogue.Number]()
	jsonValueType = reflect.TypeFor[catalogue.JSONValue]()
)

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
