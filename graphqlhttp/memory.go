package graphqlhttp

import (
	"container/list"
	"math"
	"slices"
	"sync"
)

// Memory is the one budget that everything outliving a request draws
// from: the parsed documents (and the engine's plans, which live and are
// charged with their document), the engine's kept renderings, the response
// cache, the persisted queries, the WebSockets' outbound buffers and the
// catalogue's pictures (package pictures, which the wiring registers). Each
// store has a stated share of it (see Shares) and charges each entry at
// what it keeps on the heap: a parse by walking it, an entry with its key
// and the map and list that hold it, not only its payload. So the heap the
// stores hold together stays under the budget whatever clients send, and
// /metrics shows each store's bytes, entries and evictions (Stats).
//
// A nil *Memory is the default budget, DefaultMemoryBudget(0), whose
// stores are not reported.
type Memory struct {
	budget int64
	shares Shares

	mu     sync.Mutex
	stores []registered
}

type registered struct {
	name  string
	stats func() StoreStats
}

// Shares are the bytes each store may hold: the budget split as
// ShareOf says.
type Shares struct {
	// Documents holds query texts with their parses and plans, and the
	// verdicts on refused or invalid texts.
	Documents int64
	// Renderings holds the engine's kept renderings of records, for the
	// newest snapshot.
	Renderings int64
	// ResponseCache holds whole answers; -response-cache-bytes may cap
	// it lower (see ResponseCacheBytes).
	ResponseCache int64
	// PersistedQueries holds the texts of automatic persisted queries.
	PersistedQueries int64
	// WebSocketBuffers is what all WebSocket connections together may
	// queue to send (Options.WebSocketBudgetBytes); one connection, at
	// most a MiB of it (Options.WebSocketBufferBytes).
	WebSocketBuffers int64
	// Pictures holds the catalogue's pictures the gateway fetched, and
	// the verdicts on those it could not (package pictures).
	Pictures int64
}

// Percentages of the budget, one per store; they add up to 100. The
// response cache has the largest share because it saves the most work per
// byte; documents come next because a parse weighs 30-100 times its text
// (a 10 KB query parses to about 1 MB) and every new query needs one;
// renderings pay off only while the same records are asked for again, the
// persisted queries hold texts only, the WebSockets' share bounds what
// connections that stop reading can hold, and the pictures' share keeps
// the pictures a page shows (a few tens of KB each) from being fetched
// again, with the disk cache (-cache-dir) behind it for the rest. The
// pictures' tenth came from documents (25 to 20) and renderings (20 to
// 15), so the response cache keeps the 64 MiB of the fixed budget.
const (
	documentsPercent        = 20
	renderingsPercent       = 15
	responseCachePercent    = 40
	persistedQueriesPercent = 5
	webSocketBuffersPercent = 10
	picturesPercent         = 10
)

// FixedMemoryBudget is the budget when no memory limit is set: 160 MiB,
// whose response cache share is the 64 MiB that -response-cache-bytes
// promises by default, entries charged with their overhead.
const FixedMemoryBudget = 160 << 20

// DefaultMemoryBudget is the budget for a heap bounded by memoryLimit
// (GOMEMLIMIT, or the limit derived from the cgroup), or FixedMemoryBudget
// when memoryLimit is 0 or math.MaxInt64 (no limit). It is a quarter of
// the limit: the rest is for the snapshot being served, a refresh holding
// a second snapshot's bodies beside it (the manifests' 2 × 13 × 6 MiB of
// 256 MiB; deploy/deploy_test.go checks the sum) and the requests in
// flight.
func DefaultMemoryBudget(memoryLimit int64) int64 {
	if memoryLimit <= 0 || memoryLimit == math.MaxInt64 {
		return FixedMemoryBudget
	}
	return memoryLimit / 4
}

// NewMemory returns a budget of budget bytes (DefaultMemoryBudget(0) when
// 0 or less), split into its shares.
func NewMemory(budget int64) *Memory {
	if budget <= 0 {
		budget = DefaultMemoryBudget(0)
	}
	// p % of the budget, exact to the byte, with no product that could
	// overflow whatever the budget.
	pct := func(p int64) int64 { return budget/100*p + budget%100*p/100 }
	return &Memory{budget: budget, shares: Shares{
		Documents:        pct(documentsPercent),
		Renderings:       pct(renderingsPercent),
		ResponseCache:    pct(responseCachePercent),
		PersistedQueries: pct(persistedQueriesPercent),
		WebSocketBuffers: pct(webSocketBuffersPercent),
		Pictures:         pct(picturesPercent),
	}}
}

// Budget is the whole budget in bytes.
func (m *Memory) Budget() int64 {
	if m == nil {
		return DefaultMemoryBudget(0)
	}
	return m.budget
}

// Shares are the budget's shares.
func (m *Memory) Shares() Shares {
	if m == nil {
		return NewMemory(0).shares
	}
	return m.shares
}

