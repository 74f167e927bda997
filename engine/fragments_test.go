package engine

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// embeddedItems returns the embedded snapshot and its items' ids.
func embeddedItems(t testing.TB) (*catalogue.Snapshot, []int64) {
	t.Helper()
	snap, err := catalogue.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	items := catalogue.KindTable[catalogue.Item](snap, catalogue.ItemKind)
	ids := make([]int64, items.Len())
	for i := range ids {
		ids[i] = items.IDAt(i)
	}
	return snap, ids
}

// TestFragmentStoreBounds: a selection's table keeps the first rendering
// at a place, a copy of it, and none over maxFragmentBytes; only the
// snapshot's own records have places; the store makes tables and keeps renderings
// only while it has room within its share (the tables were named since
// the last sweep, and the next is an hour away); a new snapshot drops
// them, counted as evictions.
func TestFragmentStoreBounds(t *testing.T) {
	snap, ids := embeddedItems(t)
	f := fragments{maxBytes: 1 << 20, sweepEvery: time.Hour}
	s := f.forSnapshot(snap)
	tab := s.table(selectionID{1}, catalogue.ItemKind, false)
	if tab == nil || len(tab.kept) != len(ids) {
		t.Fatalf("table = %v; want one with a place for each of the %d items", tab, len(ids))
	}
	if again := s.table(selectionID{1}, catalogue.ItemKind, false); again != tab {
		t.Error("a second lookup of a selection made another table")
	}
	tableCharge := s.bytes.Load()
	if tableCharge != tableCost(len(ids), false) {
		t.Errorf("one table charged %d bytes, want %d", tableCharge, tableCost(len(ids), false))
	}

	// ids[i] is the embedded items' i-th: their ids have no duplicates.
	b := []byte(`{"name":"first"}`)
	tab.put(0, b, nil)
	b[2] = 'X' // the caller's buffer is reused
	tab.put(0, []byte(`{"name":"second"}`), nil)
	if got, ok := tab.get(ids[0]); !ok || string(got) != `{"name":"first"}` {
		t.Errorf("get = %q, %v; want the first rendering, as it was put", got, ok)
	}
	if _, ok := s.table(selectionID{2}, catalogue.ItemKind, false).get(ids[0]); ok {
		t.Error("a rendering found for another selection")
	}
	if _, ok := tab.get(ids[1]); ok {
		t.Error("a rendering found for a record none was put for")
	}
	if _, ok := tab.get(-1); ok {
		t.Error("a rendering found for an id the snapshot lacks")
	}
	items := catalogue.KindTable[catalogue.Item](snap, catalogue.ItemKind)
	if i, ok := tab.place(ids[5], items.At(5)); !ok || i != 5 {
		t.Errorf("place of the snapshot's 6th item = %d, %t; want 5", i, ok)
	}
	copied := *items.At(5)
	if _, ok := tab.place(ids[5], &copied); ok {
		t.Error("a copy of a record has a place: its rendering would be taken for the snapshot's")
	}
	if _, ok := tab.place(-1, items.At(5)); ok {
		t.Error("an id the snapshot lacks has a place")
	}
	tab.put(1, bytes.Repeat([]byte("x"), maxFragmentBytes+1), nil)
	if _, ok := tab.get(ids[1]); ok {
		t.Error("a rendering over maxFragmentBytes was kept")
	}

	full := bytes.Repeat([]byte("x"), maxFragmentBytes)
	for i := 2; i < len(ids); i++ {
		if s.bytes.Load()+maxFragmentBytes+renderingOverhead > f.maxBytes {
			break
		}
		tab.put(i, full, nil)
	}
	last := len(ids) - 1
	if s.bytes.Load()+maxFragmentBytes+renderingOverhead <= f.maxBytes {
		t.Fatalf("the items filled only %d of %d bytes: the test needs a smaller share", s.bytes.Load(), f.maxBytes)
	}
	tab.put(last, full, nil)
	if _, ok := tab.get(ids[last]); ok {
		t.Error("a rendering was kept past the store's share")
	}
	if n := s.bytes.Load(); n > f.maxBytes {
		t.Errorf("the store holds %d bytes, over %d", n, f.maxBytes)
	}
	if s.table(selectionID{3}, catalogue.ItemKind, false) != nil {
		t.Error("a table was made past the store's share")
	}
	st := f.stats()
	if st.Entries < 2 || st.Bytes != s.bytes.Load() || st.Evictions != 0 {
		t.Errorf("stats %+v before a new snapshot", st)
	}
	f.forSnapshot(catalogue.NewSnapshot())
	if after := f.stats(); after.Entries != 0 || after.Evictions != uint64(st.Entries) {
		t.Errorf("stats %+v after a new snapshot; want the %d renderings of the old one counted as evicted", after, st.Entries)
	}
}

