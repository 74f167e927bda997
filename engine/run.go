package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// runState is one run of a plan: the references resolved so far, and the
// frontier of references still to resolve, level by level.
type runState struct {
	ctx  context.Context
	snap *catalogue.Snapshot // the request's, for reverse relations
	// maxBytes bounds the answer; err, once set, is why the run stopped
	// (the answer's size or the context), rather than declined.
	maxBytes int
	err      error
	// steps counts list elements walked and written, so that the
	// context is checked every checkEvery of them rather than for each.
	steps int
	// fragments holds the renderings of records kept for the request's
	// snapshot; nil keeps none. tables holds, by keepPlan.slot, the table
	// of a selection's renderings, once looked up (see renderingsOf).
	fragments *fragmentStore
	tables    []*renderings
	// resolved holds each kind's records by id (a nil any for none);
	// notLoaded marks an id asked for at the current level and not
	// loaded yet.
	resolved [catalogue.NumKinds]map[int64]any
	// pending are the references found at the current level, by the
	// selection of the record they name.
	pending []pendingGroup
	ids     [catalogue.NumKinds][]int64
	// types, for an answer to be cut into parts, notes the object type of
	// each union's value, by the offset in the answer where its object
	// starts: the parts of a fragment on one member are cut by it.
	types map[int]string
	// keys are the entity keys of what the answer read (see
	// catalogue.Key), noted as it is written, duplicates and all: the
	// records its references and one-record fields name, found or not,
	// and the collections its relations list. (A root list's resolver
	// notes its own.)
	keys []catalogue.Key
}

// pendingGroup is the references of one level that one selection names.
type pendingGroup struct {
	target *valuePlan
	kind   catalogue.Kind
	ids    []int64
}

// notLoaded marks a record asked for and not loaded yet.
type notLoaded struct{}

// lookup returns the record of kind k with id, and whether it has been
// loaded (a nil record is none).
func (ex *runState) lookup(k catalogue.Kind, id int64) (any, bool) {
	v, ok := ex.resolved[k][id]
	if _, pending := v.(notLoaded); pending {
		return nil, false
	}
	return v, ok
}

