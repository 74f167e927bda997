package execution

import (
	"maps"
	"sync"
	"sync/atomic"
)

// Memo is what is kept of one valid document besides its parse: the
// engine's plans, the costs of its operations. It lives as long as the
// document is kept and is charged to it, so letting the document go frees
// it, and nothing else holds the parse. A nil *Memo keeps nothing.
type Memo struct {
	// charge adds to what the memo's document is charged, in the store
	// that keeps the document.
	charge func(bytes int64)

	// entries is replaced, never changed: Load, on every request that
	// runs the document, reads it without a lock (both cores asking for
	// one popular document no longer queue on a mutex); StoreNew, once
	// per key, copies it under mu. At most maxMemoEntries, so the copy is
	// small.
	mu      sync.Mutex
	entries atomic.Pointer[map[any]any]
}

// NewMemo returns an empty memo for a document that the caller keeps:
// what the memo keeps is charged to the document by charge.
func NewMemo(charge func(bytes int64)) *Memo { return &Memo{charge: charge} }

// maxMemoEntries bounds what one document keeps: an operation's cost is
// kept per snapshot, and a plan per operation and set of Boolean
// variables, so a document asked for all day would otherwise grow without
// end. Past it nothing more is kept, and the values are made each time.
const maxMemoEntries = 64

// memoEntryOverhead is a memo entry's map slot: two interfaces (16 bytes
// each) at Go's load factor.
const memoEntryOverhead = 2 * 16 * 23 / 20

// Load returns the value kept under key.
func (m *Memo) Load(key any) (any, bool) {
	if m == nil {
		return nil, false
	}
	p := m.entries.Load()
	if p == nil {
		return nil, false
	}
	v, ok := (*p)[key]
	return v, ok
}

// Store keeps value under key (a comparable value), charging the
// document size bytes for it (and its key, if that holds memory of its
// own) besides the map's own; a key already kept stays as it is.
func (m *Memo) Store(key, value any, size int64) {
	m.StoreNew(key, value, size)
}

// StoreNew is Store, reporting whether value was kept: false when key
// was already kept (by this call's caller or a concurrent one), the memo
// is full, or m is nil. Of callers racing to store one key, one alone is
// told true: what is to be done once per document is done by it.
func (m *Memo) StoreNew(key, value any, size int64) bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	var kept map[any]any
	if p := m.entries.Load(); p != nil {
		kept = *p
	}
	if _, ok := kept[key]; ok || len(kept) >= maxMemoEntries {
		m.mu.Unlock()
		return false
	}
	next := make(map[any]any, len(kept)+1)
	maps.Copy(next, kept)
	next[key] = value
	m.entries.Store(&next)
	m.mu.Unlock()
	m.charge(size + memoEntryOverhead)
	return true
}
