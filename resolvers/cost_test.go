package resolvers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graph/querygen"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/resolvers"
)

var schema = graph.NewExecutableSchema(graph.Config{})

// costMeter returns what the cost limit measures of a query against
// snap's lengths, as the endpoint reports it: served with a limit of one
// value, every query costing more is refused with its cost in the
// message; one admitted (run, with field errors or none) costs at most 1,
// and is reported as 1.
func costMeter(t testing.TB, snap *catalogue.Snapshot) func(query string, vars map[string]any) int {
	t.Helper()
	h := resolvers.NewHandler(storeOf(snap), loader.Options{}, graphqlhttp.Options{Executor: resolvers.NewEngine(nil), Introspection: true, Limits: admission.Limits{
		MaxComplexity: 1, MaxDepth: 20, MaxFields: 5000, MaxAliases: 1000, MaxDirectives: 1000}})
	return func(query string, vars map[string]any) int {
		t.Helper()
		_, body := serveOnce(t, h, query, vars)
		var r gqlResponse
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatalf("%s: %v: %s", query, err, body)
		}
		if r.Data != nil { // admitted: it ran, with field errors or none
			return 1
		}
		var cost int
		if code, _ := r.Errors[0].Extensions["code"].(string); code != admission.CodeTooComplex {
			t.Fatalf("%s: refused %s, want %s or an answer", query, body, admission.CodeTooComplex)
		}
		if _, err := fmt.Sscanf(r.Errors[0].Message, "the query could return up to %d values", &cost); err != nil {
			t.Fatalf("%s: no cost in %q: %v", query, r.Errors[0].Message, err)
		}
		return cost
	}
}

// countValues counts the JSON values of an answer's data, the data object
// itself left out: every object, array, string, number, boolean and null.
func countValues(t testing.TB, data json.RawMessage) int {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("answer is not JSON: %v", err)
	}
	var count func(any) int
	count = func(v any) int {
		n := 1
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				n += count(e)
			}
		case []any:
			for _, e := range v {
				n += count(e)
			}
		}
		return n
	}
	return count(v) - 1
}

func TestCountValues(t *testing.T) {
	for _, tt := range []struct {
		data string
		want int
	}{
		{`{}`, 0},
		{`{"a":1}`, 1},
		{`{"a":null,"b":"x"}`, 2},
		{`{"a":{"b":[1,2,{"c":"d"}]}}`, 6}, // a's object, the list, 1, 2, the object, "d"
		{`{"a":[],"b":{}}`, 2},
	} {
		if got := countValues(t, json.RawMessage(tt.data)); got != tt.want {
			t.Errorf("countValues(%s) = %d, want %d", tt.data, got, tt.want)
		}
	}
}

// TestCostBoundsTheAnswer checks the cost limit's invariant over many
// generated queries: for any query admitted, the answer's data holds at
// most as many values as the query's cost. The queries are drawn from the
// schema itself (package querygen: random selections of every field,
// nesting to depth 5, pages, ids, filters, orderings, aliases, fragments,
// @include and @skip), not from a table of the gateway's, on the embedded catalogue and on the fixture with its
// dangling references, through both executors.
func TestCostBoundsTheAnswer(t *testing.T) {
	n := 200 // per catalogue and executor: 800 in all
	if testing.Short() {
		n = 60
	}
	for _, c := range []struct {
		name string
		snap *catalogue.Snapshot
	}{{"embedded", embedded(t)}, {"fixture", fixture(t)}} {
		for _, plans := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/plans=%v", c.name, plans), func(t *testing.T) {
				opts := graphqlhttp.Options{Executor: resolvers.NewEngine(nil), Introspection: true, Limits: admission.Limits{
					MaxComplexity: 1 << 30, MaxDepth: 20, MaxFields: 5000, MaxAliases: 1000, MaxDirectives: 1000, MaxResponseBytes: 1 << 30}}
				if !plans {
					opts.Executor = execution.None
				}
				srv := serveWith(t, storeOf(c.snap), loader.Options{}, opts)
				costOf := costMeter(t, c.snap)
				g := querygen.New(schema.Schema(), uint64(len(c.name)))
				g.MaxID = 1600
				for i := range n {
					query, vars := g.Query()
					r := post(t, srv, query, vars)
					if r.Data == nil && len(r.Errors) == 1 && r.Errors[0].Extensions["code"] == "BAD_USER_INPUT" &&
						strings.Contains(r.Errors[0].Message, "not an entity type") {
						// The generator's made-up representation, refused
						// before anything ran: no data, nothing to bound.
						continue
					}
					if r.status != 200 || r.Data == nil {
						t.Fatalf("query %d failed (%d): %s\n%s", i, r.status, r.raw, query)
					}
					values, cost := countValues(t, r.Data), costOf(query, vars)
					if values > cost {
						t.Fatalf("query %d: the answer holds %d values, over its cost %d\n%s\nvariables %v", i, values, cost, query, vars)
					}
				}
			})
		}
	}
}

