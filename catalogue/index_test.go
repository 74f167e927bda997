package catalogue_test

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// unreadItemFields are the required item fields no test in this file looks
// at. The item bodies below write "..." where they belong, so that each
// record shows only the fields its test is about.
const unreadItemFields = `"imageUrl":"","healingAmount":0,"farmingLevel":0,"attackBonus":0,"strengthBonus":0,"defenceBonus":0,"healthBonus":0,"bowDamage":0,"bowCrit":0,"bowAccuracy":0,"bowSpeed":0,"description":""`

func decodeItems(t testing.TB, raw string) *catalogue.Part {
	t.Helper()
	return mustDecode(t, catalogue.Items, strings.ReplaceAll(raw, "...", unreadItemFields))
}

// selectItems are the items the Select tests query, over two envelopes so
// that upstream order is seen to run across them. Values tie (5 and 5.0,
// 50 and 5e1), and names differ in case only where it matters.
const selectItems = `[{"total":4,"results":[
	{"id":30,"name":"Oak Log","type":"Resource","rarity":"Common","value":5,"tradable":true,"usedIn":{},...},
	{"id":10,"name":"apple","type":"Food","rarity":"Common","value":2,"tradable":true,"usedIn":{},...},
	{"id":20,"name":"Iron Sword","type":"Weapon","rarity":"Rare","value":50,"tradable":false,"usedIn":{},...},
	{"id":40,"name":"Apple Pie","type":"Food","rarity":"Uncommon","value":5.0,"tradable":true,"usedIn":{},...}
]},{"total":3,"results":[
	{"id":50,"name":"Golden apple","type":"Food","rarity":"Rare","value":5e1,"tradable":false,"usedIn":{},...},
	{"id":60,"name":"Apple","type":"Food","rarity":"Common","value":2,"tradable":true,"usedIn":{},...},
	{"id":5,"name":"oak plank","type":"Resource","rarity":"Common","value":5,"tradable":true,"usedIn":{},...}
]}]`

// selectMonsters lack fields in every way the upstream allows: #3 has only
// an id, Rat's isGod is null, Goblin's combatLevel is null and only Goblin
// has a slayerLevel.
const selectMonsters = `[{"total":7,"results":[
	{"id":1,"name":"Chicken","area":"Farmlands","isGod":false,"combatLevel":1,"health":16},
	{"id":2,"name":"zeus","area":"The Pantheon","isGod":true,"combatLevel":300},
	{"id":3},
	{"id":4,"name":"Cow","area":"Farmlands","isGod":false,"combatLevel":2},
	{"id":5,"name":"Athena","area":"The Pantheon","isGod":true,"combatLevel":300},
	{"id":6,"name":"Rat","area":"Sewers","isGod":null,"combatLevel":1},
	{"id":7,"name":"Goblin","area":"Farmlands","combatLevel":null,"slayerLevel":5}
]}]`

func itemLabel(r *catalogue.Item) string { return r.Name }

// monsterLabel names a monster, or gives its id when it has no name.
func monsterLabel(r *catalogue.Monster) string {
	if r.Name == nil {
		return "#" + strconv.FormatInt(r.ID, 10)
	}
	return *r.Name
}

// selected labels the records of sel, in its order.
func selected[T any](table *catalogue.Table[T], sel catalogue.Selection, label func(*T) string) []string {
	out := []string{}
	for i := range sel.Len() {
		out = append(out, label(table.At(sel.At(i))))
	}
	return out
}

// positions lists the upstream positions sel holds, in its order.
func positions(sel catalogue.Selection) []int {
	out := []int{}
	for i := range sel.Len() {
		out = append(out, sel.At(i))
	}
	return out
}

// checkFind checks that Find agrees with Len and At for every position of
// a collection of n records, and a few beyond either end. The place Find
// returns with false is not part of its contract.
func checkFind(t *testing.T, sel catalogue.Selection, n int) {
	t.Helper()
	place := map[int]int{}
	for i := range sel.Len() {
		place[sel.At(i)] = i
	}
	for pos := -2; pos <= n+1; pos++ {
		want, wantOK := place[pos]
		if got, ok := sel.Find(pos); ok != wantOK || ok && got != want {
			t.Errorf("Find(%d) = %d, %t; want %d, %t", pos, got, ok, want, wantOK)
		}
	}
}

// checkRead checks that a selection read as a page is (Clip, then At up
// to it) and one searched for a record (Find, first) agree with want,
// the whole selection: each on a fresh selection, so found only as far as
// it is read.
func checkRead(t *testing.T, ix *catalogue.Index, q catalogue.Query, want []int, n int, r *rand.Rand) {
	t.Helper()
	fresh := func() catalogue.Selection {
		sel, err := ix.Select(q)
		if err != nil {
			t.Fatal(err)
		}
		return sel
	}
	for range 3 {
		k := r.IntN(len(want) + 3)
		sel := fresh()
		if got := sel.Clip(k); got != min(k, len(want)) {
			t.Fatalf("Select(%+v).Clip(%d) = %d, want %d", q, k, got, min(k, len(want)))
		}
		for i := range min(k, len(want)) {
			if got := sel.At(i); got != want[i] {
				t.Fatalf("Select(%+v), read to %d: At(%d) = %d, want %d", q, k, i, got, want[i])
			}
		}
		pos := r.IntN(n+2) - 1
		if len(want) > 0 && r.IntN(2) == 0 {
			pos = want[r.IntN(len(want))]
		}
		wantPlace, wantOK := slices.Index(want, pos), slices.Contains(want, pos)
		if got, ok := fresh().Find(pos); ok != wantOK || ok && got != wantPlace {
			t.Fatalf("Select(%+v), fresh: Find(%d) = %d, %t; want %d, %t", q, pos, got, ok, wantPlace, wantOK)
		}
	}
}

type selectCase struct {
	name string
	q    catalogue.Query
	want []string
}

func runSelectCases[T any](t *testing.T, ix *catalogue.Index, table *catalogue.Table[T], label func(*T) string, tests []selectCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := ix.Select(tt.q)
			if err != nil {
				t.Fatalf("Select(%+v): %v", tt.q, err)
			}
			if diff := gocmp.Diff(tt.want, selected(table, sel, label)); diff != "" {
				t.Errorf("Select(%+v) (-want +got):\n%s", tt.q, diff)
			}
			checkFind(t, sel, table.Len())
		})
	}
}

