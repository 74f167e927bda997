package resolvers

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/loader"
)

// Compiled runs the catalogue's common queries without gqlgen's generated
// executor, from a plan compiled once per document: which struct field,
// reference or page each selected field reads, and how its value is
// written. gqlgen still parses, validates and measures every operation;
// Compiled only executes, and only what it can answer exactly as gqlgen
// would, byte for byte. Everything else it declines, and gqlgen runs it:
// directives other than @skip and @include, introspection, and any answer
// that would carry an error. It stops, rather than declines, an
// answer that outgrows the response bound or the request's time.
//
// Why: gqlgen's executor makes a field context, a context and a marshaler
// per value and a goroutine per list element, about 20 allocations per
// value of an answer; a nested page of 2,500 values spent most of its time
// there. A plan writes the answer directly, and resolves the references of
// each level of the query in one batch per kind through the request's
// dataloaders, with nothing per value to allocate.
//
// It implements graphqlhttp.Executor.
type Compiled struct {
	query graph.QueryResolver
	// plans holds the plan of each document and operation name, or nil
	// for one the plan compiler declined.
	plans *lru.LRU[*operationPlan]
}

// NewCompiled returns the fast path over the resolvers' own root fields.
func NewCompiled() *Compiled {
	return &Compiled{query: (&Resolver{}).Query(), plans: lru.New[*operationPlan](1000)}
}

// Execute answers the operation in oc, or returns
// graphqlhttp.ErrDeclined to leave it to gqlgen. It stops when the answer
// grows past maxBytes or ctx is done, checking both as it writes.
func (c *Compiled) Execute(ctx context.Context, oc *graphql.OperationContext, maxBytes int) (body []byte, err error) {
	if oc.Operation == nil || oc.Operation.Operation != ast.Query {
		return nil, graphqlhttp.ErrDeclined
	}
	// A panic here is a query the plans do not handle as gqlgen does
	// (gqlgen reports some variable errors only while executing): decline
	// it, and gqlgen answers as it would have.
	defer func() {
		if recover() != nil {
			body, err = nil, graphqlhttp.ErrDeclined
		}
	}()
	key := planKey(oc)
	plan, seen := c.plans.Get(ctx, key)
	if !seen {
		c.plans.Add(ctx, key, nil) // declined, should compiling panic
		plan = compileOperation(oc, c.query)
		c.plans.Add(ctx, key, plan)
	}
	if plan == nil {
		return nil, graphqlhttp.ErrDeclined
	}
	return plan.run(ctx, oc.Variables, maxBytes)
}

// planKey names the plan of an operation: its document, its name, and the
// values of its Boolean variables, the only ones @skip and @include can
// take, since a plan holds the fields those leave in.
func planKey(oc *graphql.OperationContext) string {
	sum := sha256.Sum256([]byte(oc.RawQuery))
	key := append(sum[:], oc.OperationName...)
	for _, v := range oc.Operation.VariableDefinitions {
		if v.Type.NamedType != "Boolean" || v.Type.Elem != nil {
			continue
		}
		switch oc.Variables[v.Variable] {
		case true:
			key = append(key, 0, 't')
		case false:
			key = append(key, 0, 'f')
		default:
			key = append(key, 0, '-')
		}
	}
	return string(key)
}

// operationPlan is a query's root fields.
type operationPlan struct {
	fields []rootPlan
	// size is the length of the last answer, to size the next one's buffer.
	size atomic.Int64
}

// rootPlan is one root field: a call of the root resolver's method, or
// __typename.
type rootPlan struct {
	key      []byte // the response key, quoted, and a colon
	typename bool
	field    graphql.CollectedField
	method   reflect.Value
	paged    bool // a connection field: (first, after, last, before, filter, orderBy)
	// byID is set for a one-record field of a kind the loaders know: the
	// plan loads it by id itself, in a batch of its own, rather than
	// through the resolver's loader and its batching window.
	byID   bool
	idKind catalogue.Kind
	value  *valuePlan
}

