package resolvers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/resolvers"
)

// nestedQuery is what an item list page asks: 50 items, each with its
// crafting materials' items and the monsters that drop it.
const nestedQuery = `{ items(first: 50) { totalCount nodes {
	id name rarity value
	crafting { materials { amount item { id name rarity } } }
	monsterDrops { baseChance monster { id name combatLevel } }
} } }`

// BenchmarkNestedQuery measures one nested query through the GraphQL
// handler (no network) for several batching windows, reporting the
// batches each query costs. It is how loader.DefaultWait was chosen: the
// window must be long enough that a level's references meet in one batch,
// and no longer, since every level of a query waits it out once.
//
//	go test ./resolvers/ -run '^$' -bench NestedQuery -benchtime 2s
func BenchmarkNestedQuery(b *testing.B) {
	snap := embedded(b)
	body, _ := json.Marshal(map[string]string{"query": nestedQuery})
	for _, wait := range []time.Duration{20 * time.Microsecond, 100 * time.Microsecond, loader.DefaultWait, time.Millisecond, 5 * time.Millisecond} {
		b.Run(fmt.Sprintf("wait=%s", wait), func(b *testing.B) {
			var batches atomic.Int64
			// gqlgen's executor: the window is for the references its
			// concurrent resolvers ask for; a compiled plan asks for a
			// level's keys at once.
			h := resolvers.NewHandler(storeOf(snap), loader.Options{Wait: wait, OnBatch: func(string, int) { batches.Add(1) }},
				graphqlhttp.Options{Executor: execution.None})
			for b.Loop() {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
			b.ReportMetric(float64(batches.Load())/float64(b.N), "batches/op")
		})
	}
}

// BenchmarkLengthsOf measures the cost limit's walk of a whole snapshot
// for its lists' longest lengths, done once per snapshot.
func BenchmarkLengthsOf(b *testing.B) {
	snap := embedded(b)
	b.ReportAllocs()
	for b.Loop() {
		resolvers.LengthsOf(snap)
	}
}

// filteredQuery is bench/shapes.sh's filtered page: its term a variable,
// which the cost limit need not read.
const filteredQuery = `query($term: String) { items(first: 50, filter: {nameContains: $term}, orderBy: {field: VALUE, direction: DESC}) { nodes { id name value monsterDrops { monster { name combatLevel } } } } }`

// BenchmarkFilteredPage measures a filtered page, sent with its term as a
// variable, through the GraphQL handler and the engine (no network): the cost of a
// document whose variables cannot change its price is measured once.
//
//	go test ./resolvers/ -run '^$' -bench FilteredPage -benchmem
func BenchmarkFilteredPage(b *testing.B) {
	snap := embedded(b)
	h := resolvers.NewHandler(storeOf(snap), loader.Options{}, graphqlhttp.Options{Executor: resolvers.NewEngine(nil)})
	terms := []string{"sword", "e", "ring", "bone", "a"}
	bodies := make([][]byte, len(terms))
	for i, term := range terms {
		bodies[i], _ = json.Marshal(map[string]any{"query": filteredQuery, "variables": map[string]any{"term": term}})
	}
	i := 0
	for b.Loop() {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(bodies[i%len(bodies)]))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		i++
	}
}

// entitySelection is what a router asks of an item it resolves through
// _entities for another subgraph's list: the item's own fields, and a
// level of its references.
const entitySelection = `id name rarity value
	crafting { materials { amount item { id name rarity } } }
	monsterDrops { baseChance monster { id name combatLevel } }`

// BenchmarkEntities measures, in one run, the 50 items of a list's first
// page asked as a list and as the representations a router sends
// _entities (as variables, as routers send them), both answered by the
// engine, and _entities again by gqlgen's executor alone, through the
// GraphQL handler as served (no network). It reports each one's time per
// operation, and entities/list and gqlgen/engine, the ratios docs/speed.md
// quotes.
//
//	go test ./resolvers/ -run '^$' -bench Entities -benchtime 2s
func BenchmarkEntities(b *testing.B) {
	snap := embedded(b)
	engine := resolvers.NewHandler(storeOf(snap), loader.Options{}, graphqlhttp.Options{Executor: resolvers.NewEngine(nil)})
	gqlgen := resolvers.NewHandler(storeOf(snap), loader.Options{}, graphqlhttp.Options{Executor: execution.None})
	list, _ := json.Marshal(map[string]any{"query": `{ items(first: 50) { nodes { ` + entitySelection + ` } } }`})
	var reps []any
	for i := range 50 {
		reps = append(reps, map[string]any{"__typename": "Item", "id": snap.Items().IDAt(i)})
	}
	entities, _ := json.Marshal(map[string]any{"query": `query($r: [_Any!]!) { _entities(representations: $r) { ... on Item { ` + entitySelection + ` } } }`,
		"variables": map[string]any{"r": reps}})
	serve := func(h http.Handler, body []byte) time.Duration { return timePOST(b, h, body) }
	var inList, inEntities, inGQLGen time.Duration
	for b.Loop() {
		inList += serve(engine, list)
		inEntities += serve(engine, entities)
		inGQLGen += serve(gqlgen, entities)
	}
	n := float64(b.N)
	b.ReportMetric(float64(inList.Nanoseconds())/n, "list-ns/op")
	b.ReportMetric(float64(inEntities.Nanoseconds())/n, "entities-ns/op")
	b.ReportMetric(float64(inGQLGen.Nanoseconds())/n, "gqlgen-entities-ns/op")
	b.ReportMetric(float64(inEntities)/float64(inList), "entities/list")
	b.ReportMetric(float64(inGQLGen)/float64(inEntities), "gqlgen/engine")
}

