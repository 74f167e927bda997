package resolvers

import (
	"context"
	"reflect"
	"strings"

	"github.com/99designs/gqlgen/graphql/handler/lru"
	"golang.org/x/sync/singleflight"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/loader"
)

// listLengths is the longest list each list field of the schema holds in
// one snapshot, keyed "Type.field": what the cost limit multiplies by (see
// graphqlhttp/cost.go). It is read off the records themselves, so it
// needs no table of its own: a record type's list fields are its slice
// fields, named by their json tags as gqlgen's autobind names them, and
// its reverse relations are catalogue.Relations.
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
	}, shapes: map[reflect.Type][]lengthField{}}
	for c := range catalogue.NumCollections {
		p := s.Part(c)
		if p == nil {
			// Its record type's fields are still known lists, of length 0.
			continue
		}
		records := reflect.ValueOf(p.Records())
		w.shape(records.Type().Elem())
		for i := range records.Len() {
			w.walk(records.Index(i))
		}
	}
	for _, k := range catalogue.Kinds {
		w.shape(k.GoType.Elem())
	}
	return w.out
}

type lengthWalker struct {
	snap   *catalogue.Snapshot
	out    listLengths
	shapes map[reflect.Type][]lengthField
}

// lengthField is a field of a struct that is, or may hold, a list.
type lengthField struct {
	key   string // "Type.field", for a list
	index []int
	typ   reflect.Type
	// relation is set for a reverse relation, read by the record's id
	// at index.
	relation func(s *catalogue.Snapshot, id int64) any
}

// shape returns the fields of struct type t worth walking, noting each
// list field of t, and of the structs under it, at length 0.
func (w *lengthWalker) shape(t reflect.Type) []lengthField {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t == numberType || t == jsonValueType {
		return nil
	}
	if fields, seen := w.shapes[t]; seen {
		return fields
	}
	w.shapes[t] = nil // a type that holds itself
	var fields []lengthField
	for _, sf := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "" || name == "-" {
			continue
		}
		ft := sf.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Slice && ft != jsonValueType:
			key := t.Name() + "." + name
			w.out[key] = max(w.out[key], 0)
			fields = append(fields, lengthField{key: key, index: sf.Index, typ: sf.Type})
			w.shape(ft.Elem())
		case ft.Kind() == reflect.Struct && ft != numberType && len(w.shape(ft)) > 0:
			fields = append(fields, lengthField{index: sf.Index, typ: sf.Type})
		}
	}
	for _, rel := range relationsOf[t] {
		key := rel.Owner + "." + rel.Field
		w.out[key] = max(w.out[key], 0)
		idField, _ := t.FieldByName("ID")
		fields = append(fields, lengthField{key: key, index: idField.Index, relation: rel.List})
	}
	w.shapes[t] = fields
	return fields
}

// walk notes the lists under v.
func (w *lengthWalker) walk(v reflect.Value) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Slice:
		for i := range v.Len() {
			w.walk(v.Index(i))
		}
	case reflect.Struct:
		for _, f := range w.shapes[v.Type()] {
			fv := v.FieldByIndex(f.index)
			if f.relation != nil {
				if n := reflect.ValueOf(f.relation(w.snap, fv.Int())).Len(); n > w.out[f.key] {
					w.out[f.key] = n
				}
				continue
			}
			if f.key != "" {
				for fv.Kind() == reflect.Pointer && !fv.IsNil() {
					fv = fv.Elem()
				}
				if fv.Kind() == reflect.Slice && fv.Len() > w.out[f.key] {
					w.out[f.key] = fv.Len()
				}
			}
			w.walk(fv)
		}
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
func (c *lengthsCache) forRequest(ctx context.Context) graphqlhttp.Lengths {
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
