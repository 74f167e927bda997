package memory_test

import (
	"testing"

	"github.com/catalogue-gateway/gateway/internal/memory"
)

// TestLRU: entries go oldest first once the charges pass the
// bound, each counted; an entry over the bound alone is not kept; growing
// an entry may evict others, or itself.
func TestLRU(t *testing.T) {
	c := memory.NewLRU[int, string](100)
	for i := range 5 {
		c.Add(i, "x", 30)
	}
	if st := c.Stats(); st.Entries != 3 || st.Bytes != 90 || st.Evictions != 2 {
		t.Errorf("5 entries of 30 in 100: %+v, want 3 kept and 2 evicted", st)
	}
	c.Get(2) // now the newest
	c.Add(5, "y", 30)
	if _, ok := c.Peek(2); !ok {
		t.Error("an entry just used was evicted before older ones")
	}
	if c.Add(6, "z", 101) {
		t.Error("an entry larger than the bound was kept")
	}
	if c.Grow(2, 80); c.Stats().Bytes > 100 {
		t.Errorf("%d bytes after growing, over 100", c.Stats().Bytes)
	}
}

// TestHeapSize: sizes round up to the allocator's classes.
func TestHeapSize(t *testing.T) {
	for n, want := range map[int64]int64{0: 0, 1: 8, 8: 8, 9: 16, 33: 48, 1025: 1152, 32768: 32768, 32769: 40960} {
		if got := memory.HeapSize(n); got != want {
			t.Errorf("memory.HeapSize(%d) = %d, want %d", n, got, want)
		}
	}
}
