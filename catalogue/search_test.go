package catalogue

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// unreadFields are the item fields the tests below do not read.
const unreadFields = `"imageUrl":"","healingAmount":0,"farmingLevel":0,"attackBonus":0,"strengthBonus":0,"defenceBonus":0,"healthBonus":0,"bowDamage":0,"bowCrit":0,"bowAccuracy":0,"bowSpeed":0,"description":""`

func TestWithinOneEdit(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"bone", "bone", true},
		{"bnoe", "bone", true},  // adjacent letters swapped
		{"bome", "bone", true},  // one wrong
		{"bon", "bone", true},   // one missing at the end
		{"bne", "bone", true},   // one missing inside
		{"bonne", "bone", true}, // one extra
		{"xbone", "bone", true}, // one extra at the start
		{"", "b", true},
		{"", "", true},
		{"nbeo", "bone", false}, // two swaps
		{"bnoes", "bone", false},
		{"bo", "bone", false},
		{"enob", "bone", false},
		{"abc", "ca", false}, // a swap and a deletion: OSA distance 3
		{"trøll", "troll", true},
		{"tørll", "troll", false},
		{"tróll", "tròll", true},
	} {
		if got := withinOneEdit([]rune(c.a), []rune(c.b)); got != c.want {
			t.Errorf("withinOneEdit(%q, %q) = %t, want %t", c.a, c.b, got, c.want)
		}
		if got := withinOneEdit([]rune(c.b), []rune(c.a)); got != c.want {
			t.Errorf("withinOneEdit(%q, %q) = %t, want %t", c.b, c.a, got, c.want)
		}
	}
}

// TestWithinOneEditIsOSADistance checks the one-pass test against the
// textbook dynamic programme over random short words.
func TestWithinOneEditIsOSADistance(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() []rune {
		r := make([]rune, rng.IntN(6))
		for i := range r {
			r[i] = rune('a' + rng.IntN(3))
		}
		return r
	}
	for range 20000 {
		a, b := word(), word()
		if got, want := withinOneEdit(a, b), osa(a, b) <= 1; got != want {
			t.Fatalf("withinOneEdit(%q, %q) = %t, but the distance is %d", string(a), string(b), got, osa(a, b))
		}
	}
}