// valuePlan writes one Go value as the GraphQL value of a type.
type valuePlan struct {
	kind    valueKind
	nonNull bool
	elem    *valuePlan  // of a pointer or a slice
	object  *objectPlan // of a struct
	// walks is set when the value can hold references (see hasRefs).
	walks bool
}

type valueKind uint8

const (
	kindString valueKind = iota
	kindBool
	kindInt
	kindNumber    // catalogue.Number: the upstream's digits
	kindJSONValue // catalogue.JSONValue: the upstream's JSON
	kindPointer
	kindSlice
	kindStruct
)

// objectPlan writes a struct as a GraphQL object of the selected fields.
type objectPlan struct {
	fields []fieldPlan
}

// fieldPlan is one selected field of an object.
type fieldPlan struct {
	key      []byte // the response key, quoted, and a colon
	typename string // for __typename: the object's type, quoted
	index    []int  // a struct field
	method   int    // else a method of the struct's pointer, or -1
	ref      *refPlan
	// relation, if set, reads a reverse relation by the struct's id
	// field (at index); value writes its list.
	relation *reverseRelation
	value    *valuePlan
}

// refPlan is a reference field: an id of the object, resolved through the
// request's loader of its kind.
type refPlan struct {
	kind  catalogue.Kind
	index []int // the id field: int64, *int64 or catalogue.JSONValue
	// byName, if set, makes the field at index a name, which it turns
	// into the id of the record it names (see namedReferences).
	byName func(s *catalogue.Snapshot, name string) (int64, bool)
	// target writes the record, a pointer to its struct.
	target *valuePlan
}

var (
	numberType    = reflect.TypeFor[catalogue.Number]()
	jsonValueType = reflect.TypeFor[catalogue.JSONValue]()
	int64PtrType  = reflect.TypeFor[*int64]()
)

// references are the reference fields the plan resolves itself: the
// record type, the GraphQL field, the Go field holding the id, and the
// kind of record it names. Like records.resolvers.go, where gqlgen's
// executor resolves the same fields one by one, they are the schema's
// @ref fields (catalogue.References).
var references = map[reflect.Type]map[string]idReference{}

type idReference struct {
	idField string
	kind    catalogue.Kind
}

// namedReferences are the references by name the plan resolves itself:
// the Go field holding the name, the kind of record, and how the snapshot
// finds the id of the record of that name. The record is then loaded by
// that id, through the loader, as the resolver does.
var namedReferences = map[reflect.Type]map[string]nameReference{}

type nameReference struct {
	nameField string
	kind      catalogue.Kind
	byName    func(s *catalogue.Snapshot, name string) (int64, bool)
}

func init() {
	for _, r := range catalogue.References {
		t := r.OwnerType
		if r.ByName {
			if namedReferences[t] == nil {
				namedReferences[t] = map[string]nameReference{}
			}
			k := r.Target
			namedReferences[t][r.Field] = nameReference{r.GoSource, k, func(s *catalogue.Snapshot, name string) (int64, bool) {
				return s.IDNamed(k, name)
			}}
			continue
		}
		if references[t] == nil {
			references[t] = map[string]idReference{}
		}
		references[t][r.Field] = idReference{r.GoSource, r.Target}
	}
	for _, r := range catalogue.Relations {
		if relations[r.OwnerType] == nil {
			relations[r.OwnerType] = map[string]reverseRelation{}
		}
		relations[r.OwnerType][r.Field] = relationOf(r.List)
	}
}

// relations are the reverse relations the plan answers itself: lists the
// snapshot computed once, by the id of the record asked about. They are
// the schema's @reverse and @follow fields (catalogue.Relations), which
// gqlgen's executor answers through records.resolvers.go (related).
var relations = map[reflect.Type]map[string]reverseRelation{}

// reverseRelation is a reverse relation: the Go type of its list, and how
// to read it for a record's id.
type reverseRelation struct {
	typ reflect.Type
	get func(s *catalogue.Snapshot, id int64) reflect.Value
}

func relationOf(list func(*catalogue.Snapshot, int64) any) reverseRelation {
	return reverseRelation{typ: reflect.TypeOf(list(nil, 0)), get: func(s *catalogue.Snapshot, id int64) reflect.Value {
		return reflect.ValueOf(list(s, id))
	}}
}

