// Package memory is the one budget that everything outliving a request
// draws from, and each store's stated share of it. The stores (the
// endpoint's documents, response cache and persisted queries, the engine's
// renderings, the WebSockets' buffers, the live queries, the pictures) charge their entries
// against their share and register what they hold, which /metrics shows.
// It imports nothing of this module.
package memory

import (
	"math"
	"slices"
	"sync"
)

// Budget is the one budget that everything outliving a request draws
// from: the parsed documents (and the engine's plans, which live and are
// charged with their document), the engine's kept renderings, the response
// cache, the persisted queries, the WebSockets' outbound buffers, the live
// queries' state between runs and the catalogue's pictures (package pictures, which the wiring registers). Each
// store has a stated share of it (see Shares) and charges each entry at
// what it keeps on the heap: a parse by walking it, an entry with its key
// and the map and list that hold it, not only its payload. So the heap the
// stores hold together stays under the budget whatever clients send, and
// /metrics shows each store's bytes, entries and evictions (Stats).
//
// A nil *Budget is the default budget, DefaultBudget(0), whose
// stores are not reported.
type Budget struct {
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
	// LiveQueries holds what each open live query (a query marked @live,
	// streamed) keeps between its runs: its text and variables, the keys
	// its last answer read and that answer's hash.
	LiveQueries int64
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
	ResponseCachePercent    = 40
	persistedQueriesPercent = 3
	webSocketBuffersPercent = 10
	picturesPercent         = 10
	liveQueriesPercent      = 2
)

// LimitDivisor is what DefaultBudget divides a memory limit by: the budget
// is a quarter of the heap's limit.
const LimitDivisor = 4

// FixedBudget is the budget when no memory limit is set: 160 MiB,
// whose response cache share is the 64 MiB that -response-cache-bytes
// promises by default, entries charged with their overhead.
const FixedBudget = 160 << 20

// DefaultBudget is the budget for a heap bounded by memoryLimit
// (GOMEMLIMIT, or the limit derived from the cgroup), or FixedBudget
// when memoryLimit is 0 or math.MaxInt64 (no limit). It is a quarter of
// the limit: the rest is for the snapshot being served, a refresh holding
// a second snapshot's bodies beside it (the manifests' 2 × 13 × 6 MiB of
// 256 MiB; deploy/deploy_test.go checks the sum) and the requests in
// flight.
func DefaultBudget(memoryLimit int64) int64 {
	if memoryLimit <= 0 || memoryLimit == math.MaxInt64 {
		return FixedBudget
	}
	return memoryLimit / LimitDivisor
}

// NewBudget returns a budget of budget bytes (DefaultBudget(0) when
// 0 or less), split into its shares.
func NewBudget(budget int64) *Budget {
	if budget <= 0 {
		budget = DefaultBudget(0)
	}
	// p % of the budget, exact to the byte, with no product that could
	// overflow whatever the budget.
	pct := func(p int64) int64 { return budget/100*p + budget%100*p/100 }
	return &Budget{budget: budget, shares: Shares{
		Documents:        pct(documentsPercent),
		Renderings:       pct(renderingsPercent),
		ResponseCache:    pct(ResponseCachePercent),
		PersistedQueries: pct(persistedQueriesPercent),
		WebSocketBuffers: pct(webSocketBuffersPercent),
		Pictures:         pct(picturesPercent),
		LiveQueries:      pct(liveQueriesPercent),
	}}
}

// Bytes is the whole budget in bytes.
func (b *Budget) Bytes() int64 {
	if b == nil {
		return DefaultBudget(0)
	}
	return b.budget
}

// Shares are the budget's shares.
func (b *Budget) Shares() Shares {
	if b == nil {
		return NewBudget(0).shares
	}
	return b.shares
}

// ResponseCacheBytes is the response cache's bound: its share, or
// capBytes if that is lower (the -response-cache-bytes flag). 0 or less
// turns the cache off.
func (b *Budget) ResponseCacheBytes(capBytes int64) int64 {
	if capBytes <= 0 {
		return 0
	}
	return min(capBytes, b.Shares().ResponseCache)
}

// StoreStats is what a store holds now.
type StoreStats struct {
	// Store names it: documents, renderings, response_cache,
	// persisted_queries, websocket_buffers, live_queries, pictures.
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
// the ones now serving). A nil *Budget reports none.
func (b *Budget) Register(name string, stats func() StoreStats) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range b.stores {
		if b.stores[i].name == name {
			b.stores[i].stats = stats
			return
		}
	}
	b.stores = append(b.stores, registered{name, stats})
}

// Stats reports each registered store, by name.
func (b *Budget) Stats() []StoreStats {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	stores := slices.Clone(b.stores)
	b.mu.Unlock()
	out := make([]StoreStats, 0, len(stores))
	for _, s := range stores {
		st := s.stats()
		st.Store = s.name
		out = append(out, st)
	}
	return out
}
