package engine

import (
	"crypto/sha256"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/internal/memory"
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

// What a kept rendering costs besides its bytes: the slice header its
// place points to. A rendering is often tens of bytes ({"id":729} is 10),
// so overheads are much of its cost: counting the bytes alone once let
// 32 MiB of renderings hold 570 MB of heap. TestRenderingChargeTracksTheHeap
// checks these.
const renderingOverhead = 24

// tableOverhead is what a selection's table costs besides its places (8
// bytes per record of its kind): the table itself, the closure reading the
// snapshot's records (16), and its entry in the store's sync.Map: the key
// boxed in an interface (16), the map's node (48) and its share of the
// trie's inner nodes.
const tableOverhead = int64(unsafe.Sizeof(renderings{})) + 16 + 16 + 48 + 48

// selectionID names a selection of a record: a digest of the canonical
// form of the selection (see canonicalSelection). 128 bits of SHA-256:
// no two selections meet by chance, and no client can make two meet.
type selectionID [16]byte

func newSelectionID(canonical string) selectionID {
	sum := sha256.Sum256([]byte(canonical))
	return selectionID(sum[:16])
}

// sweepEvery is the least time between two sweeps of a full store (see
// fragmentStore.sweep): a table no request names for about this long can
// be dropped to make room for others.
const sweepEvery = time.Second

// fragmentStore holds the renderings written from one snapshot: a table
// for each selection, made when a request first names it. A rendering is
// never changed, so one found once is found for the rest of the request,
// even if its table is dropped meanwhile (see sweep).
//
// The tables are in a sync.Map, which is made for a map that only grows:
// a lookup writes no shared memory (behind a sync.RWMutex, every lookup
// passed the lock's reader count from core to core: a fifth of a nested
// query's CPU). An execution looks a selection's table up once (see
// execution.renderingsOf), and then each record's rendering by the
// record's position: one lookup in the snapshot's index by id and an
// atomic load, where one sync.Map keyed by selection and id, hashing both
// for every reference written, was a third of a nested page's CPU.
//
// What the store holds is charged to it (bytes, entries) and to the
// table it is in, so that dropping a table takes its charge away (see
// renderings.uncharge).
type fragmentStore struct {
	snap     *catalogue.Snapshot
	maxBytes int64
	tables   sync.Map // selectionID → *renderings
	bytes    atomic.Int64
	entries  atomic.Int64
	// swept is when the last sweep began (Unix nanoseconds; 0 before the
	// first); short says a rendering found no room since.
	swept atomic.Int64
	short atomic.Bool
	// of is the fragments the store is of: how often it may sweep, and
	// where its evictions are counted.
	of *fragments
}

// renderings are one selection's: a place for each record of the
// selection's kind, in the snapshot's upstream order. A place only ever
// holds a rendering of the snapshot's own record there (see place).
type renderings struct {
	store     *fragmentStore
	positions catalogue.Positions
	record    func(i int) any // the snapshot's record at a place
	kept      []atomic.Pointer[[]byte]
	// keys are, for a keyed selection (keepPlan.keyed), the entity keys
	// each rendering noted, set before its bytes; nil for any other.
	keys []atomic.Pointer[[]catalogue.Key]
	// named says a request named the table since the last sweep.
	named atomic.Bool
	// dropped says a sweep took the table out of its store; its charge,
	// bytes and entries, then go back to the store (see uncharge).
	dropped atomic.Bool
	bytes   atomic.Int64
	entries atomic.Int64
}

// fragments holds the store of the newest snapshot seen, bounded by the
// renderings' share of the memory budget.
type fragments struct {
	maxBytes int64
	// sweepEvery is the least time between two sweeps of a full store
	// (sweepEvery in New; tests change it).
	sweepEvery time.Duration
	store      atomic.Pointer[fragmentStore]
	// evictions counts the renderings dropped, with their snapshot or
	// their table.
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
		next := &fragmentStore{snap: snap, maxBytes: f.maxBytes, of: f}
		if f.store.CompareAndSwap(cur, next) {
			if cur != nil {
				f.evictions.Add(uint64(cur.entries.Load()))
			}
			return next
		}
	}
}

func (f *fragments) stats() memory.StoreStats {
	st := memory.StoreStats{Share: f.maxBytes, Evictions: f.evictions.Load()}
	if s := f.store.Load(); s != nil {
		st.Bytes, st.Entries = s.bytes.Load(), int(s.entries.Load())
	}
	return st
}

// table returns the renderings of selection sel, of records of kind k,
// making its table if there is room for it, or a sweep makes some; nil if
// there is none.
func (s *fragmentStore) table(sel selectionID, k catalogue.Kind, keyed bool) *renderings {
	if t, ok := s.tables.Load(sel); ok {
		t := t.(*renderings)
		t.name()
		if s.short.Load() {
			s.sweep()
		}
		return t
	}
	positions := s.snap.KindPositions(k)
	cost := tableCost(positions.Len(), keyed)
	if s.bytes.Load()+cost > s.maxBytes {
		s.sweep()
		if s.bytes.Load()+cost > s.maxBytes {
			return nil
		}
	}
	t := &renderings{store: s, positions: positions, record: s.snap.KindRecords(k),
		kept: make([]atomic.Pointer[[]byte], positions.Len())}
	if keyed {
		t.keys = make([]atomic.Pointer[[]catalogue.Key], positions.Len())
	}
	t.named.Store(true)
	got, loaded := s.tables.LoadOrStore(sel, t)
	if !loaded {
		t.charge(cost, 0)
	}
	return got.(*renderings)
}

