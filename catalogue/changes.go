package catalogue

import (
	"cmp"
	"crypto/sha256"
	"slices"
)

// A snapshot's changes are said in keys, the names a cache in front of the
// gateway files answers under (a Surrogate-Key) and a client may keep its
// own entries by:
//
//   - a record's key is its GraphQL type and id, "Item:42" (RecordKey);
//   - a collection's key is its upstream name, "items" (Collection.String),
//     which every list of the collection and its REST body carry.
//
// A record's key is named when its record was added, removed, or changed
// in what the gateway decoded of it (its canonical bytes: every field of
// its struct, in order, whatever the upstream's spacing, the order of its
// members, or the members it has that the gateway does not read). A
// collection's key is named whenever its body's bytes changed: its REST
// body, served byte for byte, changed even when no record did.

// Change is what a snapshot changed of the one it was made from (see
// Snapshot.With): the collections whose bodies differ and the keys of the
// records and collections that changed.
type Change struct {
	// From and To are the versions of the snapshot before and after.
	From, To string
	// Collections are the collections whose bodies changed, in upstream
	// order; a collection that had no body before is not among them.
	Collections []Collection
	// Keys are, collection by collection in upstream order, the keys of
	// the records added, removed or changed, by id, then the collection's
	// own key.
	Keys []string
}

// historyLength is how many changes a snapshot remembers: a watcher that
// fell further behind than this hears only which collections changed (see
// ChangeSince). Snapshots are swapped in at most once per collection per
// refresh, and a watcher reads each as it comes, so it is never near.
const historyLength = 32

// diffParts is the change from old to new, parts of one collection: nil
// when old is nil (a collection's first body changes nothing a cache
// could hold) or the bodies are the same bytes.
func diffParts(old, new *Part) []string {
	if old == nil || new == nil || old == new || old.body.ETag() == new.body.ETag() {
		return nil
	}
	c := new.collection
	var keys []string
	a, b := old.digests(), new.digests()
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || len(a) > 0 && a[0].id < b[0].id: // removed
			keys = append(keys, RecordKey(c, a[0].id).String())
			a = a[1:]
		case len(a) == 0 || b[0].id < a[0].id: // added
			keys = append(keys, RecordKey(c, b[0].id).String())
			b = b[1:]
		default:
			if a[0].sum != b[0].sum {
				keys = append(keys, RecordKey(c, a[0].id).String())
			}
			a, b = a[1:], b[1:]
		}
	}
	return append(keys, c.String())
}

// change is the Change from s to n, n's parts being s's with some replaced.
func (s *Snapshot) change(n *Snapshot) Change {
	ch := Change{From: s.version, To: n.version}
	for c := range NumCollections {
		if keys := diffParts(s.parts[c], n.parts[c]); keys != nil {
			ch.Collections = append(ch.Collections, c)
			ch.Keys = append(ch.Keys, keys...)
		}
	}
	return ch
}

// ChangeSince is what s changed since the snapshot of version from: the
// collections whose bodies changed and the keys of what changed, over
// every snapshot swapped in since. ok is false when s does not remember
// as far back (a snapshot not made by With, or more than a few dozen
// changes ago); then Collections are still those whose bodies differ from
// tags, the bodies' ETags of the snapshot of version from
// (Snapshot.BodyETags), and Keys only those collections' keys. A
// collection that had no body in that snapshot is never named: its first
// body changes nothing a cache could hold.
func (s *Snapshot) ChangeSince(from string, tags [NumCollections]string) (ch Change, ok bool) {
	ch = Change{From: from, To: s.version}
	start := -1
	for i := len(s.history) - 1; i >= 0; i-- {
		if s.history[i].From == from {
			start = i
			break
		}
	}
	if start < 0 {
		now := s.BodyETags()
		for c := range NumCollections {
			if tags[c] != "" && now[c] != tags[c] {
				ch.Collections = append(ch.Collections, c)
				ch.Keys = append(ch.Keys, c.String())
			}
		}
		return ch, from == s.version
	}
	if start == len(s.history)-1 {
		h := s.history[start]
		return Change{From: from, To: s.version, Collections: h.Collections, Keys: h.Keys}, true
	}
	// Several changes: their union, collection by collection.
	var changed [NumCollections]bool
	seen := map[string]bool{}
	var byCollection [NumCollections][]string
	for _, h := range s.history[start:] {
		for _, c := range h.Collections {
			changed[c] = true
		}
		for _, k := range h.Keys {
			if !seen[k] {
				seen[k] = true
				c := keyCollection(k, h.Collections)
				byCollection[c] = append(byCollection[c], k)
			}
		}
	}
	for c := range NumCollections {
		if !changed[c] {
			continue
		}
		ch.Collections = append(ch.Collections, c)
		keys := byCollection[c]
		// The collection's key last, as in a single change.
		slices.SortStableFunc(keys, func(a, b string) int {
			return cmp.Compare(boolInt(a == c.String()), boolInt(b == c.String()))
		})
		ch.Keys = append(ch.Keys, keys...)
	}
	return ch, true
}

// keyCollection is the collection, among cs, that key k belongs to.
func keyCollection(k string, cs []Collection) Collection {
	for _, c := range cs {
		if k == c.String() || len(k) > len(c.TypeName()) && k[:len(c.TypeName())+1] == c.TypeName()+":" {
			return c
		}
	}
	return cs[0]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// recordDigest is a record's id and the digest of its canonical bytes.
type recordDigest struct {
	id  int64
	sum [16]byte
}

// digests returns the digests of the part's records, sorted by id, made on
// first use: only a collection that changes needs them, and the embedded
// catalogue never does. A record whose id an earlier record has is left
// out, as lookups by id leave it.
func (p *Part) digests() []recordDigest {
	p.digestOnce.Do(func() {
		p.digested = p.table.(interface{ digest() []recordDigest }).digest()
	})
	return p.digested
}

func (t *Table[T]) digest() []recordDigest {
	out := make([]recordDigest, 0, len(t.records))
	h := sha256.New()
	for i := range t.records {
		id := t.id(&t.records[i])
		if pos, _ := t.positions.Of(id); pos != i {
			continue // a duplicate
		}
		h.Reset()
		canonicalRecord(h, &t.records[i])
		var d recordDigest
		d.id = id
		copy(d.sum[:], h.Sum(nil))
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b recordDigest) int { return cmp.Compare(a.id, b.id) })
	return out
}
