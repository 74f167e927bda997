package graph

import (
	"path"

	"github.com/vektah/gqlparser/v2/ast"
)

// buildOnly is the schema file whose directives only the generator reads
// (the reference graph: @record, @ref, @reverse, @follow).
const buildOnly = "refgraph.graphqls"

// ServedSchema returns the schema as callers see it: without the
// directives only the generator reads, which say how the gateway is
// built rather than anything a caller may send or rely on. Introspection
// (the playground's docs, a client's printed SDL) lists no such
// directive. The fields they mark are unchanged: introspection shows no
// field's directives.
func ServedSchema() *ast.Schema {
	s := *parsedSchema
	s.Directives = make(map[string]*ast.DirectiveDefinition, len(parsedSchema.Directives))
	for name, d := range parsedSchema.Directives {
		if d.Position == nil || d.Position.Src == nil || path.Base(d.Position.Src.Name) != buildOnly {
			s.Directives[name] = d
		}
	}
	return &s
}
