package gateway_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	coderws "github.com/coder/websocket"

	"github.com/catalogue-gateway/gateway/graphqlhttp/wstest"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
	"github.com/catalogue-gateway/gateway/internal/memlimit"
)

// TestStoreMetricsMove: /metrics reports each store of the memory budget,
// and what is reported moves as the stores fill: documents (and their
// evictions, with the smallest budget), renderings, the response cache
// and the persisted queries; none is charged past its share.
func TestStoreMetricsMove(t *testing.T) {
	u := newUpstreams(t)
	cfg := u.config(time.Hour, "")
	cfg.MemoryBudget = 8 << 20 // 1.6 MiB of documents: some are let go
	g := startGateway(t, cfg, nil)
	g.waitReady(t, readyWithin)

	series := func(name, store string) string { return fmt.Sprintf("%s{store=%q}", name, store) }
	before := g.metrics(t)
	if got := before["gateway_memory_budget_bytes"]; got != 8<<20 {
		t.Errorf("gateway_memory_budget_bytes = %v, want %d", got, 8<<20)
	}
	stores := []string{"documents", "renderings", "response_cache", "persisted_queries"}
	for _, s := range append(stores, "websocket_buffers", "pictures") {
		if _, ok := before[series("gateway_store_bytes", s)]; !ok {
			t.Fatalf("/metrics has no %s", series("gateway_store_bytes", s))
		}
	}
	// The WebSockets' share bounds what all of them queue; an open
	// connection is an entry.
	if got := before[series("gateway_store_share_bytes", "websocket_buffers")]; got != 8<<20/10 {
		t.Errorf("websocket_buffers share %v, want a tenth of the budget", got)
	}
	// The pictures' tenth (filled in pictures_test.go).
	if got := before[series("gateway_store_share_bytes", "pictures")]; got != 8<<20/10 {
		t.Errorf("pictures share %v, want a tenth of the budget", got)
	}
	ws := wstest.Connect(t, g.client, g.URL+"/graphql")
	if got := g.metrics(t)[series("gateway_store_entries", "websocket_buffers")]; got != 1 {
		t.Errorf("websocket_buffers entries %v with one WebSocket open, want 1", got)
	}
	ws.Conn.Close(coderws.StatusNormalClosure, "")

	// Documents: distinct valid queries, more than the share holds.
	for i := range 800 {
		g.graphQLOK(t, fmt.Sprintf("query Q%d { items(first: 2) { nodes { id name item: name } } }", i))
	}
	// Renderings: a reference followed.
	g.graphQLOK(t, `{ monsters(first: 5) { nodes { drops { item { id name } } } } }`)
	// A persisted query, registered with its text.
	const apq = `{ items(first: 1) { nodes { id } } }`
	sum := sha256.Sum256([]byte(apq))
	body, _ := json.Marshal(map[string]any{"query": apq, "extensions": map[string]any{
		"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(sum[:])}}})
	resp, err := g.client.Post(g.URL+"/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("persisted query: status %d", resp.StatusCode)
	}

	after := g.metrics(t)
	for _, s := range stores {
		bytes, share := after[series("gateway_store_bytes", s)], after[series("gateway_store_share_bytes", s)]
		if bytes <= before[series("gateway_store_bytes", s)] || after[series("gateway_store_entries", s)] == 0 {
			t.Errorf("%s: %v bytes and %v entries after filling it, %v bytes before; want them to grow",
				s, bytes, after[series("gateway_store_entries", s)], before[series("gateway_store_bytes", s)])
		}
		if bytes > share {
			t.Errorf("%s is charged %v bytes, over its share %v", s, bytes, share)
		}
	}
	if ev := after[series("gateway_store_evictions_total", "documents")]; ev == 0 {
		t.Errorf("800 documents in a 1.6 MiB share, and no eviction counted")
	}
	if t.Failed() {
		var lines []string
		for k, v := range after {
			if strings.HasPrefix(k, "gateway_store") {
				lines = append(lines, fmt.Sprintf("%s %v", k, v))
			}
		}
		t.Logf("store series:\n%s", strings.Join(lines, "\n"))
	}
}

// TestGCHeadroom: run as built, with no memory limit and no GOGC, the
// gateway lets the heap grow by at least memlimit.HeadroomFloor between
// collections (GOGC above Go's 100 over the embedded catalogue's small
// live heap); an explicit GOGC, or a memory limit, is left as it is.
func TestGCHeadroom(t *testing.T) {
	t.Parallel()
	bin := gatewaytest.Build(t)
	gogcOf := func(t *testing.T, env map[string]string) (gogc, live float64) {
		g := gatewaytest.Start(t, gatewaytest.Options{Binary: bin, Env: env})
		base := "http://" + g.Addr
		gatewaytest.WaitAnswering(t, base)
		// KeepHeadroom reads the live heap every second: wait for the
		// start-up garbage to be returned and two readings after it.
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(g.Logs.String(), "start-up garbage returned") {
			if time.Now().After(deadline) {
				t.Fatalf("no start-up garbage returned within 20 s; log: %s", g.Logs.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(2500 * time.Millisecond)
		m, err := gatewaytest.Scrape(base)
		if err != nil {
			t.Fatal(err)
		}
		return m["go_gc_gogc_percent"], m["go_gc_heap_live_bytes"]
	}
	t.Run("no limit, no GOGC: the floor", func(t *testing.T) {
		t.Parallel()
		gogc, live := gogcOf(t, nil)
		if live <= 0 || live >= memlimit.HeadroomFloor {
			t.Skipf("live heap %.0f bytes: not small enough for the floor to show", live)
		}
		if gogc <= 100 || gogc > memlimit.HighGCPercent || live*gogc/100 < memlimit.HeadroomFloor*0.99 && gogc < memlimit.HighGCPercent {
			t.Errorf("GOGC %.0f over a %.1f MiB live heap: want above 100, at most %d, letting it grow by %d MiB",
				gogc, live/(1<<20), memlimit.HighGCPercent, memlimit.HeadroomFloor>>20)
		}
	})
	t.Run("GOGC set: left as it is", func(t *testing.T) {
		t.Parallel()
		if gogc, _ := gogcOf(t, map[string]string{"GOGC": "100"}); gogc != 100 {
			t.Errorf("GOGC %.0f with GOGC=100 in the environment", gogc)
		}
	})
	t.Run("memory limit: the high GOGC", func(t *testing.T) {
		t.Parallel()
		if gogc, _ := gogcOf(t, map[string]string{"GOMEMLIMIT": "256MiB"}); gogc != memlimit.HighGCPercent {
			t.Errorf("GOGC %.0f under GOMEMLIMIT, want %d", gogc, memlimit.HighGCPercent)
		}
	})
}