// BenchmarkFilteredAgainstPlain measures bench/mix's two pages through
// the GraphQL handler and the engine (no network), interleaved in one
// run: 50 items with the monsters that drop them, plain, and filtered by
// a random one- or two-letter name term in a random order, sent as
// variables as a frontend sends them. It reports each one's time per
// request and filtered/plain, the ratio docs/speed.md quotes (the CPU a
// filtered page costs over the plain one; its answer is shorter when few
// names match, which the network leg, not measured here, would favour).
//
//	go test ./resolvers/ -run '^$' -bench FilteredAgainstPlain -count 6
func BenchmarkFilteredAgainstPlain(b *testing.B) {
	snap := embedded(b)
	h := resolvers.NewHandler(storeOf(snap), loader.Options{}, graphqlhttp.Options{Executor: resolvers.NewEngine(nil)})
	const selection = `{ nodes { id name value monsterDrops { monsterId monster { id name } } } }`
	plain, _ := json.Marshal(map[string]any{"query": `{ items(first: 50) ` + selection + ` }`})
	filtered := `query Items($term: String!, $order: ItemOrder!) { items(first: 50, filter: {nameContains: $term}, orderBy: $order) ` + selection + ` }`
	rng := rand.New(rand.NewPCG(1, 2))
	bodies := make([][]byte, 1000)
	for i := range bodies {
		term := string(rune('a' + rng.IntN(26)))
		if rng.IntN(2) == 0 {
			term += string(rune('a' + rng.IntN(26)))
		}
		order := map[string]string{"field": []string{"ID", "NAME", "VALUE"}[rng.IntN(3)], "direction": []string{"ASC", "DESC"}[rng.IntN(2)]}
		bodies[i], _ = json.Marshal(map[string]any{"query": filtered, "variables": map[string]any{"term": term, "order": order}})
	}
	serve := func(body []byte) time.Duration { return timePOST(b, h, body) }
	var inPlain, inFiltered time.Duration
	i := 0
	for b.Loop() {
		inPlain += serve(plain)
		inFiltered += serve(bodies[i%len(bodies)])
		i++
	}
	n := float64(b.N)
	b.ReportMetric(float64(inPlain.Nanoseconds())/n, "plain-ns/op")
	b.ReportMetric(float64(inFiltered.Nanoseconds())/n, "filtered-ns/op")
	b.ReportMetric(float64(inFiltered)/float64(inPlain), "filtered/plain")
}

// timePOST sends body to h's /graphql as a POST and returns how long h
// took, failing the benchmark unless the answer is a 200 with no errors.
func timePOST(b *testing.B, h http.Handler, body []byte) time.Duration {
	start := time.Now()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || bytes.Contains(rec.Body.Bytes(), []byte(`"errors"`)) {
		b.Fatalf("status %d: %.300s", rec.Code, rec.Body)
	}
	return time.Since(start)
}

// monsterPage is the explorer's monster page, as bench/mix asks it: a
// monster, its drops' items and the monsters that drop each of those.
const monsterPage = `query Monster($id: Int!) { monster(id: $id) { id name drops { itemId item { id name rarity droppedByMonsters { id name } } } } }`

// BenchmarkMonsterPage measures a random monster's page as a GET through
// the handler and the engine (no network, the response cache off), with
// no Accept-Encoding and with a browser's: the request path a CDN's
// misses take, entity keys and all (docs/speed.md, Entity keys).
//
//	go test ./resolvers/ -run '^$' -bench MonsterPage -benchmem -count 6
func BenchmarkMonsterPage(b *testing.B) {
	snap := embedded(b)
	monsters := snap.Monsters()
	urls := make([]string, monsters.Len())
	for i := range urls {
		vars, _ := json.Marshal(map[string]int64{"id": monsters.IDAt(i)})
		urls[i] = "/graphql?" + url.Values{"query": {monsterPage}, "variables": {string(vars)}}.Encode()
	}
	h := resolvers.NewHandler(storeOf(snap), loader.Options{}, graphqlhttp.Options{Executor: resolvers.NewEngine(nil)})
	for _, enc := range []string{"", "gzip, deflate, br, zstd"} {
		name := "identity"
		if enc != "" {
			name = "browser"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			r := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodGet, urls[r.IntN(len(urls))], nil)
				if enc != "" {
					req.Header.Set("Accept-Encoding", enc)
				}
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
