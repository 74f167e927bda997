// Package logtest gives tests a log destination they can read while a
// server, in other goroutines, writes to it.
package logtest

import (
	"bytes"
	"sync"
)

// Buffer is an io.Writer safe for concurrent use; its zero value is
// ready. Hand it to slog.NewJSONHandler or slog.NewTextHandler and read
// what was logged with String at any time.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
