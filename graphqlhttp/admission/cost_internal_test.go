package admission

import (
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

type mapLengths map[string]int

func (l mapLengths) Longest(typeName, field string) (int, bool) {
	n, ok := l[typeName+"."+field]
	return n, ok
}

// TestKeyable: costs are kept per Lengths only when a Lengths can be
// part of a key; one that cannot (a map) is priced each time rather than
// panicking.
func TestKeyable(t *testing.T) {
	m := mapLengths{"Item.drops": 3}
	for _, tt := range []struct {
		name string
		v    Lengths
		want bool
	}{
		{"nil", nil, true},
		{"pointer", &m, true},
		{"map", m, false},
	} {
		if got := keyable(tt.v); got != tt.want {
			t.Errorf("%s: keyable = %t, want %t", tt.name, got, tt.want)
		}
	}
}

// costSchema pages a list of items that hold lists of their own.
const costSchema = `
type Item { name: String drops: [Item!]! }
type Page { nodes: [Item!]! }
input Filter { nameContains: String }
type Query { items(first: Int, last: Int, filter: Filter): Page }
`

// costOf prices query with each set of variables in turn, through one
// document's memo as the endpoint does, returning the costs and how many
// times the operation was walked.
func costOf(t *testing.T, query string, varSets ...map[string]any) (costs []int, walks int) {
	t.Helper()
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: costSchema})
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err != nil {
		t.Fatal(err)
	}
	if errs := validator.ValidateWithRules(schema, doc, rules.NewDefaultRules()); len(errs) > 0 {
		t.Fatal(errs)
	}
	op := doc.Operations[0]
	c := NewCoster(schema)
	c.walked = func() { walks++ }
	memo := execution.NewMemo(func(int64) {})
	for _, vars := range varSets {
		coerced, gerr := validator.VariableValues(schema, op, vars)
		if gerr != nil {
			t.Fatal(gerr)
		}
		oc := &graphql.OperationContext{RawQuery: query, Doc: doc, Operation: op, Variables: coerced}
		costs = append(costs, c.Cost(oc, memo, nil))
	}
	return costs, walks
}

// TestCostMeasuredOncePerDocument: an operation whose variables the cost
// walk never reads (a filter's term) is priced once for its document; one
// whose page, or @skip/@include, is a variable is priced per request, and
// priced by its variables' values.
func TestCostMeasuredOncePerDocument(t *testing.T) {
	t.Run("filter term", func(t *testing.T) {
		costs, walks := costOf(t, `query($term: String) { items(first: 10, filter: {nameContains: $term}) { nodes { name } } }`,
			map[string]any{"term": "a"}, map[string]any{"term": "b"}, map[string]any{"term": "c"})
		if walks != 1 {
			t.Errorf("walked %d times for 3 requests, want 1", walks)
		}
		if costs[0] != costs[1] || costs[1] != costs[2] {
			t.Errorf("costs %v, want one figure", costs)
		}
	})
	t.Run("page variable", func(t *testing.T) {
		costs, walks := costOf(t, `query($n: Int) { items(first: $n) { nodes { name } } }`,
			map[string]any{"n": 2}, map[string]any{"n": 1000}, map[string]any{"n": 2})
		if walks != 3 {
			t.Errorf("walked %d times for 3 requests, want 3", walks)
		}
		if costs[1] <= costs[0] || costs[2] != costs[0] {
			t.Errorf("costs %v for first 2, 1000, 2", costs)
		}
	})
	t.Run("page variable in a fragment", func(t *testing.T) {
		costs, _ := costOf(t, `query($n: Int) { ...F } fragment F on Query { items(last: $n) { nodes { name } } }`,
			map[string]any{"n": 2}, map[string]any{"n": 1000})
		if costs[1] <= costs[0] {
			t.Errorf("costs %v for last 2, 1000", costs)
		}
	})
	for _, dir := range []string{"skip", "include"} {
		t.Run("@"+dir, func(t *testing.T) {
			query := `query($b: Boolean!, $term: String) { items(first: 10, filter: {nameContains: $term}) { nodes { name drops @` + dir + `(if: $b) { name } } } }`
			costs, walks := costOf(t, query, map[string]any{"b": true}, map[string]any{"b": false})
			if walks != 2 {
				t.Errorf("walked %d times for 2 requests, want 2", walks)
			}
			without, _ := costOf(t, `{ items(first: 10) { nodes { name } } }`, nil)
			with, _ := costOf(t, `{ items(first: 10) { nodes { name drops { name } } } }`, nil)
			want := []int{without[0], with[0]}
			if dir == "include" {
				want = []int{with[0], without[0]}
			}
			if costs[0] != want[0] || costs[1] != want[1] {
				t.Errorf("costs %v for if: true, false, want %v", costs, want)
			}
		})
	}
}

// TestReadsVariables: the variables the cost walk reads are found
// wherever they are, and the others are not taken for them.
func TestReadsVariables(t *testing.T) {
	for _, tt := range []struct {
		query string
		want  bool
	}{
		{`query($t: String) { items(filter: {nameContains: $t}) { nodes { name } } }`, false},
		{`query($n: Int) { items(first: $n) { nodes { name } } }`, true},
		{`query($n: Int) { items(last: $n) { nodes { name } } }`, true},
		{`query($n: String) { __type(name: $n) { name } }`, true},
		{`query($b: Boolean!) { items { nodes { name @skip(if: $b) } } }`, true},
		{`query($b: Boolean!) { ... @include(if: $b) { items { nodes { name } } } }`, true},
		{`query($b: Boolean!) { ...F @skip(if: $b) } fragment F on Query { items { nodes { name } } }`, true},
		{`query($n: Int) { ...F ...F } fragment F on Query { items { nodes { ... on Item { drops { name } } } } x: items(first: $n) { nodes { name } } }`, true},
		{`query($t: String) { ...F } fragment F on Query { items(first: 3, filter: {nameContains: $t}) { nodes { name } } }`, false},
	} {
		doc, err := parser.ParseQuery(&ast.Source{Input: tt.query})
		if err != nil {
			t.Fatal(err)
		}
		if got := readsVariables(doc.Operations[0].SelectionSet, doc); got != tt.want {
			t.Errorf("%s: readsVariables = %t, want %t", tt.query, got, tt.want)
		}
	}
}