func TestSelectItems(t *testing.T) {
	s := catalogue.NewSnapshot(decodeItems(t, selectItems))
	upstream := []string{"Oak Log", "apple", "Iron Sword", "Apple Pie", "Golden apple", "Apple", "oak plank"}
	food := map[string]string{"type": "Food"}
	runSelectCases(t, s.Index(catalogue.Items), s.Items(), itemLabel, []selectCase{
		{"no filter", catalogue.Query{}, upstream},
		{"empty conditions are no filter", catalogue.Query{Equal: map[string]string{}, AtLeast: map[string]float64{}, AtMost: map[string]float64{}}, upstream},

		{"name contains, any case", catalogue.Query{NameContains: "aPPLE"}, []string{"apple", "Apple Pie", "Golden apple", "Apple"}},
		{"name contains across a space", catalogue.Query{NameContains: "LE P"}, []string{"Apple Pie"}},
		{"name contains the whole name", catalogue.Query{NameContains: "oak plank"}, []string{"oak plank"}},
		{"name contains nothing matching", catalogue.Query{NameContains: "pear"}, []string{}},

		{"type", catalogue.Query{Equal: food}, []string{"apple", "Apple Pie", "Golden apple", "Apple"}},
		{"type ignores case when no record holds it exactly", catalogue.Query{Equal: map[string]string{"type": "fOOD"}}, []string{"apple", "Apple Pie", "Golden apple", "Apple"}},
		{"rarity", catalogue.Query{Equal: map[string]string{"rarity": "Rare"}}, []string{"Iron Sword", "Golden apple"}},
		{"tradable", catalogue.Query{Equal: map[string]string{"tradable": "true"}}, []string{"Oak Log", "apple", "Apple Pie", "Apple", "oak plank"}},
		{"not tradable", catalogue.Query{Equal: map[string]string{"tradable": "false"}}, []string{"Iron Sword", "Golden apple"}},
		{"tradable is true or false only", catalogue.Query{Equal: map[string]string{"tradable": "1"}}, []string{}},
		{"unknown value", catalogue.Query{Equal: map[string]string{"type": "Nope"}}, []string{}},

		{"type and rarity", catalogue.Query{Equal: map[string]string{"type": "Food", "rarity": "Common"}}, []string{"apple", "Apple"}},
		{"type, rarity and tradable", catalogue.Query{Equal: map[string]string{"type": "Food", "rarity": "Rare", "tradable": "false"}}, []string{"Golden apple"}},
		{"conditions excluding each other", catalogue.Query{Equal: map[string]string{"type": "Weapon", "rarity": "Common"}}, []string{}},
		{"known value and unknown value", catalogue.Query{Equal: map[string]string{"type": "Food", "rarity": "Nope"}}, []string{}},
		{"every kind of condition", catalogue.Query{NameContains: "app", Equal: map[string]string{"tradable": "true"}, AtLeast: map[string]float64{"value": 3}}, []string{"Apple Pie"}},

		{"value at least", catalogue.Query{AtLeast: map[string]float64{"value": 5}}, []string{"Oak Log", "Iron Sword", "Apple Pie", "Golden apple", "oak plank"}},
		{"value at most", catalogue.Query{AtMost: map[string]float64{"value": 5}}, []string{"Oak Log", "apple", "Apple Pie", "Apple", "oak plank"}},
		{"value in a one-point range", catalogue.Query{AtLeast: map[string]float64{"value": 5}, AtMost: map[string]float64{"value": 5}}, []string{"Oak Log", "Apple Pie", "oak plank"}},
		{"value in an empty range", catalogue.Query{AtLeast: map[string]float64{"value": 6}, AtMost: map[string]float64{"value": 4}}, []string{}},
		{"id at least", catalogue.Query{AtLeast: map[string]float64{"id": 40}}, []string{"Apple Pie", "Golden apple", "Apple"}},

		// Ties keep upstream order both ways: 2 (apple, Apple), 5 (Oak Log,
		// Apple Pie, oak plank), 50 (Iron Sword, Golden apple).
		{"by value", catalogue.Query{OrderBy: "value"}, []string{"apple", "Apple", "Oak Log", "Apple Pie", "oak plank", "Iron Sword", "Golden apple"}},
		{"by value descending", catalogue.Query{OrderBy: "value", Descending: true}, []string{"Iron Sword", "Golden apple", "Oak Log", "Apple Pie", "oak plank", "apple", "Apple"}},
		{"by id", catalogue.Query{OrderBy: "id"}, []string{"oak plank", "apple", "Iron Sword", "Oak Log", "Apple Pie", "Golden apple", "Apple"}},
		{"by id descending", catalogue.Query{OrderBy: "id", Descending: true}, []string{"Apple", "Golden apple", "Apple Pie", "Oak Log", "Iron Sword", "apple", "oak plank"}},
		// Names are ordered ignoring case; names equal but for case are
		// ordered by their bytes, so they are not ties.
		{"by name", catalogue.Query{OrderBy: "name"}, []string{"Apple", "apple", "Apple Pie", "Golden apple", "Iron Sword", "Oak Log", "oak plank"}},
		{"by name descending", catalogue.Query{OrderBy: "name", Descending: true}, []string{"oak plank", "Oak Log", "Iron Sword", "Golden apple", "Apple Pie", "apple", "Apple"}},

		{"type by value", catalogue.Query{Equal: food, OrderBy: "value"}, []string{"apple", "Apple", "Apple Pie", "Golden apple"}},
		{"type by value descending", catalogue.Query{Equal: food, OrderBy: "value", Descending: true}, []string{"Golden apple", "Apple Pie", "apple", "Apple"}},
		{"range by id descending", catalogue.Query{AtLeast: map[string]float64{"value": 5}, OrderBy: "id", Descending: true}, []string{"Golden apple", "Apple Pie", "Oak Log", "Iron Sword", "oak plank"}},
		{"name contains by name", catalogue.Query{NameContains: "O", OrderBy: "name"}, []string{"Golden apple", "Iron Sword", "Oak Log", "oak plank"}},
		{"name contains by name descending", catalogue.Query{NameContains: "O", OrderBy: "name", Descending: true}, []string{"oak plank", "Oak Log", "Iron Sword", "Golden apple"}},
		{"no match, ordered", catalogue.Query{NameContains: "pear", OrderBy: "value"}, []string{}},
	})
}

