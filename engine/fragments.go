package engine

import (
	"sync"
	"sync/atomic"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// A record's rendering under one selection is fixed for a snapshot: the
// same fields, the same references resolved to the same records. So the
// engine keeps the bytes of each record a reference names, by selection
// and id, for the snapshot they were written from, and the next answer
// that names the record under that selection copies them: it neither loads
// the record nor walks or writes what is under it. Unlike the whole-answer
// cache, this works for every query that names the same records, whatever
// its page, filter or id.
const (
	// maxFragmentBytes bounds one kept rendering: records under a deep
	// selection are written every time.
	maxFragmentBytes = 4 << 10
	// maxFragmentStoreBytes bounds all the renderings kept for a snapshot.
	maxFragmentStoreBytes = 32 << 20
)

// fragmentKey names a rendering: a reference's selection (a node of some
// plan, numbered when compiled) and the id of the record.
type fragmentKey struct {
	node uint32
	id   int64
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
	snap  *catalogue.Snapshot
	m     sync.Map // fragmentKey → []byte
	bytes atomic.Int64
}

// fragments holds the store of the newest snapshot seen.
type fragments struct {
	store atomic.Pointer[fragmentStore]
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
		next := &fragmentStore{snap: snap}
		if f.store.CompareAndSwap(cur, next) {
			return next
		}
	}
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
	if len(b) > maxFragmentBytes || s.bytes.Load()+int64(len(b)) > maxFragmentStoreBytes {
		return
	}
	if _, loaded := s.m.LoadOrStore(k, append([]byte(nil), b...)); !loaded {
		s.bytes.Add(int64(len(b)))
	}
}
