package graphqlhttp

import (
	"fmt"
	"testing"
)

// TestChargedLRU: entries go oldest first once the charges pass the
// bound, each counted; an entry over the bound alone is not kept; growing
// an entry may evict others, or itself.
func TestChargedLRU(t *testing.T) {
	c := newChargedLRU[int, string](100)
	for i := range 5 {
		c.add(i, "x", 30)
	}
	if st := c.stats(); st.Entries != 3 || st.Bytes != 90 || st.Evictions != 2 {
		t.Errorf("5 entries of 30 in 100: %+v, want 3 kept and 2 evicted", st)
	}
	c.get(2) // now the newest
	c.add(5, "y", 30)
	if _, ok := c.peek(2); !ok {
		t.Error("an entry just used was evicted before older ones")
	}
	if c.add(6, "z", 101) {
		t.Error("an entry larger than the bound was kept")
	}
	if c.grow(2, 80); c.bytes > c.max {
		t.Errorf("%d bytes after growing, over %d", c.bytes, c.max)
	}
}

// TestHeapSize: sizes round up to the allocator's classes.
func TestHeapSize(t *testing.T) {
	for n, want := range map[int64]int64{0: 0, 1: 8, 8: 8, 9: 16, 33: 48, 1025: 1152, 32768: 32768, 32769: 40960} {
		if got := heapSize(n); got != want {
			t.Errorf("heapSize(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestPersistedQueriesBounded: persisted query texts are charged their
// text, hash and overhead, and stay within their share, the oldest let go.
func TestPersistedQueriesBounded(t *testing.T) {
	const share = 1 << 20
	c := newPersistedQueryCache(share)
	ctx := t.Context()
	text := string(make([]byte, 60<<10))
	for i := range 40 {
		c.Add(ctx, fmt.Sprintf("%064d", i), text)
		if st := c.stats(); st.Bytes > share {
			t.Fatalf("after %d texts of 60 KiB: charged %d, over the share %d", i+1, st.Bytes, share)
		}
	}
	st := c.stats()
	if st.Entries > share/(60<<10) || st.Evictions == 0 {
		t.Errorf("40 texts of 60 KiB in 1 MiB: %+v", st)
	}
	if _, ok := c.Get(ctx, fmt.Sprintf("%064d", 39)); !ok {
		t.Error("the newest persisted query was let go")
	}
	if _, ok := c.Get(ctx, fmt.Sprintf("%064d", 0)); ok {
		t.Error("the oldest persisted query is still kept")
	}
}
