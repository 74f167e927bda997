package execution

import (
	"sync/atomic"
	"testing"
)

// TestMemo: a memo keeps the first value stored under a key, tells one of
// many racing stores that it won, holds at most maxMemoEntries, charges
// its document for what it keeps, and a nil memo keeps nothing. Loads run
// beside stores without a lock (go test -race).
func TestMemo(t *testing.T) {
	var charged atomic.Int64
	m := NewMemo(func(n int64) { charged.Add(n) })

	const racers = 8
	won := make(chan bool, racers)
	start := make(chan struct{})
	for i := range racers {
		go func() {
			<-start
			m.Load("plan") // beside the stores
			won <- m.StoreNew("plan", i, 100)
		}()
	}
	close(start)
	winners := 0
	for range racers {
		if <-won {
			winners++
		}
	}
	if winners != 1 {
		t.Errorf("%d of %d racing stores of one key were told they kept it, want 1", winners, racers)
	}
	first, ok := m.Load("plan")
	if !ok {
		t.Fatal("the stored key is not kept")
	}
	m.Store("plan", -1, 100)
	if v, _ := m.Load("plan"); v != first {
		t.Errorf("a second store replaced %v with %v; the first is kept", first, v)
	}
	if got, want := charged.Load(), int64(100+memoEntryOverhead); got != want {
		t.Errorf("the document was charged %d bytes for one entry, want %d", got, want)
	}

	for i := range 2 * maxMemoEntries {
		m.Store(i, i, 0)
	}
	kept := 0
	for i := range 2 * maxMemoEntries {
		if _, ok := m.Load(i); ok {
			kept++
		}
	}
	if kept != maxMemoEntries-1 { // "plan" holds one place
		t.Errorf("%d more entries kept, want %d: the memo holds %d", kept, maxMemoEntries-1, maxMemoEntries)
	}

	var none *Memo
	if none.StoreNew("x", 1, 0) {
		t.Error("a nil memo kept a value")
	}
	if _, ok := none.Load("x"); ok {
		t.Error("a nil memo gave a value")
	}
}
