package resolvers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"
	"github.com/catalogue-gateway/gateway/graphqlhttp/answers"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/resolvers"
)

// getHeaders sends query as a GET and returns the answer's status and
// headers, the body read.
func getHeaders(t *testing.T, base, query string, vars map[string]any) (int, http.Header) {
	t.Helper()
	v := url.Values{"query": {query}}
	if vars != nil {
		b, _ := json.Marshal(vars)
		v.Set("variables", string(b))
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(base + "?" + v.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header
}

// TestEntityKeys: a complete GET answer lists, in Surrogate-Key and
// Cache-Tag, the records it read by type and id (found or not) and the
// collection of every list it read, whichever executor ran it.
func TestEntityKeys(t *testing.T) {
	snap := fixture(t)
	for _, executor := range []struct {
		name string
		exec execution.Executor
	}{{"engine", nil}, {"gqlgen", execution.None}} {
		t.Run(executor.name, func(t *testing.T) {
			srv := serveWith(t, storeOf(snap), loader.Options{}, graphqlhttp.Options{Executor: executor.exec})
			for _, tt := range []struct {
				name, query string
				vars        map[string]any
				want        string
			}{
				// Its drops' items by id (Item:999 names none), and each
				// item's droppedByMonsters, a list of monsters.
				{"a monster's page", `query($id: Int!) { monster(id: $id) { name drops { item { name droppedByMonsters { name } } } } }`,
					map[string]any{"id": 1}, "monsters Item:1 Item:2 Item:999 Monster:1"},
				{"a page", `{ items(first: 2) { nodes { id name } } }`, nil, "items"},
				{"a filtered, ordered page with facets", `{ monsters(first: 2, filter: {nameContains: "a"}, orderBy: {field: NAME}) { facets { field } nodes { name } } }`, nil, "monsters"},
				{"not found", `{ item(id: 99999) { name } }`, nil, "Item:99999"},
				{"not found, no loader", `{ worldBoss(id: 99999) { id } }`, nil, "WorldBoss:99999"},
				{"a follow relation", `{ monster(id: 1) { droppedItems { id } } }`, nil, "items Monster:1"},
				{"search", `{ search(text: "e") { name } }`, nil,
					"items monsters secretrares worldboss quests basecamp discovery mining cooking farming forestry fletching event"},
				{"by name", `{ quest(id: 2) { prerequisite { questName } } }`, nil, "quests Quest:1 Quest:2"},
			} {
				t.Run(tt.name, func(t *testing.T) {
					status, h := getHeaders(t, srv.URL, tt.query, tt.vars)
					if status != http.StatusOK {
						t.Fatalf("status %d", status)
					}
					if got := h.Get("Surrogate-Key"); got != tt.want {
						t.Errorf("Surrogate-Key = %q, want %q", got, tt.want)
					}
					if got, want := h.Get("Cache-Tag"), strings.ReplaceAll(tt.want, " ", ","); got != want {
						t.Errorf("Cache-Tag = %q, want %q", got, want)
					}
				})
			}
		})
	}
}

// TestEntityKeysOnlyOnCacheableAnswers: a POST answer, an answer with
// errors and a refused GET carry no keys.
func TestEntityKeysOnlyOnCacheableAnswers(t *testing.T) {
	srv := serve(t, storeOf(fixture(t)), loader.Options{})
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Post(srv.URL, "application/json", strings.NewReader(`{"query":"{ item(id: 1) { name } }"}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST: status %d", resp.StatusCode)
	}
	for name, h := range map[string]http.Header{"POST": resp.Header} {
		if k := h.Get("Surrogate-Key") + h.Get("Cache-Tag"); k != "" {
			t.Errorf("%s: keys %q, want none", name, k)
		}
	}
	for name, q := range map[string]string{
		"field error": `{ item(id: 1) { name } items(first: 5000) { totalCount } }`,
		"invalid":     `{ item(id: 1) { nope } }`,
	} {
		_, h := getHeaders(t, srv.URL, q, nil)
		if k := h.Get("Surrogate-Key") + h.Get("Cache-Tag"); k != "" {
			t.Errorf("%s: keys %q, want none", name, k)
		}
	}
}

// runs counts the operations an Executor was asked to run.
type runs struct {
	execution.Executor
	n atomic.Int64
}

func (r *runs) Execute(ctx context.Context, oc *graphql.OperationContext, memo *execution.Memo, maxBytes int) (execution.Answer, error) {
	r.n.Add(1)
	return r.Executor.Execute(ctx, oc, memo, maxBytes)
}

// TestEntityKeysFromTheCache: an answer from the response cache lists the
// keys its run noted.
func TestEntityKeysFromTheCache(t *testing.T) {
	exec := &runs{Executor: resolvers.NewEngine(nil)}
	srv := serveWith(t, storeOf(fixture(t)), loader.Options{}, graphqlhttp.Options{Executor: exec, Cache: answers.NewCache(1 << 20)})
	const q = `{ monster(id: 1) { name drops { item { name } } } }`
	_, first := getHeaders(t, srv.URL, q, nil)
	_, second := getHeaders(t, srv.URL, q, nil)
	if n := exec.n.Load(); n != 1 {
		t.Fatalf("ran %d times, want once and a hit", n)
	}
	const want = "Item:1 Item:2 Item:999 Monster:1"
	for name, h := range map[string]http.Header{"run": first, "hit": second} {
		if got := h.Get("Surrogate-Key"); got != want {
			t.Errorf("%s: Surrogate-Key = %q, want %q", name, got, want)
		}
		if got := h.Get("Cache-Tag"); got != strings.ReplaceAll(want, " ", ",") {
			t.Errorf("%s: Cache-Tag = %q", name, got)
		}
	}
}

// TestEntityKeysBounded: an answer that read more records than the bound
// lists collapses the collection with the most to its key, and stays
// within catalogue.MaxKeysBytes.
func TestEntityKeysBounded(t *testing.T) {
	snap := embedded(t)
	limits := admission.Limits{MaxBodyBytes: 1 << 20, MaxURLBytes: 1 << 20, MaxTokens: 1 << 20, MaxDepth: 20, MaxFields: 1 << 20,
		MaxAliases: 100, MaxDirectives: 100, MaxComplexity: 1 << 50}
	srv := serveWith(t, storeOf(snap), loader.Options{}, graphqlhttp.Options{Limits: limits})
	// Every item's monsters, materials and quests' items by id: over
	// 5 KB of keys, most of them items'.
	status, h := getHeaders(t, srv.URL, `{ items(first: 1000) { nodes { monsterDrops { monster { id } } crafting { materials { item { id } } } } }
		quests(first: 1000) { nodes { questItems { item { id } } questRewards { item { id } } } }
		monsters(first: 1000) { nodes { drops { item { id } } } } }`, nil)
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	got := h.Get("Surrogate-Key")
	if len(got) == 0 || len(got) > catalogue.MaxKeysBytes {
		t.Fatalf("Surrogate-Key is %d bytes, want 1 to %d", len(got), catalogue.MaxKeysBytes)
	}
	keys := strings.Fields(got)
	if keys[0] != "items" {
		t.Errorf("Surrogate-Key starts %q, want the page's items", keys[0])
	}
	monsters := 0
	for _, k := range keys {
		if strings.HasPrefix(k, "Monster:") {
			monsters++
		}
	}
	if monsters == 0 {
		t.Errorf("Surrogate-Key lists no monster: only the items' keys, the most, should have collapsed (%.200s)", got)
	}
	for _, k := range keys {
		if strings.HasPrefix(k, "Item:") {
			t.Errorf("Surrogate-Key lists %s: the items' keys should have collapsed to items (%d bytes: %.200s)", k, len(got), got)
			break
		}
	}
}
