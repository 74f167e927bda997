package querygen_test

import (
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graph/querygen"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// TestInputCases: the cases parse (a case that does not tries nothing of
// coercion), reach every argument of the query root and every field of
// the input objects, and number more than the thousand the differential
// test asks for.
func TestInputCases(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	cases := querygen.InputCases(schema)
	if len(cases) < 1000 {
		t.Errorf("%d cases, want at least 1000", len(cases))
	}
	var all strings.Builder
	for _, c := range cases {
		if _, err := parser.ParseQuery(&ast.Source{Input: c.Query}); err != nil {
			t.Errorf("%s: %s does not parse: %v", c.Name, c.Query, err)
		}
		all.WriteString(c.Name + "\n")
	}
	for _, f := range schema.Query.Fields {
		for _, a := range f.Arguments {
			if !strings.Contains(all.String(), f.Name+"("+a.Name+":") {
				t.Errorf("no case tries %s(%s:)", f.Name, a.Name)
			}
			if def := schema.Types[a.Type.Name()]; def.Kind == ast.InputObject {
				for _, fd := range def.Fields {
					if !strings.Contains(all.String(), f.Name+"("+a.Name+": {"+fd.Name+":}") {
						t.Errorf("no case tries %s(%s: {%s:})", f.Name, a.Name, fd.Name)
					}
				}
			}
		}
	}
}
