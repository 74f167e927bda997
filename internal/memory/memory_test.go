package memory_test

import (
	"math"
	"testing"

	"github.com/catalogue-gateway/gateway/internal/memory"
)

// TestShares: the shares add up to the budget at most, the default
// budget is a quarter of a memory limit (or the fixed one without), and
// -response-cache-bytes only lowers the cache's share.
func TestShares(t *testing.T) {
	for _, tt := range []struct {
		limit, want int64
	}{{0, memory.FixedBudget}, {math.MaxInt64, memory.FixedBudget}, {300 << 20, 75 << 20}} {
		if got := memory.DefaultBudget(tt.limit); got != tt.want {
			t.Errorf("memory.DefaultBudget(%d) = %d, want %d", tt.limit, got, tt.want)
		}
	}
	// With no memory limit, -response-cache-bytes' default (64 MiB, as
	// the contract states it) is what the response cache gets.
	if got := memory.NewBudget(memory.DefaultBudget(0)).ResponseCacheBytes(64 << 20); got != 64<<20 {
		t.Errorf("with no memory limit the response cache gets %d, want the 64 MiB default", got)
	}
	m := memory.NewBudget(72 << 20)
	s := m.Shares()
	if sum := s.Documents + s.Renderings + s.ResponseCache + s.PersistedQueries + s.WebSocketBuffers + s.Pictures + s.LiveQueries; sum > m.Bytes() || sum < m.Bytes()*99/100 {
		t.Errorf("shares %+v add up to %d, want the budget %d", s, sum, m.Bytes())
	}
	if got := m.ResponseCacheBytes(64 << 20); got != s.ResponseCache {
		t.Errorf("a cap over the share: %d, want the share %d", got, s.ResponseCache)
	}
	if got := m.ResponseCacheBytes(1 << 20); got != 1<<20 {
		t.Errorf("a cap under the share: %d, want the cap", got)
	}
	if got := m.ResponseCacheBytes(0); got != 0 {
		t.Errorf("-response-cache-bytes 0: %d, want the cache off", got)
	}
	m.Register("documents", func() memory.StoreStats { return memory.StoreStats{Bytes: 1} })
	m.Register("documents", func() memory.StoreStats { return memory.StoreStats{Bytes: 2} })
	if st := m.Stats(); len(st) != 1 || st[0].Bytes != 2 || st[0].Store != "documents" {
		t.Errorf("a store registered twice: %+v, want the second only", st)
	}
}
