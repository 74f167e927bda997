package main

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
