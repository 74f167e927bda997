package resolvers_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/loader"
)

type searchHit struct {
	Match  string
	Name   string
	Record struct {
		Typename string `json:"__typename"`
		ID       json.Number
	}
}

func searchHits(t *testing.T, d map[string]any) []searchHit {
	t.Helper()
	raw, err := json.Marshal(d["search"])
	if err != nil {
		t.Fatal(err)
	}
	var hits []searchHit
	if err := json.Unmarshal(raw, &hits); err != nil {
		t.Fatal(err)
	}
	return hits
}

const searchQuery = `query($text: String!, $first: Int) { search(text: $text, first: $first) {
	match name record { __typename
		... on Item { id } ... on Monster { id } ... on Quest { id } ... on CookingRecipe { id }
		... on FarmingSeed { id } ... on MiningRock { id } ... on ForestryTree { id } ... on EventChest { id }
		... on SecretRare { id } ... on WorldBoss { id } ... on BaseCamp { id } ... on DiscoveryLocation { id }
		... on FletchingRecipe { id } } } }`

// TestSearch: ranked, forgiving, across kinds, over both catalogues.
func TestSearch(t *testing.T) {
	for _, cat := range []struct {
		name string
		snap *catalogue.Snapshot
	}{{"embedded", embedded(t)}, {"fixture", fixture(t)}} {
		srv := serve(t, storeOf(cat.snap), loader.Options{})
		find := func(t *testing.T, text string, first int) []searchHit {
			return searchHits(t, data(t, srv, searchQuery, map[string]any{"text": text, "first": first}))
		}
		for _, c := range []struct {
			catalogue, name, text string
			first                 int
			check                 func(t *testing.T, hits []searchHit)
		}{
			{"embedded", "a typo finds Bone", "bnoe", 10, func(t *testing.T, hits []searchHit) {
				if len(hits) == 0 || hits[0].Name != "Bones" {
					t.Fatalf("want Bones first, got %+v", hits)
				}
				for _, h := range hits {
					if h.Match != "FUZZY" || !strings.Contains(strings.ToLower(h.Name), "bone") {
						t.Errorf("%+v: want a FUZZY match of a Bone name", h)
					}
				}
			}},
			{"embedded", "a word start before a substring", "tro", 1000, func(t *testing.T, hits []searchHit) {
				at := func(name string) (int, searchHit) {
					i := slices.IndexFunc(hits, func(h searchHit) bool { return h.Name == name })
					if i < 0 {
						t.Fatalf("%s not found in %d hits", name, len(hits))
					}
					return i, hits[i]
				}
				troll, th := at("Troll Tooth")
				beet, bh := at("Beetroot Seed")
				if troll > beet || th.Match != "PREFIX" || bh.Match != "SUBSTRING" {
					t.Errorf("Troll Tooth %d %s, Beetroot Seed %d %s: want Troll Tooth first, a PREFIX, before a SUBSTRING", troll, th.Match, beet, bh.Match)
				}
				for i := 1; i < len(hits); i++ {
					if rank(hits[i-1].Match) > rank(hits[i].Match) {
						t.Errorf("%+v before %+v", hits[i-1], hits[i])
					}
				}
			}},
			{"embedded", "an exact name first, any case", "troll tooth", 3, func(t *testing.T, hits []searchHit) {
				if len(hits) == 0 || hits[0].Match != "EXACT" || hits[0].Name != "Troll Tooth" || hits[0].Record.Typename != "Item" {
					t.Errorf("got %+v", hits)
				}
			}},
			{"embedded", "first bounds the results", "e", 7, func(t *testing.T, hits []searchHit) {
				if len(hits) != 7 {
					t.Errorf("%d hits, want 7", len(hits))
				}
			}},
			{"embedded", "nothing like it", "qqqqzz", 10, func(t *testing.T, hits []searchHit) {
				if len(hits) != 0 {
					t.Errorf("got %+v", hits)
				}
			}},
			{"fixture", "every kind", "chest", 100, func(t *testing.T, hits []searchHit) {
				kinds := map[string]bool{}
				for _, h := range hits {
					kinds[h.Record.Typename] = true
				}
				if !kinds["EventChest"] {
					t.Errorf("no event chest in %+v", hits)
				}
			}},
			{"fixture", "a typo in a word", "cooper", 10, func(t *testing.T, hits []searchHit) {
				var names []string
				for _, h := range hits {
					names = append(names, h.Name+" "+h.Match)
				}
				if !slices.Contains(names, "Copper Ore FUZZY") || !slices.Contains(names, "Copper Rock FUZZY") {
					t.Errorf("got %v", names)
				}
			}},
			{"fixture", "a record named by the right id", "Tin Rock", 1, func(t *testing.T, hits []searchHit) {
				if len(hits) != 1 || hits[0].Record.Typename != "MiningRock" || hits[0].Match != "EXACT" {
					t.Fatalf("got %+v", hits)
				}
				d := data(t, srv, `query($id: Int!) { miningRock(id: $id) { miningRock } }`, map[string]any{"id": hits[0].Record.ID})
				if got := d["miningRock"].(map[string]any)["miningRock"]; got != "Tin Rock" {
					t.Errorf("record %s is %v", hits[0].Record.ID, got)
				}
			}},
		} {
			if c.catalogue != cat.name {
				continue
			}
			t.Run(cat.name+"/"+c.name, func(t *testing.T) { c.check(t, find(t, c.text, c.first)) })
		}
	}
}

