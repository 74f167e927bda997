package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var collections = []string{
	"items", "monsters", "secretrares", "worldboss", "quests", "basecamp", "discovery",
	"mining", "cooking", "farming", "forestry", "fletching", "event",
}

// generated runs the generator once per scale for the whole test binary.
var generated = struct {
	sync.Mutex
	dirs map[float64]string
}{dirs: map[float64]string{}}

func generatedDir(t *testing.T, scale float64) string {
	t.Helper()
	generated.Lock()
	defer generated.Unlock()
	if dir, ok := generated.dirs[scale]; ok {
		return dir
	}
	dir, err := os.MkdirTemp("", "catalogue-gen-")
	if err != nil {
		t.Fatal(err)
	}
	if err := generate(dir, scale); err != nil {
		t.Fatal(err)
	}
	generated.dirs[scale] = dir
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range generated.dirs {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

func readFile(t *testing.T, dir, collection string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, collection+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := generate(a, 1); err != nil {
		t.Fatal(err)
	}
	if err := generate(b, 1); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(a)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	if want := slices.Sorted(slices.Values(collections)); !slices.Equal(names, want) {
		t.Fatalf("files = %v, want %v", names, want)
	}
	for _, c := range collections {
		if !bytes.Equal(readFile(t, a, c), readFile(t, b, c)) {
			t.Errorf("%s.json differs between two runs", c)
		}
	}
}

func TestValidJSONAndShape(t *testing.T) {
	dir := generatedDir(t, 1)
	for _, c := range collections {
		t.Run(c, func(t *testing.T) {
			raw := readFile(t, dir, c)
			if !json.Valid(raw) {
				t.Fatal("not valid JSON")
			}
			var envs []map[string]json.RawMessage
			if err := json.Unmarshal(raw, &envs); err != nil {
				t.Fatalf("not an array of objects: %v", err)
			}
			if c == "worldboss" {
				if !bytes.HasSuffix(raw, []byte("}\n]\n")) || !bytes.HasPrefix(raw, []byte("[\n  {\n    \"world_bosses\": [")) {
					t.Error("world boss body is not laid out like json.dumps(indent=2) plus a newline")
				}
				if bytes.ContainsFunc(raw, func(r rune) bool { return r > 0x7e }) {
					t.Error("world boss body has non-ASCII bytes; want \\u escapes")
				}
				return
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, raw); err != nil || !bytes.Equal(compact.Bytes(), raw) {
				t.Error("body is not compact JSON without a trailing newline")
			}
			if bytes.Contains(raw, []byte(`\u003c`)) || bytes.Contains(raw, []byte(`\u0026`)) {
				t.Error("HTML characters are escaped the encoding/json way")
			}
			wantEnvs := 1
			if c == "items" {
				wantEnvs = 2
			}
			if len(envs) != wantEnvs {
				t.Fatalf("%d envelope objects, want %d", len(envs), wantEnvs)
			}
			for i, env := range envs {
				var total int
				var results []json.RawMessage
				if err := json.Unmarshal(env["total"], &total); err != nil {
					t.Fatalf("envelope %d total: %v", i, err)
				}
				if err := json.Unmarshal(env["results"], &results); err != nil {
					t.Fatalf("envelope %d results: %v", i, err)
				}
				if total != len(results) {
					t.Errorf("envelope %d: total %d, %d results", i, total, len(results))
				}
			}
		})
	}
}

func TestScale(t *testing.T) {
	one, two := generatedDir(t, 1), generatedDir(t, 2)
	for _, c := range collections {
		n1, n2 := len(records(t, one, c)), len(records(t, two, c))
		if ratio := float64(n2) / float64(n1); ratio < 1.8 || ratio > 2.2 {
			t.Errorf("%s: %d records at scale 1, %d at scale 2 (ratio %.2f)", c, n1, n2, ratio)
		}
	}
	if n := len(records(t, one, "items")); n < 1400 || n > 1600 {
		t.Errorf("%d items at scale 1, want about 1500", n)
	}
}

// records returns a collection's records from every envelope, decoded
// generically.
func records(t *testing.T, dir, collection string) []map[string]any {
	t.Helper()
	var envs []map[string]any
	if err := json.Unmarshal(readFile(t, dir, collection), &envs); err != nil {
		t.Fatal(err)
	}
	key := "results"
	if collection == "worldboss" {
		key = "world_bosses"
	}
	var out []map[string]any
	for _, env := range envs {
		for _, r := range env[key].([]any) {
			out = append(out, r.(map[string]any))
		}
	}
	return out
}

func TestReferencesResolve(t *testing.T) {
	for _, scale := range []float64{1, 2, 0.02} {
		t.Run(fmt.Sprint("scale ", scale), func(t *testing.T) {
			checkReferences(t, generatedDir(t, scale))
		})
	}
}

// refTargets says which collection a numeric reference field points into.
// locationId is handled apart: only discoveryDrops' location ids name a
// collection; fishing and thieving locations have their own id space.
var refTargets = map[string]string{
	"itemId": "items", "burntId": "items", "rewardId": "items", "craftingId": "items", "blessedId": "items",
	"monsterId": "monsters", "cookingId": "cooking", "fletchingId": "fletching", "farmingId": "farming",
	"forestryId": "forestry", "questId": "quests", "basecampId": "basecamp", "chestId": "event",
	"alchemyId": "alchemy",
}

// written is what the generator wrote: each collection's records, in
// order and by id, and the items' names.
type written struct {
	recs      map[string][]map[string]any
	byID      map[string]map[int]map[string]any
	itemNames map[string]bool
}

// checkReferences checks that every reference of the records in dir
// resolves, and that the two directions of each relation agree.
func checkReferences(t *testing.T, dir string) {
	g := readWritten(t, dir)
	checkResolved(t, g)
	checkMirrored(t, g)
}

// readWritten reads every collection in dir, checking ids are unique.
func readWritten(t *testing.T, dir string) written {
	recs := map[string][]map[string]any{}
	byID := map[string]map[int]map[string]any{}
	for _, c := range collections {
		recs[c] = records(t, dir, c)
		byID[c] = map[int]map[string]any{}
		for _, r := range recs[c] {
			id := num(r["id"])
			if _, dup := byID[c][id]; dup {
				t.Errorf("%s: duplicate id %d", c, id)
			}
			byID[c][id] = r
		}
	}
	// Alchemy recipes have no collection; their ids live on the items.
	byID["alchemy"] = map[int]map[string]any{}
	itemNames := map[string]bool{}
	for _, it := range recs["items"] {
		itemNames[it["name"].(string)] = true
		if a, ok := it["alchemy"].(map[string]any); ok {
			byID["alchemy"][num(a["alchemyId"])] = it
		}
	}

	return written{recs, byID, itemNames}
}

// checkResolved: every reference field anywhere resolves.
func checkResolved(t *testing.T, g written) {
	recs, byID := g.recs, g.byID
	checked := 0
	for _, c := range collections {
		for _, r := range recs[c] {
			walk(r, nil, func(path []string, key string, v any) {
				where := fmt.Sprintf("%s %v %s", c, r["id"], strings.Join(append(path, key), "."))
				target, ok := refTargets[key]
				if key == "locationId" && slices.Contains(path, "discoveryDrops") {
					target, ok = "discovery", true
				}
				if !ok || (c == "worldboss" && key == "id") {
					return
				}
				switch {
				case v == nil && ((c == "items" && slices.Contains(path, "chest")) || (c == "event" && len(path) == 0)):
					return // the upstream sends itemId null here
				case c == "event" && len(path) == 0:
					s, isString := v.(string)
					if isString {
						n, err := strconv.Atoi(s)
						if err != nil {
							t.Errorf("%s: string %q is not an item id", where, s)
							return
						}
						v = float64(n)
					}
				case c == "quests" && slices.Contains(path, "questRewards") && num(v) == 0:
					return // experience rewards name no item
				}
				if _, found := byID[target][num(v)]; !found {
					t.Errorf("%s = %v: no such %s record", where, v, target)
				}
				checked++
			})
		}
	}
	if checked < 1000 && len(recs["items"]) >= 1000 {
		t.Errorf("only %d references checked", checked)
	}
}

// checkMirrored: the two directions of each relation agree.
func checkMirrored(t *testing.T, g written) {
	recs, byID, itemNames := g.recs, g.byID, g.itemNames
	for _, it := range recs["items"] {
		id := num(it["id"])
		for _, md := range arr(it["monsterDrops"]) {
			m := byID["monsters"][num(md["monsterId"])]
			d := find(arr(m["drops"]), "dropId", md["dropId"])
			if d == nil || num(d["itemId"]) != id || m["name"] != md["monsterName"] ||
				d["baseChance"] != md["baseChance"] || d["min"] != md["minAmount"] || d["max"] != md["maxAmount"] {
				t.Errorf("item %d monsterDrops %v does not mirror monster %v", id, md, m["id"])
			}
		}
		usedIn := it["usedIn"].(map[string]any)
		for _, u := range arr(usedIn["crafting"]) {
			crafted := byID["items"][num(u["craftingId"])]
			c, _ := crafted["crafting"].(map[string]any)
			if find(arr(c["materials"]), "itemId", it["id"]) == nil {
				t.Errorf("item %d usedIn.crafting %v: not a material there", id, u)
			}
		}
		for _, u := range arr(usedIn["quests"]) {
			q := byID["quests"][num(u["questId"])]
			if q["questName"] != u["questName"] || q["questSeries"] != u["questSeries"] || find(arr(q["questItems"]), "itemId", it["id"]) == nil {
				t.Errorf("item %d usedIn.quests %v does not match quest", id, u)
			}
		}
		for _, u := range arr(usedIn["cooking"]) {
			if find(arr(byID["cooking"][num(u["cookingId"])]["materials"]), "itemId", it["id"]) == nil {
				t.Errorf("item %d usedIn.cooking %v: not a material there", id, u)
			}
		}
		for _, e := range arr(it["eventDrops"]) {
			ev := byID["event"][num(e["chestId"])]
			if ev["name"] != e["chestName"] || find(arr(ev["drops"]), "itemId", it["id"]) == nil {
				t.Errorf("item %d eventDrops %v does not mirror the event", id, e)
			}
		}
		if it["secrets"] != nil && find(recs["secretrares"], "itemId", it["id"]) == nil {
			t.Errorf("item %d has secrets but no /secretrares record", id)
		}
	}
	for _, m := range recs["monsters"] {
		for _, d := range arr(m["drops"]) {
			it := byID["items"][num(d["itemId"])]
			if find(arr(it["monsterDrops"]), "dropId", d["dropId"]) == nil {
				t.Errorf("monster %v drop %v is missing from the item's monsterDrops", m["id"], d["dropId"])
			}
		}
	}
	for _, s := range recs["secretrares"] {
		it := byID["items"][num(s["itemId"])]
		if it["name"] != s["itemName"] || it["secrets"] == nil {
			t.Errorf("secret rare %v: item %v is not the secret %q", s["id"], s["itemId"], s["itemName"])
		}
	}
	for _, q := range recs["quests"] {
		for _, r := range arr(q["questRewards"]) {
			if (r["type"] == "experience") != (num(r["itemId"]) == 0) {
				t.Errorf("quest %v reward %v: experience rewards and only they have itemId 0", q["id"], r)
			}
		}
		pre := q["prerequisiteQuest"].(string)
		if pre == "" {
			continue
		}
		p := find(recs["quests"], "questName", pre)
		if p == nil || p["questSeries"] != q["questSeries"] || num(p["id"]) >= num(q["id"]) {
			t.Errorf("quest %v: prerequisite %q is not an earlier quest of the series", q["id"], pre)
		}
	}
	for _, r := range recs["cooking"] {
		if burnt := byID["items"][num(r["burntId"])]; !strings.HasPrefix(burnt["name"].(string), "Burnt ") {
			t.Errorf("cooking %v: burntId names %q", r["id"], burnt["name"])
		}
	}
	for _, b := range recs["worldboss"] {
		for _, l := range arr(b["loot"]) {
			if !itemNames[l["name"].(string)] {
				t.Errorf("world boss %v loot %q is not an item", b["id"], l["name"])
			}
		}
	}
}

// walk calls fn for every object member below v, with the keys leading to it.
func walk(v any, path []string, fn func(path []string, key string, v any)) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			fn(path, k, v[k])
			walk(v[k], append(slices.Clip(path), k), fn)
		}
	case []any:
		for _, e := range v {
			walk(e, path, fn)
		}
	}
}

