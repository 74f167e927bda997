// Package querygen writes random valid GraphQL operations from a schema,
// for tests that must hold for any operation rather than for a table of
// hand-picked ones: the cost limit's bound, and the agreement of two
// executors. It knows nothing of the catalogue; it reads the schema.
//
// An operation selects random fields of every type to a given depth, with
// aliases, inline and named fragments, @include and @skip on variables,
// __typename, and arguments: pages (first, last), ids, and values of every
// input type the schema declares (filters, orderings, enums, scalars),
// written as literals or passed as variables of their declared type.
//
// InputCases, apart, writes operations that try one input each, valid or
// not, for a server's input coercion to be judged against graphql-js's
// (e2e/coercion).
package querygen

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// Generator writes operations. Its zero value is not usable; use New.
type Generator struct {
	rng    *rand.Rand
	schema *ast.Schema
	// MaxDepth bounds how deeply selections nest. Default 5.
	MaxDepth int
	// MaxID bounds the ids given to id arguments (1 to MaxID).
	MaxID int
	// MaxPage bounds first and last (0 to MaxPage).
	MaxPage int
	// Strings are the values given to String arguments.
	Strings []string
	// Incremental, when set, puts @defer on some fragments (labelled or
	// not, nested, at times turned off by a variable) and @stream on
	// some list fields (initialCount 0 to 2).
	Incremental bool

	// per operation
	aliasAll bool // alias the next selection's fields (a union's fragment)
	frags    []string
	vars     map[string]any
	defs     []string
	n        int
	// failing is set once the operation holds a field that fails (a
	// made-up cursor): one at most, since gqlgen runs root fields at
	// once and reports several errors in no fixed order.
	failing bool
}

// New returns a generator over schema, drawing from seed.
func New(schema *ast.Schema, seed uint64) *Generator {
	return &Generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), schema: schema,
		MaxDepth: 5, MaxID: 100, MaxPage: 5, Strings: []string{"", "e", "ore", "Troll", "weapon", "x"}}
}

// Query returns a random query operation and its variables.
func (g *Generator) Query() (string, map[string]any) {
	g.frags, g.vars, g.defs, g.n, g.failing = nil, map[string]any{}, nil, 0, false
	sel := g.selection(g.schema.Query, 0)
	var b strings.Builder
	b.WriteString("query Q")
	if len(g.defs) > 0 {
		b.WriteString("(" + strings.Join(g.defs, ", ") + ")")
	}
	b.WriteString(" " + sel)
	for _, f := range g.frags {
		b.WriteString("\n" + f)
	}
	return b.String(), g.vars
}

func (g *Generator) name(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d", prefix, g.n)
}

// variable declares a variable of type t holding v and returns its
// reference.
func (g *Generator) variable(t *ast.Type, v any) string {
	name := g.name("v")
	g.defs = append(g.defs, "$"+name+": "+t.String())
	g.vars[name] = v
	return "$" + name
}

// selection picks some fields of def, at nesting depth.
func (g *Generator) selection(def *ast.Definition, depth int) string {
	if def.IsAbstractType() {
		// A union: fragments on some of its types, and at times its name.
		possible := g.schema.GetPossibleTypes(def)
		parts := []string{}
		for range 1 + g.rng.IntN(2) {
			pt := possible[g.rng.IntN(len(possible))]
			// Each type's fields under their own names: a field of one
			// type and another's of the same name may differ in type.
			g.aliasAll = true
			fragment := "... on " + pt.Name
			if g.Incremental && g.rng.IntN(3) == 0 {
				fragment += " @defer"
			}
			parts = append(parts, fragment+" "+g.selection(pt, depth))
		}
		if g.rng.IntN(2) == 0 {
			parts = append(parts, "__typename")
		}
		return "{ " + strings.Join(parts, " ") + " }"
	}
	aliasAll := g.aliasAll
	g.aliasAll = false
	var fields []*ast.FieldDefinition
	for _, f := range def.Fields {
		if !strings.HasPrefix(f.Name, "__") {
			fields = append(fields, f)
		}
	}
	picks := 1 + g.rng.IntN(4)
	if def == g.schema.Query {
		picks = 1 + g.rng.IntN(2)
	}
	var parts []string
	for range picks {
		head, set, ok := g.field(fields[g.rng.IntN(len(fields))], depth)
		if !ok {
			continue
		}
		if aliasAll && !strings.Contains(head, ":") {
			head = g.name("u") + ": " + head
		}
		field := head + set
		switch g.rng.IntN(9) {
		case 0:
			field = "... on " + def.Name + " { " + field + " }"
		case 1:
			name := g.name("F")
			g.frags = append(g.frags, "fragment "+name+" on "+def.Name+" { "+field+" }")
			field = "..." + name
		case 2, 3: // a directive on a variable, before the selection set
			directive := "include"
			if g.rng.IntN(2) == 0 {
				directive = "skip"
			}
			v := g.variable(ast.NonNullNamedType("Boolean", nil), g.rng.IntN(2) == 0)
			field = head + " @" + directive + "(if: " + v + ")" + set
		}
		if g.Incremental && g.rng.IntN(3) == 0 {
			field = g.deferred(def, field)
		}
		parts = append(parts, field)
	}
	if len(parts) == 0 || g.rng.IntN(6) == 0 {
		parts = append(parts, "__typename")
	}
	return "{ " + strings.Join(parts, " ") + " }"
}

