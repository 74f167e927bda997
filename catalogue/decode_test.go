package catalogue_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/contentcoding"
)

func TestHostileFixturesCoverEveryCollection(t *testing.T) {
	seen := make(map[catalogue.Collection]bool)
	for _, tc := range hostileCases {
		seen[tc.collection] = true
	}
	for c := range catalogue.NumCollections {
		if !seen[c] {
			t.Errorf("no hostile fixture for %s", c)
		}
	}
}

func TestDecodeHostile(t *testing.T) {
	for _, tc := range hostileCases {
		t.Run(tc.file, func(t *testing.T) {
			raw := readFixture(t, tc.file)
			p, err := catalogue.Decode(tc.collection, raw)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if p.Collection() != tc.collection {
				t.Errorf("Collection() = %s, want %s", p.Collection(), tc.collection)
			}
			if got := p.Body().Raw(); !bytes.Equal(got, raw) {
				t.Errorf("Body().Raw() differs from the upstream bytes (-want +got):\n%s", cmp.Diff(string(raw), string(got)))
			}
			got := tc.records(catalogue.NewSnapshot(p))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeExactValues spells out, one by one, the promises the full
// comparison in TestDecodeHostile keeps implicitly.
func TestDecodeExactValues(t *testing.T) {
	p, err := catalogue.Decode(catalogue.Items, readFixture(t, "items.json"))
	if err != nil {
		t.Fatal(err)
	}
	items := catalogue.NewSnapshot(p).Items()
	big, ok := items.Get(9007199254740993) // 2^53+1: not a float64, beyond 32 bits
	if !ok {
		t.Fatal("item 9007199254740993 not found: the id did not survive as int64")
	}
	plain, _ := items.Get(2)
	everything, _ := items.Get(1)

	tests := []struct {
		name      string
		got, want any
	}{
		{"fraction keeps its trailing zero", big.HealingAmount, num("1.50")},
		{"beyond 32 bits", big.Value, num("3000000000")},
		{"beyond float64 precision", big.DefenceBonus, num("9007199254740993")},
		{"small exponent", big.StrengthBonus, num("1e-06")},
		{"negative zero", big.FarmingLevel, num("-0.0")},
		{"capital exponent with sign", big.AttackBonus, num("1E+2")},
		{"id beyond 32 bits in a nested array", big.Crafting.Materials[1].ItemID, int64(4294967297)},
		{"HTML-special characters", big.Name, "Tom & Jerry's <Sword> \"Deluxe\" 🐉"},
		{"escapes with a surrogate pair", big.Description, "Caf\u00e9 \U0001F600 & <b>bold</b> \"quoted\" \\ back/slash\nnew line"},
		{"raw UTF-8", big.Type, "武器"},
		{"optional number null", big.Limited, (*catalogue.Number)(nil)},
		{"optional object null", big.Cooking, (*catalogue.ItemCooking)(nil)},
		{"optional object missing", big.Farming, (*catalogue.ItemFarming)(nil)},
		{"optional array missing", plain.Chest, []catalogue.ChestContent(nil)},
		{"optional id missing", big.Chest[0].ItemID, (*int64)(nil)},
		{"optional id null", big.Chest[1].ItemID, (*int64)(nil)},
		{"optional id present", big.Chest[2].ItemID, new(int64(5))},
		{"optional string null", big.MonsterDrops[1].Rarity, (*string)(nil)},
		{"optional inside optional null", big.Secrets.ChanceWithMaxWwAndBC65, (*catalogue.Number)(nil)},
		{"optional inside optional missing", big.Secrets.ChanceWithSoulReaperPotion, (*catalogue.Number)(nil)},
		{"optional number present", everything.Limited, new(num("5"))},
		{"second envelope's record comes last", items.At(2).ID, int64(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeConcatenatesEnvelopes(t *testing.T) {
	tests := []struct {
		file       string
		collection catalogue.Collection
		ids        func(*catalogue.Snapshot) []int64
		want       []int64
	}{
		{"items.json", catalogue.Items, func(s *catalogue.Snapshot) []int64 {
			return ids(s.Items(), func(r *catalogue.Item) int64 { return r.ID })
		}, []int64{9007199254740993, 2, 1}},
		{"cooking.json", catalogue.CookingRecipes, func(s *catalogue.Snapshot) []int64 {
			return ids(s.CookingRecipes(), func(r *catalogue.CookingRecipe) int64 { return r.ID })
		}, []int64{1, 2}},
		{"worldboss.json", catalogue.WorldBosses, func(s *catalogue.Snapshot) []int64 {
			return ids(s.WorldBosses(), func(r *catalogue.WorldBoss) int64 { return r.ID })
		}, []int64{9007199254740993, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p, err := catalogue.Decode(tt.collection, readFixture(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tt.ids(catalogue.NewSnapshot(p))); diff != "" {
				t.Errorf("ids in order (-want +got):\n%s", diff)
			}
		})
	}
}

func ids[T any](t *catalogue.Table[T], id func(*T) int64) []int64 {
	var out []int64
	for i := range t.Len() {
		out = append(out, id(t.At(i)))
	}
	return out
}

// decompress undoes a content coding with a reader that is not the writer's
// own package where one exists, so a symmetric bug cannot hide.
func decompress(t *testing.T, e contentcoding.Encoding, z []byte) []byte {
	t.Helper()
	var r io.Reader
	switch e {
	case contentcoding.Gzip:
		gr, err := gzip.NewReader(bytes.NewReader(z))
		if err != nil {
			t.Fatalf("gzip: %v", err)
		}
		r = gr
	case contentcoding.Brotli:
		r = brotli.NewReader(bytes.NewReader(z))
	case contentcoding.Zstd:
		zr, err := zstd.NewReader(bytes.NewReader(z))
		if err != nil {
			t.Fatalf("zstd: %v", err)
		}
		defer zr.Close()
		r = zr
	default:
		t.Fatalf("no decompressor for %s", e.Token())
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decompressing %s: %v", e.Token(), err)
	}
	return out
}

func TestBodyEncodingsDecompressToRaw(t *testing.T) {
	for _, tc := range hostileCases {
		raw := readFixture(t, tc.file)
		p, err := catalogue.Decode(tc.collection, raw)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		for e := range contentcoding.NumEncodings {
			t.Run(tc.file+"/"+e.Token(), func(t *testing.T) {
				rep := p.Body().In(e)
				if rep.Encoding != e {
					t.Errorf("In(%s).Encoding = %s", e.Token(), rep.Encoding.Token())
				}
				got := rep.Bytes
				if e != contentcoding.Identity {
					if bytes.Equal(got, raw) {
						t.Fatalf("In(%s).Bytes are the raw bytes, not compressed", e.Token())
					}
					got = decompress(t, e, got)
				}
				if !bytes.Equal(got, raw) {
					t.Errorf("In(%s) decodes to other bytes (-want +got):\n%s", e.Token(), cmp.Diff(string(raw), string(got)))
				}
			})
		}
	}
}

// isStrongETag reports whether tag is a strong entity-tag as RFC 9110 8.8.3
// writes one: a quoted string of etagc characters, without W/.
func isStrongETag(tag string) bool {
	if len(tag) < 3 || tag[0] != '"' || tag[len(tag)-1] != '"' {
		return false
	}
	for _, c := range []byte(tag[1 : len(tag)-1]) {
		if c == '"' || c <= 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

func TestETag(t *testing.T) {
	raw := readFixture(t, "items.json")
	decode := func(t *testing.T, raw []byte) *catalogue.Body {
		t.Helper()
		p, err := catalogue.Decode(catalogue.Items, raw)
		if err != nil {
			t.Fatal(err)
		}
		return p.Body()
	}
	a, b := decode(t, raw), decode(t, bytes.Clone(raw))

	t.Run("strong and quoted in every encoding", func(t *testing.T) {
		seen := make(map[string]contentcoding.Encoding)
		for e := range contentcoding.NumEncodings {
			tag := a.In(e).ETag
			if !isStrongETag(tag) {
				t.Errorf("In(%s).ETag = %s, want a strong quoted tag", e.Token(), tag)
			}
			if prev, dup := seen[tag]; dup {
				t.Errorf("%s and %s share the tag %s", prev.Token(), e.Token(), tag)
			}
			seen[tag] = e
		}
		if a.ETag() != a.In(contentcoding.Identity).ETag {
			t.Errorf("ETag() = %s, In(Identity).ETag = %s", a.ETag(), a.In(contentcoding.Identity).ETag)
		}
	})

	t.Run("stable across decodes of the same bytes", func(t *testing.T) {
		for e := range contentcoding.NumEncodings {
			if got, want := b.In(e).ETag, a.In(e).ETag; got != want {
				t.Errorf("In(%s).ETag: first decode %s, second %s", e.Token(), want, got)
			}
			if !bytes.Equal(a.In(e).Bytes, b.In(e).Bytes) {
				t.Errorf("In(%s).Bytes differ between two decodes of the same body", e.Token())
			}
		}
	})

	different := []struct {
		name string
		x, y []byte
	}{
		{"one digit", raw, bytes.Replace(raw, []byte("1.50"), []byte("1.51"), 1)},
		{"same value spelt otherwise", raw, bytes.Replace(raw, []byte("1.50"), []byte("1.5"), 1)},
		{"final newline", raw, append(bytes.Clone(raw), '\n')},
		{"LF for CRLF", raw, bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n"))},
		{"last byte only", append(bytes.Clone(raw), ' '), append(bytes.Clone(raw), '\t')},
		{"first byte only", append([]byte(" "), raw...), append([]byte("\t"), raw...)},
	}
	for _, d := range different {
		t.Run("different for different bytes/"+d.name, func(t *testing.T) {
			if bytes.Equal(d.x, d.y) {
				t.Fatal("the change left the bytes as they were")
			}
			x, y := decode(t, d.x), decode(t, d.y)
			for e := range contentcoding.NumEncodings {
				if x.In(e).ETag == y.In(e).ETag {
					t.Errorf("In(%s).ETag %s is shared by different bodies", e.Token(), x.In(e).ETag)
				}
			}
		})
	}
}

// A minimal valid item record, and variations of it. itemWith replaces one
// piece of it, so each case shows only what it breaks.
const plainItem = `{"id":1,"imageUrl":"","name":"Plain","rarity":"common","value":0,"type":"misc","healingAmount":0,"farmingLevel":0,"attackBonus":0,"strengthBonus":0,"defenceBonus":0,"healthBonus":0,"bowDamage":0,"bowCrit":0,"bowAccuracy":0,"bowSpeed":0,"description":"","tradable":false,"usedIn":{}}`

func itemWith(old, new string) string {
	if !strings.Contains(plainItem, old) {
		panic("itemWith: " + old + " is not in plainItem")
	}
	return strings.Replace(plainItem, old, new, 1)
}

func env(records ...string) string {
	return fmt.Sprintf(`{"total":%d,"results":[%s]}`, len(records), strings.Join(records, ","))
}

func body(envelopes ...string) string { return "[" + strings.Join(envelopes, ",") + "]" }

const plainBoss = `{"id":1,"name":"B","image_url":"","level":1,"location":{"id":1,"name":"L"},"loot":[{"hashed_item_id":"h","name":"n","image_url":"","quality":"q","quantity":1,"chance":0.5}],"status":"s","battle_starts_at":"","battle_ends_at":""}`

func bossWith(old, new string) string {
	if !strings.Contains(plainBoss, old) {
		panic("bossWith: " + old + " is not in plainBoss")
	}
	return strings.Replace(plainBoss, old, new, 1)
}

func bossEnv(records ...string) string {
	return `{"world_bosses":[` + strings.Join(records, ",") + `],"endpoint_updates_at":"2024-01-01T00:00:00Z"}`
}

const crafting = `"crafting":{"name":"c","category":"c","craftingLevel":1,"craftingExp":1,"materials":[{"itemId":1,"name":"a","amount":1},{"itemId":%s,"name":"b","amount":1}]}`

var (
	envelopeIndex = regexp.MustCompile(`envelope -?\d`)
	recordIndex   = regexp.MustCompile(`record -?\d`)
)

func TestDecodeRefuses(t *testing.T) {
	// The helpers must make bodies the decoder accepts, or every case below
	// would pass for the wrong reason.
	for c, b := range map[catalogue.Collection]string{
		catalogue.Items:       body(env(plainItem), env(itemWith(`"usedIn":{}`, `"usedIn":{},`+fmt.Sprintf(crafting, "2")))),
		catalogue.WorldBosses: body(bossEnv(plainBoss)),
	} {
		if _, err := catalogue.Decode(c, []byte(b)); err != nil {
			t.Fatalf("the valid %s base body is refused: %v", c, err)
		}
	}

	tests := []struct {
		name       string
		collection catalogue.Collection
		body       string
		envelope   int
		record     int
		field      string
		problem    string // a part of BodyError.Problem
	}{
		{"not JSON", catalogue.Items, `hello`, -1, -1, "", "not valid JSON"},
		{"HTML error page", catalogue.Items, "<!DOCTYPE html><html>502 Bad Gateway</html>", -1, -1, "", "not valid JSON"},
		{"empty body", catalogue.Items, ``, -1, -1, "", "empty"},
		{"white space only", catalogue.Items, " \r\n\t", -1, -1, "", "empty"},
		{"truncated", catalogue.Items, body(env(plainItem))[:40], -1, -1, "", "truncated"},
		{"truncated after a complete envelope", catalogue.Items, `[` + env(plainItem) + `,`, -1, -1, "", "truncated"},
		{"trailing garbage", catalogue.Items, body(env()) + ` x`, -1, -1, "", "after the top-level value"},
		{"trailing bracket", catalogue.Items, body(env()) + `]`, -1, -1, "", "after the top-level value"},
		{"two top-level arrays", catalogue.Items, body(env()) + body(env()), -1, -1, "", "after the top-level value"},
		{"a member named twice", catalogue.Items, body(env(itemWith(`"name":"Plain"`, `"name":"Plain","name":"Other"`))), -1, -1, "", "duplicate"},
		{"byte order mark", catalogue.Items, "\uFEFF" + body(env()), -1, -1, "", "not valid JSON"},
		{"top level is an object", catalogue.Items, env(plainItem), -1, -1, "", "want an array of envelope objects, got object"},
		{"top level is null", catalogue.Items, `null`, -1, -1, "", "got null"},
		{"top level is a string", catalogue.Items, `"[]"`, -1, -1, "", "got string"},
		{"empty array", catalogue.Items, `[]`, -1, -1, "", "no envelope object"},
		{"envelope is a number", catalogue.Items, body(env(), `3`), 1, -1, "", "want an envelope object, got number"},
		{"envelope is null", catalogue.Items, body(`null`), 0, -1, "", "got null"},
		{"envelope is an array", catalogue.Items, body(`[` + plainItem + `]`), 0, -1, "", "got array"},
		{"missing total", catalogue.Items, body(`{"results":[]}`), 0, -1, "total", "missing"},
		{"total null", catalogue.Items, body(`{"total":null,"results":[]}`), 0, -1, "total", "want number, got null"},
		{"total a string", catalogue.Items, body(`{"total":"1","results":[]}`), 0, -1, "total", "want number, got string"},
		{"missing results", catalogue.Items, body(`{"total":0}`), 0, -1, "results", "missing"},
		{"results not an array", catalogue.Items, body(`{"total":1,"results":` + plainItem + `}`), 0, -1, "results", "want array, got object"},
		{"results null", catalogue.Items, body(`{"total":0,"results":null}`), 0, -1, "results", "want array, got null"},
		{"record not an object", catalogue.Items, body(env(plainItem, `5`)), 0, 1, "", "want object, got number"},
		{"record null", catalogue.Items, body(env(`null`)), 0, 0, "", "want object, got null"},
		{"required field missing", catalogue.Items, body(env(itemWith(`"name":"Plain",`, ``))), 0, 0, "name", "missing"},
		{"required field null", catalogue.Items, body(env(itemWith(`"name":"Plain"`, `"name":null`))), 0, 0, "name", "is null"},
		{"required object missing", catalogue.Items, body(env(itemWith(`,"usedIn":{}`, ``))), 0, 0, "usedIn", "missing"},
		{"key differs in case only", catalogue.Items, body(env(itemWith(`"imageUrl"`, `"imageURL"`))), 0, 0, "imageUrl", "missing"},
		{"string for a boolean", catalogue.Items, body(env(itemWith(`"tradable":false`, `"tradable":"false"`))), 0, 0, "tradable", "want boolean, got string"},
		{"string for a number", catalogue.Items, body(env(itemWith(`"value":0`, `"value":"0"`))), 0, 0, "value", "want number, got string"},
		{"number for a string", catalogue.Items, body(env(itemWith(`"rarity":"common"`, `"rarity":1`))), 0, 0, "rarity", "want string, got number"},
		{"array for an object", catalogue.Items, body(env(itemWith(`"usedIn":{}`, `"usedIn":[]`))), 0, 0, "usedIn", "want object, got array"},
		{"optional field of the wrong type", catalogue.Items, body(env(itemWith(`"usedIn":{}`, `"usedIn":{},"limited":"5"`))), 0, 0, "limited", "want number, got string"},
		{"deep: material id a string", catalogue.Items, body(env(itemWith(`"usedIn":{}`, `"usedIn":{},`+fmt.Sprintf(crafting, `"2"`)))), 0, 0, "crafting.materials[1].itemId", "want number, got string"},
		{"deep: material id null", catalogue.Items, body(env(itemWith(`"usedIn":{}`, `"usedIn":{},`+fmt.Sprintf(crafting, `null`)))), 0, 0, "crafting.materials[1].itemId", "is null"},
		{"deep: inside usedIn", catalogue.Items, body(env(itemWith(`"usedIn":{}`, `"usedIn":{"blessed":{"blessedId":1,"blessedName":2}}`))), 0, 0, "usedIn.blessed.blessedName", "want string, got number"},
		{"deep: embedded secret chances", catalogue.Items, body(env(itemWith(`"usedIn":{}`, `"usedIn":{},"secrets":{"name":"s","chance":1,"chanceText":"","impactedByWishingWell":true,"conditions":["a",7]}`))), 0, 0, "secrets.conditions[1]", "want string, got number"},
		{"fractional id", catalogue.Items, body(env(itemWith(`"id":1`, `"id":1.5`))), 0, 0, "id", "whole number"},
		{"id with an exponent", catalogue.Items, body(env(itemWith(`"id":1`, `"id":1e3`))), 0, 0, "id", "whole number"},
		{"id beyond int64", catalogue.Items, body(env(itemWith(`"id":1`, `"id":9223372036854775808`))), 0, 0, "id", "whole number"},
		{"string id", catalogue.Items, body(env(itemWith(`"id":1`, `"id":"1"`))), 0, 0, "id", "want number, got string"},
		{"fractional nested id", catalogue.Items, body(env(itemWith(`"usedIn":{}`, `"usedIn":{},`+fmt.Sprintf(crafting, `2.0`)))), 0, 0, "crafting.materials[1].itemId", "whole number"},
		{"fault in the second envelope", catalogue.Items, body(env(plainItem), env(plainItem, itemWith(`"bowSpeed":0`, `"bowSpeed":true`))), 1, 1, "bowSpeed", "want number, got boolean"},

		{"monster without an id", catalogue.Monsters, body(env(`{"id":1}`, `{"name":"x"}`)), 0, 1, "id", "missing"},
		{"monster drop id a string", catalogue.Monsters, body(env(`{"id":1,"drops":[{"itemId":"5"}]}`)), 0, 0, "drops[0].itemId", "want number, got string"},
		{"event drop id a string", catalogue.EventChests, body(env(`{"id":1,"name":"c","itemId":"any","drops":[{"itemId":"5","name":"n","amount":1,"percentage":1,"text":""}]}`)), 0, 0, "drops[0].itemId", "want number, got string"},
		{"quest reward id null", catalogue.Quests, body(env(`{"id":1,"questName":"q","questSeries":"","requiredSkills":[],"questItems":[],"questRewards":[{"type":"t","amount":1,"skill":"","itemId":null,"name":""}],"prerequisiteQuest":""}`)), 0, 0, "questRewards[0].itemId", "is null"},
		{"secret rare condition null", catalogue.SecretRares, body(env(`{"id":1,"itemName":"n","itemId":1,"secretDrops":[{"chance":1,"chanceText":"","impactedByWishingWell":false,"conditions":[null]}]}`)), 0, 0, "secretDrops[0].conditions[0]", "want string, got null"},

		{"world boss: items envelope", catalogue.WorldBosses, body(env()), 0, -1, "world_bosses", "missing"},
		{"world boss: top level an object", catalogue.WorldBosses, bossEnv(plainBoss), -1, -1, "", "want an array of envelope objects, got object"},
		{"world boss: empty array", catalogue.WorldBosses, `[]`, -1, -1, "", "no envelope object"},
		{"world boss: list not an array", catalogue.WorldBosses, body(`{"world_bosses":{},"endpoint_updates_at":""}`), 0, -1, "world_bosses", "want array, got object"},
		{"world boss: updated-at missing", catalogue.WorldBosses, body(`{"world_bosses":[]}`), 0, -1, "endpoint_updates_at", "missing"},
		{"world boss: updated-at a number", catalogue.WorldBosses, body(`{"world_bosses":[],"endpoint_updates_at":1714564800}`), 0, -1, "endpoint_updates_at", "want string, got number"},
		{"world boss: camelCase instead of snake_case", catalogue.WorldBosses, body(bossEnv(bossWith(`"image_url":""`, `"imageUrl":""`))), 0, 0, "image_url", "missing"},
		{"world boss: battle end null", catalogue.WorldBosses, body(bossEnv(bossWith(`"battle_ends_at":""`, `"battle_ends_at":null`))), 0, 0, "battle_ends_at", "is null"},
		{"world boss: location id a string", catalogue.WorldBosses, body(bossEnv(bossWith(`"location":{"id":1`, `"location":{"id":"1"`))), 0, 0, "location.id", "want number, got string"},
		{"world boss: loot hash a number", catalogue.WorldBosses, body(bossEnv(bossWith(`"hashed_item_id":"h"`, `"hashed_item_id":7`))), 0, 0, "loot[0].hashed_item_id", "want string, got number"},
		{"world boss: second envelope, second boss", catalogue.WorldBosses, body(bossEnv(plainBoss), bossEnv(plainBoss, bossWith(`"level":1`, `"level":"1"`))), 1, 1, "level", "want number, got string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := catalogue.Decode(tt.collection, []byte(tt.body))
			if err == nil {
				t.Fatalf("Decode accepted %s", tt.body)
			}
			if p != nil {
				t.Errorf("Decode returned a part with its error")
			}
			var be *catalogue.BodyError
			if !errors.As(err, &be) {
				t.Fatalf("error %v (%T) is not a *catalogue.BodyError", err, err)
			}
			type where struct {
				Collection       catalogue.Collection
				Envelope, Record int
				Field            string
			}
			want := where{tt.collection, tt.envelope, tt.record, tt.field}
			got := where{be.Collection, be.Envelope, be.Record, be.Field}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("where (-want +got):\n%s\nerror: %v", diff, err)
			}
			if !strings.Contains(be.Problem, tt.problem) {
				t.Errorf("Problem = %q, want it to mention %q", be.Problem, tt.problem)
			}

			msg := err.Error()
			mentions := []string{tt.collection.String() + ": ", tt.problem}
			if tt.envelope >= 0 {
				mentions = append(mentions, fmt.Sprintf("envelope %d", tt.envelope))
			} else if envelopeIndex.MatchString(msg) {
				t.Errorf("Error() = %q names an envelope for a fault of the whole body", msg)
			}
			if tt.record >= 0 {
				mentions = append(mentions, fmt.Sprintf("record %d", tt.record))
			} else if recordIndex.MatchString(msg) {
				t.Errorf("Error() = %q names a record for a fault outside any", msg)
			}
			if tt.field != "" {
				mentions = append(mentions, "field "+tt.field+":")
			}
			for _, m := range mentions {
				if !strings.Contains(msg, m) {
					t.Errorf("Error() = %q, want it to mention %q", msg, m)
				}
			}
			if !strings.HasPrefix(msg, tt.collection.String()+":") {
				t.Errorf("Error() = %q, want it to start with the collection", msg)
			}
		})
	}
}

// TestDecodeAcceptsEdges pins down what the decoder lets through: the
// description allows it, or a real upstream sends it.
func TestDecodeAcceptsEdges(t *testing.T) {
	tests := []struct {
		name       string
		collection catalogue.Collection
		body       string
	}{
		{"envelope with no records", catalogue.Items, body(env())},
		{"total disagreeing with the records", catalogue.Items, body(`{"total":99,"results":[` + plainItem + `]}`)},
		{"white space around the body", catalogue.Items, "\r\n\t " + body(env(plainItem)) + " \r\n"},
		{"monster with only an id", catalogue.Monsters, body(env(`{"id":1}`))},
		{"event chest itemId an object", catalogue.EventChests, body(env(`{"id":1,"name":"c","itemId":{"id":5},"drops":[]}`))},
		{"world boss envelope with no bosses", catalogue.WorldBosses, body(`{"world_bosses":[],"endpoint_updates_at":""}`)},
		{"negative id", catalogue.Items, body(env(itemWith(`"id":1`, `"id":-1`)))},
		{"largest int64 id", catalogue.Items, body(env(itemWith(`"id":1`, `"id":9223372036854775807`)))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := catalogue.Decode(tt.collection, []byte(tt.body))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if got := p.Body().Raw(); string(got) != tt.body {
				t.Errorf("Raw() = %q, want %q", got, tt.body)
			}
		})
	}
}

// TestDecodeReadsAsEncodingJSONWould pins down the spellings a body may use
// that mean the same records: the decoder reads tokens, not a parsed tree,
// and must still see what encoding/json (the upstream's other clients) sees.
func TestDecodeReadsAsEncodingJSONWould(t *testing.T) {
	plain, err := catalogue.Decode(catalogue.Items, []byte(body(env(plainItem))))
	if err != nil {
		t.Fatal(err)
	}
	want := plain.Records().([]catalogue.Item)
	tests := []struct {
		name string
		body string
		edit func(*catalogue.Item)
	}{
		{"escaped member name", body(env(itemWith(`"name":"Plain"`, `"n\u0061me":"Plain"`))), nil},
		{"escaped record list name", body(`{"total":1,"r\u0065sults":[` + plainItem + `]}`), nil},
		{"list before total", body(`{"results":[` + plainItem + `],"total":1}`), nil},
		{"members in another order", body(env(`{"usedIn":{},` + strings.Replace(plainItem, `,"usedIn":{}`, ``, 1)[1:])), nil},
		{"unknown members of every kind", body(`{"total":1,"next":{"a":[1,{"b":null}]},"results":[` +
			itemWith(`"id":1`, `"id":1,"extra":[{"x":[true,"y"]}],"more":{"results":[{}]}`) + `]}`), nil},
		{"escaped value", body(env(itemWith(`"name":"Plain"`, `"name":"Pl\u0061in \"x\""`))), func(it *catalogue.Item) { it.Name = `Plain "x"` }},
		{"bytes that are not UTF-8", body(env(itemWith(`"name":"Plain"`, "\"name\":\"Pl\xffain\""))), func(it *catalogue.Item) { it.Name = "Pl\uFFFDain" }},
		{"optional member null", body(env(itemWith(`"usedIn":{}`, `"usedIn":{},"crafting":null,"chest":null`))), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := catalogue.Decode(catalogue.Items, []byte(tt.body))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			w := []catalogue.Item{want[0]}
			if tt.edit != nil {
				tt.edit(&w[0])
			}
			if diff := cmp.Diff(w, p.Records()); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeGivesBossesTheirEnvelopesTime checks each world boss gets the
// update time of its own envelope, whether the time comes before or after
// the list.
func TestDecodeGivesBossesTheirEnvelopesTime(t *testing.T) {
	raw := body(
		`{"endpoint_updates_at":"first","world_bosses":[`+plainBoss+`,`+plainBoss+`]}`,
		`{"world_bosses":[`+plainBoss+`],"endpoint_updates_at":"second"}`,
		`{"world_bosses":[],"endpoint_updates_at":"empty"}`,
		`{"world_bosses":[`+plainBoss+`],"endpoint_updates_at":"fourth"}`,
	)
	p, err := catalogue.Decode(catalogue.WorldBosses, []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range p.Records().([]catalogue.WorldBoss) {
		got = append(got, b.EndpointUpdatesAt)
	}
	if want := []string{"first", "first", "second", "fourth"}; !slices.Equal(got, want) {
		t.Errorf("update times %q, want %q", got, want)
	}
}

// TestDecodeReservesNoMoreThanRecordsCouldUse checks a hostile body cannot
// make the decoder reserve memory out of proportion to its size: room for
// records is made from their count, but a body of empty objects is short,
// and no more room is made than valid records of that size would fill.
func TestDecodeReservesNoMoreThanRecordsCouldUse(t *testing.T) {
	raw := []byte(body(env(slices.Repeat([]string{`{}`}, 300_000)...)))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := catalogue.Decode(catalogue.Items, raw)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("Decode accepted records without their fields")
	}
	// Unbounded, the room for 300,000 items would be over 200 MB.
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(16*len(raw)); got > limit {
		t.Errorf("decoding a %d-byte body allocated %d bytes, want at most %d", len(raw), got, limit)
	}
}
