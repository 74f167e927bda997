package documents

import (
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"
)

// TestIncrementalDeliveryValidation: the proposal's rules for @defer and
// @stream, against the served schema, each case with the error it must
// give ("" for a valid document).
func TestIncrementalDeliveryValidation(t *testing.T) {
	schema := graph.ServedSchema()
	for _, tt := range []struct{ name, query, want string }{
		{"defer on an inline fragment", `{ item(id: 1) { id ... @defer(label: "a") { name } } }`, ""},
		{"defer on a spread", `{ item(id: 1) { ...F @defer } } fragment F on Item { name }`, ""},
		{"stream on a list", `{ search(text: "a") @stream(initialCount: 1) { __typename } }`, ""},
		{"stream with a variable count", `query($n: Int!) { search(text: "a") @stream(initialCount: $n) { __typename } }`, ""},
		{"stream on a non-list field", `{ item(id: 1) @stream { id } }`, `"@stream" cannot be used on the non-list field "item"`},
		{"negative initialCount", `{ search(text: "a") @stream(initialCount: -1) { __typename } }`, `"initialCount" of "@stream" must be 0 or more`},
		{"a label twice", `{ item(id: 1) { ... @defer(label: "a") { name } ... @defer(label: "a") { id } } }`, `label "a" of "@defer" is used twice`},
		{"a label on defer and stream", `{ search(text: "a") @stream(label: "a") { __typename } item(id: 1) { ... @defer(label: "a") { name } } }`, `label "a" of "@defer" is used twice`},
		{"a fragment's label, spread twice", `{ a: item(id: 1) { ...F } b: item(id: 2) { ...F } } fragment F on Item { ... @defer(label: "x") { name } }`, ""},
		{"a variable label", `query($l: String) { item(id: 1) { ... @defer(label: $l) { name } } }`, `"label" of "@defer" must be a static string`},
		{"defer in a subscription", `subscription { catalogueChanged { ... @defer { __typename } } }`, `"@defer" is not allowed in a subscription`},
		{"defer in a subscription, off", `subscription { catalogueChanged { ... @defer(if: false) { __typename } } }`, ""},
		{"stream in a subscription's fragment", `subscription { ...S } fragment S on Subscription { catalogueChanged { keys @stream } }`, `"@stream" is not allowed in a subscription`},
		{"if must be a Boolean", `{ item(id: 1) { ... @defer(if: null) { name } } }`, `"Boolean!"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := parser.ParseQuery(&ast.Source{Input: tt.query})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			errs := validator.ValidateWithRules(schema, doc, ValidationRules(true))
			if tt.want == "" {
				if len(errs) > 0 {
					t.Fatalf("errors %v; want none", errs)
				}
				return
			}
			if len(errs) == 0 || !strings.Contains(errs.Error(), tt.want) {
				t.Fatalf("errors %v; want one saying %q", errs, tt.want)
			}
		})
	}
}

// TestInParts: a kept document says once whether it carries @defer or
// @stream anywhere (an operation, a fragment it spreads), so that no
// request walks it again to learn whether its answer may come in parts.
func TestInParts(t *testing.T) {
	docs := NewStore(graph.ServedSchema(), admission.Limits{}.WithDefaults(), true, 1<<20)
	for _, tt := range []struct {
		query string
		want  bool
	}{
		{`{ item(id: 1) { id name } }`, false},
		{`{ item(id: 1) { id ... @defer { name } } }`, true},
		{`{ item(id: 1) { ...F } } fragment F on Item { ... @defer { name } }`, true},
		{`{ search(text: "a") @stream(initialCount: 1) { __typename } }`, true},
		{`{ item(id: 1) { ... @skip(if: true) { name } } }`, false},
		{`{ item(id: 1) @stream { id } }`, false}, // invalid: nothing kept to answer
	} {
		if got := docs.Lookup(tt.query).InParts; got != tt.want {
			t.Errorf("%s: InParts %v, want %v", tt.query, got, tt.want)
		}
	}
}
