package engine

import (
	"reflect"

	"github.com/catalogue-gateway/gateway/catalogue"
)

var (
	numberType    = reflect.TypeFor[catalogue.Number]()
	jsonValueType = reflect.TypeFor[catalogue.JSONValue]()
)

// fieldKey names a field of the schema: its object type and its name.
type fieldKey struct{ typ, field string }

// The reference graph, as catalogue generates it from the schema's
// directives (@ref, @reverse, @follow), by the GraphQL field it answers:
// the engine reads a reference's id with its generated accessor and a
// relation's list from the snapshot, as the generated resolvers do.
var (
	references = func() map[fieldKey]*catalogue.Reference {
		m := map[fieldKey]*catalogue.Reference{}
		for i := range catalogue.References {
			r := &catalogue.References[i]
			m[fieldKey{r.Owner, r.Field}] = r
		}
		return m
	}()
	relations = func() map[fieldKey]reverseRelation {
		m := map[fieldKey]reverseRelation{}
		for _, r := range catalogue.Relations {
			list := r.List
			m[fieldKey{r.Owner, r.Field}] = reverseRelation{typ: reflect.TypeOf(list(nil, 0)),
				get: func(s *catalogue.Snapshot, id int64) reflect.Value { return reflect.ValueOf(list(s, id)) }}
		}
		return m
	}()
)

// reverseRelation is a reverse relation: the Go type of its list, and how
// to read it for a record's id.
type reverseRelation struct {
	typ reflect.Type
	get func(s *catalogue.Snapshot, id int64) reflect.Value
}

// recordType is the Go type of the records of kind k: a pointer to their
// struct.
func recordType(k catalogue.Kind) reflect.Type { return catalogue.Kinds[k].GoType }

// kindOf returns the kind of reference whose records are of type t.
func kindOf(t reflect.Type) (catalogue.Kind, bool) {
	for k, info := range catalogue.Kinds {
		if info.GoType == t {
			return catalogue.Kind(k), true
		}
	}
	return 0, false
}