// aliasedSearches is n searches of 1000 names each, under aliases.
func aliasedSearches(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `s%d: search(text: "e", first: 1000) { name match record { __typename } } `, i)
	}
	return b.String()
}

func rank(match string) int {
	return slices.Index([]string{"EXACT", "PREFIX", "WORD", "SUBSTRING", "FUZZY"}, match)
}

// TestSearchBounds: search's first and text are bounded like a list's.
func TestSearchBounds(t *testing.T) {
	srv := serve(t, storeOf(embedded(t)), loader.Options{})
	for _, c := range []struct{ name, query, code, want string }{
		{"first above 1000", `{ search(text: "e", first: 1001) { name } }`, "BAD_USER_INPUT", "at most 1000"},
		// Priced as the page it asks for, as a list's would be.
		{"a huge first", `{ search(text: "e", first: 2000000000) { name } }`, "COMPLEXITY_LIMIT_EXCEEDED", "at most 100000"},
		{"many aliases", "{ " + aliasedSearches(25) + "}", "COMPLEXITY_LIMIT_EXCEEDED", "at most 100000"},
		{"a nest through the union", `{ search(text: "e", first: 1000) { record { ... on Item { droppedByMonsters { drops { item { droppedByMonsters { name } } } } } } } }`,
			"COMPLEXITY_LIMIT_EXCEEDED", "at most 100000"},
		{"negative first", `{ search(text: "e", first: -1) { name } }`, "BAD_USER_INPUT", "must not be negative"},
		{"a long text", fmt.Sprintf(`{ search(text: %q) { name } }`, strings.Repeat("bone", 26)), "BAD_USER_INPUT", "at most 100 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := post(t, srv, c.query, nil)
			if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, c.want) || r.Errors[0].Extensions["code"] != c.code {
				t.Errorf("got %.300s, want one %s error saying %q", r.raw, c.code, c.want)
			}
		})
	}
	// The default is 10, and the longest text is taken.
	if hits := searchHits(t, data(t, srv, `{ search(text: "e") { name } }`, nil)); len(hits) != 10 {
		t.Errorf("%d hits by default, want 10", len(hits))
	}
	data(t, srv, fmt.Sprintf(`{ search(text: %q) { name } }`, strings.Repeat("b", catalogue.MaxSearchText)), nil)
}

