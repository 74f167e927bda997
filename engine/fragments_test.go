package engine

import (
	"bytes"
	"runtime"
	"sync"
	"testing"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// TestFragmentStoreBounds: the store keeps the first rendering of a key, a
// copy of it, none over maxFragmentBytes, and no more once it is charged
// its share; a new snapshot drops them, counted as evictions.
func TestFragmentStoreBounds(t *testing.T) {
	f := fragments{maxBytes: 1 << 20}
	s := f.forSnapshot(catalogue.NewSnapshot())

	b := []byte(`{"name":"first"}`)
	s.put(fragmentKey{selectionID{1}, 1}, b)
	b[2] = 'X' // the caller's buffer is reused
	s.put(fragmentKey{selectionID{1}, 1}, []byte(`{"name":"second"}`))
	if got, ok := s.get(fragmentKey{selectionID{1}, 1}); !ok || string(got) != `{"name":"first"}` {
		t.Errorf("get = %q, %v; want the first rendering, as it was put", got, ok)
	}
	if _, ok := s.get(fragmentKey{selectionID{2}, 1}); ok {
		t.Error("a rendering found for another selection")
	}

	s.put(fragmentKey{selectionID{1}, 2}, bytes.Repeat([]byte("x"), maxFragmentBytes+1))
	if _, ok := s.get(fragmentKey{selectionID{1}, 2}); ok {
		t.Error("a rendering over maxFragmentBytes was kept")
	}

	full := bytes.Repeat([]byte("x"), maxFragmentBytes)
	for id := int64(3); s.bytes.Load()+maxFragmentBytes+renderingOverhead <= f.maxBytes; id++ {
		s.put(fragmentKey{selectionID{1}, id}, full)
	}
	s.put(fragmentKey{selectionID{9}, 9}, full)
	if _, ok := s.get(fragmentKey{selectionID{9}, 9}); ok {
		t.Error("a rendering was kept past the store's share")
	}
	if n := s.bytes.Load(); n > f.maxBytes {
		t.Errorf("the store holds %d bytes, over %d", n, f.maxBytes)
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

// TestFragmentStoreConcurrent: lookups and puts from many requests at once
// (run under -race) each see a rendering whole or not at all.
func TestFragmentStoreConcurrent(t *testing.T) {
	f := fragments{maxBytes: 1 << 20}
	s := f.forSnapshot(catalogue.NewSnapshot())
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				k := fragmentKey{selectionID{byte(i % 7)}, int64(i % 97)}
				want := []byte(`{"id":` + string(rune('0'+k.sel[0])) + `}`)
				if got, ok := s.get(k); ok && !bytes.Equal(got, want) {
					t.Errorf("goroutine %d: get(%v) = %q, want %q", g, k, got, want)
					return
				}
				s.put(k, want)
			}
		})
	}
	wg.Wait()
}

// TestRenderingChargeTracksTheHeap: what the store charges its renderings
// (their bytes and renderingOverhead) is within a fifth of what they add
// to the live heap, measured by the runtime, for renderings of the sizes
// answers keep (tens of bytes: {"id":729}).
func TestRenderingChargeTracksTheHeap(t *testing.T) {
	for _, size := range []int{10, 40, 200} {
		f := fragments{maxBytes: 1 << 30}
		s := f.forSnapshot(catalogue.NewSnapshot())
		b := bytes.Repeat([]byte("x"), size)
		var before, after runtime.MemStats
		// Two collections each time: what survives exactly one (sync.Pool's
		// victim caches, what waits on a finalizer) would otherwise be in
		// one measurement and not the other (see engine's
		// TestDocumentChargeTracksTheHeap).
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		const n = 50000
		for id := range int64(n) {
			s.put(fragmentKey{selectionID{byte(id), byte(id >> 8)}, id}, b)
		}
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&after)
		grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		charged := s.bytes.Load()
		runtime.KeepAlive(s)
		t.Logf("%d-byte renderings: charged %d bytes each, the heap grew %d", size, charged/n, grown/n)
		if ratio := float64(charged) / float64(grown); ratio < 0.8 || ratio > 1.25 {
			t.Errorf("%d-byte renderings: charged %d bytes, the heap grew %d (ratio %.2f, want 0.8-1.25)", size, charged, grown, ratio)
		}
	}
}