// deferred wraps field, a selection on def, in a deferred fragment: an
// inline one, labelled or not, or a spread, at times with a variable's
// if.
func (g *Generator) deferred(def *ast.Definition, field string) string {
	args := []string{}
	if g.rng.IntN(2) == 0 {
		args = append(args, `label: "`+g.name("d")+`"`)
	}
	if g.rng.IntN(4) == 0 {
		args = append(args, "if: "+g.variable(ast.NonNullNamedType("Boolean", nil), g.rng.IntN(2) == 0))
	}
	directive := "@defer"
	if len(args) > 0 {
		directive += "(" + strings.Join(args, ", ") + ")"
	}
	if g.rng.IntN(3) == 0 {
		name := g.name("D")
		g.frags = append(g.frags, "fragment "+name+" on "+def.Name+" { "+field+" }")
		return "..." + name + " " + directive
	}
	return "... " + directive + " { " + field + " }"
}

// field writes a selection of f: its head (alias, name and arguments) and
// its selection set, if any; false when it cannot (a required argument it
// cannot make up, or an object too deep).
func (g *Generator) field(f *ast.FieldDefinition, depth int) (head, set string, ok bool) {
	var args []string
	for _, a := range f.Arguments {
		switch {
		case a.Name == "id":
			args = append(args, g.argument(a, int64(1+g.rng.IntN(g.MaxID))))
		case a.Name == "first" || a.Name == "last":
			if a.Name == "first" && g.rng.IntN(3) != 0 || a.Name == "last" && g.rng.IntN(5) == 0 {
				args = append(args, g.argument(a, int64(g.rng.IntN(g.MaxPage+1))))
			}
		case a.Name == "after" || a.Name == "before":
			// Cursors are the server's own; now and then a made-up
			// one, a field error.
			if !g.failing && g.rng.IntN(40) == 0 {
				g.failing = true
				args = append(args, g.argument(a, "made-up"))
			}
		case a.Type.NonNull && a.DefaultValue == nil:
			v, ok := g.value(a.Type, 0)
			if !ok {
				return "", "", false
			}
			args = append(args, g.argument(a, v))
		case g.rng.IntN(3) == 0:
			if v, ok := g.value(a.Type, 0); ok {
				args = append(args, g.argument(a, v))
			}
		}
	}
	paged := f.Arguments.ForName("first") != nil
	if paged && !strings.Contains(strings.Join(args, " "), "first:") && !strings.Contains(strings.Join(args, " "), "last:") {
		args = append(args, fmt.Sprintf("first: %d", g.rng.IntN(g.MaxPage+1))) // the default page is long
	}
	out := f.Name
	switch {
	case len(args) > 0:
		// Two selections of one response key must agree on their
		// arguments: each field with arguments has a key of its own.
		out = g.name("k") + ": " + f.Name + "(" + strings.Join(args, ", ") + ")"
	case g.rng.IntN(5) == 0:
		out = g.name("a") + ": " + f.Name
	}
	if g.Incremental && f.Type.Elem != nil && g.rng.IntN(2) == 0 {
		out += fmt.Sprintf(" @stream(initialCount: %d)", g.rng.IntN(3))
	}
	t := g.schema.Types[f.Type.Name()]
	if t == nil || t.Kind == ast.Scalar || t.Kind == ast.Enum {
		return out, "", true
	}
	if depth >= g.MaxDepth {
		return "", "", false
	}
	return out, " " + g.selection(t, depth+1), true
}