// TestFacets: each facet value's count is the totalCount the list gives
// with that value chosen, under random filters; values are matched
// ignoring case; the order is by count.
func TestFacets(t *testing.T) {
	type facet struct {
		Field  string
		Values []struct {
			Value string
			Count int
		}
	}
	lists := []struct {
		field, filter string
		choices       map[string][]any // filter field → values to try
	}{
		{"items", "ItemFilter", map[string][]any{"type": {"Food", "weapon", "ARMOUR", "ore", "nope"}, "rarity": {"Epic", "epic", "Common", "rare"}, "tradable": {true, false}, "nameContains": {"e", "sword", "ore"}}},
		{"monsters", "MonsterFilter", map[string][]any{"area": {"Farmlands", "troll peaks", "Forest"}, "isGod": {true, false}, "combatLevelMin": {10.0, 100.0}}},
		{"quests", "QuestFilter", map[string][]any{"questSeries": {"Tutorial", "tutorial", "side"}, "nameContains": {"steps", "the"}}},
		{"worldBosses", "WorldBossFilter", map[string][]any{"status": {"active", "ACTIVE", "ended"}}},
	}
	for _, cat := range []struct {
		name string
		snap *catalogue.Snapshot
	}{{"embedded", embedded(t)}, {"fixture", fixture(t)}} {
		srv := serve(t, storeOf(cat.snap), loader.Options{})
		rng := rand.New(rand.NewPCG(5, uint64(len(cat.name))))
		for _, l := range lists {
			t.Run(cat.name+"/"+l.field, func(t *testing.T) {
				keys := make([]string, 0, len(l.choices))
				for k := range l.choices {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				for range 12 {
					filter := map[string]any{}
					for _, k := range keys {
						if rng.IntN(3) == 0 {
							filter[k] = l.choices[k][rng.IntN(len(l.choices[k]))]
						}
					}
					q := fmt.Sprintf(`query($f: %s) { %s(filter: $f, first: 0) { totalCount facets { field values { value count } } } }`, l.filter, l.field)
					conn := data(t, srv, q, map[string]any{"f": filter})[l.field].(map[string]any)
					raw, _ := json.Marshal(conn["facets"])
					var facets []facet
					if err := json.Unmarshal(raw, &facets); err != nil {
						t.Fatal(err)
					}
					if len(facets) == 0 {
						t.Fatalf("%s has no facets", l.field)
					}
					for _, f := range facets {
						for i, v := range f.Values {
							if i > 0 && f.Values[i-1].Count < v.Count {
								t.Errorf("filter %v: facet %s not by count: %v", filter, f.Field, f.Values)
							}
							with := map[string]any{}
							for k, x := range filter {
								with[k] = x
							}
							if _, isBool := l.choices[f.Field][0].(bool); isBool {
								with[f.Field] = v.Value == "true"
							} else {
								with[f.Field] = v.Value
							}
							total := data(t, srv, fmt.Sprintf(`query($f: %s) { %s(filter: $f, first: 0) { totalCount } }`, l.filter, l.field),
								map[string]any{"f": with})[l.field].(map[string]any)["totalCount"]
							if fmt.Sprint(total) != fmt.Sprint(v.Count) {
								t.Errorf("filter %v: facet %s says %s holds %d, but choosing it lists %v", filter, f.Field, v.Value, v.Count, total)
							}
						}
					}
				}
			})
		}
	}
}

// TestEqualityFiltersIgnoreCase: a value in another case finds what the
// exact one does.
func TestEqualityFiltersIgnoreCase(t *testing.T) {
	srv := serve(t, storeOf(embedded(t)), loader.Options{})
	total := func(filter string) any {
		return data(t, srv, `{ items(filter: `+filter+`) { totalCount } }`, nil)["items"].(map[string]any)["totalCount"]
	}
	for _, c := range []struct{ exact, other string }{
		{`{rarity: "Epic"}`, `{rarity: "epic"}`},
		{`{rarity: "Epic", type: "Armour"}`, `{rarity: "EPIC", type: "armour"}`},
	} {
		want, got := total(c.exact), total(c.other)
		if diff := gocmp.Diff(want, got); diff != "" || fmt.Sprint(want) == "0" {
			t.Errorf("%s lists %v, %s lists %v", c.exact, want, c.other, got)
		}
	}
}