// recordTypes are the Go types of the records each kind of reference names.
var recordTypes = func() (t [catalogue.NumKinds]reflect.Type) {
	for k, info := range catalogue.Kinds {
		t[k] = info.GoType
	}
	return t
}()

// recordCollections are the collections each kind of record comes from.
var recordCollections = func() (c [catalogue.NumKinds]catalogue.Collection) {
	for k, info := range catalogue.Kinds {
		c[k] = info.Collection
	}
	return c
}()

// kindOf returns the kind of reference whose records are of type t.
func kindOf(t reflect.Type) (catalogue.Kind, bool) {
	for k, rt := range recordTypes {
		if rt == t {
			return catalogue.Kind(k), true
		}
	}
	return 0, false
}

// compiler builds the plan of one operation; a declined part makes the
// whole plan nil.
type compiler struct {
	oc       *graphql.OperationContext
	declined bool
}

func (c *compiler) decline() { c.declined = true }

// compileOperation plans the operation of oc, or returns nil to leave it
// to gqlgen.
func compileOperation(oc *graphql.OperationContext, query graph.QueryResolver) *operationPlan {
	c := &compiler{oc: oc}
	if otherDirectives(oc.Doc, oc.Operation.SelectionSet, map[string]bool{}) {
		return nil // @defer and the like
	}
	plan := &operationPlan{}
	resolver := reflect.ValueOf(query)
	for _, f := range graphql.CollectFields(oc, oc.Operation.SelectionSet, []string{"Query"}) {
		rp := rootPlan{key: responseKey(f.Alias), field: f}
		switch {
		case f.Name == "__typename":
			rp.typename = true
		case strings.HasPrefix(f.Name, "__") || f.Definition == nil:
			return nil // introspection
		default:
			rp.method = resolver.MethodByName(strings.ToUpper(f.Name[:1]) + f.Name[1:])
			if !rp.method.IsValid() {
				return nil
			}
			mt := rp.method.Type()
			switch {
			case mt.NumIn() == 7 && onlyArguments(f, "first", "after", "last", "before", "filter", "orderBy"):
				rp.paged = true
			case mt.NumIn() == 2 && onlyArguments(f, "id"):
				rp.idKind, rp.byID = kindOf(mt.Out(0))
			default:
				return nil // filters, orderings
			}
			rp.value = c.value(mt.Out(0), f.Definition.Type, f.Selections)
		}
		if c.declined {
			return nil
		}
		plan.fields = append(plan.fields, rp)
	}
	return plan
}

// otherDirectives reports whether a selection set, or a fragment it
// spreads, carries a directive other than @skip and @include, which
// CollectFields applies for the operation's variables (see planKey).
func otherDirectives(doc *ast.QueryDocument, set ast.SelectionSet, seen map[string]bool) bool {
	other := func(list ast.DirectiveList) bool {
		for _, d := range list {
			if d.Name != "skip" && d.Name != "include" {
				return true
			}
		}
		return false
	}
	for _, sel := range set {
		switch sel := sel.(type) {
		case *ast.Field:
			if other(sel.Directives) || otherDirectives(doc, sel.SelectionSet, seen) {
				return true
			}
		case *ast.InlineFragment:
			if other(sel.Directives) || otherDirectives(doc, sel.SelectionSet, seen) {
				return true
			}
		case *ast.FragmentSpread:
			if other(sel.Directives) {
				return true
			}
			if seen[sel.Name] {
				continue
			}
			seen[sel.Name] = true
			if def := doc.Fragments.ForName(sel.Name); def == nil || other(def.Directives) || otherDirectives(doc, def.SelectionSet, seen) {
				return true
			}
		}
	}
	return false
}

func onlyArguments(f graphql.CollectedField, names ...string) bool {
	for _, a := range f.Arguments {
		found := false
		for _, n := range names {
			found = found || a.Name == n
		}
		if !found {
			return false
		}
	}
	return true
}

func responseKey(alias string) []byte {
	return append(strconv.AppendQuote(nil, alias), ':')
}

