package resolvers

import "github.com/catalogue-gateway/gateway/graph"

// The schema's costs, for the complexity limit. gqlgen counts a field as 1
// plus its children; a list field must instead cost its length times its
// child, or a query asking for a thousand records of a thousand records
// would look as cheap as one. Connections cost the page they ask for;
// reverse relations, whose length the query cannot choose, cost an
// estimate of a long one.

// relationCost is what a reverse relation is assumed to hold.
const relationCost = 20

// pageCost is the number of records a connection's arguments ask for.
func pageCost(first, last *int) int {
	switch {
	case first != nil && last != nil:
		return max(0, min(*first, *last))
	case first != nil:
		return max(0, *first)
	case last != nil:
		return max(0, *last)
	}
	return defaultPageSize
}

// connection is the cost function of every list field of the Query type.
func connection[F, O any](child int, first *int, _ *string, last *int, _ *string, _ F, _ O) int {
	return 1 + pageCost(first, last)*child
}

func relation(child int) int { return 1 + relationCost*child }

func setComplexity(c *graph.ComplexityRoot) {
	c.Query.Items = connection
	c.Query.Monsters = connection
	c.Query.SecretRares = connection
	c.Query.WorldBosses = connection
	c.Query.Quests = connection
	c.Query.BaseCamps = connection
	c.Query.DiscoveryLocations = connection
	c.Query.MiningRocks = connection
	c.Query.CookingRecipes = connection
	c.Query.FarmingSeeds = connection
	c.Query.ForestryTrees = connection
	c.Query.FletchingRecipes = connection
	c.Query.EventChests = connection

	c.Item.DroppedByMonsters = relation
	c.Item.RewardedByQuests = relation
	c.Item.RequiredByQuests = relation
	c.Item.RequiredByBaseCamps = relation
	c.Item.RewardedByBaseCamps = relation
	c.Item.IngredientOf = relation
	c.Item.UsedInCookingRecipes = relation
	c.Item.UsedInFletchingRecipes = relation
	c.Item.DroppedAtDiscoveryLocations = relation
	c.Item.InEventChests = relation
	c.Item.SecretRares = relation
	c.Monster.DroppedItems = relation
	c.Quest.Unlocks = relation
}
