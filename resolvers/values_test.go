package resolvers_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/catalogue-gateway/gateway/loader"
)

// TestValues checks that numbers come back with the upstream's own digits,
// that optional fields missing or null are null, and that several
// envelopes make one list.
func TestValues(t *testing.T) {
	srv := serve(t, storeOf(fixture(t)), loader.Options{})
	tests := []struct {
		name, query, want string
	}{
		// An id beyond 32 bits is served as it is, although no Int
		// argument can name it (the specification's Int is 32-bit, and
		// graphqlhttp coerces arguments so): the record is listed.
		{"whole numbers beyond 32 bits and float64, ids beyond 32 bits",
			`{ items(last: 1) { nodes { id value limited } } copper: item(id: 1) { value } }`,
			`{"items":{"nodes":[{"id":5000000000,"value":9007199254740993,"limited":42}]},"copper":{"value":3000000000}}`},
		{"fractions, tiny numbers and exponents as written",
			`{ item(id: 1) { monsterDrops { baseChance luckChance extremeLuckChance } foundInChests { chancePercentage } } }`,
			`{"item":{"monsterDrops":[
				{"baseChance":0.5,"luckChance":0.55,"extremeLuckChance":0.6},
				{"baseChance":1e-7,"luckChance":0.000001,"extremeLuckChance":2.50}],
				"foundInChests":[{"chancePercentage":1.50}]}}`},
		{"a monster with almost nothing",
			`{ monster(id: 2) { id name imageUrl isGod health area drops { dropId name rarity } } }`,
			`{"monster":{"id":2,"name":null,"imageUrl":null,"isGod":true,"health":null,"area":null,
				"drops":[{"dropId":null,"name":"Nothing","rarity":null}]}}`},
		{"optional fields missing and null",
			`{ item(id: 2) { limited cooking { name } secrets { name } fishingDrops { dropId } usedIn { crafting { name } blessed { blessedId } } } }`,
			`{"item":{"limited":null,"cooking":null,"secrets":null,"fishingDrops":null,"usedIn":{"crafting":null,"blessed":null}}}`},
		{"several envelopes are one list",
			`{ items { totalCount nodes { id } } }`,
			`{"items":{"totalCount":4,"nodes":[{"id":1},{"id":2},{"id":3},{"id":5000000000}]}}`},
		{"world boss snake_case fields in camelCase",
			`{ worldBoss(id: 1) { imageUrl battleStartsAt battleEndsAt endpointUpdatesAt location { id name } loot { hashedItemId imageUrl chance } } }`,
			`{"worldBoss":{"imageUrl":"https://img.example/b1.png","battleStartsAt":"2026-11-20T18:00:00.000Z",
				"battleEndsAt":"2026-11-20T19:00:00.000Z","endpointUpdatesAt":"2026-11-20T17:55:00.000Z",
				"location":{"id":3,"name":"Peak"},"loot":[{"hashedItemId":"ab12","imageUrl":"https://img.example/s.png","chance":0.005}]}}`},
		{"secrets with optional chances",
			`{ item(id: 3) { description secrets { chance chanceWithMaxWw chanceWithMaxWwAndBC65 conditions } } }`,
			`{"item":{"description":"<b>Crispy</b> é","secrets":{"chance":1e-7,"chanceWithMaxWw":2e-7,"chanceWithMaxWwAndBC65":null,"conditions":["night"]}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := data(t, srv, tt.query, nil)
			if diff := cmp.Diff(jsonValue(t, tt.want), any(got)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	// The digits themselves, not only the values, are the upstream's.
	r := post(t, srv, `{ item(id: 1) { monsterDrops { extremeLuckChance } } big: items(last: 1) { nodes { value } } }`, nil)
	for _, digits := range []string{`"extremeLuckChance":2.50`, `"value":9007199254740993`} {
		if !strings.Contains(string(r.raw), digits) {
			t.Errorf("response lacks %s:\n%s", digits, r.raw)
		}
	}
}