// value plans how a Go value of type t is written as GraphQL type gt.
func (c *compiler) value(t reflect.Type, gt *ast.Type, sel ast.SelectionSet) *valuePlan {
	p := &valuePlan{nonNull: gt.NonNull}
	switch {
	case t == numberType:
		p.kind = kindNumber
	case t == jsonValueType:
		p.kind = kindJSONValue
	case t.Kind() == reflect.Pointer:
		p.kind = kindPointer
		inner := *gt
		inner.NonNull = true // a nil pointer is written by the pointer plan
		p.elem = c.value(t.Elem(), &inner, sel)
	case t.Kind() == reflect.Slice && gt.Elem != nil:
		p.kind = kindSlice
		p.elem = c.value(t.Elem(), gt.Elem, sel)
	case t.Kind() == reflect.Struct && gt.Elem == nil:
		p.kind = kindStruct
		p.object = c.object(t, gt.NamedType, sel)
	case t.Kind() == reflect.String && gt.NamedType == "String":
		p.kind = kindString
	case t.Kind() == reflect.Bool && gt.NamedType == "Boolean":
		p.kind = kindBool
	case (t.Kind() == reflect.Int || t.Kind() == reflect.Int64) && gt.NamedType == "Int":
		p.kind = kindInt
	default:
		c.decline() // a Go type and GraphQL type it does not write
	}
	if !c.declined {
		p.walks = p.hasRefs()
	}
	return p
}

// object plans a struct of type t as GraphQL object type typeName.
func (c *compiler) object(t reflect.Type, typeName string, sel ast.SelectionSet) *objectPlan {
	p := &objectPlan{}
	for _, f := range graphql.CollectFields(c.oc, sel, []string{typeName}) {
		fp := fieldPlan{key: responseKey(f.Alias), method: -1}
		switch {
		case f.Name == "__typename":
			fp.typename = strconv.Quote(typeName)
		case f.Definition == nil || len(f.Arguments) > 0:
			c.decline() // fields with arguments are resolvers
			return p
		default:
			if ref, ok := references[t][f.Name]; ok {
				idField, found := t.FieldByName(ref.idField)
				if !found {
					c.decline()
					return p
				}
				fp.ref = &refPlan{kind: ref.kind, index: idField.Index,
					target: c.value(recordTypes[ref.kind], f.Definition.Type, f.Selections)}
				if f.Definition.Type.NonNull {
					c.decline() // every reference is nullable: a dangling id is null
				}
				break
			}
			if ref, ok := namedReferences[t][f.Name]; ok {
				nameField, found := t.FieldByName(ref.nameField)
				if !found || f.Definition.Type.NonNull {
					c.decline()
					return p
				}
				fp.ref = &refPlan{kind: ref.kind, index: nameField.Index, byName: ref.byName,
					target: c.value(recordTypes[ref.kind], f.Definition.Type, f.Selections)}
				break
			}
			if rel, ok := relations[t][f.Name]; ok {
				idField, _ := t.FieldByName("ID")
				fp.relation, fp.index = &rel, idField.Index
				fp.value = c.value(rel.typ, f.Definition.Type, f.Selections)
				break
			}
			ft, index, method, ok := bind(t, f.Name)
			if !ok {
				c.decline() // a resolver the plans do not know: gqlgen's
				return p
			}
			fp.index, fp.method = index, method
			fp.value = c.value(ft, f.Definition.Type, f.Selections)
		}
		if c.declined {
			return p
		}
		p.fields = append(p.fields, fp)
	}
	return p
}

// bind finds what gqlgen binds GraphQL field name of a struct to: the field
// whose json tag names it, else the field or method of that name (with
// any case of its first letter), as gqlgen's autobind does.
func bind(t reflect.Type, name string) (typ reflect.Type, index []int, method int, ok bool) {
	for _, sf := range reflect.VisibleFields(t) {
		if tag, _, _ := strings.Cut(sf.Tag.Get("json"), ","); tag == name && sf.IsExported() {
			return sf.Type, sf.Index, -1, true
		}
	}
	for _, sf := range reflect.VisibleFields(t) {
		if sf.Tag.Get("json") == "" && sf.IsExported() && strings.EqualFold(sf.Name, name) {
			return sf.Type, sf.Index, -1, true
		}
	}
	pt := reflect.PointerTo(t)
	for i := range pt.NumMethod() {
		m := pt.Method(i)
		if strings.EqualFold(m.Name, name) && m.Type.NumIn() == 1 && m.Type.NumOut() == 1 {
			return m.Type.Out(0), nil, i, true
		}
	}
	return nil, nil, -1, false
}

