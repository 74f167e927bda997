package graphqlhttp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// A federation subgraph (the Apollo Federation subgraph specification)
// answers two root fields besides its own: _service { sdl }, its schema as
// a router composes it, and _entities(representations:), the entities a
// router names by their keys. The schema says which types are entities
// (the _Entity union's members) and by what (each one's @key); nothing
// here knows the gateway's own types.

// CodeBadRepresentation is the code of a request whose _entities names an
// entity it cannot: a representation that is not an object, has no
// __typename, names a type that is no entity, or lacks a key field or
// gives one a value of the wrong type. It is the code an argument of the
// wrong value gets from the resolvers.
const CodeBadRepresentation = "BAD_USER_INPUT"

// The names the federation specification gives a subgraph's fields
// (admission's cost walk prices _entities by its representations too).
const (
	entityUnion        = "_Entity"
	serviceField       = "_service"
	entitiesField      = "_entities"
	representationsArg = "representations"
)

// entityRepresentations is the gqlgen extension that checks the
// representations every _entities field of an operation is given, once
// its variables are coerced and before it runs, on every path and under
// either executor: a router's mistake gets an answer saying which
// representation is wrong and why, rather than an internal error from
// the generated code. With introspection off, it refuses _service as
// introspection is refused: both describe the schema.
type entityRepresentations struct {
	e    *endpoint
	keys map[string][]entityKey // by entity type name
}

// entityKey is one key field of an entity's @key, and the scalar its value
// must be.
type entityKey struct{ field, scalar string }

func newEntityRepresentations(e *endpoint, schema *ast.Schema) entityRepresentations {
	r := entityRepresentations{e: e, keys: map[string][]entityKey{}}
	union := schema.Types[entityUnion]
	if union == nil {
		return r
	}
	for _, t := range schema.GetPossibleTypes(union) {
		var keys []entityKey
		for _, d := range t.Directives.ForNames("key") {
			a := d.Arguments.ForName("fields")
			if a == nil || a.Value == nil {
				continue
			}
			for _, name := range strings.Fields(a.Value.Raw) {
				if strings.ContainsAny(name, "{}") {
					keys = nil // a nested key: its values are left to the resolver
					break
				}
				if f := t.Fields.ForName(name); f != nil && f.Type.Elem == nil {
					keys = append(keys, entityKey{name, f.Type.NamedType})
				}
			}
			break // the first @key: the one every entity here has
		}
		r.keys[t.Name] = keys
	}
	return r
}

func (entityRepresentations) ExtensionName() string                   { return "EntityRepresentations" }
func (entityRepresentations) Validate(graphql.ExecutableSchema) error { return nil }

func (r entityRepresentations) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil || oc.Operation.Operation != ast.Query {
		return nil
	}
	// A field is selected by its name, written in the text: a document
	// that names neither has nothing to check, and most do not (collecting
	// the root's fields for each request was 2 % of a small query's CPU).
	if !strings.Contains(oc.RawQuery, entitiesField) && !strings.Contains(oc.RawQuery, serviceField) {
		return nil
	}
	for _, f := range graphql.CollectFields(oc, oc.Operation.SelectionSet, []string{"Query"}) {
		switch f.Name {
		case serviceField:
			if !r.e.opts.Introspection {
				err := gqlerror.Errorf("introspection is disabled on this server, and with it the subgraph's _service")
				errcode.Set(err, admission.CodeNoIntrospection)
				return err
			}
		case entitiesField:
			if len(r.keys) == 0 {
				continue
			}
			if err := r.check(f.ArgumentMap(oc.Variables)[representationsArg]); err != nil {
				if f.Position != nil {
					err.Locations = []gqlerror.Location{{Line: f.Position.Line, Column: f.Position.Column}}
				}
				errcode.Set(err, CodeBadRepresentation)
				return err
			}
		}
	}
	return nil
}

// check returns the first wrong representation's error, nil when each
// names an entity by its key.
func (r entityRepresentations) check(v any) *gqlerror.Error {
	var reps []any
	switch v := v.(type) {
	case nil:
		return nil
	case []any:
		reps = v
	case []map[string]any:
		for _, m := range v {
			reps = append(reps, m)
		}
	default:
		reps = []any{v}
	}
	for i, rep := range reps {
		obj, ok := rep.(map[string]any)
		if !ok {
			return gqlerror.Errorf("_entities: representation %d is not an object", i)
		}
		typ, ok := obj["__typename"].(string)
		if !ok {
			return gqlerror.Errorf("_entities: representation %d has no __typename", i)
		}
		keys, ok := r.keys[typ]
		if !ok {
			return gqlerror.Errorf("_entities: representation %d: %s is not an entity type of this subgraph", i, quoted(typ))
		}
		for _, k := range keys {
			val, present := obj[k.field]
			if !present || val == nil {
				return gqlerror.Errorf("_entities: representation %d (%s) has no %s, the field of its @key", i, typ, k.field)
			}
			if !scalarFits(k.scalar, val) {
				return gqlerror.Errorf("_entities: representation %d (%s): %s must be %s, not %s", i, typ, k.field, scalarName(k.scalar), describe(val))
			}
		}
	}
	return nil
}

// scalarFits reports whether v, as a request's JSON or a literal decodes
// to, is a value of the built-in scalar named: an Int a whole number
// within 32 bits, as the schema's Int arguments are (coerce.go), written
// as one (3, not 3.0 or 3e0: a representation is a custom scalar's value,
// which the entity resolvers read as it came, and they read no other
// spelling). A custom scalar's values are its own unmarshaller's to check.
func scalarFits(scalar string, v any) bool {
	switch scalar {
	case "Int":
		_, ok := execution.IntValue(v)
		return ok
	case "String":
		_, ok := v.(string)
		return ok
	case "ID":
		switch v.(type) {
		case string, int64, int, json.Number:
			return true
		}
		return false
	}
	return true
}

func scalarName(scalar string) string {
	if scalar == "Int" {
		return "an Int (a whole number, written as one)"
	}
	return "a " + scalar
}

// describe names a value for an error without quoting all of it.
func describe(v any) string {
	switch v := v.(type) {
	case string:
		return "the string " + quoted(v)
	case bool:
		return fmt.Sprintf("%t", v)
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case json.Number:
		return v.String()
	}
	return fmt.Sprint(v)
}

// quoted quotes s, cut short: a representation is the caller's text.
func quoted(s string) string {
	const most = 64
	if len(s) > most {
		s = strings.ToValidUTF8(s[:most], "") + "…"
	}
	return fmt.Sprintf("%q", s)
}
