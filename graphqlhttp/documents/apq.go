package documents

import (
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/catalogue-gateway/gateway/internal/memory"
)

// PersistedQueries keeps the texts of automatic persisted queries by
// their hash, bounded in bytes by the persisted queries' share of the
// memory budget: each entry is charged its hash, its text and the LRU's
// overhead. (gqlgen's own cache is bounded by count, and a count of
// 64 KiB texts is no bound.)
type PersistedQueries struct {
	mu      sync.Mutex
	entries *memory.LRU[string, string]
}

var _ graphql.Cache[string] = (*PersistedQueries)(nil)

// NewPersistedQueries returns an empty store of at most maxBytes.
func NewPersistedQueries(maxBytes int64) *PersistedQueries {
	return &PersistedQueries{entries: memory.NewLRU[string, string](maxBytes)}
}

// Get returns the text kept under hash.
func (c *PersistedQueries) Get(_ context.Context, hash string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries.Get(hash)
}

// Add keeps query under hash, which gqlgen has checked is its SHA-256.
func (c *PersistedQueries) Add(_ context.Context, hash, query string) {
	// The key and the value are strings of their own: 2 string headers in
	// the entry, then the bytes of each.
	size := memory.LRUEntryOverhead(2*ptrSize) + 2*2*ptrSize + memory.HeapSize(int64(len(hash))) + memory.HeapSize(int64(len(query)))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries.Add(hash, query, size)
}

// Stats reports what the store holds, against its share.
func (c *PersistedQueries) Stats() memory.StoreStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries.Stats()
}