func num(v any) int {
	f, ok := v.(float64)
	if !ok {
		return math.MinInt
	}
	return int(f)
}

func arr(v any) []map[string]any {
	var out []map[string]any
	if a, ok := v.([]any); ok {
		for _, e := range a {
			out = append(out, e.(map[string]any))
		}
	}
	return out
}

func find(rs []map[string]any, key string, val any) map[string]any {
	for _, r := range rs {
		if r[key] == val {
			return r
		}
	}
	return nil
}

// TestOptionalCoverage checks that every optional member shows up in some
// records and not in others, and that a few are explicit nulls, so decoders
// meet every case.
func TestOptionalCoverage(t *testing.T) {
	dir := generatedDir(t, 1)
	items := records(t, dir, "items")
	count := func(rs []map[string]any, get func(map[string]any) (any, bool)) (present, null, absent int) {
		for _, r := range rs {
			switch v, ok := get(r); {
			case !ok:
				absent++
			case v == nil:
				null++
			default:
				present++
			}
		}
		return
	}
	member := func(key string) func(map[string]any) (any, bool) {
		return func(r map[string]any) (any, bool) { v, ok := r[key]; return v, ok }
	}
	for _, key := range []string{
		"limited", "crafting", "cooking", "farming", "mining", "fletching", "forestry", "alchemy", "blessed",
		"chest", "monsterDrops", "fishingDrops", "discoveryDrops", "theivingDrops", "safesDrops",
		"explorationDrops", "eventDrops", "foundInChests", "secrets",
	} {
		if p, _, a := count(items, member(key)); p == 0 || a == 0 {
			t.Errorf("items.%s: present in %d, absent from %d", key, p, a)
		}
	}
	for _, key := range []string{"crafting", "alchemy", "cooking", "fletching", "farming", "forestry", "quests", "basecamps", "blessed"} {
		get := func(r map[string]any) (any, bool) { v, ok := r["usedIn"].(map[string]any)[key]; return v, ok }
		if p, _, a := count(items, get); p == 0 || a == 0 {
			t.Errorf("items.usedIn.%s: present in %d, absent from %d", key, p, a)
		}
	}
	nulls := 0
	for _, key := range []string{"limited", "crafting", "chest", "monsterDrops", "fishingDrops", "secrets"} {
		_, n, _ := count(items, member(key))
		nulls += n
	}
	if nulls < 3 {
		t.Errorf("only %d optional item members are written as null", nulls)
	}

	var nested []map[string]any
	for _, it := range items {
		nested = append(nested, arr(it["chest"])...)
	}
	if p, n, a := count(nested, member("itemId")); p == 0 || a == 0 || n == 0 {
		t.Errorf("chest[].itemId: present %d, null %d, absent %d", p, n, a)
	}
	var secrets []map[string]any
	for _, it := range items {
		if s, ok := it["secrets"].(map[string]any); ok {
			secrets = append(secrets, s)
		}
	}
	for _, key := range secretBoostKeys {
		if p, _, a := count(secrets, member(key)); p == 0 || a == 0 {
			t.Errorf("secrets.%s: present in %d, absent from %d", key, p, a)
		}
	}

	monsters := records(t, dir, "monsters")
	for _, key := range monsterFields {
		if p, n, a := count(monsters, member(key)); p == 0 || n == 0 || a == 0 {
			t.Errorf("monsters.%s: present %d, null %d, absent %d", key, p, n, a)
		}
	}

	kinds := map[string]int{}
	for _, e := range records(t, dir, "event") {
		kinds[fmt.Sprintf("%T", e["itemId"])]++
	}
	if kinds["float64"] == 0 || kinds["string"] == 0 || kinds["<nil>"] == 0 {
		t.Errorf("event itemId kinds = %v, want numbers, strings and nulls", kinds)
	}
}

