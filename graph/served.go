package graph

import (
	"path"

	"github.com/vektah/gqlparser/v2/ast"
)

// buildOnly is the schema file whose directives only the generator reads
// (the reference graph: @record, @ref, @reverse, @follow).
const buildOnly = "refgraph.graphqls"

// The files gqlgen's federation plugin adds to the schema: the federation
// directives (build-only too: gqlgen.yml's federation section makes them
// skip_runtime) and the subgraph's own types and root fields.
const (
	federationDirectives = "directives.graphql"
	federationEntities   = "entity.graphql"
)

// The subgraph's root fields and the types they need: what a federation
// router asks of the gateway, and nothing a frontend of the API asks.
var subgraphFields = map[string]bool{"_entities": true, "_service": true}

var subgraphTypes = map[string]bool{"_Any": true, "_Entity": true, "_Service": true}

// ServedSchema returns the schema /graphql executes and introspection
// describes: without the directives only the generator reads, which say
// how the gateway is built rather than anything a caller may send or rely
// on, and without the types gqlgen's federation plugin writes only to
// generate the entity resolvers (Entity, the …ByIDsInput inputs) or to
// declare its directives. Introspection (the playground's docs, a
// client's printed SDL) lists no such directive or type. The federation
// subgraph's root fields, _entities and _service, and their types stay,
// as a federation subgraph's introspection shows them. The fields the
// directives mark are unchanged: introspection shows no field's
// directives.
func ServedSchema() *ast.Schema {
	return served(false)
}

// APISchema returns the API schema: ServedSchema without the federation
// subgraph's root fields and types. /schema.graphql prints it, for the
// code generators of the API's clients; a router reads the subgraph's SDL
// from _service { sdl } instead.
func APISchema() *ast.Schema {
	return served(true)
}

func served(api bool) *ast.Schema {
	s := *parsedSchema
	s.Directives = make(map[string]*ast.DirectiveDefinition, len(parsedSchema.Directives))
	for name, d := range parsedSchema.Directives {
		if src := sourceOf(d.Position); src != buildOnly && src != federationDirectives {
			s.Directives[name] = d
		}
	}
	s.SchemaDirectives = nil // the subgraph's @link, in _service { sdl } only
	s.Types = make(map[string]*ast.Definition, len(parsedSchema.Types))
	for name, def := range parsedSchema.Types {
		switch src := sourceOf(def.Position); {
		case src == federationDirectives && !subgraphTypes[name]:
			continue
		case src == federationEntities && !subgraphTypes[name]:
			continue
		case api && subgraphTypes[name]:
			continue
		}
		s.Types[name] = def
	}
	if api && s.Query != nil {
		q := *s.Query
		q.Fields = make(ast.FieldList, 0, len(s.Query.Fields))
		for _, f := range s.Query.Fields {
			if !subgraphFields[f.Name] {
				q.Fields = append(q.Fields, f)
			}
		}
		s.Query = &q
		s.Types[q.Name] = &q
	}
	s.PossibleTypes = make(map[string][]*ast.Definition, len(parsedSchema.PossibleTypes))
	for name, defs := range parsedSchema.PossibleTypes {
		if s.Types[name] != nil {
			s.PossibleTypes[name] = defs
		}
	}
	s.Implements = make(map[string][]*ast.Definition, len(parsedSchema.Implements))
	for name, defs := range parsedSchema.Implements {
		var kept []*ast.Definition
		for _, d := range defs {
			if s.Types[d.Name] != nil {
				kept = append(kept, d)
			}
		}
		s.Implements[name] = kept
	}
	return &s
}

// sourceOf is the base name of the file a definition comes from.
func sourceOf(pos *ast.Position) string {
	if pos == nil || pos.Src == nil {
		return ""
	}
	return path.Base(pos.Src.Name)
}