// execution is one run of a plan: the references resolved so far, and the
// frontier of references still to resolve, level by level.
type execution struct {
	ctx  context.Context
	snap *catalogue.Snapshot // the request's, for reverse relations
	// maxBytes bounds the answer; err, once set, is why the run stopped
	// (the answer's size or the context), rather than declined.
	maxBytes int
	err      error
	// steps counts list elements walked and written, so that the
	// context is checked every checkEvery of them rather than for each.
	steps int
	// resolved holds each kind's records by id; an invalid Value marks an
	// id asked for at the current level and not loaded yet.
	resolved [len(recordTypes)]map[int64]reflect.Value
	// pending are the references found at the current level, by the
	// selection of the record they name.
	pending []pendingGroup
	ids     [len(recordTypes)][]int64
}

// pendingGroup is the references of one level that one selection names.
type pendingGroup struct {
	target *valuePlan
	kind   catalogue.Kind
	ids    []int64
}

// lookup returns the record of kind k with id, and whether it has been
// resolved.
func (ex *execution) lookup(k catalogue.Kind, id int64) (reflect.Value, bool) {
	v, ok := ex.resolved[k][id]
	return v, ok
}

// queue notes a reference to resolve at the next level.
func (ex *execution) queue(target *valuePlan, k catalogue.Kind, id int64) {
	for i := range ex.pending {
		if g := &ex.pending[i]; g.target == target && g.kind == k {
			g.ids = append(g.ids, id)
			return
		}
	}
	ex.pending = append(ex.pending, pendingGroup{target: target, kind: k, ids: []int64{id}})
}

// checkEvery is how many list elements a run walks or writes between two
// looks at its context: often enough to stop within a fraction of a
// millisecond, rarely enough to cost nothing measurable.
const checkEvery = 64

// step counts a list element and reports whether the run must stop: its
// answer has grown past the bound, or its time is up.
func (ex *execution) step(written int) bool {
	if written > ex.maxBytes {
		ex.err = graphqlhttp.ErrResponseTooLarge
		return true
	}
	ex.steps++
	if ex.steps%checkEvery == 0 {
		if err := ex.ctx.Err(); err != nil {
			ex.err = err
			return true
		}
	}
	return false
}

// failed is the run's answer when it could not finish: stopped, or
// declined.
func (ex *execution) failed() error {
	if ex.err != nil {
		return ex.err
	}
	if err := ex.ctx.Err(); err != nil {
		return err // a loader gave up for the same reason
	}
	return graphqlhttp.ErrDeclined
}

func (p *operationPlan) run(ctx context.Context, vars map[string]any, maxBytes int) ([]byte, error) {
	snap, err := loader.Snapshot(ctx)
	if err != nil {
		return nil, graphqlhttp.ErrDeclined
	}
	ex := &execution{ctx: ctx, snap: snap, maxBytes: maxBytes}
	roots := make([]reflect.Value, len(p.fields))
	for i, f := range p.fields {
		if f.typename {
			continue
		}
		v, ok := ex.callRoot(f, vars)
		if !ok {
			return nil, ex.failed()
		}
		roots[i] = v
		if f.value.walks && !ex.walk(v, f.value) {
			return nil, ex.failed()
		}
	}
	// The references of each level are resolved in one batch per kind;
	// resolving them may find those of the next level.
	for len(ex.pending) > 0 {
		if !ex.resolve() {
			return nil, ex.failed()
		}
	}
	// Sized as the last answer was, but never beyond the bound.
	buf := make([]byte, 0, min(p.size.Load(), int64(maxBytes))+64)
	buf = append(buf, `{"data":{`...)
	for i, f := range p.fields {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, f.key...)
		if f.typename {
			buf = append(buf, `"Query"`...)
			continue
		}
		var ok bool
		if buf, ok = ex.write(buf, roots[i], f.value); !ok || ex.step(len(buf)) {
			return nil, ex.failed()
		}
	}
	buf = append(buf, "}}"...)
	if len(buf) > maxBytes {
		return nil, graphqlhttp.ErrResponseTooLarge
	}
	p.size.Store(int64(len(buf)))
	return buf, nil
}

