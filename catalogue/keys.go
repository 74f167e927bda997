package catalogue

import (
	"slices"
	"strconv"
	"unsafe"
)

// A Key names what an answer was built from, for a cache in front of the
// gateway to drop the answer when that changes: a record, written as its
// GraphQL type and id ("Item:42"), or a collection, written as its
// upstream name ("items"). A refresh that changes a record purges the
// record's key and its collection's key, so an answer that read a list of
// a collection (any change in it can change the list) carries the
// collection's key, and the collection's key stands in for every record
// key of that collection.
type Key struct {
	id         int64
	collection Collection
	record     bool
}

// RecordKey is the key of the record of collection c with the id, whether
// or not the collection holds one: an answer that found none is dropped
// when it arrives.
func RecordKey(c Collection, id int64) Key { return Key{id: id, collection: c, record: true} }

// CollectionKey is the key of collection c, read as a whole.
func CollectionKey(c Collection) Key { return Key{collection: c} }

// Collection is the collection the key names, or whose record it names.
func (k Key) Collection() Collection { return k.collection }

// String is the key as a cache is given it: "Item:42" or "items".
func (k Key) String() string { return string(k.append(nil)) }

func (k Key) append(b []byte) []byte {
	if !k.record {
		return append(b, k.collection.String()...)
	}
	b = append(b, k.collection.TypeName()...)
	b = append(b, ':')
	return strconv.AppendInt(b, k.id, 10)
}

// MaxKeysBytes bounds the keys one answer lists, written space-separated
// (see FormatKeys). A cache reads them from a response header: Varnish
// refuses a backend's header line longer than 8 KB by default
// (http_resp_hdr_len), and Fastly's and Cloudflare's limits are 16 KB; 4 KB
// leaves room for the header's name and the answer's other headers under
// the smallest of them, and holds about 350 record keys, more than a page
// of 50 records with their references names.
const MaxKeysBytes = 4 << 10

// FormatKeys writes keys as a cache's header lists them: distinct,
// sorted (collections first, then records by collection and id; the same
// set always gives the same string), separated by sep. keys is sorted in
// place. Past maxBytes, the record keys of the collection with the most of
// them give way to the collection's key, and so on until the list fits:
// since a record's change purges its collection's key too, nothing goes
// stale, the answer is only dropped more often. All thirteen collections'
// keys take under 120 bytes, so every list fits once collapsed.
func FormatKeys(keys []Key, sep byte, maxBytes int) string {
	if len(keys) == 0 {
		return ""
	}
	slices.SortFunc(keys, CompareKeys)
	keys = slices.Compact(keys)
	for {
		// About the longest key's length each: one allocation.
		b := make([]byte, 0, len(keys)*20)
		var records [NumCollections]int
		for _, k := range keys {
			if k.record {
				records[k.collection]++
			}
			if len(b) > 0 {
				b = append(b, sep)
			}
			b = k.append(b)
		}
		if len(b) <= maxBytes {
			return unsafe.String(unsafe.SliceData(b), len(b)) // b is not used again
		}
		most := Collection(0)
		for c := range NumCollections {
			if records[c] > records[most] {
				most = c
			}
		}
		if records[most] == 0 {
			return string(b) // only collections: cannot be smaller
		}
		keys = slices.DeleteFunc(keys, func(k Key) bool { return k.record && k.collection == most })
		if i, found := slices.BinarySearchFunc(keys, CollectionKey(most), CompareKeys); !found {
			keys = slices.Insert(keys, i, CollectionKey(most))
		}
	}
}

// CompareKeys orders keys as FormatKeys lists them: collections' keys before records' keys, each by
// collection, and records by id.
func CompareKeys(a, b Key) int {
	switch {
	case a.record != b.record:
		if a.record {
			return 1
		}
		return -1
	case a.collection != b.collection:
		return int(a.collection) - int(b.collection)
	case a.id < b.id:
		return -1
	case a.id > b.id:
		return 1
	}
	return 0
}