// ResponseCacheBytes is the response cache's bound: its share, or
// capBytes if that is lower (the -response-cache-bytes flag). 0 or less
// turns the cache off.
func (m *Memory) ResponseCacheBytes(capBytes int64) int64 {
	if capBytes <= 0 {
		return 0
	}
	return min(capBytes, m.Shares().ResponseCache)
}

// StoreStats is what a store holds now.
type StoreStats struct {
	// Store names it: documents, renderings, response_cache,
	// persisted_queries, websocket_buffers, pictures.
	Store string
	// Bytes is what its entries are charged, Share its bound.
	Bytes, Share int64
	// Entries is how many it holds.
	Entries int
	// Evictions counts the entries it let go to make room, or dropped
	// with their snapshot (the renderings).
	Evictions uint64
}

// Register adds a store to those Stats reports, replacing one registered
// under the same name before (an endpoint built again, whose stores are
// the ones now serving). A nil *Memory reports none.
func (m *Memory) Register(name string, stats func() StoreStats) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.stores {
		if m.stores[i].name == name {
			m.stores[i].stats = stats
			return
		}
	}
	m.stores = append(m.stores, registered{name, stats})
}

// Stats reports each registered store, by name.
func (m *Memory) Stats() []StoreStats {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	stores := slices.Clone(m.stores)
	m.mu.Unlock()
	out := make([]StoreStats, 0, len(stores))
	for _, s := range stores {
		st := s.stats()
		st.Store = s.name
		out = append(out, st)
	}
	return out
}

// chargedLRU is a least-recently-used map bounded by what its entries are
// charged: each Add says what the entry costs, and the oldest entries go
// until the total fits. It is not safe for concurrent use.
type chargedLRU[K comparable, V any] struct {
	max       int64
	items     map[K]*list.Element
	order     list.List // of *lruEntry[K, V], newest first
	bytes     int64
	evictions uint64
}

type lruEntry[K comparable, V any] struct {
	key   K
	value V
	size  int64
}

// lruEntryOverhead is what the LRU itself costs an entry, besides its key
// and value: the list element (48 bytes), the entry it points to (its key
// and value are counted by the caller, 16 bytes more for the size and the
// allocation's rounding) and the map slot, a pointer and the key again at
// Go's load factor (about 1.15 slots per entry, plus control bytes).
func lruEntryOverhead(keyBytes int64) int64 {
	return 48 + 16 + (keyBytes+8)*23/20 + 2
}

func newChargedLRU[K comparable, V any](maxBytes int64) *chargedLRU[K, V] {
	return &chargedLRU[K, V]{max: maxBytes, items: map[K]*list.Element{}}
}

// get returns the value of key, now the most recently used.
func (c *chargedLRU[K, V]) get(key K) (V, bool) {
	el, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruEntry[K, V]).value, true
}

// peek returns the value of key, leaving the order as it is.
func (c *chargedLRU[K, V]) peek(key K) (V, bool) {
	el, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	return el.Value.(*lruEntry[K, V]).value, true
}

// add keeps value under key, charged size bytes, unless size alone is
// over the bound; older entries go to make room. It reports whether the
// value is kept.
func (c *chargedLRU[K, V]) add(key K, value V, size int64) bool {
	if size > c.max {
		return false
	}
	if el, ok := c.items[key]; ok {
		e := el.Value.(*lruEntry[K, V])
		c.bytes += size - e.size
		e.value, e.size = value, size
		c.order.MoveToFront(el)
	} else {
		c.items[key] = c.order.PushFront(&lruEntry[K, V]{key, value, size})
		c.bytes += size
	}
	c.evict()
	return true
}

// grow charges the entry of key n more bytes, if it is still kept; it
// reports whether it was.
func (c *chargedLRU[K, V]) grow(key K, n int64) bool {
	el, ok := c.items[key]
	if !ok {
		return false
	}
	el.Value.(*lruEntry[K, V]).size += n
	c.bytes += n
	c.evict()
	_, ok = c.items[key]
	return ok
}

func (c *chargedLRU[K, V]) evict() {
	for c.bytes > c.max {
		el := c.order.Back()
		e := el.Value.(*lruEntry[K, V])
		c.order.Remove(el)
		delete(c.items, e.key)
		c.bytes -= e.size
		c.evictions++
	}
}

func (c *chargedLRU[K, V]) stats() StoreStats {
	return StoreStats{Bytes: c.bytes, Share: c.max, Entries: len(c.items), Evictions: c.evictions}
}

// heapSize is what an allocation of n bytes takes on Go's heap: n rounded
// up to the allocator's size class (runtime/sizeclasses.go), or to whole
// pages past 32 KiB.
func heapSize(n int64) int64 {
	if n <= 0 {
		return 0
	}
	if n > 32<<10 {
		return (n + 8191) &^ 8191
	}
	i, _ := slices.BinarySearch(sizeClasses[:], n)
	return sizeClasses[i]
}

var sizeClasses = [...]int64{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048,
	2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880,
	12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}
