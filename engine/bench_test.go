package engine_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/resolvers"
)

// BenchmarkEngine measures the engine answering whole queries through the
// GraphQL handler (no network) over the embedded catalogue: what a field
// read costs shows in a page of many plain fields (wide), references and
// their kept renderings in a nested page, reverse relations in relations.
//
//	go test ./engine/ -run '^$' -bench Engine -benchmem -count 5
func BenchmarkEngine(b *testing.B) {
	st := embeddedStore(b)
	for _, bc := range []struct{ name, query string }{
		{"wide", `{ items(first: 200) { totalCount pageInfo { hasNextPage endCursor } nodes {
			id imageUrl name rarity value type healingAmount tradable limited description
			usedIn { cooking { cookingId } quests { questId amount } }
			crafting { materials { amount itemId } }
			monsterDrops { baseChance monsterId } } } }`},
		{"nested", `{ items(first: 50) { totalCount nodes {
			id name rarity value
			crafting { materials { amount item { id name rarity } } }
			monsterDrops { baseChance monster { id name combatLevel } } } } }`},
		{"relations", `{ items(first: 100) { nodes { id droppedByMonsters { id name } rewardedByQuests { id } ingredientOf { id } } } }`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			body, _ := json.Marshal(map[string]string{"query": bc.query})
			answered := &counting{Executor: resolvers.NewEngine(nil)}
			h := resolvers.NewHandler(st, loader.Options{}, graphqlhttp.Options{Executor: answered,
				Limits: admission.Limits{MaxBodyBytes: 1 << 20, MaxTokens: 1 << 20, MaxDepth: 20, MaxFields: 1 << 20,
					MaxAliases: 100, MaxDirectives: 100, MaxComplexity: 1 << 50}})
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK || bytes.Contains(rec.Body.Bytes(), []byte(`"errors"`)) {
					b.Fatalf("status %d: %.300s", rec.Code, rec.Body)
				}
			}
			if answered.answered.Load() == 0 {
				b.Fatal("the engine answered none: gqlgen did")
			}
		})
	}
}