func TestNumberFormats(t *testing.T) {
	tests := []struct {
		in     float64
		js, py string
	}{
		{0, "0", "0.0"},
		{1, "1", "1.0"},
		{2.5, "2.5", "2.5"},
		{0.015, "0.015", "0.015"},
		{100, "100", "100.0"},
		{3000000000, "3000000000", "3000000000.0"},
		{5e15, "5000000000000000", "5000000000000000.0"},
		{1e16, "10000000000000000", "1e+16"},
		{1e21, "1e+21", "1e+21"},
		{123456789012345678901, "123456789012345680000", "1.2345678901234568e+20"},
		{0.0001, "0.0001", "0.0001"},
		{0.00005, "0.00005", "5e-05"},
		{0.000001, "0.000001", "1e-06"},
		{1e-7, "1e-7", "1e-07"},
		{1.5e-7, "1.5e-7", "1.5e-07"},
		{-2.25, "-2.25", "-2.25"},
		{0.30000000000000004, "0.30000000000000004", "0.30000000000000004"},
	}
	for _, tt := range tests {
		if got := jsNumber(tt.in); got != tt.js {
			t.Errorf("jsNumber(%v) = %s, want %s", tt.in, got, tt.js)
		}
		if got := pyFloat(tt.in); got != tt.py {
			t.Errorf("pyFloat(%v) = %s, want %s", tt.in, got, tt.py)
		}
	}
}

func TestStringEscapes(t *testing.T) {
	in := "Fish & Chips <b> \"q\" back\\slash tab\t nl\n \x01 Crème 🎄"
	if got, want := string(appendJSString(nil, in)),
		`"Fish & Chips <b> \"q\" back\\slash tab\t nl\n \u0001 Crème 🎄"`; got != want {
		t.Errorf("JS:\n got %s\nwant %s", got, want)
	}
	if got, want := string(appendPyString(nil, in)),
		`"Fish & Chips <b> \"q\" back\\slash tab\t nl\n \u0001 Cr\u00e8me \ud83c\udf84"`; got != want {
		t.Errorf("Python:\n got %s\nwant %s", got, want)
	}
}

func TestPythonLayout(t *testing.T) {
	v := Array{Object{{"a", Array{}}, {"b", Object{}}, {"c", Array{1, 2.0}}, {"d", Object{{"e", nil}}}}}
	want := "[\n  {\n    \"a\": [],\n    \"b\": {},\n    \"c\": [\n      1,\n      2.0\n    ],\n    \"d\": {\n      \"e\": null\n    }\n  }\n]"
	if got := string(appendPy(nil, v, 0)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
