package admission

import (
	"unsafe"

	"github.com/99designs/gqlgen/graphql"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/internal/memory"
	"github.com/vektah/gqlparser/v2/ast"
)

// The cost of an operation bounds its answer: for any operation admitted,
// the answer's data holds at most as many JSON values (objects, arrays,
// strings, numbers, booleans and nulls, every one counted) as its cost.
// That is what makes the limit a bound on memory and time rather than a
// guess: a nest of lists that grows geometrically is priced geometrically.
//
// The cost of a field is 1 for its own value, plus:
//   - for an object, the cost of its selected fields;
//   - for a list, its longest possible length times the cost of an
//     element (an element being 1 plus its selected fields, or 1 for a
//     scalar).
//
// A list's longest possible length is:
//   - the longest such list in the data the request reads, as
//     Options.Lengths tells (computed once per snapshot of the data);
//   - else, directly inside a paged field (one with first or last
//     arguments, a Relay connection: nodes, edges), or for a paged list
//     itself (search), the page the field asks for;
//   - a list field neither tells costs UnknownListLength.
//
// A union's (or an interface's) selection costs what its dearest
// possible type's does.
//
// A federation subgraph's _entities (the gateway's _Entity union of every
// record type) is a list of as many values as the representations it is
// given: its cost is 1 plus their count times an entity's, the dearest of
// the selection's types.
//
// Fragments and repeated fields are summed, never merged, so the cost is
// an upper bound; @skip and @include are applied. Introspection is counted
// exactly, against the schema (see cost_introspection.go).

// Lengths tells how long a list field of the data can be.
type Lengths interface {
	// Longest returns the length of the longest list held by field of
	// type typeName in the data, or false for a field it does not know.
	Longest(typeName, field string) (int, bool)
}

// UnknownListLength is the length assumed of a list field that neither
// the page nor Lengths bounds: as long as the largest page.
const UnknownListLength = 1000

// DefaultPageSize is the page of a paged field asked for with neither
// first nor last.
const DefaultPageSize = 50

// Coster measures operations against one schema.
type Coster struct {
	schema *ast.Schema
	// walked, when set, is told of every walk of an operation: tests count
	// them.
	walked func()
}

// costKey names a cost in a document's memo: the cost of an operation
// none of whose variables it reads is fixed for its document and the
// lengths of one snapshot.
type costKey struct {
	operation string
	lengths   Lengths
}

// costVarsKey names, in a document's memo, whether the cost of an
// operation reads any of its variables.
type costVarsKey struct{ operation string }

// NewCoster returns a Coster for operations on schema.
func NewCoster(schema *ast.Schema) *Coster {
	return &Coster{schema: schema}
}

// Cost returns the cost of oc's operation, as operation does, measured
// once and kept in the memo of its document when the cost reads none of
// the operation's variables (see readsVariables), and measured each time
// when it reads one.
func (c *Coster) Cost(oc *graphql.OperationContext, memo *execution.Memo, lengths Lengths) int {
	if memo == nil || !keyable(lengths) || c.dependsOnVariables(oc, memo) {
		return c.operation(oc, lengths)
	}
	key := costKey{oc.OperationName, lengths}
	if cost, ok := memo.Load(key); ok {
		return cost.(int)
	}
	cost := c.operation(oc, lengths)
	// The key and the int, each boxed in an interface of the memo.
	memo.Store(key, cost, memory.HeapSize(int64(unsafe.Sizeof(key)))+8)
	return cost
}

// dependsOnVariables reports whether the cost of oc's operation reads any
// of its variables, found once per document and operation and kept in
// memo.
func (c *Coster) dependsOnVariables(oc *graphql.OperationContext, memo *execution.Memo) bool {
	if len(oc.Operation.VariableDefinitions) == 0 {
		return false
	}
	key := costVarsKey{oc.OperationName}
	if v, ok := memo.Load(key); ok {
		return v.(bool)
	}
	depends := readsVariables(oc.Operation.SelectionSet, oc.Doc)
	// The key's string header and the bool, each boxed.
	memo.Store(key, depends, memory.HeapSize(int64(unsafe.Sizeof(key)))+1)
	return depends
}

