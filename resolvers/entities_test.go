package resolvers_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/resolvers"
)

// TestEntityTypesAreTheUnion: the resolvers' table of entity types (how
// each is read, and its engine Type) holds every member of the schema's
// _Entity union, each bound to its own type, and nothing else; and the
// members are the @record types, each keyed by its id.
func TestEntityTypesAreTheUnion(t *testing.T) {
	s := graph.ServedSchema()
	var members []string
	for _, m := range s.GetPossibleTypes(s.Types["_Entity"]) {
		members = append(members, m.Name)
		key := m.Directives.ForName("key")
		if key == nil || key.Arguments.ForName("fields").Value.Raw != "id" || m.Directives.ForName("record") == nil {
			t.Errorf("%s: an entity that is not a @record keyed by its id", m.Name)
		}
	}
	slices.Sort(members)
	if len(members) != int(catalogue.NumCollections) {
		t.Errorf("%d entity types, want one per collection (%d)", len(members), catalogue.NumCollections)
	}
	for name, def := range s.Types {
		if def.Kind == ast.Object && def.Directives.ForName("record") != nil && !slices.Contains(members, name) {
			t.Errorf("%s: a @record type that is no entity", name)
		}
	}
	got := resolvers.EntityTypes()
	slices.Sort(got)
	if diff := cmp.Diff(members, got); diff != "" {
		t.Errorf("the resolvers' entity types (-the union's +the table's):\n%s", diff)
	}
}