func TestSelectMonsters(t *testing.T) {
	s := catalogue.NewSnapshot(mustDecode(t, catalogue.Monsters, selectMonsters))
	farmlands := map[string]string{"area": "Farmlands"}
	runSelectCases(t, s.Index(catalogue.Monsters), s.Monsters(), monsterLabel, []selectCase{
		{"no filter", catalogue.Query{}, []string{"Chicken", "zeus", "#3", "Cow", "Athena", "Rat", "Goblin"}},

		// A monster without a name has nothing to contain.
		{"name contains", catalogue.Query{NameContains: "O"}, []string{"Cow", "Goblin"}},
		{"name contains a digit", catalogue.Query{NameContains: "3"}, []string{}},

		{"area", catalogue.Query{Equal: farmlands}, []string{"Chicken", "Cow", "Goblin"}},
		{"a missing area is not the empty area", catalogue.Query{Equal: map[string]string{"area": ""}}, []string{}},
		// #3 has no isGod and Rat's is null: they are neither gods nor not.
		{"gods", catalogue.Query{Equal: map[string]string{"isGod": "true"}}, []string{"zeus", "Athena"}},
		{"not gods", catalogue.Query{Equal: map[string]string{"isGod": "false"}}, []string{"Chicken", "Cow"}},
		{"a missing isGod is not the empty value", catalogue.Query{Equal: map[string]string{"isGod": ""}}, []string{}},
		{"area and isGod", catalogue.Query{Equal: map[string]string{"area": "Farmlands", "isGod": "false"}}, []string{"Chicken", "Cow"}},
		{"area and name", catalogue.Query{NameContains: "c", Equal: farmlands}, []string{"Chicken", "Cow"}},

		// #3 and Goblin have no combatLevel: no range holds them.
		{"combatLevel at least", catalogue.Query{AtLeast: map[string]float64{"combatLevel": 2}}, []string{"zeus", "Cow", "Athena"}},
		{"combatLevel at most", catalogue.Query{AtMost: map[string]float64{"combatLevel": 2}}, []string{"Chicken", "Cow", "Rat"}},
		{"combatLevel in the widest range", catalogue.Query{AtLeast: map[string]float64{"combatLevel": -1e300}, AtMost: map[string]float64{"combatLevel": 1e300}}, []string{"Chicken", "zeus", "Cow", "Athena", "Rat"}},
		{"health and combatLevel", catalogue.Query{AtLeast: map[string]float64{"health": 0, "combatLevel": 0}}, []string{"Chicken"}},

		// Monsters without the field come last, in upstream order, both ways.
		{"by combatLevel", catalogue.Query{OrderBy: "combatLevel"}, []string{"Chicken", "Rat", "Cow", "zeus", "Athena", "#3", "Goblin"}},
		{"by combatLevel descending", catalogue.Query{OrderBy: "combatLevel", Descending: true}, []string{"zeus", "Athena", "Cow", "Chicken", "Rat", "#3", "Goblin"}},
		{"by slayerLevel", catalogue.Query{OrderBy: "slayerLevel"}, []string{"Goblin", "Chicken", "zeus", "#3", "Cow", "Athena", "Rat"}},
		{"by slayerLevel descending", catalogue.Query{OrderBy: "slayerLevel", Descending: true}, []string{"Goblin", "Chicken", "zeus", "#3", "Cow", "Athena", "Rat"}},
		{"by health descending", catalogue.Query{OrderBy: "health", Descending: true}, []string{"Chicken", "zeus", "#3", "Cow", "Athena", "Rat", "Goblin"}},
		{"by name", catalogue.Query{OrderBy: "name"}, []string{"Athena", "Chicken", "Cow", "Goblin", "Rat", "zeus", "#3"}},
		{"by name descending", catalogue.Query{OrderBy: "name", Descending: true}, []string{"zeus", "Rat", "Goblin", "Cow", "Chicken", "Athena", "#3"}},
		{"by id descending", catalogue.Query{OrderBy: "id", Descending: true}, []string{"Goblin", "Rat", "Athena", "Cow", "#3", "zeus", "Chicken"}},

		{"area by combatLevel", catalogue.Query{Equal: farmlands, OrderBy: "combatLevel"}, []string{"Chicken", "Cow", "Goblin"}},
		{"area by combatLevel descending", catalogue.Query{Equal: farmlands, OrderBy: "combatLevel", Descending: true}, []string{"Cow", "Chicken", "Goblin"}},
		{"gods by name", catalogue.Query{Equal: map[string]string{"isGod": "true"}, OrderBy: "name"}, []string{"Athena", "zeus"}},
		{"combatLevel range by name descending", catalogue.Query{AtMost: map[string]float64{"combatLevel": 2}, OrderBy: "name", Descending: true}, []string{"Rat", "Cow", "Chicken"}},
	})
}

// Records whose names are the same, bytes and all, are ties.
func TestSelectEqualNamesKeepUpstreamOrder(t *testing.T) {
	s := catalogue.NewSnapshot(decodeItems(t, `[{"total":3,"results":[
		{"id":3,"name":"Rope","type":"t","rarity":"r","value":3,"tradable":true,"usedIn":{},...},
		{"id":1,"name":"Rope","type":"t","rarity":"r","value":1,"tradable":true,"usedIn":{},...},
		{"id":2,"name":"Rope","type":"t","rarity":"r","value":2,"tradable":true,"usedIn":{},...}
	]}]`))
	label := func(r *catalogue.Item) string { return strconv.FormatInt(r.ID, 10) }
	runSelectCases(t, s.Index(catalogue.Items), s.Items(), label, []selectCase{
		{"ascending", catalogue.Query{OrderBy: "name"}, []string{"3", "1", "2"}},
		{"descending", catalogue.Query{OrderBy: "name", Descending: true}, []string{"3", "1", "2"}},
		{"filtered descending", catalogue.Query{AtLeast: map[string]float64{"value": 2}, OrderBy: "name", Descending: true}, []string{"3", "2"}},
		{"filtered by type, descending", catalogue.Query{Equal: map[string]string{"type": "t"}, OrderBy: "name", Descending: true}, []string{"3", "1", "2"}},
	})
}

func TestSelectUnknownField(t *testing.T) {
	s := catalogue.NewSnapshot(decodeItems(t, selectItems), mustDecode(t, catalogue.Monsters, selectMonsters))
	tests := []struct {
		name string
		c    catalogue.Collection
		q    catalogue.Query
	}{
		{"equal on a field that is not indexed", catalogue.Items, catalogue.Query{Equal: map[string]string{"description": ""}}},
		{"equal on a numeric field", catalogue.Items, catalogue.Query{Equal: map[string]string{"value": "5"}}},
		{"equal on the name", catalogue.Items, catalogue.Query{Equal: map[string]string{"name": "apple"}}},
		{"equal with a known field too", catalogue.Items, catalogue.Query{Equal: map[string]string{"type": "Food", "nope": "x"}}},
		{"at least on a string field", catalogue.Items, catalogue.Query{AtLeast: map[string]float64{"type": 1}}},
		{"at most on an unknown field", catalogue.Items, catalogue.Query{AtMost: map[string]float64{"nope": 1}}},
		{"at most on another collection's field", catalogue.Items, catalogue.Query{AtMost: map[string]float64{"combatLevel": 1}}},
		{"order by an equality field", catalogue.Items, catalogue.Query{OrderBy: "type"}},
		{"order by a field in the wrong case", catalogue.Items, catalogue.Query{OrderBy: "Name"}},
		{"order by an unknown field, filtered", catalogue.Items, catalogue.Query{NameContains: "a", OrderBy: "nope"}},
		{"monsters: equal on a numeric field", catalogue.Monsters, catalogue.Query{Equal: map[string]string{"combatLevel": "1"}}},
		{"monsters: order by area", catalogue.Monsters, catalogue.Query{OrderBy: "area", Descending: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := s.Index(tt.c).Select(tt.q)
			if err == nil {
				t.Errorf("Select(%+v) = %v, want an error", tt.q, positions(sel))
			}
		})
	}
}

func TestSelectMissingCollection(t *testing.T) {
	s := catalogue.NewSnapshot(decodeItems(t, selectItems))
	ix := s.Index(catalogue.Monsters)
	if ix != nil {
		t.Fatalf("Index(Monsters) = %v for a snapshot without monsters, want nil", ix)
	}
	sel, err := ix.Select(catalogue.Query{NameContains: "a", OrderBy: "name"})
	if err != nil {
		t.Fatalf("Select on a missing collection: %v", err)
	}
	if n := sel.Len(); n != 0 {
		t.Errorf("Len() = %d, want 0", n)
	}
	checkFind(t, sel, 0)
}

