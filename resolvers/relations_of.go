package resolvers

import (
	"reflect"

	"github.com/catalogue-gateway/gateway/catalogue"
)

var (
	numberType    = reflect.TypeFor[catalogue.Number]()
	jsonValueType = reflect.TypeFor[catalogue.JSONValue]()
)

// relationsOf are the reverse relations of each record type, by its Go
// struct: catalogue.Relations, generated from the schema's @reverse and
// @follow.
var relationsOf = func() map[reflect.Type][]catalogue.Relation {
	m := map[reflect.Type][]catalogue.Relation{}
	for _, r := range catalogue.Relations {
		m[r.OwnerType] = append(m[r.OwnerType], r)
	}
	return m
}()
