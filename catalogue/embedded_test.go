package catalogue_test

import (
	"bytes"
	"testing"

	"github.com/catalogue-gateway/gateway/catalogue"
)

func loadEmbedded(t testing.TB) *catalogue.Snapshot {
	t.Helper()
	s, err := catalogue.Embedded()
	if err != nil {
		t.Fatalf("Embedded: %v", err)
	}
	return s
}

func TestEmbedded(t *testing.T) {
	s := loadEmbedded(t)
	if m := s.Missing(); len(m) != 0 {
		t.Fatalf("the embedded catalogue lacks %v", m)
	}

	lens := map[catalogue.Collection]int{
		catalogue.Items:              s.Items().Len(),
		catalogue.Monsters:           s.Monsters().Len(),
		catalogue.SecretRares:        s.SecretRares().Len(),
		catalogue.WorldBosses:        s.WorldBosses().Len(),
		catalogue.Quests:             s.Quests().Len(),
		catalogue.BaseCamps:          s.BaseCamps().Len(),
		catalogue.DiscoveryLocations: s.DiscoveryLocations().Len(),
		catalogue.MiningRocks:        s.MiningRocks().Len(),
		catalogue.CookingRecipes:     s.CookingRecipes().Len(),
		catalogue.FarmingSeeds:       s.FarmingSeeds().Len(),
		catalogue.ForestryTrees:      s.ForestryTrees().Len(),
		catalogue.FletchingRecipes:   s.FletchingRecipes().Len(),
		catalogue.EventChests:        s.EventChests().Len(),
	}
	// The sizes the embedded catalogue is documented to have, give or take
	// a fifth: a generator change that shrinks it to a toy fails here.
	documented := map[catalogue.Collection]int{
		catalogue.Items:    1500,
		catalogue.Monsters: 150,
		catalogue.Quests:   120,
	}
	for c := range catalogue.NumCollections {
		t.Run(c.String(), func(t *testing.T) {
			n := lens[c]
			if n == 0 {
				t.Fatalf("no %s records", c)
			}
			if want, ok := documented[c]; ok && (n < want*4/5 || n > want*6/5) {
				t.Errorf("%d %s records, want about %d", n, c, want)
			}
			b := s.Body(c)
			// Decoding the body again gives the same body: the embedded
			// bytes are what the REST path serves.
			again, err := catalogue.Decode(c, b.Raw())
			if err != nil {
				t.Fatalf("decoding the embedded body again: %v", err)
			}
			if again.Body().ETag() != b.ETag() || !bytes.Equal(again.Body().Raw(), b.Raw()) {
				t.Errorf("decoding the embedded body again gives another body")
			}
		})
	}

	t.Run("stable version", func(t *testing.T) {
		if v := loadEmbedded(t).Version(); v != s.Version() {
			t.Errorf("two loads of the embedded catalogue have versions %s and %s", s.Version(), v)
		}
	})
}

func BenchmarkDecodeItems(b *testing.B) {
	raw := loadEmbedded(b).Body(catalogue.Items).Raw()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := catalogue.Decode(catalogue.Items, raw); err != nil {
			b.Fatal(err)
		}
	}
}