// TestFragmentStoreSweeps: a full store makes room by dropping the tables
// no request named since the sweep before, with their renderings, counted
// as evictions; the tables named meanwhile stay, renderings and all; it
// sweeps at most once every sweepEvery; a rendering put in a dropped
// table is not charged to the store.
func TestFragmentStoreSweeps(t *testing.T) {
	snap, ids := embeddedItems(t)
	const rendering = `{"id":1}`
	renderingCharge := int64(cap(append([]byte(nil), rendering...))) + renderingOverhead
	f := fragments{maxBytes: 3*tableCost(len(ids), false) + 2*renderingCharge, sweepEvery: time.Hour}
	s := f.forSnapshot(snap)
	tabs := make([]*renderings, 3)
	for i := range tabs {
		if tabs[i] = s.table(selectionID{byte(i)}, catalogue.ItemKind, false); tabs[i] == nil {
			t.Fatalf("no room for table %d of 3", i)
		}
		if i < 2 {
			tabs[i].put(0, []byte(rendering), nil)
		}
	}
	if n := s.bytes.Load(); n != f.maxBytes {
		t.Fatalf("three tables and two renderings charged %d bytes, want %d (the share)", n, f.maxBytes)
	}

	// The first sweep finds every table named since it was made: it
	// drops nothing, and clears their marks.
	if s.table(selectionID{9}, catalogue.ItemKind, false) != nil {
		t.Fatal("a fourth table was made in a store full of tables named since they were made")
	}
	if st := f.stats(); st.Entries != 2 || st.Evictions != 0 {
		t.Fatalf("after the first sweep: %+v; want the 2 renderings kept, none evicted", st)
	}
	s.table(selectionID{0}, catalogue.ItemKind, false) // named again: it stays

	// The next sweep is an hour away: nothing is dropped meanwhile.
	if s.table(selectionID{9}, catalogue.ItemKind, false) != nil {
		t.Fatal("the store swept again within sweepEvery")
	}
	s.swept.Store(0) // the hour has passed

	made := s.table(selectionID{9}, catalogue.ItemKind, false)
	if made == nil {
		t.Fatal("no table made after a sweep that could drop two")
	}
	if got, ok := s.tables.Load(selectionID{0}); !ok || got != tabs[0] {
		t.Error("the table named since the last sweep was dropped")
	}
	if b, ok := tabs[0].get(ids[0]); !ok || string(b) != rendering {
		t.Errorf("the kept table lost its rendering: %q, %t", b, ok)
	}
	for i := 1; i < 3; i++ {
		if _, ok := s.tables.Load(selectionID{byte(i)}); ok {
			t.Errorf("table %d, unnamed since the last sweep, is still kept", i)
		}
	}
	want := 2*tableCost(len(ids), false) + renderingCharge
	if st := f.stats(); st.Bytes != want || st.Entries != 1 || st.Evictions != 1 {
		t.Errorf("after dropping two tables: %+v; want %d bytes, 1 rendering kept and 1 evicted", st, want)
	}

	// A request still holding a dropped table may put in it: the store
	// is not charged for it.
	tabs[2].put(5, []byte(rendering), nil)
	if st := f.stats(); st.Bytes != want || st.Entries != 1 {
		t.Errorf("a rendering put in a dropped table was charged: %+v", st)
	}

	// A rendering with no room marks the store short (a put does not read
	// the clock), and the next table looked up sweeps, once it may.
	filler := s.table(selectionID{8}, catalogue.ItemKind, false)
	if filler == nil {
		t.Fatal("no room for a table where two were dropped")
	}
	long := bytes.Repeat([]byte("y"), 100)
	filler.put(1, long, nil)
	if _, ok := filler.get(ids[1]); ok || !s.short.Load() {
		t.Fatalf("a rendering past the share: kept %t, the store short %t; want not kept, short", ok, s.short.Load())
	}
	s.swept.Store(0)
	s.table(selectionID{9}, catalogue.ItemKind, false)
	if _, ok := s.tables.Load(selectionID{0}); ok || s.short.Load() {
		t.Errorf("after a lookup in a short store: table 0 (unnamed since the last sweep) kept %t, short %t; want it dropped", ok, s.short.Load())
	}
	filler.put(1, long, nil)
	if _, ok := filler.get(ids[1]); !ok {
		t.Error("the rendering found no room after the sweep")
	}
}