// TestDefaultCost pins the default limit between what frontends ask and
// what attacks ask, on the embedded catalogue.
func TestDefaultCost(t *testing.T) {
	snap := embedded(t)
	costOf := costMeter(t, snap)
	limit := admission.Limits{}.MaxComplexity
	if limit == 0 {
		limit = 100000 // graphqlhttp's default
	}
	introspection, err := os.ReadFile("../graphqlhttp/testdata/introspection.graphql")
	if err != nil {
		t.Fatal(err)
	}
	var allScalars []string
	for _, f := range schema.Schema().Types["Item"].Fields {
		if t := schema.Schema().Types[f.Type.Name()]; t.Kind == ast.Scalar || t.Kind == ast.Enum {
			allScalars = append(allScalars, f.Name)
		}
	}
	admitted := map[string]string{
		"a page of 1000 items, every scalar": "{ items(first: 1000) { totalCount pageInfo { hasNextPage endCursor } nodes { " + strings.Join(allScalars, " ") + " } } }",
		"a monster page with drops and their droppers": `query($id: Int!) { monster(id: $id) { name combatLevel area
			drops { min max baseChance rarity item { name rarity value droppedByMonsters { id name combatLevel } } } } }`,
		"an item page": `query($id: Int!) { item(id: $id) { name rarity value
			monsterDrops { baseChance monster { name combatLevel area } } droppedByMonsters { name }
			discoveryDrops { baseChance location { discoveryLocation discoveryLevel } }
			rewardedByQuests { questName questSeries } crafting { materials { amount item { name rarity } } } } }`,
		"Q2":                       `{ monsters(first: 100) { nodes { id name drops { itemId item { id name rarity } } } } }`,
		"Q3":                       `{ items(first: 200) { nodes { id name monsterDrops { monsterId monster { id name combatLevel } } } } }`,
		"Q4":                       `{ quests(first: 100) { nodes { questName questItems { item { name } } questRewards { item { name } } } } }`,
		"GraphiQL's introspection": string(introspection),
	}
	for name, q := range admitted {
		if c := costOf(q, map[string]any{"id": 1}); c > limit {
			t.Errorf("%s costs %d, over the default %d", name, c, limit)
		}
	}
	refused := map[string]string{
		"the 17 MB nest (121 bytes)":            `{ a0: monsters(first:150){nodes{drops{item{monsterDrops{monster{drops{item{monsterDrops{monsterName}}}}}}}}} }`,
		"two pages nested by reverse relations": `{ items(first: 1000) { nodes { droppedByMonsters { droppedItems { id } } } } }`,
	}
	for name, q := range refused {
		if c := costOf(q, nil); c <= limit {
			t.Errorf("%s costs %d, within the default %d", name, c, limit)
		}
	}
}