// callRoot runs a root field's resolver with the field's arguments.
func (ex *execution) callRoot(f rootPlan, vars map[string]any) (reflect.Value, bool) {
	args := f.field.ArgumentMap(vars)
	mt := f.method.Type()
	in := []reflect.Value{reflect.ValueOf(ex.ctx)}
	if f.paged {
		for i, name := range []string{"first", "after", "last", "before"} {
			v, ok := pointerArg(args[name], mt.In(i+1))
			if !ok {
				return reflect.Value{}, false
			}
			in = append(in, v)
		}
		for i, name := range []string{"filter", "orderBy"} {
			v, ok := inputArg(args[name], mt.In(i+5))
			if !ok {
				return reflect.Value{}, false
			}
			in = append(in, v)
		}
	} else {
		id, ok := intArg(args["id"])
		if !ok {
			return reflect.Value{}, false
		}
		if f.byID {
			return ex.loadRoot(f.idKind, id)
		}
		in = append(in, reflect.ValueOf(id))
	}
	out := f.method.Call(in)
	if !out[1].IsNil() {
		return reflect.Value{}, false // an error: gqlgen reports it
	}
	return out[0], true
}

// loadRoot answers a one-record field as its resolver (lookup) does: the
// record, or null if there is none; a collection not loaded yet is an
// error, left to gqlgen.
func (ex *execution) loadRoot(k catalogue.Kind, id int) (reflect.Value, bool) {
	snap, err := loader.Snapshot(ex.ctx)
	if err != nil || snap == nil || snap.Part(recordCollections[k]) == nil {
		return reflect.Value{}, false
	}
	recs, err := loader.LoadMany(ex.ctx, k, []int64{int64(id)})
	if err != nil {
		return reflect.Value{}, false
	}
	if recs[0] == nil {
		return reflect.Zero(recordTypes[k]), true
	}
	return reflect.ValueOf(recs[0]), true
}

// pointerArg turns an argument's value into the *int or *string the
// resolver takes; nil when absent or null.
func pointerArg(v any, t reflect.Type) (reflect.Value, bool) {
	if v == nil {
		return reflect.Zero(t), true
	}
	switch t.Elem().Kind() {
	case reflect.Int:
		n, ok := intArg(v)
		return reflect.ValueOf(&n), ok
	case reflect.String:
		s, ok := v.(string)
		return reflect.ValueOf(&s), ok
	}
	return reflect.Value{}, false
}

// inputArg turns an input object argument's value, as gqlgen coerced it
// (a map, enums as their names), into the *model type the resolver
// takes, through the model's JSON form: its fields are tagged with the
// schema's names and its enums check their values. Nil when absent or
// null; false for a value the model does not take, which gqlgen then
// reports.
func inputArg(v any, t reflect.Type) (reflect.Value, bool) {
	if v == nil {
		return reflect.Zero(t), true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return reflect.Value{}, false
	}
	p := reflect.New(t.Elem())
	if err := json.Unmarshal(b, p.Interface()); err != nil {
		return reflect.Value{}, false
	}
	return p, true
}

func intArg(v any) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case int64:
		return int(v), int64(int(v)) == v
	case int32:
		return int(v), true
	case json.Number:
		n, err := strconv.Atoi(string(v))
		return n, err == nil
	}
	return 0, false
}

