package resolvers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/engine"
	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graph/model"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/resolvers"
)

// TestRootFieldsCoverQuery: RootFields has every Query field of the
// served schema, and nothing else.
func TestRootFieldsCoverQuery(t *testing.T) {
	roots := (&resolvers.Resolver{}).RootFields()
	s := graph.NewExecutableSchema(graph.Config{}).Schema()
	subgraph := 0
	for _, f := range s.Query.Fields {
		if f.Name[:2] == "__" {
			continue
		}
		if f.Name == "_entities" || f.Name == "_service" {
			// The federation subgraph's fields, which gqlgen's
			// executor answers (the engine declines them).
			subgraph++
			continue
		}
		if root := roots[f.Name]; root.Resolve == nil || root.Type == nil {
			t.Errorf("RootFields has no %s", f.Name)
		}
	}
	if n := len(s.Query.Fields) - 2 - subgraph; len(roots) != n { // less __schema and __type
		t.Errorf("RootFields has %d fields, Query %d", len(roots), n)
	}
}

// argsOf returns the arguments of the query's first root field as gqlgen
// gives them to a resolver: variables decoded from JSON as the transport
// decodes them (numbers as json.Number), coerced, then substituted.
func argsOf(t *testing.T, query, vars string) map[string]any {
	t.Helper()
	s := graph.NewExecutableSchema(graph.Config{}).Schema()
	doc, errs := gqlparser.LoadQueryWithRules(s, query, nil)
	if errs != nil {
		t.Fatal(errs)
	}
	raw := map[string]any{}
	if vars != "" {
		dec := json.NewDecoder(bytes.NewReader([]byte(vars)))
		dec.UseNumber()
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
	}
	op := doc.Operations[0]
	coerced, err := validator.VariableValues(s, op, raw)
	if err != nil {
		t.Fatal(err)
	}
	return op.SelectionSet[0].(*ast.Field).ArgumentMap(coerced)
}

// itemPage is what a connection answers, to compare two.
type itemPage struct {
	Total          int
	IDs            []int64
	Next, Previous bool
}

func pageOf(t *testing.T, v any) itemPage {
	t.Helper()
	c, ok := v.(*model.Connection[catalogue.Item])
	if !ok {
		t.Fatalf("got a %T, not a page of items", v)
	}
	p := itemPage{Total: c.TotalCount(), Next: c.PageInfo.HasNextPage, Previous: c.PageInfo.HasPreviousPage}
	for _, n := range c.Nodes {
		p.IDs = append(p.IDs, n.ID)
	}
	return p
}

// TestRootFieldsCallTheResolver: a paged field with a filter and an
// ordering, given as literals or as variables, answers what calling the
// resolver with the same arguments answers; a record that does not exist
// is an untyped nil.
func TestRootFieldsCallTheResolver(t *testing.T) {
	r := &resolvers.Resolver{}
	ctx := loader.NewContext(context.Background(), loader.New(embedded(t), loader.Options{}))
	name, first, desc := "e", 3, model.OrderDirectionDesc
	want, err := r.Query().Items(ctx, &first, nil, nil, nil,
		&model.ItemFilter{NameContains: &name}, &model.ItemOrder{Field: model.ItemOrderFieldValue, Direction: &desc})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Nodes) < 2 || !want.PageInfo.HasNextPage {
		t.Fatalf("the embedded page is too small to tell orderings apart: %+v", pageOf(t, want))
	}
	for _, tt := range []struct{ name, query, vars string }{
		{"literals", `{ items(first: 3, filter: {nameContains: "e"}, orderBy: {field: VALUE, direction: DESC}) { totalCount } }`, ""},
		{"variables", `query($n: Int, $f: ItemFilter, $o: ItemOrder) { items(first: $n, filter: $f, orderBy: $o) { totalCount } }`,
			`{"n": 3, "f": {"nameContains": "e"}, "o": {"field": "VALUE", "direction": "DESC"}}`},
		{"inner variables", `query($n: Int!, $d: OrderDirection) { items(first: $n, filter: {nameContains: "e"}, orderBy: {field: VALUE, direction: $d}) { totalCount } }`,
			`{"n": 3, "d": "DESC"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.RootFields()["items"].Resolve(ctx, argsOf(t, tt.query, tt.vars))
			if err != nil {
				t.Fatal(err)
			}
			// The engine reads the answer by the Root's Type.
			if typ := r.RootFields()["items"].Type; typ.Shape != engine.Pointer || typ.IsNil(got) ||
				*typ.Elem.Fields["totalCount"].Get(got).(*int) != want.TotalCount() {
				t.Errorf("items answered a %T, which its Root's Type %s does not read", got, typ.Name)
			}
			if diff := cmp.Diff(pageOf(t, want), pageOf(t, got)); diff != "" {
				t.Errorf("(-resolver +RootFields)\n%s", diff)
			}
		})
	}
	t.Run("null", func(t *testing.T) {
		got, err := r.RootFields()["item"].Resolve(ctx, argsOf(t, `query($id: Int!) { item(id: $id) { id } }`, `{"id": 987654}`))
		if err != nil || got != nil {
			t.Errorf("item(id: 987654) = %#v, %v; want an untyped nil", got, err)
		}
	})
	t.Run("record", func(t *testing.T) {
		got, err := r.RootFields()["item"].Resolve(ctx, argsOf(t, `{ item(id: 1) { id } }`, ""))
		if typ := r.RootFields()["item"].Type; typ.Shape != engine.Pointer || typ.IsNil(got) ||
			*typ.Elem.Fields["id"].Get(got).(*int64) != 1 {
			t.Errorf("item answered a %T, which its Root's Type %s does not read", got, typ.Name)
		}
		if it, ok := got.(*catalogue.Item); err != nil || !ok || it.ID != 1 {
			t.Errorf("item(id: 1) = %#v, %v", got, err)
		}
	})
}