// osa is the optimal string alignment distance, by the book.
func osa(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func TestSearchRanks(t *testing.T) {
	items := `[{"total":7,"results":[` +
		`{"id":1,"name":"Beetroot Seed","type":"Seed","rarity":"Common","value":1,"tradable":true,"usedIn":{},` + unreadFields + `},` +
		`{"id":2,"name":"Troll Tooth","type":"Resource","rarity":"Rare","value":1,"tradable":true,"usedIn":{},` + unreadFields + `},` +
		`{"id":3,"name":"Raw Trout","type":"Fish","rarity":"Common","value":1,"tradable":true,"usedIn":{},` + unreadFields + `},` +
		`{"id":4,"name":"Tro","type":"Misc","rarity":"Common","value":1,"tradable":true,"usedIn":{},` + unreadFields + `},` +
		`{"id":5,"name":"Bones","type":"Misc","rarity":"Common","value":1,"tradable":true,"usedIn":{},` + unreadFields + `},` +
		`{"id":6,"name":"Dragon Bones","type":"Misc","rarity":"Common","value":1,"tradable":true,"usedIn":{},` + unreadFields + `},` +
		`{"id":7,"name":"Bonfire","type":"Misc","rarity":"Common","value":1,"tradable":true,"usedIn":{},` + unreadFields + `}` +
		`]}]`
	p, err := Decode(Items, []byte(items))
	if err != nil {
		t.Fatal(err)
	}
	s := NewSnapshot(p)
	type hit struct {
		Name  string
		Match string
	}
	for _, c := range []struct {
		text  string
		limit int
		want  []hit
	}{
		{"tro", 10, []hit{{"Tro", "EXACT"}, {"Troll Tooth", "PREFIX"}, {"Raw Trout", "WORD"}, {"Beetroot Seed", "SUBSTRING"}}},
		{"  TRO ", 2, []hit{{"Tro", "EXACT"}, {"Troll Tooth", "PREFIX"}}},
		{"bnoe", 10, []hit{{"Bones", "FUZZY"}, {"Dragon Bones", "FUZZY"}}}, // not Bonfire: "bonf" is two edits away
		{"bones", 10, []hit{{"Bones", "EXACT"}, {"Dragon Bones", "WORD"}}},
		{"bonez", 10, []hit{{"Bones", "FUZZY"}, {"Dragon Bones", "FUZZY"}}},
		{"bn", 10, []hit{}}, // too short to forgive
		{"", 10, []hit{}},
		{"tro", 0, []hit{}},
		{"zzzz", 10, []hit{}},
	} {
		t.Run(c.text+"/"+strconv.Itoa(c.limit), func(t *testing.T) {
			got := []hit{}
			for _, h := range s.Search(c.text, c.limit) {
				got = append(got, hit{h.Name, h.Match.String()})
				if r := s.Record(h.Collection, h.Position).(*Item); r.Name != h.Name {
					t.Errorf("hit %q names record %q", h.Name, r.Name)
				}
			}
			if diff := gocmp.Diff(c.want, got); diff != "" {
				t.Errorf("Search(%q, %d) (-want +got):\n%s", c.text, c.limit, diff)
			}
		})
	}
	// A typo's hits suggest the whole words they were one edit from; the
	// other matches suggest nothing.
	for text, want := range map[string][]string{
		"bnoe":       {"bones", "bones"},
		"dargon bon": {"dragon bones"},
		"trol":       {"", "tro", "trout"}, // Troll Tooth, then two typos
	} {
		var got []string
		for _, h := range s.Search(text, 10) {
			got = append(got, h.Suggestion)
		}
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("Search(%q) suggestions (-want +got):\n%s", text, diff)
		}
	}
}

func TestEqualityIgnoresCaseOnlyWhenNoneIsExact(t *testing.T) {
	items := `[{"total":3,"results":[` +
		`{"id":1,"name":"a","type":"Food","rarity":"Common","value":1,"tradable":true,"usedIn":{},` + unreadFields + `},` +
		`{"id":2,"name":"b","type":"FOOD","rarity":"Common","value":1,"tradable":true,"usedIn":{},` + unreadFields + `},` +
		`{"id":3,"name":"c","type":"Fish","rarity":"Common","value":1,"tradable":true,"usedIn":{},` + unreadFields + `}` +
		`]}]`
	p, err := Decode(Items, []byte(items))
	if err != nil {
		t.Fatal(err)
	}
	s := NewSnapshot(p)
	for _, c := range []struct {
		value string
		want  []string
	}{
		{"Food", []string{"a"}},
		{"FOOD", []string{"b"}},
		{"food", []string{"a", "b"}},
		{"fish", []string{"c"}},
		{"Fis", []string{}},
	} {
		sel, err := s.Index(Items).Select(Query{Equal: map[string]string{"type": c.value}})
		if err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for i := range sel.Len() {
			got = append(got, s.Items().At(sel.At(i)).Name)
		}
		if diff := gocmp.Diff(c.want, got); diff != "" {
			t.Errorf("type %q (-want +got):\n%s", c.value, diff)
		}
	}
	facets := s.Index(Items).Facets(Query{}, []FacetField{{Name: "type", Field: "type"}})
	want := []Facet{{Field: "type", Values: []FacetValue{{"Fish", 1}, {"FOOD", 1}, {"Food", 1}}}}
	if diff := gocmp.Diff(want, facets); diff != "" {
		t.Errorf("facets (-want +got):\n%s", diff)
	}
}