func TestSelectionFind(t *testing.T) {
	s := catalogue.NewSnapshot(decodeItems(t, selectItems))
	ix := s.Index(catalogue.Items)
	type find struct {
		pos, want int
		ok        bool
	}
	tests := []struct {
		name  string
		q     catalogue.Query
		finds []find
	}{
		{"upstream order", catalogue.Query{}, []find{
			{0, 0, true}, {4, 4, true}, {6, 6, true},
			{-1, 0, false}, {7, 0, false}, {1 << 30, 0, false},
		}},
		// By value: apple, Apple, Oak Log, Apple Pie, oak plank, Iron Sword,
		// Golden apple.
		{"ordered", catalogue.Query{OrderBy: "value"}, []find{
			{1, 0, true}, {5, 1, true}, {0, 2, true}, {3, 3, true}, {6, 4, true}, {2, 5, true}, {4, 6, true},
			{-1, 0, false}, {7, 0, false}, {1 << 30, 0, false},
		}},
		{"ordered descending", catalogue.Query{OrderBy: "id", Descending: true}, []find{
			{5, 0, true}, {0, 3, true}, {6, 6, true},
			{-1, 0, false}, {7, 0, false},
		}},
		// Food by value, descending: Golden apple, Apple Pie, apple, Apple.
		{"filtered and ordered", catalogue.Query{Equal: map[string]string{"type": "Food"}, OrderBy: "value", Descending: true}, []find{
			{4, 0, true}, {3, 1, true}, {1, 2, true}, {5, 3, true},
			{0, 0, false}, {2, 0, false}, {6, 0, false},
			{-1, 0, false}, {7, 0, false}, {1 << 30, 0, false},
		}},
		// Value 5 and up, by name: Apple Pie, Golden apple, Iron Sword, Oak
		// Log, oak plank.
		{"range ordered by name", catalogue.Query{AtLeast: map[string]float64{"value": 5}, OrderBy: "name"}, []find{
			{3, 0, true}, {4, 1, true}, {2, 2, true}, {0, 3, true}, {6, 4, true},
			{1, 0, false}, {5, 0, false}, {-1, 0, false}, {7, 0, false},
		}},
		// Rare, in upstream order: Iron Sword, Golden apple.
		{"filtered", catalogue.Query{Equal: map[string]string{"rarity": "Rare"}}, []find{
			{2, 0, true}, {4, 1, true},
			{0, 0, false}, {3, 0, false}, {5, 0, false}, {-1, 0, false}, {7, 0, false}, {1 << 30, 0, false},
		}},
		{"empty", catalogue.Query{NameContains: "pear", OrderBy: "name"}, []find{
			{0, 0, false}, {6, 0, false}, {-1, 0, false}, {7, 0, false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := ix.Select(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range tt.finds {
				got, ok := sel.Find(f.pos)
				if ok != f.ok || ok && got != f.want {
					t.Errorf("Find(%d) = %d, %t; want %d, %t", f.pos, got, ok, f.want, f.ok)
				}
			}
			checkFind(t, sel, s.Items().Len())
		})
	}
}

// oracle answers Queries over one collection by brute force, straight from
// its records: a filter over every record, then a stable sort.
type oracle struct {
	n       int
	name    func(i int) string // "" when the record has none
	equal   map[string]func(i int) (string, bool)
	numeric map[string]func(i int) (float64, bool)
	text    map[string]func(i int) (string, bool) // string fields to order by
}

func (o oracle) sel(q catalogue.Query) []int {
	needle := strings.ToLower(q.NameContains)
	out := []int{}
next:
	for i := range o.n {
		if !strings.Contains(strings.ToLower(o.name(i)), needle) {
			continue
		}
		for f, want := range q.Equal {
			if v, ok := o.equal[f](i); !ok || v != want {
				continue next
			}
		}
		for f, lo := range q.AtLeast {
			if v, ok := o.numeric[f](i); !ok || v < lo {
				continue next
			}
		}
		for f, hi := range q.AtMost {
			if v, ok := o.numeric[f](i); !ok || v > hi {
				continue next
			}
		}
		out = append(out, i)
	}
	if q.OrderBy == "" {
		return out
	}
	var has func(i int) bool
	var compare func(a, b int) int
	if key, ok := o.numeric[q.OrderBy]; ok {
		has = func(i int) bool { _, ok := key(i); return ok }
		compare = func(a, b int) int {
			x, _ := key(a)
			y, _ := key(b)
			return cmp.Compare(x, y)
		}
	} else {
		key := o.text[q.OrderBy]
		has = func(i int) bool { _, ok := key(i); return ok }
		compare = func(a, b int) int {
			x, _ := key(a)
			y, _ := key(b)
			return cmp.Or(cmp.Compare(strings.ToLower(x), strings.ToLower(y)), cmp.Compare(x, y))
		}
	}
	var present, absent []int
	for _, i := range out {
		if has(i) {
			present = append(present, i)
		} else {
			absent = append(absent, i)
		}
	}
	slices.SortStableFunc(present, func(a, b int) int {
		if q.Descending {
			return compare(b, a)
		}
		return compare(a, b)
	})
	return append(append([]int{}, present...), absent...)
}

// randomQuery makes a query over o. Its values come mostly from one
// record, so that most queries match something, and otherwise from
// another record, or from none.
func (o oracle) randomQuery(r *rand.Rand) catalogue.Query {
	anchor := r.IntN(o.n)
	record := func() int {
		if r.IntN(4) == 0 {
			return r.IntN(o.n)
		}
		return anchor
	}
	var q catalogue.Query
	switch r.IntN(6) {
	case 0, 1:
		name := o.name(record())
		if name != "" {
			i := r.IntN(len(name))
			j := i + 1 + r.IntN(min(4, len(name)-i))
			q.NameContains = name[i:j]
			if r.IntN(2) == 0 {
				q.NameContains = strings.ToUpper(q.NameContains)
			}
		}
	case 2:
		// One or two letters, as bench/mix's filtered page draws them:
		// letters most names hold, pairs few or none do.
		q.NameContains = string(rune('a' + r.IntN(26)))
		if r.IntN(2) == 0 {
			q.NameContains += string(rune('a' + r.IntN(26)))
		}
	case 3:
		q.NameContains = "no such name"
	}
	for _, f := range slices.Sorted(maps.Keys(o.equal)) {
		if r.IntN(3) != 0 {
			continue
		}
		v, ok := o.equal[f](record())
		if !ok || r.IntN(10) == 0 {
			v = "no such value"
		}
		if q.Equal == nil {
			q.Equal = map[string]string{}
		}
		q.Equal[f] = v
	}
	for _, f := range slices.Sorted(maps.Keys(o.numeric)) {
		for _, m := range []*map[string]float64{&q.AtLeast, &q.AtMost} {
			if r.IntN(5) != 0 {
				continue
			}
			v, ok := o.numeric[f](record())
			if !ok {
				v = r.Float64() * 100
			}
			if *m == nil {
				*m = map[string]float64{}
			}
			(*m)[f] = v
		}
	}
	orders := append(slices.Sorted(maps.Keys(o.numeric)), slices.Sorted(maps.Keys(o.text))...)
	if i := r.IntN(len(orders) + 1); i < len(orders) {
		q.OrderBy = orders[i]
	}
	q.Descending = r.IntN(2) == 0
	return q
}

func optNumber(n *catalogue.Number) (float64, bool) {
	if n == nil {
		return 0, false
	}
	return n.Float64(), true
}

func optString(s *string) (string, bool) {
	if s == nil {
		return "", false
	}
	return *s, true
}

func itemOracle(t *catalogue.Table[catalogue.Item]) oracle {
	at := t.At
	return oracle{
		n:    t.Len(),
		name: func(i int) string { return at(i).Name },
		equal: map[string]func(int) (string, bool){
			"type":     func(i int) (string, bool) { return at(i).Type, true },
			"rarity":   func(i int) (string, bool) { return at(i).Rarity, true },
			"tradable": func(i int) (string, bool) { return strconv.FormatBool(at(i).Tradable), true },
		},
		numeric: map[string]func(int) (float64, bool){
			"id":    func(i int) (float64, bool) { return float64(at(i).ID), true },
			"value": func(i int) (float64, bool) { return at(i).Value.Float64(), true },
		},
		text: map[string]func(int) (string, bool){
			"name": func(i int) (string, bool) { return at(i).Name, true },
		},
	}
}

func monsterOracle(t *catalogue.Table[catalogue.Monster]) oracle {
	at := t.At
	return oracle{
		n:    t.Len(),
		name: func(i int) string { n, _ := optString(at(i).Name); return n },
		equal: map[string]func(int) (string, bool){
			"area": func(i int) (string, bool) { return optString(at(i).Area) },
			"isGod": func(i int) (string, bool) {
				if g := at(i).IsGod; g != nil {
					return strconv.FormatBool(*g), true
				}
				return "", false
			},
		},
		numeric: map[string]func(int) (float64, bool){
			"id":          func(i int) (float64, bool) { return float64(at(i).ID), true },
			"combatLevel": func(i int) (float64, bool) { return optNumber(at(i).CombatLevel) },
			"slayerLevel": func(i int) (float64, bool) { return optNumber(at(i).SlayerLevel) },
			"health":      func(i int) (float64, bool) { return optNumber(at(i).Health) },
		},
		text: map[string]func(int) (string, bool){
			"name": func(i int) (string, bool) { return optString(at(i).Name) },
		},
	}
}

// TestSelectMatchesBruteForce checks the index against the oracle on
// random queries over the embedded catalogue, Find included.
func TestSelectMatchesBruteForce(t *testing.T) {
	s := loadEmbedded(t)
	collections := []struct {
		c catalogue.Collection
		o oracle
	}{
		{catalogue.Items, itemOracle(s.Items())},
		{catalogue.Monsters, monsterOracle(s.Monsters())},
	}
	r := rand.New(rand.NewPCG(1, 2))
	matched := 0
	for i := range 300 {
		c := collections[i%len(collections)]
		q := c.o.randomQuery(r)
		sel, err := s.Index(c.c).Select(q)
		if err != nil {
			t.Fatalf("%s: Select(%+v): %v", c.c, q, err)
		}
		want := c.o.sel(q)
		if diff := gocmp.Diff(want, positions(sel)); diff != "" {
			t.Fatalf("%s: Select(%+v) positions (-want +got):\n%s", c.c, q, diff)
		}
		checkFind(t, sel, c.o.n)
		checkRead(t, s.Index(c.c), q, want, c.o.n, r)
		if len(want) > 0 {
			matched++
		}
	}
	// Queries that match nothing prove little: a third at least must
	// match something (with this seed, nearly two thirds do).
	if matched < 100 {
		t.Errorf("only %d of 300 random queries matched a record", matched)
	}
}

// The index is read by every request at once; with -race this checks that
// Select and Find write nothing shared.
func TestSelectConcurrent(t *testing.T) {
	s := catalogue.NewSnapshot(decodeItems(t, selectItems))
	ix := s.Index(catalogue.Items)
	queries := []catalogue.Query{
		{},
		{OrderBy: "name"},
		{OrderBy: "value", Descending: true},
		{Equal: map[string]string{"type": "Food"}, OrderBy: "value"},
		{NameContains: "o", OrderBy: "id", Descending: true},
	}
	want := make([][]int, len(queries))
	for i, q := range queries {
		sel, err := ix.Select(q)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = positions(sel)
	}
	var wg sync.WaitGroup
	errs := make(chan string, len(queries)*4)
	for range 4 {
		for i, q := range queries {
			wg.Go(func() {
				for range 100 {
					sel, _ := ix.Select(q)
					got := positions(sel)
					if !slices.Equal(got, want[i]) {
						errs <- fmt.Sprintf("Select(%+v) = %v, want %v", q, got, want[i])
						return
					}
					for place, pos := range got {
						if p, ok := sel.Find(pos); !ok || p != place {
							errs <- fmt.Sprintf("Select(%+v).Find(%d) = %d, %t; want %d", q, pos, p, ok, place)
							return
						}
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func BenchmarkSelect(b *testing.B) {
	ix := loadEmbedded(b).Index(catalogue.Items)
	q := catalogue.Query{
		NameContains: "e",
		Equal:        map[string]string{"tradable": "true"},
		AtLeast:      map[string]float64{"value": 10},
		OrderBy:      "name",
		Descending:   true,
	}
	b.ReportAllocs()
	for b.Loop() {
		sel, err := ix.Select(q)
		if err != nil {
			b.Fatal(err)
		}
		if sel.Len() == 0 {
			b.Fatal("the benchmark's query selects nothing")
		}
	}
}

// BenchmarkSelectPage reads a page as a list field does (the first 50 and
// whether one follows) of items ordered by value, descending, whose name
// contains a term drawn at random from the words of the items' names: a
// different term each time, as bench/shapes.sh sends them, most matching
// fewer than a page (so every record is tested) and some many.
func BenchmarkSelectPage(b *testing.B) {
	s := loadEmbedded(b)
	ix := s.Index(catalogue.Items)
	seen := map[string]bool{}
	var terms []string
	for i := range s.Items().Len() {
		for _, w := range strings.Fields(strings.ToLower(s.Items().At(i).Name)) {
			if len(w) >= 3 && !seen[w] {
				seen[w] = true
				terms = append(terms, w)
			}
		}
	}
	slices.Sort(terms)
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	for b.Loop() {
		q := catalogue.Query{NameContains: terms[rng.IntN(len(terms))], OrderBy: "value", Descending: true}
		if readPage(b, ix, q) == 0 {
			b.Fatal("a term from a name matched nothing")
		}
	}
}

// readPage reads q's first page of 50 as a list field does, the page and
// whether one follows, and returns its length.
func readPage(b *testing.B, ix *catalogue.Index, q catalogue.Query) int {
	sel, err := ix.Select(q)
	if err != nil {
		b.Fatal(err)
	}
	end := sel.Clip(50)
	for i := range end {
		_ = sel.At(i)
	}
	sel.Clip(end + 1)
	return end
}

// BenchmarkSelectPageShortTerm reads a page as BenchmarkSelectPage does,
// for a random one- or two-letter term in a random order, as bench/mix's
// filtered page asks: terms that match most names, and terms that match
// none, so that every name is tested.
func BenchmarkSelectPageShortTerm(b *testing.B) {
	ix := loadEmbedded(b).Index(catalogue.Items)
	rng := rand.New(rand.NewPCG(1, 2))
	fields := []string{"id", "name", "value"}
	b.ReportAllocs()
	for b.Loop() {
		term := string(rune('a' + rng.IntN(26)))
		if rng.IntN(2) == 0 {
			term += string(rune('a' + rng.IntN(26)))
		}
		readPage(b, ix, catalogue.Query{NameContains: term, OrderBy: fields[rng.IntN(len(fields))], Descending: rng.IntN(2) == 0})
	}
}

// The relation bodies: small, but with every way a record can name an item
// twice, name an item or quest that is not there, or name id 0.
const (
	relationItems = `[{"total":7,"results":[
	{"id":1,"name":"Flour","type":"t","rarity":"r","value":1,"tradable":true,...,"usedIn":{
		"cooking":[{"cookingId":300,"name":"Cake","burnt":"","levelRequired":1},{"cookingId":0,"name":"","burnt":"","levelRequired":1}],
		"farming":[{"farmingId":900,"name":"Wheat","levelRequired":1}]}},
	{"id":2,"name":"Egg","type":"t","rarity":"r","value":1,"tradable":true,...,"usedIn":{},"monsterDrops":[
		{"dropId":1,"monsterId":100,"monsterName":"Hen","minAmount":1,"maxAmount":1,"baseChance":1,"luckChance":1,"extremeLuckChance":1},
		{"dropId":2,"monsterId":0,"monsterName":"","minAmount":1,"maxAmount":1,"baseChance":1,"luckChance":1,"extremeLuckChance":1}]},
	{"id":3,"name":"Cake","type":"t","rarity":"r","value":1,"tradable":true,...,"usedIn":{},
		"crafting":{"name":"Cake","category":"c","craftingLevel":1,"craftingExp":1,"materials":[{"itemId":1,"name":"Flour","amount":1},{"itemId":2,"name":"Egg","amount":1}]},
		"cooking":{"name":"Cake","burnt":"","cookingLevel":1,"burntLevel":1,"burntChance":1,"cookingExp":1,"materials":[{"itemId":1,"name":"Flour"}]}},
	{"id":4,"name":"Bow","type":"t","rarity":"r","value":1,"tradable":true,...,"usedIn":{},
		"fletching":{"name":"Bow","category":"c","fletchingLevel":1,"fletchingExp":1,"materials":[{"itemId":5,"name":"String","amount":1},{"itemId":5,"name":"String","amount":1}]}},
	{"id":5,"name":"String","type":"t","rarity":"r","value":1,"tradable":true,...,"usedIn":{}},
	{"id":6,"name":"Potion","type":"t","rarity":"r","value":1,"tradable":true,...,"usedIn":{},
		"alchemy":{"alchemyId":1,"name":"Potion","levelRequired":1,"alchemyExpProvided":1,"materials":[{"itemId":2,"itemName":"Egg","amount":1},{"itemId":42,"itemName":"Gone","amount":1}]}},
	{"id":7,"name":"Bread","type":"t","rarity":"r","value":1,"tradable":true,...,"usedIn":{},
		"crafting":{"name":"Bread","category":"c","craftingLevel":1,"craftingExp":1,"materials":[{"itemId":1,"name":"Flour","amount":1},{"itemId":1,"name":"Flour","amount":1}]}}
]}]`

	relationMonsters = `[{"total":3,"results":[
	{"id":100,"name":"Hen","drops":[{"itemId":2},{"itemId":1},{"itemId":2},{"itemId":999},{"name":"Coins"}]},
	{"id":101,"name":"Baker","drops":[{"itemId":1}]},
	{"id":102,"name":"Ghost"}
]}]`

	// The second First Steps is a duplicate name: the first one is the
	// prerequisite the others name.
	relationQuests = `[{"total":6,"results":[
	{"id":200,"questName":"First Steps","questSeries":"s","requiredSkills":[],"prerequisiteQuest":"",
		"questItems":[{"itemId":1,"name":"Flour","amount":1},{"itemId":1,"name":"Flour","amount":2}],
		"questRewards":[{"type":"item","amount":1,"skill":"","itemId":2,"name":"Egg"},{"type":"exp","amount":10,"skill":"cooking","itemId":0,"name":""}]},
	{"id":201,"questName":"Second Steps","questSeries":"s","requiredSkills":[],"prerequisiteQuest":"First Steps",
		"questItems":[{"itemId":2,"name":"Egg","amount":1}],
		"questRewards":[{"type":"item","amount":1,"skill":"","itemId":2,"name":"Egg"},{"type":"item","amount":1,"skill":"","itemId":3,"name":"Cake"}]},
	{"id":202,"questName":"First Steps","questSeries":"s","requiredSkills":[],"prerequisiteQuest":"",
		"questItems":[],
		"questRewards":[{"type":"item","amount":1,"skill":"","itemId":3,"name":"Cake"}]},
	{"id":203,"questName":"Third Steps","questSeries":"s","requiredSkills":[],"prerequisiteQuest":"Second Steps","questItems":[],"questRewards":[]},
	{"id":204,"questName":"Orphan","questSeries":"s","requiredSkills":[],"prerequisiteQuest":"Nowhere","questItems":[],"questRewards":[]},
	{"id":205,"questName":"Side Steps","questSeries":"s","requiredSkills":[],"prerequisiteQuest":"First Steps","questItems":[],"questRewards":[]}
]}]`

	relationCooking = `[{"total":2,"results":[
	{"id":300,"itemId":3,"name":"Cake","burntId":0,"burnt":"","requiredLevel":1,"burntLevel":1,"burntChance":1,"cookingExp":1,
		"materials":[{"itemId":1,"name":"Flour"},{"itemId":2,"name":"Egg"},{"itemId":1,"name":"Flour"}]},
	{"id":301,"itemId":7,"name":"Bread","burntId":8,"burnt":"Burnt Bread","requiredLevel":1,"burntLevel":1,"burntChance":1,"cookingExp":1,
		"materials":[{"itemId":1,"name":"Flour"}]}
]}]`

	relationFletching = `[{"total":1,"results":[
	{"id":400,"itemId":4,"name":"Bow","category":"c","fletchingLevel":1,"fletchingExp":1,
		"materials":[{"itemId":5,"name":"String","amount":1},{"itemId":5,"name":"String","amount":1}]}
]}]`

	relationDiscovery = `[{"total":2,"results":[
	{"id":500,"discoveryLocation":"Meadow","discoveryExp":1,"discoveryLevel":1,"drops":[
		{"dropId":1,"itemId":2,"name":"Egg","rarity":"r","baseChance":1,"luckChance":1,"extremeLuckChance":1},
		{"dropId":2,"itemId":2,"name":"Egg","rarity":"r","baseChance":1,"luckChance":1,"extremeLuckChance":1}]},
	{"id":501,"discoveryLocation":"Cave","discoveryExp":1,"discoveryLevel":1,"drops":[
		{"dropId":3,"itemId":5,"name":"String","rarity":"r","baseChance":1,"luckChance":1,"extremeLuckChance":1}]}
]}]`

	relationEvents = `[{"total":2,"results":[
	{"id":600,"name":"Spring Chest","itemId":"6","drops":[
		{"itemId":6,"name":"Potion","amount":1,"percentage":1,"text":""},
		{"itemId":6,"name":"Potion","amount":2,"percentage":1,"text":""},
		{"itemId":1,"name":"Flour","amount":1,"percentage":1,"text":""}]},
	{"id":601,"name":"Odd Chest","drops":[{"itemId":77,"name":"Gone","amount":1,"percentage":1,"text":""}]}
]}]`

	relationSecretRares = `[{"total":2,"results":[
	{"id":700,"itemName":"Potion","itemId":6,"secretDrops":[]},
	{"id":701,"itemName":"Potion","itemId":6,"secretDrops":[{"chance":1,"chanceText":"1%","impactedByWishingWell":true,"conditions":[]}]}
]}]`
)

// relationParts decodes the relation bodies, by collection.
func relationParts(t *testing.T) map[catalogue.Collection]*catalogue.Part {
	t.Helper()
	return map[catalogue.Collection]*catalogue.Part{
		catalogue.Items:              decodeItems(t, relationItems),
		catalogue.Monsters:           mustDecode(t, catalogue.Monsters, relationMonsters),
		catalogue.Quests:             mustDecode(t, catalogue.Quests, relationQuests),
		catalogue.CookingRecipes:     mustDecode(t, catalogue.CookingRecipes, relationCooking),
		catalogue.FletchingRecipes:   mustDecode(t, catalogue.FletchingRecipes, relationFletching),
		catalogue.DiscoveryLocations: mustDecode(t, catalogue.DiscoveryLocations, relationDiscovery),
		catalogue.EventChests:        mustDecode(t, catalogue.EventChests, relationEvents),
		catalogue.SecretRares:        mustDecode(t, catalogue.SecretRares, relationSecretRares),
	}
}

// relationSnapshots are snapshots of the relation bodies with collections
// left out: relations touching a missing collection must come back empty.
func relationSnapshots(t *testing.T) []struct {
	name string
	s    *catalogue.Snapshot
} {
	t.Helper()
	parts := relationParts(t)
	only := func(cs ...catalogue.Collection) *catalogue.Snapshot {
		var ps []*catalogue.Part
		for _, c := range cs {
			ps = append(ps, parts[c])
		}
		return catalogue.NewSnapshot(ps...)
	}
	allBut := func(drop catalogue.Collection) *catalogue.Snapshot {
		var ps []*catalogue.Part
		for c, p := range parts {
			if c != drop {
				ps = append(ps, p)
			}
		}
		return catalogue.NewSnapshot(ps...)
	}
	return []struct {
		name string
		s    *catalogue.Snapshot
	}{
		{"all", allBut(catalogue.NumCollections)},
		{"no items", allBut(catalogue.Items)},
		{"no monsters", allBut(catalogue.Monsters)},
		{"items only", only(catalogue.Items)},
		{"items and monsters", only(catalogue.Items, catalogue.Monsters)},
		{"quests only", only(catalogue.Quests)},
		{"nothing", catalogue.NewSnapshot()},
	}
}

// idsOf lists the ids of records, nil for none.
func idsOf[T any](l []*T, id func(*T) int64) []int64 {
	var out []int64
	for _, r := range l {
		out = append(out, id(r))
	}
	return out
}

func itemID(r *catalogue.Item) int64                   { return r.ID }
func monsterID(r *catalogue.Monster) int64             { return r.ID }
func questID(r *catalogue.Quest) int64                 { return r.ID }
func cookingID(r *catalogue.CookingRecipe) int64       { return r.ID }
func fletchingID(r *catalogue.FletchingRecipe) int64   { return r.ID }
func discoveryID(r *catalogue.DiscoveryLocation) int64 { return r.ID }
func eventID(r *catalogue.EventChest) int64            { return r.ID }
func secretRareID(r *catalogue.SecretRare) int64       { return r.ID }

func TestRelations(t *testing.T) {
	questNamed := func(name string) func(*catalogue.Snapshot) []int64 {
		return func(s *catalogue.Snapshot) []int64 {
			if q, ok := s.QuestNamed(name); ok {
				return []int64{q.ID}
			}
			return nil
		}
	}
	tests := []struct {
		name string
		got  func(*catalogue.Snapshot) []int64
		// needs lists the collections the answer comes from; without any
		// of them, it is empty.
		needs []catalogue.Collection
		want  []int64
	}{
		// Hen drops Egg twice: it is listed once. Item 999 is unknown, but
		// Hen still drops it.
		{"ItemDroppedByMonsters(1)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemDroppedByMonsters(1), monsterID) }, []catalogue.Collection{catalogue.Monsters}, []int64{100, 101}},
		{"ItemDroppedByMonsters(2)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemDroppedByMonsters(2), monsterID) }, []catalogue.Collection{catalogue.Monsters}, []int64{100}},
		{"ItemDroppedByMonsters(999)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemDroppedByMonsters(999), monsterID) }, []catalogue.Collection{catalogue.Monsters}, []int64{100}},
		{"ItemDroppedByMonsters(5)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemDroppedByMonsters(5), monsterID) }, nil, nil},

		// In drop order, once each, without the unknown item 999 and the
		// drop that names no item.
		{"MonsterDroppedItems(100)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.MonsterDroppedItems(100), itemID) }, []catalogue.Collection{catalogue.Monsters, catalogue.Items}, []int64{2, 1}},
		{"MonsterDroppedItems(101)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.MonsterDroppedItems(101), itemID) }, []catalogue.Collection{catalogue.Monsters, catalogue.Items}, []int64{1}},
		{"MonsterDroppedItems(102)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.MonsterDroppedItems(102), itemID) }, nil, nil},
		{"MonsterDroppedItems(1)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.MonsterDroppedItems(1), itemID) }, nil, nil},

		{"ItemRewardedByQuests(2)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemRewardedByQuests(2), questID) }, []catalogue.Collection{catalogue.Quests}, []int64{200, 201}},
		{"ItemRewardedByQuests(3)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemRewardedByQuests(3), questID) }, []catalogue.Collection{catalogue.Quests}, []int64{201, 202}},
		{"ItemRewardedByQuests(1)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemRewardedByQuests(1), questID) }, nil, nil},
		{"ItemRequiredByQuests(1)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemRequiredByQuests(1), questID) }, []catalogue.Collection{catalogue.Quests}, []int64{200}},
		{"ItemRequiredByQuests(2)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemRequiredByQuests(2), questID) }, []catalogue.Collection{catalogue.Quests}, []int64{201}},
		{"ItemRequiredByQuests(3)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemRequiredByQuests(3), questID) }, nil, nil},

		// Cake uses Flour in crafting and cooking, Bread twice in crafting:
		// each is listed once.
		{"ItemIngredientOf(1)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemIngredientOf(1), itemID) }, []catalogue.Collection{catalogue.Items}, []int64{3, 7}},
		{"ItemIngredientOf(2)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemIngredientOf(2), itemID) }, []catalogue.Collection{catalogue.Items}, []int64{3, 6}},
		{"ItemIngredientOf(5)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemIngredientOf(5), itemID) }, []catalogue.Collection{catalogue.Items}, []int64{4}},
		{"ItemIngredientOf(42)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemIngredientOf(42), itemID) }, []catalogue.Collection{catalogue.Items}, []int64{6}},
		{"ItemIngredientOf(3)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemIngredientOf(3), itemID) }, nil, nil},

		{"ItemUsedInCookingRecipes(1)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemUsedInCookingRecipes(1), cookingID) }, []catalogue.Collection{catalogue.CookingRecipes}, []int64{300, 301}},
		{"ItemUsedInCookingRecipes(2)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemUsedInCookingRecipes(2), cookingID) }, []catalogue.Collection{catalogue.CookingRecipes}, []int64{300}},
		{"ItemUsedInCookingRecipes(3)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemUsedInCookingRecipes(3), cookingID) }, nil, nil},
		{"ItemUsedInFletchingRecipes(5)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemUsedInFletchingRecipes(5), fletchingID) }, []catalogue.Collection{catalogue.FletchingRecipes}, []int64{400}},
		{"ItemUsedInFletchingRecipes(1)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemUsedInFletchingRecipes(1), fletchingID) }, nil, nil},
		{"ItemDroppedAtDiscoveryLocations(2)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemDroppedAtDiscoveryLocations(2), discoveryID) }, []catalogue.Collection{catalogue.DiscoveryLocations}, []int64{500}},
		{"ItemDroppedAtDiscoveryLocations(5)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemDroppedAtDiscoveryLocations(5), discoveryID) }, []catalogue.Collection{catalogue.DiscoveryLocations}, []int64{501}},
		{"ItemDroppedAtDiscoveryLocations(1)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemDroppedAtDiscoveryLocations(1), discoveryID) }, nil, nil},
		{"ItemInEventChests(6)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemInEventChests(6), eventID) }, []catalogue.Collection{catalogue.EventChests}, []int64{600}},
		{"ItemInEventChests(1)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemInEventChests(1), eventID) }, []catalogue.Collection{catalogue.EventChests}, []int64{600}},
		{"ItemInEventChests(77)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemInEventChests(77), eventID) }, []catalogue.Collection{catalogue.EventChests}, []int64{601}},
		{"ItemInEventChests(2)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemInEventChests(2), eventID) }, nil, nil},
		{"ItemSecretRares(6)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemSecretRares(6), secretRareID) }, []catalogue.Collection{catalogue.SecretRares}, []int64{700, 701}},
		{"ItemSecretRares(1)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.ItemSecretRares(1), secretRareID) }, nil, nil},

		// 202 is named First Steps too, but the first of the name wins.
		{"QuestUnlocks(200)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.QuestUnlocks(200), questID) }, []catalogue.Collection{catalogue.Quests}, []int64{201, 205}},
		{"QuestUnlocks(201)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.QuestUnlocks(201), questID) }, []catalogue.Collection{catalogue.Quests}, []int64{203}},
		{"QuestUnlocks(202)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.QuestUnlocks(202), questID) }, nil, nil},
		{"QuestUnlocks(203)", func(s *catalogue.Snapshot) []int64 { return idsOf(s.QuestUnlocks(203), questID) }, nil, nil},
		{`QuestNamed("First Steps")`, questNamed("First Steps"), []catalogue.Collection{catalogue.Quests}, []int64{200}},
		{`QuestNamed("Side Steps")`, questNamed("Side Steps"), []catalogue.Collection{catalogue.Quests}, []int64{205}},
		{`QuestNamed("first steps")`, questNamed("first steps"), nil, nil},
		{`QuestNamed("Nowhere")`, questNamed("Nowhere"), nil, nil},
		{`QuestNamed("")`, questNamed(""), nil, nil},
	}
	snaps := relationSnapshots(t)
	for _, snap := range snaps {
		t.Run(snap.name, func(t *testing.T) {
			s := snap.s
			for _, tt := range tests {
				want := tt.want
				for _, c := range tt.needs {
					if s.Part(c) == nil {
						want = nil
					}
				}
				if diff := gocmp.Diff(want, tt.got(s)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", tt.name, diff)
				}
			}
		})
	}

	t.Run("records are the tables' own", func(t *testing.T) {
		s := snaps[0].s // all
		hen, _ := s.Monsters().Get(100)
		if got := s.ItemDroppedByMonsters(1); len(got) == 0 || got[0] != hen {
			t.Errorf("ItemDroppedByMonsters(1)[0] is not Monsters().Get(100)")
		}
		egg, _ := s.Items().Get(2)
		if got := s.MonsterDroppedItems(100); len(got) == 0 || got[0] != egg {
			t.Errorf("MonsterDroppedItems(100)[0] is not Items().Get(2)")
		}
		first, _ := s.Quests().Get(200)
		if got, _ := s.QuestNamed("First Steps"); got != first {
			t.Errorf(`QuestNamed("First Steps") is not Quests().Get(200)`)
		}
	})
}

func TestIntegrity(t *testing.T) {
	full := []catalogue.Dangling{
		{Reference: "cooking.burntId", Target: catalogue.Items, Count: 1, Total: 1}, // the other is 0
		{Reference: "cooking.itemId", Target: catalogue.Items, Count: 0, Total: 2},
		{Reference: "cooking.materials.itemId", Target: catalogue.Items, Count: 0, Total: 4},
		{Reference: "discovery.drops.itemId", Target: catalogue.Items, Count: 0, Total: 3},
		{Reference: "event.drops.itemId", Target: catalogue.Items, Count: 1, Total: 4},
		{Reference: "event.itemId", Target: catalogue.Items, Count: 0, Total: 1},
		{Reference: "fletching.itemId", Target: catalogue.Items, Count: 0, Total: 1},
		{Reference: "fletching.materials.itemId", Target: catalogue.Items, Count: 0, Total: 2},
		{Reference: "items.alchemy.materials.itemId", Target: catalogue.Items, Count: 1, Total: 2},
		{Reference: "items.cooking.materials.itemId", Target: catalogue.Items, Count: 0, Total: 1},
		{Reference: "items.crafting.materials.itemId", Target: catalogue.Items, Count: 0, Total: 4},
		{Reference: "items.fletching.materials.itemId", Target: catalogue.Items, Count: 0, Total: 2},
		{Reference: "items.monsterDrops.monsterId", Target: catalogue.Monsters, Count: 0, Total: 1},         // the other is 0
		{Reference: "items.usedIn.cooking.cookingId", Target: catalogue.CookingRecipes, Count: 0, Total: 1}, // the other is 0
		{Reference: "monsters.drops.itemId", Target: catalogue.Items, Count: 1, Total: 5},
		{Reference: "quests.prerequisiteQuest", Target: catalogue.Quests, Count: 1, Total: 4},
		{Reference: "quests.questItems.itemId", Target: catalogue.Items, Count: 0, Total: 3},
		{Reference: "quests.questRewards.itemId", Target: catalogue.Items, Count: 0, Total: 4}, // the exp reward is 0
		{Reference: "secretrares.itemId", Target: catalogue.Items, Count: 0, Total: 2},
		// No farming body: items.usedIn.farming.farmingId is never reported.
	}
	// kinds picks the entries of full with the given references.
	kinds := func(refs ...string) []catalogue.Dangling {
		var out []catalogue.Dangling
		for _, d := range full {
			if slices.Contains(refs, d.Reference) {
				out = append(out, d)
			}
		}
		return out
	}
	itemKinds := []string{"items.alchemy.materials.itemId", "items.cooking.materials.itemId", "items.crafting.materials.itemId", "items.fletching.materials.itemId"}
	want := map[string][]catalogue.Dangling{
		"all": full,
		// Without items, only the references into quests are left.
		"no items": kinds("quests.prerequisiteQuest"),
		"no monsters": slices.DeleteFunc(slices.Clone(full), func(d catalogue.Dangling) bool {
			return d.Reference == "items.monsterDrops.monsterId" || d.Reference == "monsters.drops.itemId"
		}),
		"items only":         kinds(itemKinds...),
		"items and monsters": kinds(append(itemKinds, "items.monsterDrops.monsterId", "monsters.drops.itemId")...),
		"quests only":        kinds("quests.prerequisiteQuest"),
		"nothing":            nil,
	}
	for _, snap := range relationSnapshots(t) {
		t.Run(snap.name, func(t *testing.T) {
			w, ok := want[snap.name]
			if !ok {
				t.Fatalf("no Integrity() expected for snapshot %q", snap.name)
			}
			got := snap.s.Integrity()
			if len(w) == 0 && len(got) == 0 {
				return
			}
			if diff := gocmp.Diff(w, got); diff != "" {
				t.Errorf("Integrity() (-want +got):\n%s", diff)
			}
		})
	}
}
