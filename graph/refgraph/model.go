// Package refgraph is the gqlgen plugin that turns the schema's reference
// graph (the @record, @ref, @reverse and @follow directives of
// graph/refgraph.graphqls) into code: the bodies of the resolvers of the
// fields that carry them, and the Go files every other user of the graph
// reads (the catalogue's kinds, references, relations and integrity walk;
// the loaders; the root fields' argument decoding), and, from gqlgen's own
// binding decisions, the engine's typed readers of every field
// (accessors.go). Every list of the collections (the @record types) is
// derived too (collections.go): the files gqlgen must see before it binds
// anything are written in a pre-pass, from the schema alone. graph/gqlgen
// runs it.
//
// The graph is written once, in the schema; nothing it derives is written
// by hand.
package refgraph

import (
	"fmt"
	"go/types"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// graph is the reference graph read from the schema.
type graph struct {
	records []*record // every @record type, in schema order
	kinds   []*record // the records a @ref names, in schema order
	refs    []*reference
	rels    []*relation
	// named are the kinds a @ref names by name, in kind order.
	named []*record
}

// record is an object type drawn from one upstream collection.
type record struct {
	name       string // GraphQL type, "EventChest"
	goName     string // Go type in the catalogue package
	collection string // upstream name, "event"
	nameField  *goField
	idField    *goField // "id", the record's own id, if it has one
	isKind     bool
	pos        position
}

// kindConst is the name of the record's Kind constant.
func (r *record) kindConst() string { return r.name + "Kind" }

// kindName is the loader's name for the kind, as Options.OnBatch sees it.
func (r *record) kindName() string { return lcFirst(r.name) }

// goField is a Go struct field a GraphQL field binds to.
type goField struct {
	gql  string
	name string
	typ  types.Type
}

// reference is a field with @ref.
type reference struct {
	owner    string // GraphQL type
	goOwner  string
	field    string
	target   *record
	source   *goField // the sibling holding the id or the name
	byName   bool
	idShape  idShape
	pos      position
	desc     string
	nullable bool
}

// constName is the name of the reference's Ref constant.
func (r *reference) constName() string { return "Ref" + r.owner + ucFirst(r.field) }

// accessor is the name of the typed function reading the reference's id.
func (r *reference) accessor() string { return "ref" + r.owner + ucFirst(r.field) }

type idShape int

const (
	idInt64     idShape = iota // int64
	idOptional                 // *int64, nil for none
	idJSONValue                // catalogue.JSONValue, read with .ID()
	idName                     // string, a name of the target
)

// relation is a field with @reverse or @follow: a list per record id,
// computed once per snapshot.
type relation struct {
	owner   *record // the record asked about (keyed by its id)
	field   string
	element *record // the records listed
	// source is the record whose paths are walked: the element for
	// @reverse, the owner for @follow.
	source *record
	paths  [][]step
	follow bool
	// everyNamed lists a record under every record of the name its
	// paths give (they end at a @ref by name), not only the first.
	everyNamed bool
	desc       string
	pos        position
}

// method is the name of the snapshot's accessor of the relation.
func (r *relation) method() string { return r.owner.name + ucFirst(r.field) }

// mapField is the name of the relation's map in the snapshot's relations.
func (r *relation) mapField() string { return lcFirst(r.method()) }

// step is one field of a path: a plain field to descend through, or, last,
// the reference.
type step struct {
	field *goField
	ref   *reference
}

type position struct {
	src  string
	line int
}

func posOf(p *ast.Position) position {
	if p == nil || p.Src == nil {
		return position{}
	}
	return position{p.Src.Name, p.Line}
}

func (p position) less(q position) bool {
	if p.src != q.src {
		return p.src < q.src
	}
	return p.line < q.line
}

// goTypes is what gqlgen bound the schema's object types to (the plugin
// reads its codegen.Data): the generator binds nothing itself.
type goTypes struct {
	// of gives the Go type an object type binds to: a named struct of the
	// catalogue package, or nil.
	of func(typeName string) types.Type
	// field gives the Go struct field a field of typeName reads, or nil
	// for a field gqlgen resolves (or one the type lacks).
	field func(typeName, field string) *goField
}

// read builds the graph from the schema's directives.
func read(schema *ast.Schema, bound goTypes) (*graph, error) {
	g := &graph{}
	records := map[string]*record{}
	var defs []*ast.Definition
	for _, def := range schema.Types {
		if def.Kind == ast.Object && !strings.HasPrefix(def.Name, "__") {
			defs = append(defs, def)
		}
	}
	sort.Slice(defs, func(i, j int) bool { return posOf(defs[i].Position).less(posOf(defs[j].Position)) })
	r := reader{schema: schema, bound: bound}
	for _, def := range defs {
		d := def.Directives.ForName("record")
		if d == nil {
			continue
		}
		rec := &record{name: def.Name, collection: stringArg(d, "collection"), pos: posOf(def.Position)}
		named, ok := bound.of(def.Name).(*types.Named)
		if !ok {
			return nil, fmt.Errorf("%s: @record on a type bound to no Go struct", def.Name)
		}
		rec.goName = named.Obj().Name()
		if n := stringArg(d, "name"); n != "" {
			f, err := r.bind(def.Name, n)
			if err != nil {
				return nil, err
			}
			if !isString(f.typ) {
				return nil, fmt.Errorf("%s: @record(name: %q) is not a string field", def.Name, n)
			}
			rec.nameField = f
		}
		if f, err := r.bind(def.Name, "id"); err == nil && isInt64(f.typ) {
			rec.idField = f
		}
		records[def.Name] = rec
		g.records = append(g.records, rec)
	}
	r.records = records
	// References first: relations name them.
	refs := map[string]*reference{}
	for _, def := range defs {
		for _, f := range def.Fields {
			d := f.Directives.ForName("ref")
			if d == nil {
				continue
			}
			ref, err := r.reference(def, f, d)
			if err != nil {
				return nil, err
			}
			refs[def.Name+"."+f.Name] = ref
			g.refs = append(g.refs, ref)
		}
	}
	r.refs = refs
	for _, def := range defs {
		for _, f := range def.Fields {
			var rel *relation
			var err error
			if d := f.Directives.ForName("reverse"); d != nil {
				rel, err = r.reverse(def, f, d)
			} else if d := f.Directives.ForName("follow"); d != nil {
				rel, err = r.follow(def, f, d)
			}
			if err != nil {
				return nil, err
			}
			if rel != nil {
				g.rels = append(g.rels, rel)
			}
		}
	}
	for _, rec := range g.records {
		if rec.isKind {
			g.kinds = append(g.kinds, rec)
		}
	}
	for _, k := range g.kinds {
		for _, ref := range g.refs {
			if ref.byName && ref.target == k {
				g.named = append(g.named, k)
				break
			}
		}
	}
	return g, nil
}

type reader struct {
	schema  *ast.Schema
	bound   goTypes
	records map[string]*record
	refs    map[string]*reference
}

// bind finds the Go struct field a plain GraphQL field of typeName reads,
// as gqlgen bound it.
func (r *reader) bind(typeName, field string) (*goField, error) {
	if f := r.bound.field(typeName, field); f != nil {
		return f, nil
	}
	return nil, fmt.Errorf("%s.%s binds to no field of its Go struct (gqlgen resolves it, or the type has no such field)", typeName, field)
}

func (r *reader) reference(def *ast.Definition, f *ast.FieldDefinition, d *ast.Directive) (*reference, error) {
	where := def.Name + "." + f.Name
	target := r.records[f.Type.Name()]
	if target == nil || f.Type.Elem != nil {
		return nil, fmt.Errorf("%s: @ref on a field whose type is not a @record type", where)
	}
	if f.Type.NonNull {
		return nil, fmt.Errorf("%s: @ref on a non-null field: a dangling reference must be null", where)
	}
	owner, ok := r.bound.of(def.Name).(*types.Named)
	if !ok {
		return nil, fmt.Errorf("%s: owner bound to no Go struct", where)
	}
	ref := &reference{owner: def.Name, goOwner: owner.Obj().Name(), field: f.Name, target: target,
		pos: posOf(f.Position), desc: f.Description, nullable: !f.Type.NonNull}
	id, name := stringArg(d, "id"), stringArg(d, "name")
	if (id == "") == (name == "") {
		return nil, fmt.Errorf("%s: @ref needs exactly one of id and name", where)
	}
	src := id
	if name != "" {
		src, ref.byName = name, true
	}
	gf, err := r.bind(def.Name, src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	ref.source = gf
	switch {
	case ref.byName && isString(gf.typ):
		ref.idShape = idName
		if target.nameField == nil {
			return nil, fmt.Errorf("%s: a reference by name to %s, which has no @record(name:)", where, target.name)
		}
		if target.idField == nil {
			return nil, fmt.Errorf("%s: %s has no id", where, target.name)
		}
	case ref.byName:
		return nil, fmt.Errorf("%s: @ref(name: %q) is not a string field", where, src)
	case isInt64(gf.typ):
		ref.idShape = idInt64
	case isPointerTo(gf.typ, isInt64):
		ref.idShape = idOptional
	case isNamed(gf.typ, "JSONValue"):
		ref.idShape = idJSONValue
	default:
		return nil, fmt.Errorf("%s: @ref(id: %q) is a %s, not an int64, *int64 or JSONValue", where, src, gf.typ)
	}
	target.isKind = true
	return ref, nil
}

func (r *reader) reverse(def *ast.Definition, f *ast.FieldDefinition, d *ast.Directive) (*relation, error) {
	where := def.Name + "." + f.Name
	owner := r.records[def.Name]
	if owner == nil || owner.idField == nil {
		return nil, fmt.Errorf("%s: @reverse on a type that is not a @record with an id", where)
	}
	elem := r.records[f.Type.Name()]
	if elem == nil || f.Type.Elem == nil || !f.Type.NonNull || !f.Type.Elem.NonNull {
		return nil, fmt.Errorf("%s: @reverse on a field that is not [T!]! of a @record type T", where)
	}
	rel := &relation{owner: owner, field: f.Name, element: elem, source: elem, desc: f.Description, pos: posOf(f.Position)}
	arg := d.Arguments.ForName("of")
	if arg == nil || arg.Value == nil || len(arg.Value.Children) == 0 {
		return nil, fmt.Errorf("%s: @reverse needs at least one path", where)
	}
	for _, c := range arg.Value.Children {
		typeName, path, ok := strings.Cut(c.Value.Raw, ".")
		if !ok || typeName != elem.name {
			return nil, fmt.Errorf("%s: path %q does not start at %s", where, c.Value.Raw, elem.name)
		}
		steps, err := r.path(elem.name, path, owner)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if every := d.Arguments.ForName("everyNamed"); every != nil && every.Value != nil && every.Value.Raw == "true" {
			if !steps[len(steps)-1].ref.byName {
				return nil, fmt.Errorf("%s: everyNamed on path %q, which ends at a @ref by id", where, c.Value.Raw)
			}
			rel.everyNamed = true
		}
		rel.paths = append(rel.paths, steps)
	}
	return rel, nil
}

func (r *reader) follow(def *ast.Definition, f *ast.FieldDefinition, d *ast.Directive) (*relation, error) {
	where := def.Name + "." + f.Name
	owner := r.records[def.Name]
	if owner == nil || owner.idField == nil {
		return nil, fmt.Errorf("%s: @follow on a type that is not a @record with an id", where)
	}
	elem := r.records[f.Type.Name()]
	if elem == nil || f.Type.Elem == nil || !f.Type.NonNull || !f.Type.Elem.NonNull {
		return nil, fmt.Errorf("%s: @follow on a field that is not [T!]! of a @record type T", where)
	}
	steps, err := r.path(owner.name, stringArg(d, "path"), elem)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return &relation{owner: owner, field: f.Name, element: elem, source: owner, paths: [][]step{steps},
		follow: true, desc: f.Description, pos: posOf(f.Position)}, nil
}

// path reads "a.b.c" from type from: plain fields, then a @ref to target.
func (r *reader) path(from, path string, target *record) ([]step, error) {
	var steps []step
	typeName := from
	names := strings.Split(path, ".")
	for i, name := range names {
		def := r.schema.Types[typeName]
		if def == nil || def.Fields.ForName(name) == nil {
			return nil, fmt.Errorf("path %q: %s has no field %s", path, typeName, name)
		}
		if i == len(names)-1 {
			ref := r.refs[typeName+"."+name]
			if ref == nil || ref.target != target {
				return nil, fmt.Errorf("path %q: %s.%s is not a @ref to %s", path, typeName, name, target.name)
			}
			return append(steps, step{ref: ref}), nil
		}
		gf, err := r.bind(typeName, name)
		if err != nil {
			return nil, fmt.Errorf("path %q: %w", path, err)
		}
		if structOf(gf.typ) == nil {
			return nil, fmt.Errorf("path %q: %s.%s holds no records", path, typeName, name)
		}
		steps = append(steps, step{field: gf})
		typeName = def.Fields.ForName(name).Type.Name()
	}
	return nil, fmt.Errorf("path %q is empty", path)
}

// occurrence is one place a reference occurs under a record: the plain
// fields leading to its owner, for the integrity walk.
type occurrence struct {
	record *record
	steps  []step // the last one is the reference
	key    string // "items.crafting.materials.itemId"
}

// occurrences lists, for each record, every path from it to a reference,
// following the plain fields of object types, in schema order.
func (g *graph) occurrences(schema *ast.Schema, bound goTypes) ([]occurrence, error) {
	r := reader{schema: schema, bound: bound}
	refs := map[string]*reference{}
	for _, ref := range g.refs {
		refs[ref.owner+"."+ref.field] = ref
	}
	var out []occurrence
	var walk func(rec *record, typeName string, prefix []step, names []string, depth int) error
	walk = func(rec *record, typeName string, prefix []step, names []string, depth int) error {
		if depth > 8 {
			return fmt.Errorf("%s: types nested too deep (a cycle?)", typeName)
		}
		for _, f := range schema.Types[typeName].Fields {
			if ref := refs[typeName+"."+f.Name]; ref != nil {
				key := strings.Join(append(append([]string{rec.collection}, names...), ref.source.gql), ".")
				out = append(out, occurrence{record: rec, steps: append(clone(prefix), step{ref: ref}), key: key})
				continue
			}
			def := schema.Types[f.Type.Name()]
			if def == nil || def.Kind != ast.Object || r.records[def.Name] != nil {
				continue
			}
			gf, err := r.bind(typeName, f.Name)
			if err != nil || structOf(gf.typ) == nil {
				continue // a resolver, or not a struct
			}
			if err := walk(rec, def.Name, append(clone(prefix), step{field: gf}), append(clone(names), f.Name), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	r.records = map[string]*record{}
	for _, rec := range g.records {
		r.records[rec.name] = rec
	}
	for _, rec := range g.records {
		if err := walk(rec, rec.name, nil, nil, 0); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func clone[T any](s []T) []T { return append([]T(nil), s...) }

func stringArg(d *ast.Directive, name string) string {
	if a := d.Arguments.ForName(name); a != nil && a.Value != nil {
		return a.Value.Raw
	}
	return ""
}

func isInt64(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Kind() == types.Int64
}

func isString(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Kind() == types.String
}

func isPointerTo(t types.Type, elem func(types.Type) bool) bool {
	p, ok := t.(*types.Pointer)
	return ok && elem(p.Elem())
}

func isNamed(t types.Type, name string) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == name
}

// structOf returns the struct a field holds (itself, through a pointer,
// or as the elements of a slice), or nil.
func structOf(t types.Type) *types.Struct {
	switch u := t.(type) {
	case *types.Pointer:
		return structOf(u.Elem())
	case *types.Slice:
		return structOf(u.Elem())
	case *types.Named:
		if n := u.Obj().Name(); n == "Number" || n == "JSONValue" {
			return nil
		}
		st, _ := u.Underlying().(*types.Struct)
		return st
	}
	return nil
}

func ucFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func lcFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
