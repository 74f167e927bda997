package resolvers

import (
	"context"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/99designs/gqlgen/graphql/handler/lru"
	"golang.org/x/sync/singleflight"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/engine"
	"github.com/catalogue-gateway/gateway/loader"
)

// listLengths is the longest list each list field of the schema holds in
// one snapshot, keyed "Type.field": what the cost limit multiplies by (see
// graphqlhttp/admission). It is read off the records themselves, through
// the types gqlgen binds them to (bindings, generated), so it needs no
// table of its own: a record type's list fields are its fields of a list
// type, its reverse relations among them.
type listLengths map[string]int

func (l listLengths) Longest(typeName, field string) (int, bool) {
	n, ok := l[typeName+"."+field]
	return n, ok
}

// lengthsOf walks every record of s once.
func lengthsOf(s *catalogue.Snapshot) listLengths {
	w := lengthWalker{snap: s, out: listLengths{
		// A change names at most every collection.
		"CatalogueChange.collections": int(catalogue.NumCollections),
	}, shapes: map[*engine.Type][]lengthField{}}
	// A change's keys are at most a key for every record and every
	// collection (records removed counted as the ones they leave room for).
	keys := int(catalogue.NumCollections)
	for c := range catalogue.NumCollections {
		keys += s.Len(c)
	}
	w.out["CatalogueChange.keys"] = keys
	for c := range catalogue.NumCollections {
		p := s.Part(c)
		if p == nil {
			// Its record type's fields are still known lists, of length 0.
			continue
		}
		if t, records := recordsOf(p); t != nil {
			w.shape(t)
			w.walk(records, t)
		}
	}
	for _, t := range bindings.kinds {
		w.shape(t)
	}
	// A connection's facets are its filter's equality fields, each with at
	// most as many values as the most any column holds.
	for conn, fields := range connectionFacets() {
		w.out[conn+".facets"] = len(fields)
	}
	values := 0
	for c := range catalogue.NumCollections {
		values = max(values, s.Index(c).MostValues())
	}
	w.out["Facet.values"] = values
	return w.out
}

type lengthWalker struct {
	snap   *catalogue.Snapshot
	out    listLengths
	shapes map[*engine.Type][]lengthField
}

// lengthField is a field of a struct that is, or may hold, a list.
type lengthField struct {
	key   string // "Type.field", for a list
	field engine.Field
}

// shape returns the fields of struct type t worth walking, noting each
// list field of t, and of the structs under it, at length 0.
func (w *lengthWalker) shape(t *engine.Type) []lengthField {
	for t.Shape == engine.Pointer || t.Shape == engine.List {
		t = t.Elem
	}
	if t.Shape != engine.Struct {
		return nil
	}
	if fields, seen := w.shapes[t]; seen {
		return fields
	}
	w.shapes[t] = nil // a type that holds itself
	var fields []lengthField
	for name, f := range t.Fields {
		if f.Ref != nil {
			continue // a record, walked with its collection
		}
		ft := f.Type
		for ft.Shape == engine.Pointer {
			ft = ft.Elem
		}
		switch {
		case ft.Shape == engine.List:
			key := t.Object + "." + name
			w.out[key] = max(w.out[key], 0)
			fields = append(fields, lengthField{key: key, field: f})
			if f.Relation == nil {
				w.shape(ft.Elem)
			}
		case ft.Shape == engine.Struct && len(w.shape(ft)) > 0:
			fields = append(fields, lengthField{field: f})
		}
	}
	w.shapes[t] = fields
	return fields
}

// walk notes the lists under v, a value of t.
func (w *lengthWalker) walk(v any, t *engine.Type) {
	switch t.Shape {
	case engine.Pointer:
		if v != nil && !t.IsNil(v) {
			w.walk(v, t.Elem)
		}
	case engine.List:
		if v == nil {
			return
		}
		for i := range t.Len(v) {
			w.walk(t.Index(v, i), t.Elem)
		}
	case engine.Struct:
		for _, f := range w.shapes[t] {
			if f.field.Relation != nil {
				w.note(f.key, f.field.Relation(w.snap, v), f.field.Type)
				continue
			}
			fv := f.field.Get(v)
			if f.key != "" {
				w.note(f.key, fv, f.field.Type)
			}
			w.walk(fv, f.field.Type)
		}
	}
}

// note keeps the length of the list v, of t or a pointer to it.
func (w *lengthWalker) note(key string, v any, t *engine.Type) {
	for t.Shape == engine.Pointer {
		if v == nil || t.IsNil(v) {
			return
		}
		t = t.Elem
	}
	if n := t.Len(v); n > w.out[key] {
		w.out[key] = n
	}
}

// lengthsCache keeps the lengths of the last few snapshots by version: a
// version names the data, so equal versions have equal lengths. The
// requests that first read a new snapshot compute its lengths once
// between them (2.7 ms for the embedded catalogue).
type lengthsCache struct {
	byVersion *lru.LRU[*listLengths]
	flight    singleflight.Group
}

func newLengthsCache() *lengthsCache {
	return &lengthsCache{byVersion: lru.New[*listLengths](4)}
}

// forRequest returns the lengths of the snapshot the request in ctx reads,
// computing them on the first request that reads it.
func (c *lengthsCache) forRequest(ctx context.Context) admission.Lengths {
	snap, err := loader.Snapshot(ctx)
	if err != nil || snap == nil {
		return nil
	}
	if l, ok := c.byVersion.Get(ctx, snap.Version()); ok {
		return l
	}
	// A pointer: the endpoint keeps costs per Lengths, so one snapshot's
	// must be one comparable value.
	l, _, _ := c.flight.Do(snap.Version(), func() (any, error) {
		l := lengthsOf(snap)
		c.byVersion.Add(ctx, snap.Version(), &l)
		return &l, nil
	})
	return l.(*listLengths)
}
