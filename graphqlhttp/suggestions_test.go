package graphqlhttp_test

import (
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
)

// TestSuggestionsOnlyWithIntrospection: a validation error suggests the
// names nearest the one given ("Did you mean"), as graphql-js does, for
// fields, arguments, types, enum values and input fields, exactly when
// introspection is on; with it off, no error names anything the schema
// holds that the query did not.
func TestSuggestionsOnlyWithIntrospection(t *testing.T) {
	cases := []struct {
		name, query, suggestion string
	}{
		{"field", `{ item(id: 1) { nmae } }`, `"name"?`},
		{"argument", `{ item(idd: 1) { name } }`, `Did you mean "id"?`},
		{"directive argument", `{ item(id: 1) { name @skip(iff: true) } }`, `Did you mean "if"?`},
		{"type", `query($f: ItemFiltre) { items(filter: $f) { totalCount } }`, `Did you mean "ItemFilter"`},
		{"fragment's type", `{ item(id: 1) { ... on Iten { name } } }`, `Did you mean "Item"`},
		{"enum value", `{ items(orderBy: {field: NAMEE}) { totalCount } }`, `Did you mean the enum value "NAME"`},
		{"input field", `{ items(filter: {nameContain: "a"}) { totalCount } }`, `Did you mean "nameContains"?`},
	}
	for _, introspection := range []bool{true, false} {
		srv := newServer(t, graphqlhttp.Options{Introspection: introspection})
		for _, c := range cases {
			r := decode(t, postQuery(t, srv.URL, c.query, nil))
			var msgs []string
			for _, e := range r.Errors {
				msgs = append(msgs, e.Message)
			}
			all := strings.Join(msgs, " | ")
			if len(msgs) == 0 {
				t.Errorf("introspection %t, %s: no error for %s", introspection, c.name, c.query)
				continue
			}
			switch {
			case introspection && !strings.Contains(all, c.suggestion):
				t.Errorf("introspection on, %s: %q, want it to say %q", c.name, all, c.suggestion)
			case !introspection && strings.Contains(all, "Did you mean"):
				t.Errorf("introspection off, %s: %q suggests a name", c.name, all)
			}
		}
	}
}