// SkipsByVariable reports whether a @skip or @include among ds takes a
// variable: then whether what it marks is read depends on the request.
func SkipsByVariable(ds ast.DirectiveList) bool {
	for _, d := range ds {
		if d.Name != "skip" && d.Name != "include" {
			continue
		}
		for _, a := range d.Arguments {
			if hasVariable(a.Value) {
				return true
			}
		}
	}
	return false
}

// readsVariables reports whether the cost walk could read a variable in
// set, its fragments followed: the walk reads the if: of @skip and
// @include (CollectFields applies them), a field's first and last (page)
// and __type's name (introspect), and nothing else a request sends. It
// looks at those arguments on every field, whatever its type, so it may
// say yes where the walk would not read the value, never no where it
// would.
func readsVariables(set ast.SelectionSet, doc *ast.QueryDocument) bool {
	seen := map[string]bool{}
	var walk func(ast.SelectionSet) bool
	directives := SkipsByVariable
	walk = func(set ast.SelectionSet) bool {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				if directives(sel.Directives) {
					return true
				}
				for _, a := range sel.Arguments {
					switch a.Name {
					case "first", "last", "name", representationsArg:
						if hasVariable(a.Value) {
							return true
						}
					}
				}
				if walk(sel.SelectionSet) {
					return true
				}
			case *ast.InlineFragment:
				if directives(sel.Directives) || walk(sel.SelectionSet) {
					return true
				}
			case *ast.FragmentSpread:
				if directives(sel.Directives) {
					return true
				}
				if seen[sel.Name] {
					continue
				}
				seen[sel.Name] = true
				def := sel.Definition
				if def == nil && doc != nil {
					def = doc.Fragments.ForName(sel.Name)
				}
				if def == nil {
					return true // not found: say yes rather than guess
				}
				if directives(def.Directives) || walk(def.SelectionSet) {
					return true
				}
			}
		}
		return false
	}
	return walk(set)
}

// hasVariable reports whether v is, or holds, a variable.
func hasVariable(v *ast.Value) bool {
	if v == nil {
		return false
	}
	if v.Kind == ast.Variable {
		return true
	}
	for _, c := range v.Children {
		if hasVariable(c.Value) {
			return true
		}
	}
	return false
}

// keyable reports whether v can be part of a memo's key: comparing a
// value whose dynamic type is not comparable (a map, say) panics, where
// a pointer, as the resolvers' Lengths is, compares by identity.
func keyable(v any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return v == v
}

// operation returns the cost of oc's operation, saturated (at saturated,
// as the guard's counts are).
func (c *Coster) operation(oc *graphql.OperationContext, lengths Lengths) int {
	root := c.schema.Query
	switch oc.Operation.Operation {
	case ast.Mutation:
		root = c.schema.Mutation
	case ast.Subscription:
		root = c.schema.Subscription
	}
	if root == nil {
		return 0
	}
	if c.walked != nil {
		c.walked()
	}
	w := costWalk{c: c, oc: oc, lengths: lengths}
	return w.selection(oc.Operation.SelectionSet, root.Name, -1)
}

type costWalk struct {
	c       *Coster
	oc      *graphql.OperationContext
	lengths Lengths
	memo    map[introspectionKey]int
}

// selection returns the cost of the fields a selection set selects on an
// object of type typeName; page is the page of the field holding it when
// that field is paged, else -1.
func (w *costWalk) selection(set ast.SelectionSet, typeName string, page int) int {
	total := 0
	for _, f := range graphql.CollectFields(w.oc, set, []string{typeName}) {
		total = add(total, w.field(f, typeName, page))
		if total >= saturated {
			return total
		}
	}
	return total
}

