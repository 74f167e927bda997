package telemetry

import (
	"io"
	"sync"
	"time"
)

// LogBuffer gathers log lines and writes them in batches: at most every
// flushEvery, when maxBuffered bytes are waiting, and on Close. With an
// access log line per request, a write to stderr per line cost a fifth of
// the throughput of answers served from the cache; a batch costs one write
// for hundreds of lines, and a line waits at most flushEvery to be seen.
//
// Each Write must be whole lines, as slog's handlers write one record per
// call; lines are never split between two writes to the underlying writer.
type LogBuffer struct {
	mu   sync.Mutex
	w    io.Writer
	buf  []byte
	stop chan struct{}
	done chan struct{}
}

const (
	flushEvery  = 100 * time.Millisecond
	maxBuffered = 64 << 10
)

// NewLogBuffer returns a buffer writing to w, flushing in the background
// until Close.
func NewLogBuffer(w io.Writer) *LogBuffer {
	b := &LogBuffer{w: w, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		t := time.NewTicker(flushEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				b.flush()
			case <-b.stop:
				return
			}
		}
	}()
	return b
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf)+len(p) > maxBuffered {
		b.flushLocked()
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *LogBuffer) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
}

// flushLocked writes what is waiting; a failed write drops it, since a log
// has nowhere to report its own failure. b.mu is held.
func (b *LogBuffer) flushLocked() {
	if len(b.buf) > 0 {
		b.w.Write(b.buf)
		b.buf = b.buf[:0]
	}
}

// Close stops the background flushing and writes what is waiting.
func (b *LogBuffer) Close() error {
	close(b.stop)
	<-b.done
	b.flush()
	return nil
}
