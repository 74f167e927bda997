package resolvers

import (
	"strconv"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graph/model"
)

// The list fields' filter and orderBy arguments, as catalogue Queries. The
// index of each collection (catalogue/indexes.go) knows the upstream field
// names used here.

// orderNames names the upstream fields behind a collection's NAME, LEVEL and
// EXP ordering values.
type orderNames struct{ name, level, exp string }

// orderBy sets q's ordering from an ordering value and direction.
func orderBy(q *catalogue.Query, value string, dir *model.OrderDirection, names orderNames) {
	switch value {
	case "ID":
		q.OrderBy = "id"
	case "NAME":
		q.OrderBy = names.name
	case "LEVEL":
		q.OrderBy = names.level
	case "EXP":
		q.OrderBy = names.exp
	case "VALUE":
		q.OrderBy = "value"
	case "COMBAT_LEVEL":
		q.OrderBy = "combatLevel"
	case "SLAYER_LEVEL":
		q.OrderBy = "slayerLevel"
	case "HEALTH":
		q.OrderBy = "health"
	default:
		q.OrderBy = value // unknown to the index: Select reports it
	}
	q.Descending = dir != nil && *dir == model.OrderDirectionDesc
}

func nameContains(q *catalogue.Query, v *string) {
	if v != nil {
		q.NameContains = *v
	}
}

func equal(q *catalogue.Query, field string, v *string) {
	if v == nil {
		return
	}
	if q.Equal == nil {
		q.Equal = map[string]string{}
	}
	q.Equal[field] = *v
}

func equalBool(q *catalogue.Query, field string, v *bool) {
	if v != nil {
		s := strconv.FormatBool(*v)
		equal(q, field, &s)
	}
}

func between(q *catalogue.Query, field string, atLeast, atMost *float64) {
	if atLeast != nil {
		q.AtLeast = map[string]float64{field: *atLeast}
	}
	if atMost != nil {
		q.AtMost = map[string]float64{field: *atMost}
	}
}

func itemQuery(f *model.ItemFilter, o *model.ItemOrder) (q catalogue.Query) {
	if f != nil {
		nameContains(&q, f.NameContains)
		equal(&q, "type", f.Type)
		equal(&q, "rarity", f.Rarity)
		equalBool(&q, "tradable", f.Tradable)
	}
	if o != nil {
		orderBy(&q, string(o.Field), o.Direction, orderNames{name: "name"})
	}
	return q
}

func monsterQuery(f *model.MonsterFilter, o *model.MonsterOrder) (q catalogue.Query) {
	if f != nil {
		nameContains(&q, f.NameContains)
		equal(&q, "area", f.Area)
		equalBool(&q, "isGod", f.IsGod)
		between(&q, "combatLevel", f.CombatLevelMin, f.CombatLevelMax)
	}
	if o != nil {
		orderBy(&q, string(o.Field), o.Direction, orderNames{name: "name"})
	}
	return q
}

func secretRareQuery(f *model.SecretRareFilter, o *model.SecretRareOrder) (q catalogue.Query) {
	if f != nil {
		nameContains(&q, f.NameContains)
	}
	if o != nil {
		orderBy(&q, string(o.Field), o.Direction, orderNames{name: "itemName"})
	}
	return q
}

func worldBossQuery(f *model.WorldBossFilter, o *model.WorldBossOrder) (q catalogue.Query) {
	if f != nil {
		nameContains(&q, f.NameContains)
		equal(&q, "status", f.Status)
	}
	if o != nil {
		orderBy(&q, string(o.Field), o.Direction, orderNames{name: "name", level: "level"})
	}
	return q
}

func questQuery(f *model.QuestFilter, o *model.QuestOrder) (q catalogue.Query) {
	if f != nil {
		nameContains(&q, f.NameContains)
		equal(&q, "questSeries", f.QuestSeries)
	}
	if o != nil {
		orderBy(&q, string(o.Field), o.Direction, orderNames{name: "questName"})
	}
	return q
}

func baseCampQuery(f *model.BaseCampFilter, o *model.BaseCampOrder) (q catalogue.Query) {
	if f != nil {
		nameContains(&q, f.NameContains)
	}
	if o != nil {
		orderBy(&q, string(o.Field), o.Direction, orderNames{name: "baseTowerLevel"})
	}
	return q
}

func discoveryLocationQuery(f *model.DiscoveryLocationFilter, o *model.DiscoveryLocationOrder) (q catalogue.Query) {
	if f != nil {
		nameContains(&q, f.NameContains)
	}
	if o != nil {
		orderBy(&q, string(o.Field), o.Direction,
			orderNames{name: "discoveryLocation", level: "discoveryLevel", exp: "discoveryExp"})
	}
	return q
}

func miningRockQuery(f *model.MiningRockFilter, o *model.MiningRockOrder) (q catalogue.Query) {
	if f != nil {
		nameContains(&q, f.NameContains)
	}
	if o != nil {
		orderBy(&q, string(o.Field), o.Direction,
			orderNames{name: "miningRock", level: "minimumMiningLevel", exp: "miningExp"})
	}
	return q
}

func cookingRecipeQuery(f *model.CookingRecipeFilter, o *model.CookingRecipeOrder) (q catalogue.Query) {
	if f != nil {
		nameContains(&q, f.NameContains)
	}
	if o != nil {
		orderBy(&q, string(o.Field), o.Direction, orderNames{name: "name", level: "requiredLevel", exp: "cookingExp"})
	}
	return q
}

func farmingSeedQuery(f *model.FarmingSeedFilter, o *model.FarmingSeedOrder) (q catalogue.Query) {
	if f != nil {
		nameContains(&q, f.NameContains)
	}
	if o != nil {
		orderBy(&q, string(o.Field), o.Direction, orderNames{name: "seedName", level: "seedLevel", exp: "seedExp"})
	}
	return q
}

func forestryTreeQuery(f *model.ForestryTreeFilter, o *model.ForestryTreeOrder) (q catalogue.Query) {
	if f != nil {
		nameContains(&q, f.NameContains)
	}
	if o != nil {
		orderBy(&q, string(o.Field), o.Direction,
			orderNames{name: "tree", level: "minimumForestryLevel", exp: "forestryExp"})
	}
	return q
}

func fletchingRecipeQuery(f *model.FletchingRecipeFilter, o *model.FletchingRecipeOrder) (q catalogue.Query) {
	if f != nil {
		nameContains(&q, f.NameContains)
	}
	if o != nil {
		orderBy(&q, string(o.Field), o.Direction,
			orderNames{name: "name", level: "fletchingLevel", exp: "fletchingExp"})
	}
	return q
}

func eventChestQuery(f *model.EventChestFilter, o *model.EventChestOrder) (q catalogue.Query) {
	if f != nil {
		nameContains(&q, f.NameContains)
	}
	if o != nil {
		orderBy(&q, string(o.Field), o.Direction, orderNames{name: "name"})
	}
	return q
}