// resolve loads the pending references, one batch per kind, and walks the
// records found for the references they hold in turn.
func (ex *execution) resolve() bool {
	pending := ex.pending
	ex.pending = nil
	for k := range ex.ids {
		ex.ids[k] = ex.ids[k][:0]
	}
	// A reference first met at this level is marked, with no record yet,
	// so that it is asked for once.
	for _, g := range pending {
		m := ex.resolved[g.kind]
		if m == nil {
			m = make(map[int64]reflect.Value, len(g.ids))
			ex.resolved[g.kind] = m
		}
		for _, id := range g.ids {
			if _, done := m[id]; !done {
				m[id] = reflect.Value{}
				ex.ids[g.kind] = append(ex.ids[g.kind], id)
			}
		}
	}
	for k, ids := range ex.ids {
		if len(ids) == 0 {
			continue
		}
		recs, err := loader.LoadMany(ex.ctx, catalogue.Kind(k), ids)
		if err != nil {
			return false
		}
		m := ex.resolved[k]
		for i, id := range ids {
			v := reflect.Zero(recordTypes[k])
			if recs[i] != nil {
				v = reflect.ValueOf(recs[i])
			}
			m[id] = v
		}
	}
	// Each record is walked once for each selection of it: two fields may
	// name one record and select different references under it.
	for _, g := range pending {
		if !g.target.walks {
			continue
		}
		walked := make(map[int64]bool, len(g.ids))
		for _, id := range g.ids {
			if walked[id] {
				continue
			}
			walked[id] = true
			if !ex.walk(ex.resolved[g.kind][id], g.target) {
				return false
			}
		}
	}
	return true
}

// walk finds the references under v that are not resolved yet, and queues
// them for the next level.
func (ex *execution) walk(v reflect.Value, p *valuePlan) bool {
	switch p.kind {
	case kindPointer:
		if v.IsNil() {
			return true
		}
		return ex.walk(v.Elem(), p.elem)
	case kindSlice:
		for i := range v.Len() {
			if ex.step(0) || !ex.walk(v.Index(i), p.elem) {
				return false
			}
		}
	case kindStruct:
		for i := range p.object.fields {
			f := &p.object.fields[i]
			switch {
			case f.ref != nil:
				if id, ok := ex.refID(f.ref, v); ok {
					if rec, done := ex.lookup(f.ref.kind, id); done && rec.IsValid() {
						if f.ref.target.walks && !ex.walk(rec, f.ref.target) {
							return false
						}
					} else {
						ex.queue(f.ref.target, f.ref.kind, id)
					}
				}
			case f.value != nil && f.value.walks:
				fv, ok := ex.fieldValue(v, f)
				if !ok || !ex.walk(fv, f.value) {
					return false
				}
			}
		}
	}
	return true
}

// hasRefs reports whether a value of the plan can hold references to
// resolve: walking anything else finds nothing (and would call methods,
// such as a connection's Edges, once more than writing does).
func (p *valuePlan) hasRefs() bool {
	switch p.kind {
	case kindStruct:
		for i := range p.object.fields {
			f := &p.object.fields[i]
			if f.ref != nil || f.value != nil && f.value.hasRefs() {
				return true
			}
		}
	case kindPointer, kindSlice:
		return p.elem.hasRefs()
	}
	return false
}

// refID is the id a reference of the struct v names, if any.
func (ex *execution) refID(r *refPlan, v reflect.Value) (int64, bool) {
	fv := field(v, r.index)
	if r.byName != nil {
		return r.byName(ex.snap, fv.String())
	}
	return refID(fv)
}

func refID(v reflect.Value) (int64, bool) {
	switch v.Type() {
	case int64PtrType:
		if v.IsNil() {
			return 0, false
		}
		return v.Elem().Int(), true
	case jsonValueType:
		return v.Interface().(catalogue.JSONValue).ID()
	}
	return v.Int(), true
}

// fieldValue reads a planned field of the struct v.
func (ex *execution) fieldValue(v reflect.Value, f *fieldPlan) (reflect.Value, bool) {
	if f.relation != nil {
		return f.relation.get(ex.snap, field(v, f.index).Int()), true
	}
	if f.method < 0 {
		return field(v, f.index), true
	}
	if !v.CanAddr() {
		return reflect.Value{}, false
	}
	return v.Addr().Method(f.method).Call(nil)[0], true
}