// TestEveryListHasALength checks that the cost model knows the length of
// every list field of the schema: a list field added without one would
// be priced as the largest page, refusing honest queries.
func TestEveryListHasALength(t *testing.T) {
	lengths := resolvers.LengthsOf(embedded(t))
	served := graph.ServedSchema()
	for _, def := range served.Types {
		if strings.HasPrefix(def.Name, "__") || def.Kind != ast.Object {
			continue
		}
		for _, f := range def.Fields {
			if f.Type.Elem == nil || strings.HasPrefix(f.Name, "__") {
				continue
			}
			if def == served.Query && f.Name == "_entities" {
				continue // as long as its representations
			}
			if strings.HasSuffix(def.Name, "Connection") && (f.Name == "nodes" || f.Name == "edges") ||
				f.Arguments.ForName("first") != nil {
				continue // a page
			}
			if _, ok := lengths.Longest(def.Name, f.Name); !ok {
				t.Errorf("%s.%s: no length known", def.Name, f.Name)
			}
		}
	}
}

// TestCostFollowsTheSnapshot: a new snapshot with longer lists prices
// them at once; the lengths of one are never used for another.
func TestCostFollowsTheSnapshot(t *testing.T) {
	small, large := fixture(t), embedded(t)
	query := `{ items(first: 10) { nodes { monsterDrops { monster { name } } } } }`
	limit := costMeter(t, small)(query, nil)
	if costMeter(t, large)(query, nil) <= limit {
		t.Fatal("the test needs a catalogue with longer lists than the fixture's")
	}
	st := storeOf(small)
	srv := serveWith(t, st, loader.Options{}, graphqlhttp.Options{Limits: admission.Limits{MaxComplexity: limit}})
	if r := post(t, srv, query, nil); len(r.Errors) > 0 {
		t.Fatalf("on the fixture, at its cost: %s", r.raw)
	}
	st.Publish(large)
	r := post(t, srv, query, nil)
	if len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != admission.CodeTooComplex {
		t.Errorf("on the embedded catalogue, with longer lists: %s", r.raw)
	}
}

// TestCostOfAVariablePage: one document, its page a variable, is priced
// by each request's page, whichever came first: the cost kept for a
// document is kept only when no variable can change it.
func TestCostOfAVariablePage(t *testing.T) {
	snap := fixture(t)
	const query = `query($n: Int, $term: String) { items(first: $n, filter: {nameContains: $term}) { nodes { name } } }`
	srv := serveWith(t, storeOf(snap), loader.Options{}, graphqlhttp.Options{Limits: admission.Limits{MaxComplexity: 1000}})
	for _, tt := range []struct {
		n       int
		refused bool
	}{{5, false}, {100000, true}, {5, false}, {100000, true}} {
		r := post(t, srv, query, map[string]any{"n": tt.n, "term": "e"})
		refused := len(r.Errors) == 1 && r.Errors[0].Extensions["code"] == admission.CodeTooComplex
		if refused != tt.refused || (!refused && len(r.Errors) > 0) {
			t.Errorf("first: %d: refused %t, want %t: %s", tt.n, refused, tt.refused, r.raw)
		}
	}
}

// TestCostOfEntities: _entities is priced by its representations' count,
// each an entity of the dearest type selected: twice the representations,
// (about) twice the cost, and a list past the limit refused before it runs.
func TestCostOfEntities(t *testing.T) {
	costOf := costMeter(t, fixture(t))
	const query = `query($r: [_Any!]!) { _entities(representations: $r) { ... on Item { id name } ... on Monster { id drops { itemId } } } }`
	reps := func(n int) map[string]any {
		r := make([]any, n)
		for i := range r {
			r[i] = map[string]any{"__typename": "Item", "id": i + 1}
		}
		return map[string]any{"r": r}
	}
	one, ten, hundred := costOf(query, reps(1)), costOf(query, reps(10)), costOf(query, reps(100))
	each := one - 1
	if each < 2 || ten != 1+10*each || hundred != 1+100*each {
		t.Errorf("costs %d, %d, %d for 1, 10 and 100 representations: want 1 plus each's %d times their count", one, ten, hundred, each)
	}
	// Two aliases of _entities cost the two together.
	if two := costOf(`query($r: [_Any!]!) { a: _entities(representations: $r) { ... on Item { id name } ... on Monster { id drops { itemId } } } b: _entities(representations: $r) { ... on Item { id name } ... on Monster { id drops { itemId } } } }`, reps(10)); two != 2*ten {
		t.Errorf("two aliases of 10 representations cost %d, want %d", two, 2*ten)
	}
}
