package resolvers_test

import (
	"context"
	"os"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/resolvers"
)

// costOf measures a query as the cost limit does, against snap's lengths.
func costOf(t testing.TB, snap *catalogue.Snapshot, query string, vars map[string]any) int {
	t.Helper()
	es := graph.NewExecutableSchema(graph.Config{})
	ctx := graphql.StartOperationTrace(context.Background())
	oc, errs := executor.New(es).CreateOperationContext(ctx, &graphql.RawParams{Query: query, Variables: vars})
	if errs != nil {
		t.Fatalf("%s: %v", query, errs)
	}
	return graphqlhttp.CostOf(es.Schema(), oc, resolvers.LengthsOf(snap))
}

func TestCostPrint(t *testing.T) {
	snap := embedded(t)
	for _, q := range []string{
		`{ a0: monsters(first:150){nodes{drops{item{monsterDrops{monster{drops{item{monsterDrops{monsterName}}}}}}}}} }`,
		`{ items(first: 200) { nodes { monsterDrops { monster { id } } } } }`,
		`{ items(first: 200) { nodes { monsterDrops { monster { drops { item { id } } } } } } }`,
		`{ monsters(first: 100) { nodes { id name drops { itemId item { id name rarity } } } } }`,
		`{ items(first: 200) { nodes { id name monsterDrops { monsterId monster { id name combatLevel } } } } }`,
		`{ quests(first: 100) { nodes { questName questItems { item { name } } questRewards { item { name } } } } }`,
		`query { monster(id: 1) { name combatLevel area drops { min max baseChance rarity item { name rarity value droppedByMonsters { name } } } } }`,
	} {
		t.Logf("%d  %s", costOf(t, snap, q, nil), q)
	}
	for _, f := range []string{"introspection.graphql", "introspection_input_deprecation.graphql"} {
		b, _ := os.ReadFile("../graphqlhttp/testdata/" + f)
		t.Logf("%d %s", costOf(t, snap, string(b), nil), f)
	}
}