// argument writes a: v, as a literal or, at times, as a variable.
func (g *Generator) argument(a *ast.ArgumentDefinition, v any) string {
	if g.rng.IntN(3) == 0 {
		return a.Name + ": " + g.variable(a.Type, v)
	}
	return a.Name + ": " + literal(v)
}

// enum is an enum value: a name, written bare as a literal.
type enum string

// value returns a random value of type t as Go would decode its JSON (for
// a variable), with enums as enum; false for a type it cannot make.
func (g *Generator) value(t *ast.Type, depth int) (any, bool) {
	if t.Elem != nil {
		n := g.rng.IntN(3)
		if t.Elem.NamedType == anyScalar {
			n = g.rng.IntN(7) // representations: of several types, some twice
		}
		list := make([]any, 0, n)
		for range n {
			v, ok := g.value(t.Elem, depth)
			if !ok {
				return nil, false
			}
			list = append(list, v)
		}
		return list, true
	}
	def := g.schema.Types[t.NamedType]
	if def == nil {
		return nil, false
	}
	switch def.Kind {
	case ast.Enum:
		return enum(def.EnumValues[g.rng.IntN(len(def.EnumValues))].Name), true
	case ast.InputObject:
		if depth > 3 {
			return nil, false
		}
		obj := map[string]any{}
		for _, f := range def.Fields {
			if !(f.Type.NonNull && f.DefaultValue == nil) && g.rng.IntN(2) == 0 {
				continue
			}
			v, ok := g.value(f.Type, depth+1)
			if !ok {
				return nil, false
			}
			obj[f.Name] = v
		}
		return obj, true
	}
	switch def.Name {
	case anyScalar:
		return g.representation()
	case "Int":
		return int64(g.rng.IntN(200)), true
	case "Float":
		return float64(g.rng.IntN(100)), true
	case "Boolean":
		return g.rng.IntN(2) == 0, true
	case "String", "ID":
		return g.Strings[g.rng.IntN(len(g.Strings))], true
	}
	return nil, false // a custom scalar
}

// anyScalar is a federation subgraph's scalar of representations, the
// argument of _entities.
const anyScalar = "_Any"

// representation returns a federation entity's representation: a member of
// the schema's _Entity union and a value of each field of its @key (its
// first), an id among the ids; now and then, once per operation, a type
// that is no entity, which refuses the request.
func (g *Generator) representation() (any, bool) {
	union := g.schema.Types["_Entity"]
	if union == nil {
		return nil, false
	}
	possible := g.schema.GetPossibleTypes(union)
	if len(possible) == 0 {
		return nil, false
	}
	if !g.failing && g.rng.IntN(60) == 0 {
		g.failing = true
		return map[string]any{"__typename": "NoSuchEntity", "id": int64(1)}, true
	}
	t := possible[g.rng.IntN(len(possible))]
	rep := map[string]any{"__typename": t.Name}
	key := t.Directives.ForName("key")
	if key == nil || key.Arguments.ForName("fields") == nil {
		return nil, false
	}
	for _, name := range strings.Fields(key.Arguments.ForName("fields").Value.Raw) {
		f := t.Fields.ForName(name)
		if f == nil {
			return nil, false
		}
		var v any
		if f.Type.NamedType == "Int" {
			v = int64(1 + g.rng.IntN(g.MaxID))
		} else if v, _ = g.value(f.Type, 0); v == nil {
			return nil, false
		}
		rep[name] = v
	}
	return rep, true
}

// literal writes v as a GraphQL literal.
func literal(v any) string {
	switch v := v.(type) {
	case enum:
		return string(v)
	case string:
		return fmt.Sprintf("%q", v)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = literal(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		parts := make([]string, 0, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			parts = append(parts, k+": "+literal(v[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		return fmt.Sprint(v)
	}
}
