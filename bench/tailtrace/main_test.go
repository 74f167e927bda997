package main

import (
	"bytes"
	"runtime/trace"
	"strings"
	"sync"
	"testing"
)

// spawned is where the test's goroutines start, for read to name.
func spawned(wg *sync.WaitGroup, in <-chan int, out chan<- int) {
	defer wg.Done()
	out <- <-in + 1
}

// TestReadNamesGoroutinesAndTheirWaits: from a real trace of this test,
// read counts the goroutines born by where they start, and finds each
// one's wait to run, in order.
func TestReadNamesGoroutinesAndTheirWaits(t *testing.T) {
	if trace.IsEnabled() {
		t.Skip("a trace is already being taken")
	}
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	const n = 20
	var wg sync.WaitGroup
	in, out := make(chan int), make(chan int, n)
	for range n {
		wg.Add(1)
		go spawned(&wg, in, out)
	}
	for i := range n {
		in <- i
	}
	wg.Wait()
	trace.Stop()

	s, err := read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	born := 0
	for fn, c := range s.created {
		if strings.HasSuffix(fn, ".spawned") {
			born += c
		}
	}
	if born != n {
		t.Errorf("%d goroutines counted as started in spawned, want %d (all: %v)", born, n, s.created)
	}
	ran := map[int64]bool{}
	for i, w := range s.waits {
		if w.to < w.from {
			t.Errorf("a wait ends (%d) before it starts (%d)", w.to, w.from)
		}
		if i > 0 && w.length() < s.waits[i-1].length() {
			t.Fatalf("waits not in order of length at %d", i)
		}
		if strings.HasSuffix(s.startIn[w.g], ".spawned") {
			ran[int64(w.g)] = true
		}
	}
	if len(ran) != n {
		t.Errorf("waits to run found for %d of the %d goroutines", len(ran), n)
	}
	var out2 bytes.Buffer
	s.report(&out2, 3)
	if !strings.Contains(out2.String(), "waits to run in") || !strings.Contains(out2.String(), "the 3 longest waits") {
		t.Errorf("report:\n%s", out2.String())
	}
}
