package admission

import (
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// Introspection is costed exactly rather than by its longest lists: the
// answer is the schema, which is known, and its lists vary too much in
// length (a type with no fields, one with sixty) for a product of maxima
// to admit GraphiQL's own query and refuse a nest of fields { type {
// fields … } }. The walk evaluates the selection against the schema's
// definitions, counting values as the answer would hold them; each
// (field, definition) pair is counted once, so the walk costs at most the
// query's fields times the schema's types, whatever the query nests.

// introspect returns the cost of a field of an introspection type, on
// the schema entity the object stands for: the schema (nil), a type
// (*ast.Definition, or *ast.Type for a wrapped or named reference), a
// field (*ast.FieldDefinition), an input value (*ast.ArgumentDefinition
// or, for an input object's field, *ast.FieldDefinition), an enum value
// or a directive.
func (w *costWalk) introspect(f graphql.CollectedField, typeName string, on any) int {
	key := introspectionKey{f.Field, on}
	if n, ok := w.memo[key]; ok {
		return n
	}
	n := w.introspectField(f, typeName, on)
	if w.memo == nil {
		w.memo = map[introspectionKey]int{}
	}
	w.memo[key] = n
	return n
}

type introspectionKey struct {
	field *ast.Field
	on    any
}

// introspectObject is the cost of f's value when it is an object of type
// t standing for e, or null when e is nil.
func (w *costWalk) introspectObject(f graphql.CollectedField, t string, e any) int {
	if e == nil {
		return 1
	}
	return add(1, w.introspectSelection(f.Selections, t, e))
}

// introspectList is the cost of f's value when it is a list of n objects
// of type t, the i-th standing for elem(i).
func (w *costWalk) introspectList(f graphql.CollectedField, t string, n int, elem func(i int) any) int {
	total := 1
	for i := range n {
		total = add(total, w.introspectObject(f, t, elem(i)))
		if total >= saturated {
			break
		}
	}
	return total
}

func (w *costWalk) introspectField(f graphql.CollectedField, typeName string, on any) int {
	s := w.c.schema
	object := func(t string, e any) int { return w.introspectObject(f, t, e) }
	list := func(t string, n int, elem func(i int) any) int { return w.introspectList(f, t, n, elem) }
	switch typeName + "." + f.Name {
	case "Query.__schema":
		return add(1, w.introspectSelection(f.Selections, "__Schema", s))
	case "Query.__type":
		name, _ := f.ArgumentMap(w.oc.Variables)["name"].(string)
		if def := s.Types[name]; def != nil {
			return object("__Type", def)
		}
		return 1
	case "__Schema.types":
		defs := allTypes(s)
		return list("__Type", len(defs), func(i int) any { return defs[i] })
	case "__Schema.queryType":
		return object("__Type", definitionOrNil(s.Query))
	case "__Schema.mutationType":
		return object("__Type", definitionOrNil(s.Mutation))
	case "__Schema.subscriptionType":
		return object("__Type", definitionOrNil(s.Subscription))
	case "__Schema.directives":
		dirs := make([]*ast.DirectiveDefinition, 0, len(s.Directives))
		for _, d := range s.Directives {
			dirs = append(dirs, d)
		}
		return list("__Directive", len(dirs), func(i int) any { return dirs[i] })
	case "__Type.fields", "__Type.inputFields", "__Type.enumValues", "__Type.interfaces", "__Type.possibleTypes":
		def, _ := on.(*ast.Definition)
		if def == nil {
			return 1 // a wrapped type: null
		}
		return w.typeList(f, def)
	case "__Type.ofType":
		if t, ok := on.(*ast.Type); ok {
			switch {
			case t.NonNull:
				inner := *t
				inner.NonNull = false
				return object("__Type", &inner)
			case t.Elem != nil:
				return object("__Type", t.Elem)
			}
		}
		return 1
	case "__Field.args", "__Directive.args":
		var args ast.ArgumentDefinitionList
		switch e := on.(type) {
		case *ast.FieldDefinition:
			args = e.Arguments
		case *ast.DirectiveDefinition:
			args = e.Arguments
		}
		return list("__InputValue", len(args), func(i int) any { return args[i] })
	case "__Field.type", "__InputValue.type":
		switch e := on.(type) {
		case *ast.FieldDefinition:
			return object("__Type", e.Type)
		case *ast.ArgumentDefinition:
			return object("__Type", e.Type)
		}
		return 1
	case "__Directive.locations":
		d, _ := on.(*ast.DirectiveDefinition)
		if d == nil {
			return 1
		}
		return add(1, len(d.Locations))
	}
	if len(f.Selections) > 0 {
		// A field of an introspection type this walk does not know
		// (a later version of the spec): as costly as its longest list.
		elem := ""
		if f.Definition != nil {
			elem = f.Definition.Type.Name()
		}
		return add(1, mul(UnknownListLength, w.introspectSelection(f.Selections, elem, nil)))
	}
	return 1 // a leaf: a name, a kind, a description, a flag
}

// typeList is the cost of a list field of a __Type standing for def:
// its fields, input fields, enum values, interfaces or possible types, or
// null where def's kind has none.
func (w *costWalk) typeList(f graphql.CollectedField, def *ast.Definition) int {
	s := w.c.schema
	list := func(t string, n int, elem func(i int) any) int { return w.introspectList(f, t, n, elem) }
	switch f.Name {
	case "fields":
		if def.Kind != ast.Object && def.Kind != ast.Interface {
			return 1
		}
		var fields []*ast.FieldDefinition
		for _, fd := range def.Fields {
			if !strings.HasPrefix(fd.Name, "__") {
				fields = append(fields, fd)
			}
		}
		return list("__Field", len(fields), func(i int) any { return fields[i] })
	case "inputFields":
		if def.Kind != ast.InputObject {
			return 1
		}
		return list("__InputValue", len(def.Fields), func(i int) any { return def.Fields[i] })
	case "enumValues":
		if def.Kind != ast.Enum {
			return 1
		}
		return list("__EnumValue", len(def.EnumValues), func(i int) any { return def.EnumValues[i] })
	case "interfaces":
		if def.Kind != ast.Object && def.Kind != ast.Interface {
			return 1
		}
		return list("__Type", len(def.Interfaces), func(i int) any { return definitionOrNil(s.Types[def.Interfaces[i]]) })
	default:
		possible := s.GetPossibleTypes(def)
		if def.Kind != ast.Interface && def.Kind != ast.Union {
			return 1
		}
		return list("__Type", len(possible), func(i int) any { return possible[i] })
	}
}

// introspectSelection is selection for an introspection object.
func (w *costWalk) introspectSelection(set ast.SelectionSet, typeName string, on any) int {
	total := 0
	for _, f := range graphql.CollectFields(w.oc, set, []string{typeName}) {
		if f.Name == "__typename" {
			total = add(total, 1)
			continue
		}
		on := on
		if t, ok := on.(*ast.Type); ok && !t.NonNull && t.Elem == nil {
			// A named reference is its definition's __Type.
			if def := w.c.schema.Types[t.NamedType]; def != nil {
				on = def
			}
		}
		total = add(total, w.introspect(f, typeName, on))
		if total >= saturated {
			break
		}
	}
	return total
}

func definitionOrNil(d *ast.Definition) any {
	if d == nil {
		return nil
	}
	return d
}

func allTypes(s *ast.Schema) []*ast.Definition {
	defs := make([]*ast.Definition, 0, len(s.Types))
	for _, d := range s.Types {
		defs = append(defs, d)
	}
	return defs
}
