package resolvers_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/catalogue-gateway/gateway/graph/model"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/loader"
)

// pagedHit is a search result with the fields search gained for paging
// and suggestions.
type pagedHit struct {
	searchHit
	Suggestion *string
	Cursor     string
}

const pagedSearchQuery = `query($text: String!, $first: Int, $after: String, $kinds: [SearchKind!]) {
	search(text: $text, first: $first, after: $after, kinds: $kinds) {
	match name suggestion cursor record { __typename
		... on Item { id } ... on Monster { id } ... on Quest { id } ... on CookingRecipe { id }
		... on FarmingSeed { id } ... on MiningRock { id } ... on ForestryTree { id } ... on EventChest { id }
		... on SecretRare { id } ... on WorldBoss { id } ... on BaseCamp { id } ... on DiscoveryLocation { id }
		... on FletchingRecipe { id } } } }`

// TestSearchPagesKindsAndSuggestions: after, kinds and suggestion are
// additions: the old query's answers are the same, pages joined give
// them in order, kinds keeps the old answer's records of those kinds,
// and a typo's results suggest the word. Under both executors.
func TestSearchPagesKindsAndSuggestions(t *testing.T) {
	st := storeOf(embedded(t))
	for _, ex := range []struct {
		name string
		opts graphqlhttp.Options
	}{{"engine", graphqlhttp.Options{}}, {"gqlgen", graphqlhttp.Options{Executor: execution.None}}} {
		srv := serveWith(t, st, loader.Options{}, ex.opts)
		old := func(t *testing.T, text string, first int) []searchHit {
			return searchHits(t, data(t, srv, searchQuery, map[string]any{"text": text, "first": first}))
		}
		paged := func(t *testing.T, vars map[string]any) []pagedHit {
			raw, err := json.Marshal(data(t, srv, pagedSearchQuery, vars)["search"])
			if err != nil {
				t.Fatal(err)
			}
			var hits []pagedHit
			if err := json.Unmarshal(raw, &hits); err != nil {
				t.Fatal(err)
			}
			return hits
		}
		plain := func(hs []pagedHit) []searchHit {
			out := make([]searchHit, len(hs))
			for i, h := range hs {
				out[i] = h.searchHit
			}
			return out
		}
		t.Run(ex.name+"/old answers unchanged", func(t *testing.T) {
			for _, text := range []string{"e", "drgon", "bone", "troll tooth", "ore"} {
				want := old(t, text, 1000)
				if diff := gocmp.Diff(want, plain(paged(t, map[string]any{"text": text, "first": 1000}))); diff != "" {
					t.Errorf("%q with the new fields (-old +new):\n%s", text, diff)
				}
				all := make([]string, len(model.AllSearchKind))
				for i, k := range model.AllSearchKind {
					all[i] = string(k)
				}
				if diff := gocmp.Diff(want, plain(paged(t, map[string]any{"text": text, "first": 1000, "kinds": all}))); diff != "" {
					t.Errorf("%q with every kind (-old +new):\n%s", text, diff)
				}
			}
			if got := old(t, "drgon", 10); len(got) == 0 || got[0].Match != "FUZZY" || !strings.Contains(got[0].Name, "Dragon") {
				t.Errorf("drgon: %+v, want a FUZZY Dragon first, as before", got)
			}
		})
		t.Run(ex.name+"/pages join into the whole answer", func(t *testing.T) {
			for _, text := range []string{"ro", "drgon", "ore"} {
				want := old(t, text, 1000)
				if len(want) == 1000 {
					t.Fatalf("%q: 1000 hits, so not its whole answer", text)
				}
				var got []searchHit
				vars := map[string]any{"text": " " + strings.ToUpper(text), "first": 7}
				for range len(want)/7 + 2 {
					page := paged(t, vars)
					got = append(got, plain(page)...)
					if len(page) < 7 {
						break
					}
					vars["after"] = page[len(page)-1].Cursor
				}
				if diff := gocmp.Diff(want, got); diff != "" {
					t.Errorf("%q by pages of 7 (-whole +pages):\n%s", text, diff)
				}
			}
		})
		t.Run(ex.name+"/kinds", func(t *testing.T) {
			whole := old(t, "ro", 1000)
			for _, c := range []struct{ kinds, types []string }{
				{[]string{"ITEM"}, []string{"Item"}},
				{[]string{"MONSTER", "QUEST"}, []string{"Monster", "Quest"}},
				{[]string{"SECRET_RARE", "WORLD_BOSS", "FLETCHING_RECIPE", "WORLD_BOSS"}, []string{"SecretRare", "WorldBoss", "FletchingRecipe"}},
			} {
				kinds, types := c.kinds, c.types
				var want []searchHit
				for _, h := range whole {
					if slices.Contains(types, h.Record.Typename) {
						want = append(want, h)
					}
				}
				got := plain(paged(t, map[string]any{"text": "ro", "first": 1000, "kinds": kinds}))
				if len(want) == 0 || !gocmp.Equal(want, got) {
					t.Errorf("kinds %v: %s", kinds, gocmp.Diff(want, got))
				}
			}
			// One kind alone may be given without a list.
			r := post(t, srv, `{ search(text: "e", first: 3, kinds: MONSTER) { record { __typename } } }`, nil)
			if len(r.Errors) != 0 || strings.Count(string(r.Data), `"Monster"`) != 3 {
				t.Errorf("kinds: MONSTER: %s", r.raw)
			}
		})
		t.Run(ex.name+"/suggestions", func(t *testing.T) {
			hits := paged(t, map[string]any{"text": "drgon", "first": 10})
			if len(hits) == 0 {
				t.Fatal("no hits")
			}
			for _, h := range hits {
				if h.Match != "FUZZY" || h.Suggestion == nil || !strings.HasPrefix(*h.Suggestion, "dragon") {
					t.Errorf("%+v: want FUZZY suggesting dragon…", h)
				}
			}
			if *hits[0].Suggestion != "dragon" {
				t.Errorf("first suggestion %q, want dragon", *hits[0].Suggestion)
			}
			for _, h := range paged(t, map[string]any{"text": "dragon", "first": 10}) {
				if h.Match != "FUZZY" && h.Suggestion != nil {
					t.Errorf("%+v: a %s match suggests", h, h.Match)
				}
			}
		})
		t.Run(ex.name+"/cursors of another search are refused", func(t *testing.T) {
			c := paged(t, map[string]any{"text": "e", "first": 1})[0].Cursor
			for _, v := range []map[string]any{
				{"text": "ore", "after": c},
				{"text": "e", "after": c, "kinds": []string{"ITEM"}},
				{"text": "e", "after": c[:len(c)-2] + "AA"},
				{"text": "e", "after": "bm9wZQ"},
			} {
				r := post(t, srv, pagedSearchQuery, v)
				if len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != "BAD_USER_INPUT" || !strings.Contains(r.Errors[0].Message, "cursor") {
					t.Errorf("%v: %.300s, want one BAD_USER_INPUT about the cursor", v, r.raw)
				}
			}
		})
	}
}
