package engine

import (
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/catalogue-gateway/gateway/catalogue"
)

// operationPlan is a query's root fields.
type operationPlan struct {
	fields []rootPlan
	// size is the length of the last answer, to size the next one's buffer.
	size atomic.Int64
}

// rootPlan is one root field: a call of its Root, or __typename.
type rootPlan struct {
	key      []byte // the response key, quoted, and a colon
	typename bool
	field    graphql.CollectedField
	root     Root
	// args are the field's arguments when they name no variable: the
	// same for every run, coerced once.
	args map[string]any
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
	kind catalogue.Kind
	// id reads the id the struct names (generated from the schema's @ref:
	// an id field, nullable or not, a JSON value, or a name looked up in
	// the snapshot), given a pointer to the struct.
	id func(s *catalogue.Snapshot, rec any) (int64, bool)
	// target writes the record, a pointer to its struct.
	target *valuePlan
	// node numbers the selection, for the renderings kept of it (see
	// fragments.go).
	node uint32
}