// queue notes a reference to resolve at the next level.
func (ex *runState) queue(target *valuePlan, k catalogue.Kind, id int64) {
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
func (ex *runState) step(written int) bool {
	if written > ex.maxBytes {
		ex.err = execution.ErrResponseTooLarge
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
func (ex *runState) failed() error {
	if ex.err != nil {
		return ex.err
	}
	if err := ex.ctx.Err(); err != nil {
		return err // a loader gave up for the same reason
	}
	return &execution.Declined{Reason: execution.DeclineRun, Detail: "a load failed: gqlgen reports it"}
}

// run answers the plan; types, when not nil, is given the object type
// of each union's value written, by its offset (see runState.types).
func (p *operationPlan) run(ctx context.Context, frags *fragments, vars map[string]any, maxBytes int, types map[int]string) (execution.Answer, error) {
	snap, err := loader.Snapshot(ctx)
	if err != nil {
		return execution.Answer{}, &execution.Declined{Reason: execution.DeclineRun, Detail: "no snapshot: " + err.Error()}
	}
	ex := &runState{ctx: ctx, snap: snap, maxBytes: maxBytes, fragments: frags.forSnapshot(snap), types: types}
	// Sized for what the last run noted, with room to spare: a copied
	// rendering adds its keys at once, and growing the slice for them
	// was most of what the engine's noting cost a monster's page.
	ex.keys = make([]catalogue.Key, 0, max(2*p.keys.Load(), 16))
	// An answer cut into parts is written in full, without the kept
	// renderings: a rendering copied as bytes would not note the types
	// of the unions under it.
	if ex.fragments != nil && p.tables > 0 && types == nil {
		ex.tables = make([]*renderings, p.tables)
	}
	var errs []execution.FieldError
	// A root field that fails is null, with its error; a non-null one
	// makes the whole data null, as in gqlgen, whose other fields still
	// run and may fail too.
	nullData := false
	roots := make([]any, len(p.fields))
	answered := make([]bool, len(p.fields))
	for i, f := range p.fields {
		if f.typename {
			continue
		}
		v, err := ex.callRoot(f, vars)
		if err != nil {
			if ex.err != nil {
				return execution.Answer{}, ex.err
			}
			if declined, ok := errors.AsType[*execution.Declined](err); ok {
				// A root that cannot answer as gqlgen's resolvers would
				// (a collection not loaded yet, say): gqlgen answers.
				return execution.Answer{}, declined
			}
			errs = append(errs, execution.FieldError{Path: ast.Path{ast.PathName(f.field.Alias)}, Err: located(err, f.field.Position)})
			nullData = nullData || f.value.nonNull
			continue
		}
		roots[i], answered[i] = v, true
		if f.value.walks && !ex.walk(v, f.value) {
			return execution.Answer{}, ex.failed()
		}
	}
	if nullData {
		return execution.Answer{Body: []byte(`{"data":null}`), Errors: errs}, nil
	}
	// The references of each level are resolved in one batch per kind;
	// resolving them may find those of the next level.
	for len(ex.pending) > 0 {
		if !ex.resolve() {
			return execution.Answer{}, ex.failed()
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
		switch {
		case f.typename:
			buf = append(buf, `"Query"`...)
			continue
		case !answered[i]: // failed
			buf = append(buf, "null"...)
			continue
		}
		var ok bool
		if buf, ok = ex.write(buf, roots[i], f.value); !ok || ex.step(len(buf)) {
			return execution.Answer{}, ex.failed()
		}
	}
	buf = append(buf, "}}"...)
	if len(buf) > maxBytes {
		return execution.Answer{}, execution.ErrResponseTooLarge
	}
	p.size.Store(int64(len(buf)))
	p.keys.Store(int64(len(ex.keys)))
	loader.AddKeys(ctx, ex.keys)
	return execution.Answer{Body: buf, Errors: errs}, nil
}

// callRoot answers a root field: its value, or the error that makes it
// null. A run that must stop (its time is up) sets ex.err.
func (ex *runState) callRoot(f rootPlan, vars map[string]any) (any, error) {
	args := f.args
	if args == nil {
		args = f.field.ArgumentMap(vars)
	}
	if f.byID {
		if id, ok := execution.IntValue(args["id"]); ok {
			// Found or not: a record that arrives later must drop the
			// answer.
			ex.keys = append(ex.keys, catalogue.RecordKey(catalogue.Kinds[f.idKind].Collection, id))
		}
		if v, ok := ex.loadRoot(f.idKind, args["id"]); ok {
			return v, nil
		}
		if ex.err != nil {
			return nil, ex.err
		}
	}
	v, err := f.root.Resolve(ex.ctx, args)
	if err != nil {
		if ctxErr := ex.ctx.Err(); ctxErr != nil {
			ex.err = ctxErr
		}
		return nil, err
	}
	return v, nil
}

// located gives a field's error the place of the field in the document,
// as gqlgen does (graphql.AddFieldLocationToError) for a GraphQL error
// without one; any other error is an internal one, shown without it.
func located(err error, pos *ast.Position) error {
	if gerr, ok := errors.AsType[*gqlerror.Error](err); ok && gerr.Locations == nil && pos != nil && pos.Line > 0 {
		gerr.Locations = []gqlerror.Location{{Line: pos.Line, Column: pos.Column}}
	}
	return err
}

// loadRoot answers a one-record field as its resolver does, the record
// or null, but through LoadMany, with no batching window to wait out.
// Anything else (a collection not loaded yet, an id out of range) it
// leaves to the resolver, which says what is wrong.
func (ex *runState) loadRoot(k catalogue.Kind, arg any) (any, bool) {
	id, ok := execution.IntValue(arg) // beyond 32 bits: the resolver says what is wrong
	if !ok || ex.snap == nil || ex.snap.Part(catalogue.Kinds[k].Collection) == nil {
		return nil, false
	}
	recs, err := loader.LoadMany(ex.ctx, k, []int64{id})
	if err != nil {
		ex.err = ex.ctx.Err()
		return nil, false
	}
	return recs[0], true
}

// resolve loads the pending references, one batch per kind, and walks the
// records found for the references they hold in turn.
func (ex *runState) resolve() bool {
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
			m = make(map[int64]any, len(g.ids))
			ex.resolved[g.kind] = m
		}
		for _, id := range g.ids {
			if _, done := m[id]; !done {
				m[id] = notLoaded{}
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
			m[id] = recs[i]
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
func (ex *runState) walk(v any, p *valuePlan) bool {
	switch p.kind {
	case kindPointer:
		if p.typ.isNil(v) {
			return true
		}
		return ex.walk(v, p.elem)
	case kindSlice:
		if v == nil {
			return true
		}
		t := p.typ
		for i := range t.Len(v) {
			if ex.step(0) || !ex.walk(t.Index(v, i), p.elem) {
				return false
			}
		}
	case kindUnion:
		if m, v, _ := p.member(v); m != nil && m.walks {
			return ex.walk(v, m)
		}
	case kindStruct:
		if _, _, kept := ex.keptRecord(v, p.keep); kept {
			return true // written as it was: nothing under it to load
		}
		for i := range p.object.fields {
			f := &p.object.fields[i]
			switch {
			case f.ref != nil:
				if id, ok := f.ref.id(ex.snap, v); ok {
					if t := ex.renderingsOf(f.ref.keep); t != nil {
						if _, kept := t.get(id); kept {
							continue // written as it was: nothing to load
						}
					}
					if rec, done := ex.lookup(f.ref.kind, id); done {
						if f.ref.target.walks && !ex.walk(rec, f.ref.target) {
							return false
						}
					} else {
						ex.queue(f.ref.target, f.ref.kind, id)
					}
				}
			case f.value != nil && f.value.walks:
				if !ex.walk(ex.fieldValue(v, f), f.value) {
					return false
				}
			}
		}
	}
	return true
}

// notesKeys reports whether writing a value of the plan notes entity
// keys: it holds a reference or a relation.
func (p *valuePlan) notesKeys() bool {
	switch p.kind {
	case kindStruct:
		for i := range p.object.fields {
			f := &p.object.fields[i]
			if f.ref != nil || f.relation != nil || f.value != nil && f.value.notesKeys() {
				return true
			}
		}
	case kindPointer, kindSlice:
		return p.elem.notesKeys()
	case kindUnion:
		for _, m := range p.members {
			if m.notesKeys() {
				return true
			}
		}
	}
	return false
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
	case kindUnion:
		for _, m := range p.members {
			if m.hasRefs() {
				return true
			}
		}
	}
	return false
}

// member returns the plan of the member a union's value v is, and its
// value; nil for null. unknown reports a value of a type the plan has no
// member for.
func (p *valuePlan) member(v any) (m *valuePlan, value any, unknown bool) {
	typ := ""
	if p.typ.Member != nil {
		typ, value = p.typ.Member(v)
	} else if u, _ := v.(*UnionValue); u != nil {
		typ, value = u.Type, u.Value
	}
	if value == nil {
		return nil, nil, false
	}
	m = p.members[typ]
	return m, value, m == nil
}

// fieldValue reads a planned field of the struct v.
func (ex *runState) fieldValue(v any, f *fieldPlan) any {
	if f.relation != nil {
		return f.relation(ex.snap, v)
	}
	return f.get(v)
}

// write appends v as JSON. It fails where gqlgen would report an error: a
// null in a non-null place.
func (ex *runState) write(buf []byte, v any, p *valuePlan) ([]byte, bool) {
	switch p.kind {
	case kindString:
		return appendQuoted(buf, *v.(*string)), true
	case kindBool:
		return strconv.AppendBool(buf, *v.(*bool)), true
	case kindEnum:
		// As gqlgen's generated enums marshal themselves: strconv.Quote
		// of the value's name.
		return strconv.AppendQuote(buf, p.typ.EnumName(v)), true
	case kindInt:
		switch n := v.(type) {
		case *int64:
			return strconv.AppendInt(buf, *n, 10), true
		case *int:
			return strconv.AppendInt(buf, int64(*n), 10), true
		}
		return buf, false
	case kindNumber:
		if s := *v.(*catalogue.Number); s != "" {
			return append(buf, s...), true
		}
		return append(buf, "null"...), true
	case kindJSONValue:
		b := *v.(*catalogue.JSONValue)
		if len(b) == 0 {
			return append(buf, "null"...), true
		}
		// Kept compact by the catalogue; written HTML-escaped, as
		// encoding/json writes gqlgen's raw data, without json.Marshal's
		// reflection.
		w := bytes.NewBuffer(buf)
		json.HTMLEscape(w, b)
		return w.Bytes(), true
	case kindPointer:
		if p.typ.isNil(v) {
			return append(buf, "null"...), !p.nonNull
		}
		return ex.write(buf, v, p.elem)
	case kindSlice:
		t := p.typ
		if t.isNil(v) && !p.nonNull {
			return append(buf, "null"...), true
		}
		buf = append(buf, '[')
		n := 0
		if v != nil {
			n = t.Len(v)
		}
		for i := range n {
			if ex.step(len(buf)) {
				return buf, false
			}
			if i > 0 {
				buf = append(buf, ',')
			}
			var ok bool
			if buf, ok = ex.write(buf, t.Index(v, i), p.elem); !ok {
				return buf, false
			}
		}
		return append(buf, ']'), true
	case kindUnion:
		m, mv, unknown := p.member(v)
		if unknown {
			return buf, false // a type the plan has no member for
		}
		if m == nil {
			return append(buf, "null"...), !p.nonNull
		}
		if ex.types != nil {
			ex.types[len(buf)] = m.typeName
		}
		return ex.write(buf, mv, m)
	case kindStruct:
		t, place, kept := ex.keptRecord(v, p.keep)
		if kept {
			b, _ := t.at(place)
			ex.keys = append(ex.keys, t.keysAt(place)...)
			return append(buf, b...), true
		}
		start, noted := len(buf), len(ex.keys)
		buf, ok := ex.writeObject(buf, v, p.object)
		if ok && t != nil {
			t.put(place, buf[start:], ex.keys[noted:])
		}
		return buf, ok
	}
	return buf, false
}

// writeObject appends the struct v as the object plan p selects it.
func (ex *runState) writeObject(buf []byte, v any, p *objectPlan) ([]byte, bool) {
	buf = append(buf, '{')
	for i := range p.fields {
		f := &p.fields[i]
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
			buf, ok = ex.writeRef(buf, v, f.ref)
		case f.relation != nil:
			// A list: any change in its collection can change it.
			ex.keys = append(ex.keys, catalogue.CollectionKey(f.lists))
			buf, ok = ex.write(buf, ex.fieldValue(v, f), f.value)
		default:
			buf, ok = ex.write(buf, ex.fieldValue(v, f), f.value)
		}
		if !ok {
			return buf, false
		}
	}
	return append(buf, '}'), true
}

// writeRef appends the record a reference of the struct v names: as kept
// for the snapshot, or written (and kept, by the record's plan).
func (ex *runState) writeRef(buf []byte, v any, r *refPlan) ([]byte, bool) {
	if r.byName {
		// A name is looked up among the whole collection's: a record
		// that takes the name, or gives it up, changes what it names.
		ex.keys = append(ex.keys, catalogue.CollectionKey(r.collection))
	}
	id, found := r.id(ex.snap, v)
	if !found {
		return ex.write(buf, nil, r.target)
	}
	// Found or not: a record that arrives later must drop the answer.
	ex.keys = append(ex.keys, catalogue.RecordKey(r.collection, id))
	if t := ex.renderingsOf(r.keep); t != nil {
		if i, ok := t.positions.Of(id); ok {
			if b, kept := t.at(i); kept {
				ex.keys = append(ex.keys, t.keysAt(i)...)
				return append(buf, b...), true
			}
		}
	}
	rec, _ := ex.lookup(r.kind, id) // nil, null, if not loaded
	return ex.write(buf, rec, r.target)
}

// keptRecord returns the table of the renderings of the record v under
// k's selection and v's place in it, and whether a rendering is kept
// there; a nil table when v's renderings are not kept (no keepPlan, no
// store or no room, or v not the snapshot's own record).
func (ex *runState) keptRecord(v any, k *keepPlan) (t *renderings, place int, kept bool) {
	if k == nil {
		return nil, 0, false
	}
	if t = ex.renderingsOf(k); t == nil {
		return nil, 0, false
	}
	id, ok := k.id(v)
	if !ok {
		return nil, 0, false
	}
	if place, ok = t.place(id, v); !ok {
		return nil, 0, false
	}
	_, kept = t.at(place)
	return t, place, kept
}

// renderingsOf returns the table of renderings of k's selection, looked
// up in the store once per execution; nil when none are kept (no
// keepPlan, no store, or no room for the table).
func (ex *runState) renderingsOf(k *keepPlan) *renderings {
	if ex.tables == nil || k == nil {
		return nil
	}
	if t := ex.tables[k.slot]; t != nil {
		return t
	}
	t := ex.fragments.table(k.sel, k.kind, k.keyed)
	ex.tables[k.slot] = t
	return t
}
