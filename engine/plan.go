package engine

import (
	"sync/atomic"
	"unsafe"

	"github.com/99designs/gqlgen/graphql"
	"github.com/catalogue-gateway/gateway/catalogue"
)

// operationPlan is a query's root fields.
type operationPlan struct {
	fields []rootPlan
	// tables is the number of selections of records whose renderings are
	// kept: each has a slot (keepPlan.slot) in an execution's tables.
	tables int
	// incremental is set when the operation's @defer or @stream, for
	// the values its Boolean variables take (see planKey), asks for its
	// answer in parts.
	incremental bool
	// size is the length of the last answer, to size the next one's buffer;
	// keys, the number of entity keys it noted, to size the next one's.
	size atomic.Int64
	keys atomic.Int64
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
	typ     *Type       // the Go type written
	elem    *valuePlan  // of a pointer or a slice
	object  *objectPlan // of a struct
	// members are a union's plans, by object type name: each writes a
	// value of that type, and names it in typeName.
	members  map[string]*valuePlan
	typeName string
	// walks is set when the value can hold references (see hasRefs).
	walks bool
	// keep, for a struct that is a kind's records, is where its
	// renderings under this selection are kept (fragments.go).
	keep *keepPlan
}

// keepPlan names the renderings of a kind's records under one selection.
type keepPlan struct {
	kind catalogue.Kind
	// sel names the selection (see fragments.go), and slot is where an
	// execution keeps the table of its renderings once found.
	sel  selectionID
	slot int
	// id reads a record's id, given a pointer to its struct.
	id func(rec any) (int64, bool)
	// keyed is set when writing the selection notes entity keys (a
	// reference or a list under the record): its renderings are kept
	// with the keys they noted, so that a rendering copied notes them
	// too.
	keyed bool
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
	kindUnion
	kindEnum
)

// objectPlan writes a struct as a GraphQL object of the selected fields.
type objectPlan struct {
	fields []fieldPlan
}

// fieldPlan is one selected field of an object.
type fieldPlan struct {
	key      []byte // the response key, quoted, and a colon
	typename string // for __typename: the object's type, quoted
	// get reads a struct field or calls a method (Field.Get); relation,
	// else, reads a reverse relation from the snapshot (Field.Relation);
	// value writes what either read.
	get      func(v any) any
	relation func(s *catalogue.Snapshot, v any) any
	ref      *refPlan
	value    *valuePlan
	// lists is the collection a relation lists, whose key its answer
	// carries (see catalogue.Key).
	lists catalogue.Collection
}

// refPlan is a reference field: an id of the object, resolved through the
// request's loader of its kind.
type refPlan struct {
	kind catalogue.Kind
	// id reads the id the struct names (generated from the schema's @ref:
	// an id field, nullable or not, a JSON value, or a name looked up in
	// the snapshot), given a pointer to the struct.
	id func(s *catalogue.Snapshot, rec any) (int64, bool)
	// target writes the record, a pointer to its struct, and keep is
	// where the struct's plan keeps its renderings (nil for none).
	target *valuePlan
	keep   *keepPlan
	// collection is the kind's, for the keys of the records named;
	// byName names its records by name, a lookup among the whole
	// collection (see catalogue.Key).
	collection catalogue.Collection
	byName     bool
}

// planSize estimates the heap a plan holds, for the memory budget: each
// struct and slice it allocated, rounded up as the allocator rounds them.
// What it points into (the document's parse, the schema, the tables) is
// charged elsewhere or kept anyway. A declined plan is nil, and costs only
// its memo entry.
func planSize(p *operationPlan) int64 {
	if p == nil {
		return 0
	}
	n := roundUp(int64(unsafe.Sizeof(*p))) + roundUp(int64(cap(p.fields))*int64(unsafe.Sizeof(rootPlan{})))
	for i := range p.fields {
		rp := &p.fields[i]
		n += roundUp(int64(cap(rp.key))) + roundUp(int64(cap(rp.field.Selections))*16) + valueSize(rp.value)
		if rp.args != nil {
			// A small map: its header, one group of 8 slots of a
			// string and an interface, and the values boxed.
			n += 48 + 8*(16+16) + int64(len(rp.args))*32
		}
	}
	return n
}

func valueSize(p *valuePlan) int64 {
	if p == nil {
		return 0
	}
	n := roundUp(int64(unsafe.Sizeof(*p))) + valueSize(p.elem)
	if p.keep != nil {
		n += roundUp(int64(unsafe.Sizeof(*p.keep)))
	}
	if p.members != nil {
		// A small map: its header and a group of slots per 8 members.
		n += 48 + int64((len(p.members)+7)/8)*8*(16+8)
		for _, m := range p.members {
			n += valueSize(m)
		}
	}
	if p.object != nil {
		n += roundUp(int64(unsafe.Sizeof(*p.object))) + roundUp(int64(cap(p.object.fields))*int64(unsafe.Sizeof(fieldPlan{})))
		for i := range p.object.fields {
			f := &p.object.fields[i]
			n += roundUp(int64(cap(f.key))) + roundUp(int64(len(f.typename))) + valueSize(f.value)
			if f.ref != nil {
				n += roundUp(int64(unsafe.Sizeof(*f.ref))) + valueSize(f.ref.target)
			}
		}
	}
	return n
}

// roundUp is n rounded up to a multiple of 16, about what the allocator's
// size classes add to the small objects of a plan.
func roundUp(n int64) int64 { return (n + 15) &^ 15 }