func (w *costWalk) field(f graphql.CollectedField, typeName string, page int) int {
	switch f.Name {
	case "__typename":
		return 1
	case "__schema", "__type":
		return w.introspect(f, "Query", nil)
	}
	def := f.Definition
	if def == nil {
		if t := w.c.schema.Types[typeName]; t != nil {
			def = t.Fields.ForName(f.Name)
		}
	}
	if def == nil {
		return 1 // validation let it through, so it is a leaf we do not know
	}
	if f.Name == entitiesField && w.c.schema.Query != nil && typeName == w.c.schema.Query.Name && def.Type.Elem != nil {
		// A federation subgraph's _entities: one answer, an entity or
		// null, per representation the request sends.
		return add(1, mul(w.representations(f), w.value(f, typeName, def.Type.Elem, -1, -1)))
	}
	childPage := -1
	if def.Arguments.ForName("first") != nil || def.Arguments.ForName("last") != nil {
		childPage = w.page(f)
		if def.Type.Elem != nil {
			// A paged list (search): its length is the page, and its
			// elements' lists are their own.
			return w.value(f, typeName, def.Type, childPage, -1)
		}
	}
	return w.value(f, typeName, def.Type, page, childPage)
}

// value returns the cost of a value of type t held by field f of
// typeName.
func (w *costWalk) value(f graphql.CollectedField, typeName string, t *ast.Type, page, childPage int) int {
	if t.Elem != nil {
		n := w.listLength(typeName, f.Name, page)
		return add(1, mul(n, w.value(f, typeName, t.Elem, page, childPage)))
	}
	if len(f.Selections) == 0 {
		return 1
	}
	if def := w.c.schema.Types[t.NamedType]; def != nil && def.IsAbstractType() {
		// A union or interface: fragments select on its possible types, and
		// the value is one of them, so it costs what the dearest costs.
		dearest := 0
		for _, pt := range w.c.schema.GetPossibleTypes(def) {
			dearest = max(dearest, w.selection(f.Selections, pt.Name, childPage))
		}
		return add(1, dearest)
	}
	return add(1, w.selection(f.Selections, t.NamedType, childPage))
}

// listLength is the longest list field of typeName can hold: a length
// Lengths knows, even inside a paged field (a connection's facets), else
// the page, else UnknownListLength.
func (w *costWalk) listLength(typeName, field string, page int) int {
	if w.lengths != nil {
		if n, ok := w.lengths.Longest(typeName, field); ok {
			return n
		}
	}
	if page >= 0 {
		return page
	}
	return UnknownListLength
}

// page is the number of records a paged field asks for: the smaller of
// first and last when both are given. It reads the arguments as the
// resolver will, coerced (coerce.go): an Int is an int64, whether a
// literal or a variable spelled 1000, 1e3 or 1000.0, and no string gets
// this far. A value in any other form, should one ever arrive, is priced
// at the largest page rather than the default one.
func (w *costWalk) page(f graphql.CollectedField) int {
	args := f.ArgumentMap(w.oc.Variables)
	first, hasFirst := pageArg(args, "first")
	last, hasLast := pageArg(args, "last")
	switch {
	case hasFirst && hasLast:
		return max(0, min(first, last))
	case hasFirst:
		return max(0, first)
	case hasLast:
		return max(0, last)
	}
	return DefaultPageSize
}

// pageArg reads a page argument: false when absent or null. It clamps and
// never refuses, as a price must; IntValue and the resolvers' intArg read
// Ints by other rules (see resolvers/roots.go).
func pageArg(args map[string]any, name string) (int, bool) {
	switch v := args[name].(type) {
	case nil:
		return 0, false
	case int64:
		return int(min(max(v, -1<<31), 1<<31)), true
	case int:
		return min(max(v, -1<<31), 1<<31), true
	}
	return UnknownListLength, true
}

// The federation subgraph specification's root field that resolves
// entities from their representations, and its argument.
const (
	entitiesField      = "_entities"
	representationsArg = "representations"
)

// representations is the number of representations _entities is given,
// coerced as the resolver reads them: a list (of any length the request's
// bounds let through), or a single value, which input coercion makes a
// list of one.
func (w *costWalk) representations(f graphql.CollectedField) int {
	switch v := f.ArgumentMap(w.oc.Variables)[representationsArg].(type) {
	case nil:
		return 0
	case []any:
		return len(v)
	case []map[string]any:
		return len(v)
	}
	return 1
}

// mul saturates, as add does, so no count overflows whatever the query
// multiplies.
func mul(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a >= saturated || b >= saturated || a > saturated/b {
		return saturated
	}
	return a * b
}
