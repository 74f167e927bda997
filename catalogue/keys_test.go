package catalogue_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/catalogue"
)

func TestKeyString(t *testing.T) {
	for _, tt := range []struct {
		key  catalogue.Key
		want string
	}{
		{catalogue.RecordKey(catalogue.Items, 42), "Item:42"},
		{catalogue.RecordKey(catalogue.WorldBosses, 2), "WorldBoss:2"},
		{catalogue.RecordKey(catalogue.DiscoveryLocations, 5), "DiscoveryLocation:5"},
		{catalogue.CollectionKey(catalogue.WorldBosses), "worldboss"},
		{catalogue.CollectionKey(catalogue.DiscoveryLocations), "discovery"},
	} {
		if got := tt.key.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.key, got, tt.want)
		}
	}
}

// TestFormatKeys: distinct, collections first, records by collection and
// id; past the bound, the collection with the most records collapses,
// then the next, until the list fits.
func TestFormatKeys(t *testing.T) {
	var many []catalogue.Key
	for id := range int64(100) {
		many = append(many, catalogue.RecordKey(catalogue.Items, id))
	}
	for id := range int64(10) {
		many = append(many, catalogue.RecordKey(catalogue.Monsters, id))
	}
	for _, tt := range []struct {
		name string
		keys []catalogue.Key
		max  int
		want string
	}{
		{"none", nil, 100, ""},
		{"sorted and distinct", []catalogue.Key{catalogue.RecordKey(catalogue.Items, 10), catalogue.RecordKey(catalogue.Monsters, 1),
			catalogue.CollectionKey(catalogue.Quests), catalogue.RecordKey(catalogue.Items, 9), catalogue.RecordKey(catalogue.Items, 10),
			catalogue.CollectionKey(catalogue.Items)}, 100, "items quests Item:9 Item:10 Monster:1"},
		{"the most collapse first", many, 200, "items " + monsters(10)},
		{"then the next", many, 20, "items monsters"},
		{"collections only, past the bound", []catalogue.Key{catalogue.CollectionKey(catalogue.Items), catalogue.CollectionKey(catalogue.Monsters)},
			5, "items monsters"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := catalogue.FormatKeys(append([]catalogue.Key(nil), tt.keys...), ' ', tt.max); got != tt.want {
				t.Errorf("FormatKeys = %q, want %q", got, tt.want)
			}
		})
	}
}

// monsters is the keys of the monsters 0 to n-1, space-separated.
func monsters(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("Monster:" + strconv.Itoa(i))
	}
	return b.String()
}