// field reads a struct field by its index; most are not promoted.
func field(v reflect.Value, index []int) reflect.Value {
	if len(index) == 1 {
		return v.Field(index[0])
	}
	return v.FieldByIndex(index)
}

// write appends v as JSON. It fails where gqlgen would report an error: a
// null in a non-null place.
func (ex *execution) write(buf []byte, v reflect.Value, p *valuePlan) ([]byte, bool) {
	switch p.kind {
	case kindString:
		return appendQuoted(buf, v.String()), true
	case kindBool:
		return strconv.AppendBool(buf, v.Bool()), true
	case kindInt:
		return strconv.AppendInt(buf, v.Int(), 10), true
	case kindNumber:
		if s := v.String(); s != "" {
			return append(buf, s...), true
		}
		return append(buf, "null"...), true
	case kindJSONValue:
		b := v.Bytes()
		if len(b) == 0 {
			return append(buf, "null"...), true
		}
		// As the upstream wrote it, in the form encoding/json gives a
		// raw value: compact, HTML-escaped.
		out, err := json.Marshal(json.RawMessage(b))
		if err != nil {
			return buf, false
		}
		return append(buf, out...), true
	case kindPointer:
		if v.IsNil() {
			return append(buf, "null"...), !p.nonNull
		}
		return ex.write(buf, v.Elem(), p.elem)
	case kindSlice:
		if v.IsNil() && !p.nonNull {
			return append(buf, "null"...), true
		}
		buf = append(buf, '[')
		for i := range v.Len() {
			if ex.step(len(buf)) {
				return buf, false
			}
			if i > 0 {
				buf = append(buf, ',')
			}
			var ok bool
			if buf, ok = ex.write(buf, v.Index(i), p.elem); !ok {
				return buf, false
			}
		}
		return append(buf, ']'), true
	case kindStruct:
		buf = append(buf, '{')
		for i := range p.object.fields {
			f := &p.object.fields[i]
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, f.key...)
			var ok bool
			switch {
			case f.typename != "":
				buf = append(buf, f.typename...)
				continue
			case f.ref != nil:
				rec := reflect.Zero(recordTypes[f.ref.kind])
				if id, found := ex.refID(f.ref, v); found {
					if r, done := ex.lookup(f.ref.kind, id); done && r.IsValid() {
						rec = r
					}
				}
				buf, ok = ex.write(buf, rec, f.ref.target)
			default:
				fv, found := ex.fieldValue(v, f)
				if !found {
					return buf, false
				}
				buf, ok = ex.write(buf, fv, f.value)
			}
			if !ok {
				return buf, false
			}
		}
		return append(buf, '}'), true
	}
	return buf, false
}

// escaped marks the ASCII bytes appendQuoted escapes.
var escaped = func() (t [utf8.RuneSelf]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	for _, c := range `\"<>&` {
		t[c] = true
	}
	return t
}()

// appendQuoted writes a string as gqlgen writes it: its string marshaler
// escapes quotes, backslashes and control characters, and its transport's
// encoding/json then escapes <, >, &, U+2028 and U+2029 for HTML.
func appendQuoted(buf []byte, s string) []byte {
	// encoding/json escapes in lower case, gqlgen in upper.
	const hex, upperHex = "0123456789abcdef", "0123456789ABCDEF"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			// U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
			if c == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && s[i+2]&^1 == 0xA8 {
				buf = append(buf, s[start:i]...)
				buf = append(buf, '\\', 'u', '2', '0', '2', hex[s[i+2]&0xF])
				i += 3
				start = i
				continue
			}
			i++
			continue
		}
		if !escaped[c] {
			i++
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '\t':
			buf = append(buf, `\t`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\\':
			buf = append(buf, `\\`...)
		case '"':
			buf = append(buf, `\"`...)
		case '<', '>', '&':
			buf = append(buf, `\u00`...)
			buf = append(buf, hex[c>>4], hex[c&0xf])
		default:
			buf = append(buf, `\u00`...)
			buf = append(buf, upperHex[c>>4], upperHex[c&0xf])
		}
		i++
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
