package catalogue

import (
	"encoding/binary"
	"hash"
	"math"
	"reflect"
)

// canonicalRecord writes the canonical bytes of the record *r to h.
func canonicalRecord(h hash.Hash, r any) { canonical(h, reflect.ValueOf(r).Elem()) }

// canonical writes v's canonical bytes to h: every field of a struct in
// order, whatever its json tag, each value with its length or a marker,
// so that no two different records write the same bytes. Records hold
// structs, pointers, slices, strings, numbers and booleans (records.go).
func canonical(h hash.Hash, v reflect.Value) {
	var n [8]byte
	word := func(x uint64) {
		binary.LittleEndian.PutUint64(n[:], x)
		h.Write(n[:])
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			canonical(h, v.Field(i))
		}
	case reflect.Pointer:
		if v.IsNil() {
			h.Write([]byte{0})
			return
		}
		h.Write([]byte{1})
		canonical(h, v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			h.Write([]byte{0})
			return
		}
		h.Write([]byte{1})
		word(uint64(v.Len()))
		if v.Type().Elem().Kind() == reflect.Uint8 {
			h.Write(v.Bytes())
			return
		}
		for i := range v.Len() {
			canonical(h, v.Index(i))
		}
	case reflect.String:
		word(uint64(v.Len()))
		h.Write([]byte(v.String()))
	case reflect.Bool:
		h.Write([]byte{byte(boolInt(v.Bool()))})
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		word(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		word(v.Uint())
	case reflect.Float32, reflect.Float64:
		word(math.Float64bits(v.Float()))
	default:
		panic("catalogue: a record holds a " + v.Type().String() + ", which canonical cannot write")
	}
}
