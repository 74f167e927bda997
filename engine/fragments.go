package engine

import (
	"crypto/sha256"
	"sync"
	"sync/atomic"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
)

// A record's rendering under one selection is fixed for a snapshot: the
// same fields, the same references resolved to the same records. So the
// engine keeps the bytes of each record a reference names, by selection
// and id, for the snapshot they were written from, and the next answer
// that names the record under that selection copies them: it neither loads
// the record nor walks or writes what is under it. Unlike the whole-answer
// cache, this works for every query that names the same records, whatever
// its page, filter or id, and whatever document asks: a selection is named
// by its canonical form (see selectionID), so two documents that select
// the same fields of a record share its renderings.
const (
	// maxFragmentBytes bounds one kept rendering: records under a deep
	// selection are written every time.
	maxFragmentBytes = 4 << 10
)

// renderingOverhead is what a kept rendering costs besides its bytes: its
// key and its slice header, each boxed in an interface of the sync.Map
// (24 bytes each), and the map's node holding them (48 bytes) with its
// share of the trie's inner nodes. A rendering is often tens of bytes
// ({"id":729} is 10), so the overhead is most of its cost: counting the
// bytes alone let 32 MiB of renderings hold 570 MB of heap.
// TestRenderingChargeTracksTheHeap checks it.
const renderingOverhead = 24 + 24 + 48 + 48

// selectionID names a selection of a record: a digest of the canonical
// form of the selection (see canonicalSelection). 128 bits of SHA-256:
// no two selections meet by chance, and no client can make two meet.
type selectionID [16]byte

func newSelectionID(canonical string) selectionID {
	sum := sha256.Sum256([]byte(canonical))
	return selectionID(sum[:16])
}

// fragmentKey names a rendering: a reference's selection and the id of
// the record.
type fragmentKey struct {
	sel selectionID
	id  int64
}

// fragmentStore holds the renderings written from one snapshot. Entries
// are only added, never changed or removed, so a rendering found once is
// found for the rest of the request.
//
// It is a sync.Map, which is made for a cache that only grows: a lookup
// writes no shared memory. Behind a sync.RWMutex, every lookup added to
// and took from the lock's reader count, one cache line that the cores
// passed back and forth; on 2 cores that was a fifth of a nested query's
// CPU.
type fragmentStore struct {
	snap     *catalogue.Snapshot
	maxBytes int64
	m        sync.Map // fragmentKey → []byte
	bytes    atomic.Int64
	entries  atomic.Int64
}

// fragments holds the store of the newest snapshot seen, bounded by the
// renderings' share of the memory budget.
type fragments struct {
	maxBytes int64
	store    atomic.Pointer[fragmentStore]
	// evictions counts the renderings dropped with their snapshot.
	evictions atomic.Uint64
}

// forSnapshot returns the store of snap, replacing the store of another
// snapshot: after a refresh, the old one's renderings go with it. (While
// requests of both snapshots overlap, the two may replace each other; each
// execution keeps the store it was given, so it stays right, only slower.)
func (f *fragments) forSnapshot(snap *catalogue.Snapshot) *fragmentStore {
	if snap == nil {
		return nil
	}
	for {
		cur := f.store.Load()
		if cur != nil && cur.snap == snap {
			return cur
		}
		next := &fragmentStore{snap: snap, maxBytes: f.maxBytes}
		if f.store.CompareAndSwap(cur, next) {
			if cur != nil {
				f.evictions.Add(uint64(cur.entries.Load()))
			}
			return next
		}
	}
}

func (f *fragments) stats() graphqlhttp.StoreStats {
	st := graphqlhttp.StoreStats{Share: f.maxBytes, Evictions: f.evictions.Load()}
	if s := f.store.Load(); s != nil {
		st.Bytes, st.Entries = s.bytes.Load(), int(s.entries.Load())
	}
	return st
}

func (s *fragmentStore) get(k fragmentKey) ([]byte, bool) {
	b, ok := s.m.Load(k)
	if !ok {
		return nil, false
	}
	return b.([]byte), true
}

// put keeps a copy of a rendering, while the store has room. Puts at the
// same moment may each find room for themselves: the store can pass its
// bound by a rendering per core at most.
func (s *fragmentStore) put(k fragmentKey, b []byte) {
	if len(b) > maxFragmentBytes || s.bytes.Load()+int64(len(b))+renderingOverhead > s.maxBytes {
		return
	}
	kept := append([]byte(nil), b...) // its capacity is the allocation's
	if _, loaded := s.m.LoadOrStore(k, kept); !loaded {
		s.bytes.Add(int64(cap(kept)) + renderingOverhead)
		s.entries.Add(1)
	}
}
