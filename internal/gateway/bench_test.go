package gateway_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"testing"

	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
	"github.com/catalogue-gateway/gateway/internal/memlimit"
)

// benchQueries are the queries docs/speed.md's tables measure: those
// of the side-by-side comparison with the Node.js peers (Q1–Q4), and a
// record page whose variables change with every request, so that the
// response cache cannot answer it.
var benchQueries = []struct {
	name, query string
	vars        func(i int) map[string]any
}{
	{"Q1", `{ item(id: 5) { id name value } }`, nil},
	{"Q2", `{ monsters(first: 100) { nodes { id name drops { itemId item { id name rarity } } } } }`, nil},
	{"Q3", `{ items(first: 200) { nodes { id name monsterDrops { monsterId monster { id name combatLevel } } } } }`, nil},
	{"Q4", `{ quests(first: 100) { nodes { questName questItems { item { name } } questRewards { item { name } } } } }`, nil},
	{"monster_page", `query Monster($id: Int!) { monster(id: $id) { id name combatLevel area
		drops { baseChance rarity item { id name rarity value } } } }`,
		func(i int) map[string]any { return map[string]any{"id": 1 + i%100} }},
}

// BenchmarkGraphQL measures each query through the gateway's whole HTTP
// handler (routing, CORS, loaders, limits, cache; no network, no access
// log), at the GOGC the gateway runs with under a memory limit: run by
// gqlgen's executor, by the compiled plans (the default), and answered
// from the response cache.
//
//	go test -run '^$' -bench GraphQL -benchmem ./internal/gateway/
func BenchmarkGraphQL(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(memlimit.HighGCPercent))
	for _, mode := range []struct {
		name       string
		cacheBytes int64
		plans      bool
	}{{"gqlgen", 0, false}, {"plans", 0, true}, {"cache", 64 << 20, true}} {
		cfg := config.Default()
		cfg.AccessLog = false
		cfg.ResponseCacheBytes = mode.cacheBytes
		cfg.Engine = mode.plans
		g := gatewaytest.New(b, gatewaytest.Options{Logger: slog.New(slog.DiscardHandler), Configure: func(c *config.Config) { *c = cfg }})
		h := g.Handler()
		for _, q := range benchQueries {
			b.Run(mode.name+"/"+q.name, func(b *testing.B) {
				bodies := make([][]byte, 100)
				for i := range bodies {
					req := map[string]any{"query": q.query}
					if q.vars != nil {
						req["variables"] = q.vars(i)
					}
					bodies[i], _ = json.Marshal(req)
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					rec := httptest.NewRecorder()
					req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(bodies[i%len(bodies)]))
					req.Header.Set("Content-Type", "application/json")
					h.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK || !bytes.HasPrefix(rec.Body.Bytes(), []byte(`{"data":`)) {
						b.Fatalf("status %d: %.300s", rec.Code, rec.Body)
					}
					b.SetBytes(int64(rec.Body.Len()))
					i++
				}
			})
		}
	}
}