// TestFacetsCountWhatTheFilterSelects: under random filters over the
// embedded catalogue, each facet's counts are those of a count over the
// records, record by record, with every condition but the facet's own.
func TestFacetsCountWhatTheFilterSelects(t *testing.T) {
	s, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	ix, items := s.Index(Items), s.Items()
	fields := []FacetField{{"type", "type"}, {"rarity", "rarity"}, {"tradable", "tradable"}}
	read := map[string]func(*Item) string{
		"type":     func(r *Item) string { return r.Type },
		"rarity":   func(r *Item) string { return r.Rarity },
		"tradable": func(r *Item) string { return strconv.FormatBool(r.Tradable) },
	}
	// The values to choose from: each field's, some in another case, and
	// one no record holds.
	choices, held := map[string][]string{}, map[string]map[string]bool{}
	for f, get := range read {
		held[f] = map[string]bool{}
		for i := range items.Len() {
			v := get(items.At(i))
			choices[f] = append(choices[f], v)
			held[f][v] = true
		}
	}
	choices["type"] = append(choices["type"], "nope")
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 300 {
		q := Query{Equal: map[string]string{}}
		for f, vs := range choices {
			if rng.IntN(3) == 0 {
				v := vs[rng.IntN(len(vs))]
				if f != "tradable" && rng.IntN(2) == 0 {
					v = strings.ToLower(v)
				}
				q.Equal[f] = v
			}
		}
		if rng.IntN(3) == 0 {
			q.NameContains = []string{"e", "ore", "sword", "ON"}[rng.IntN(4)]
		}
		if rng.IntN(4) == 0 {
			q.OrderBy, q.Descending = "value", rng.IntN(2) == 0
		}
		if err := ix.CheckFacets(fields); err != nil {
			t.Fatal(err)
		}
		got := ix.Facets(q, fields)
		// By brute force: the records meeting every condition but one's,
		// a value matched exactly if some record holds it so, else
		// ignoring case.
		matches := func(f, v, want string) bool {
			//lint:ignore SA6005 the index compares strings.ToLower forms (not case folding, which differs on a few letters), and so must its oracle
			return v == want || !held[f][want] && strings.ToLower(v) == strings.ToLower(want)
		}
		for _, facet := range got {
			counts := map[string]int{}
			for i := range items.Len() {
				r := items.At(i)
				if q.NameContains != "" && !strings.Contains(strings.ToLower(r.Name), strings.ToLower(q.NameContains)) {
					continue
				}
				ok := true
				for f, want := range q.Equal {
					if f != facet.Field && !matches(f, read[f](r), want) {
						ok = false
					}
				}
				if ok {
					counts[read[facet.Field](r)]++
				}
			}
			gotCounts := map[string]int{}
			for j, v := range facet.Values {
				gotCounts[v.Value] = v.Count
				if j > 0 && facet.Values[j-1].Count < v.Count {
					t.Errorf("query %d %+v: facet %s not by count: %v", n, q, facet.Field, facet.Values)
				}
			}
			if diff := gocmp.Diff(counts, gotCounts); diff != "" {
				t.Fatalf("query %d %+v: facet %s (-brute force +index):\n%s", n, q, facet.Field, diff)
			}
		}
	}
}

// BenchmarkSearch is one search over the embedded catalogue's names: a
// short text most names contain, a word, and a typo.
func BenchmarkSearch(b *testing.B) {
	s, err := Embedded()
	if err != nil {
		b.Fatal(err)
	}
	for _, text := range []string{"e", "troll", "bnoe"} {
		b.Run(text, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.Search(text, 10)
			}
		})
	}
}

// BenchmarkFacets counts the items' three facets under a filter.
func BenchmarkFacets(b *testing.B) {
	s, err := Embedded()
	if err != nil {
		b.Fatal(err)
	}
	fields := []FacetField{{"type", "type"}, {"rarity", "rarity"}, {"tradable", "tradable"}}
	for name, q := range map[string]Query{
		"unfiltered": {},
		"rarity":     {Equal: map[string]string{"rarity": "epic"}},
		"name":       {NameContains: "e", Equal: map[string]string{"tradable": "true"}},
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.Index(Items).Facets(q, fields)
			}
		})
	}
}