// TestFragmentStoreSweepsConcurrent: tables made, named, swept and
// written from many requests at once (run under -race), in a store that
// sweeps whenever it is full, leave the store charged exactly what its
// tables hold, each table what it keeps, and the store within its share
// but for a rendering per request.
func TestFragmentStoreSweepsConcurrent(t *testing.T) {
	snap, ids := embeddedItems(t)
	const requests = 8
	f := fragments{maxBytes: 5 * tableCost(len(ids), false)}
	s := f.forSnapshot(snap)
	var wg sync.WaitGroup
	for g := range requests {
		wg.Go(func() {
			for i := range 3000 {
				tab := s.table(selectionID{byte(g), byte(i % 13)}, catalogue.ItemKind, false)
				if tab == nil {
					continue
				}
				tab.put((g*31+i)%len(ids), bytes.Repeat([]byte("x"), 1+i%200), nil)
			}
		})
	}
	wg.Wait()
	var tableBytes, tableEntries int64
	s.tables.Range(func(_, v any) bool {
		tab := v.(*renderings)
		var kept int64
		for i := range tab.kept {
			if b, ok := tab.at(i); ok {
				kept++
				tableBytes += int64(cap(b)) + renderingOverhead
			}
		}
		if tab.entries.Load() != kept {
			t.Errorf("a table is charged %d renderings and keeps %d", tab.entries.Load(), kept)
		}
		tableBytes += tableCost(len(ids), false)
		tableEntries += kept
		return true
	})
	if got := s.bytes.Load(); got != tableBytes {
		t.Errorf("the store is charged %d bytes; its tables hold %d", got, tableBytes)
	}
	if got := s.entries.Load(); got != tableEntries {
		t.Errorf("the store is charged %d renderings; its tables keep %d", got, tableEntries)
	}
	if slack := int64(requests) * (maxFragmentBytes + renderingOverhead); s.bytes.Load() > f.maxBytes+slack {
		t.Errorf("the store holds %d bytes, over its share %d", s.bytes.Load(), f.maxBytes)
	}
	if f.evictions.Load() == 0 {
		t.Error("no rendering was evicted: the store never swept, and the test tests nothing")
	}
}

// TestFragmentStoreMissingKind: a selection of a kind whose collection
// the snapshot lacks has a table with no places.
func TestFragmentStoreMissingKind(t *testing.T) {
	f := fragments{maxBytes: 1 << 20}
	tab := f.forSnapshot(catalogue.NewSnapshot()).table(selectionID{1}, catalogue.ItemKind, false)
	if _, ok := tab.get(1); ok {
		t.Error("a rendering found for a kind the snapshot lacks")
	}
	if _, ok := tab.place(1, &catalogue.Item{ID: 1}); ok {
		t.Error("a record has a place in a kind the snapshot lacks")
	}
}

// TestFragmentStoreConcurrent: tables made and renderings looked up and
// put from many requests at once (run under -race) are one table per
// selection, and each rendering is seen whole or not at all.
func TestFragmentStoreConcurrent(t *testing.T) {
	snap, ids := embeddedItems(t)
	f := fragments{maxBytes: 1 << 20}
	s := f.forSnapshot(snap)
	tables := make([][7]*renderings, 8)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				sel := byte(i % 7)
				tab := s.table(selectionID{sel}, catalogue.ItemKind, false)
				tables[g][sel] = tab
				id := ids[i%97]
				want := []byte(`{"id":` + strconv.Itoa(int(sel)) + `}`)
				if got, ok := tab.get(id); ok && !bytes.Equal(got, want) {
					t.Errorf("goroutine %d: get(%d) = %q, want %q", g, id, got, want)
					return
				}
				tab.put(i%97, want, nil)
			}
		})
	}
	wg.Wait()
	for g := range tables {
		if tables[g] != tables[0] {
			t.Fatalf("goroutine %d found other tables than goroutine 0", g)
		}
	}
	if n := f.stats().Entries; n != 7*97 {
		t.Errorf("%d renderings kept, want %d (7 selections of 97 records)", n, 7*97)
	}
}

// TestRenderingChargeTracksTheHeap: what the store charges its tables and
// renderings (their bytes, renderingOverhead and tableCost) is within a
// fifth of what they add to the live heap, measured by the runtime, for
// renderings of the sizes answers keep (tens of bytes: {"id":729}).
func TestRenderingChargeTracksTheHeap(t *testing.T) {
	snap, ids := embeddedItems(t)
	const selections = 40
	for _, size := range []int{0, 10, 40, 200} {
		f := fragments{maxBytes: 1 << 30}
		s := f.forSnapshot(snap)
		b := bytes.Repeat([]byte("x"), size)
		var before, after runtime.MemStats
		// Two collections each time: what survives exactly one (sync.Pool's
		// victim caches, what waits on a finalizer) would otherwise be in
		// one measurement and not the other (see engine's
		// TestDocumentChargeTracksTheHeap).
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		for sel := range selections {
			tab := s.table(selectionID{byte(sel)}, catalogue.ItemKind, false)
			if size == 0 {
				continue // the tables alone
			}
			for i := range ids {
				tab.put(i, b, nil)
			}
		}
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&after)
		grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		charged := s.bytes.Load()
		runtime.KeepAlive(s)
		t.Logf("%d-byte renderings: charged %d bytes, the heap grew %d", size, charged, grown)
		if ratio := float64(charged) / float64(grown); ratio < 0.8 || ratio > 1.25 {
			t.Errorf("%d-byte renderings: charged %d bytes, the heap grew %d (ratio %.2f, want 0.8-1.25)", size, charged, grown, ratio)
		}
	}
}
