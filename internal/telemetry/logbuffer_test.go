package telemetry

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer records each write to it separately.
type lockedBuffer struct {
	mu     sync.Mutex
	writes []string
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writes = append(b.writes, string(p))
	return len(p), nil
}

func (b *lockedBuffer) all() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.writes, "")
}

func TestLogBuffer(t *testing.T) {
	out := &lockedBuffer{}
	b := NewLogBuffer(out)
	var want bytes.Buffer
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 2000 {
				fmt.Fprintf(b, "{\"writer\":%d,\"line\":%d,\"pad\":%q}\n", w, i, strings.Repeat("x", i%100))
			}
		})
	}
	wg.Wait()
	for w := range 4 {
		for i := range 2000 {
			fmt.Fprintf(&want, "{\"writer\":%d,\"line\":%d,\"pad\":%q}\n", w, i, strings.Repeat("x", i%100))
		}
	}

	// Lines written are seen within a flush interval or so, without Close.
	deadline := time.Now().Add(5 * time.Second)
	for len(out.all()) < want.Len() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := len(out.all()); got != want.Len() {
		t.Fatalf("after waiting, %d bytes were written of %d", got, want.Len())
	}
	b.Close()

	out.mu.Lock()
	defer out.mu.Unlock()
	if len(out.writes) > 8000/10 {
		t.Errorf("8000 lines took %d writes; want them batched", len(out.writes))
	}
	lines := map[string]int{}
	for _, w := range out.writes {
		if len(w) > maxBuffered || !strings.HasSuffix(w, "\n") {
			t.Fatalf("a write of %d bytes that is not whole lines within the bound", len(w))
		}
		for l := range strings.Lines(w) {
			lines[l]++
		}
	}
	for l := range strings.Lines(want.String()) {
		if lines[l] != 1 {
			t.Fatalf("line %q written %d times, want once", l, lines[l])
		}
	}
}

func TestLogBufferClose(t *testing.T) {
	var out bytes.Buffer
	b := NewLogBuffer(&out)
	b.Write([]byte("last words\n"))
	b.Close()
	if out.String() != "last words\n" {
		t.Errorf("after Close the writer has %q, want the line", out.String())
	}
}