// name marks t named since the last sweep. It writes only the first time,
// so that the tables most requests name are not passed from core to core.
func (t *renderings) name() {
	if !t.named.Load() {
		t.named.Store(true)
	}
}

// sweep makes room in a full store: it drops the tables no request named
// since the sweep before, and clears the mark of the others. A store
// that is full sweeps at most once every sweepEvery, whoever finds it
// full (a table with no room, or a table looked up after a rendering
// found none), so a table any request names once in that time stays,
// and a client that fills the share with selections nobody asks for
// again holds it for two sweeps at most, where it once held it for the
// snapshot's life. The sweep walks every table: on the request that
// finds the store full, at most once every sweepEvery.
func (s *fragmentStore) sweep() {
	now := time.Now().UnixNano()
	last := s.swept.Load()
	if now-last < int64(s.of.sweepEvery) || !s.swept.CompareAndSwap(last, now) {
		return
	}
	s.short.Store(false)
	s.tables.Range(func(sel, v any) bool {
		t := v.(*renderings)
		if !t.named.Swap(false) && s.tables.CompareAndDelete(sel, t) {
			t.dropped.Store(true)
			t.uncharge()
		}
		return true
	})
}

// charge adds what t keeps to t's charge and its store's. A table dropped
// meanwhile gives it back at once: whichever of the two sees the other's
// write (the sweep's dropped mark, or this charge) takes it off.
func (t *renderings) charge(bytes, entries int64) {
	s := t.store
	t.bytes.Add(bytes)
	t.entries.Add(entries)
	s.bytes.Add(bytes)
	s.entries.Add(entries)
	if t.dropped.Load() {
		t.uncharge()
	}
}

// uncharge takes a dropped table's charge off its store, counting its
// renderings as evicted.
func (t *renderings) uncharge() {
	s := t.store
	s.bytes.Add(-t.bytes.Swap(0))
	n := t.entries.Swap(0)
	s.entries.Add(-n)
	s.of.evictions.Add(uint64(n))
}

// tableCost is what a selection's table over n records is charged: a
// keyed one has a second place per record, for the keys.
func tableCost(n int, keyed bool) int64 {
	if keyed {
		return roundUp(int64(n)*8) + roundUp(int64(n)*8) + tableOverhead
	}
	return roundUp(int64(n)*8) + tableOverhead
}

// get returns the rendering kept of the snapshot's record with the given
// id.
func (r *renderings) get(id int64) ([]byte, bool) {
	i, ok := r.positions.Of(id)
	if !ok {
		return nil, false
	}
	return r.at(i)
}

// place returns the place of rec, a record with the given id, if rec is the
// snapshot's own record: a record of the same id made some other way (a
// copy with fewer fields, say) is written, never kept or taken for it.
func (r *renderings) place(id int64, rec any) (int, bool) {
	i, ok := r.positions.Of(id)
	if !ok || r.record(i) != rec {
		return 0, false
	}
	return i, true
}

// at returns the rendering kept at place i.
func (r *renderings) at(i int) ([]byte, bool) {
	if b := r.kept[i].Load(); b != nil {
		return *b, true
	}
	return nil, false
}

// keysAt returns the entity keys the rendering at place i noted when it
// was written; nil for a selection that notes none.
func (r *renderings) keysAt(i int) []catalogue.Key {
	if r.keys == nil {
		return nil
	}
	if k := r.keys[i].Load(); k != nil {
		return *k
	}
	return nil
}

// put keeps a copy of a rendering at place i, the first one written, while
// the store has room. With none, it marks the store short, for the next
// table looked up to sweep: a put is per record written, too often to
// read the clock. Puts at the same moment may each find room for
// themselves: the store can pass its bound by a rendering per core at
// most.
//
// keys are the entity keys writing it noted, kept with it (distinct) for a
// keyed selection, before the bytes: whoever finds the bytes finds them.
func (r *renderings) put(i int, b []byte, keys []catalogue.Key) {
	s := r.store
	if len(b) > maxFragmentBytes || r.kept[i].Load() != nil {
		return
	}
	if s.bytes.Load()+int64(len(b))+renderingOverhead > s.maxBytes {
		if !s.short.Load() {
			s.short.Store(true)
		}
		return
	}
	if r.keys != nil && r.keys[i].Load() == nil {
		ks := slices.Clone(keys)
		slices.SortFunc(ks, catalogue.CompareKeys)
		ks = slices.Clip(slices.Compact(ks))
		if r.keys[i].CompareAndSwap(nil, &ks) {
			r.charge(roundUp(int64(cap(ks))*int64(unsafe.Sizeof(catalogue.Key{})))+renderingOverhead, 0)
		}
	}
	kept := append([]byte(nil), b...) // its capacity is the allocation's
	if r.kept[i].CompareAndSwap(nil, &kept) {
		r.charge(int64(cap(kept))+renderingOverhead, 1)
	}
}
