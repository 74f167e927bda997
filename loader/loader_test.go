package loader_test

import (
	"context"
	"slices"
	"testing"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/loader"
)

// TestLoadManySharesTheRequestLoader checks that LoadMany reads through
// the request's loader of the kind: what a lookup read, it finds in the
// loader's cache, and the other ids make one batch of its batch function
// each time (its caller keeps what it read).
func TestLoadManySharesTheRequestLoader(t *testing.T) {
	var parts []*catalogue.Part
	for c, raw := range upstreamtest.FixtureBodies(t) {
		p, err := catalogue.Decode(c, raw)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	snap := catalogue.NewSnapshot(parts...)
	var batches [][2]any
	ctx := loader.NewContext(context.Background(), loader.New(snap, loader.Options{
		OnBatch: func(kind string, keys int) { batches = append(batches, [2]any{kind, keys}) },
	}))

	one, err := loader.Item(ctx, 2)
	if err != nil || one == nil {
		t.Fatalf("Item(2) = %v, %v; want the fixture's item 2", one, err)
	}
	const dangling = 999999
	recs, err := loader.LoadMany(ctx, catalogue.ItemKind, []int64{1, 2, dangling, 3})
	if err != nil {
		t.Fatal(err)
	}
	if recs[1] != one {
		t.Errorf("LoadMany's item 2 is %p, want the record Item(2) returned, %p", recs[1], one)
	}
	for i, id := range []int64{1, 3} {
		rec, _ := recs[[]int{0, 3}[i]].(*catalogue.Item)
		if rec == nil || rec.ID != id {
			t.Errorf("LoadMany's item %d = %v", id, rec)
		}
	}
	if recs[2] != nil {
		t.Errorf("a dangling id gave %v, want nil", recs[2])
	}
	if _, err := loader.LoadMany(ctx, catalogue.ItemKind, []int64{dangling, 2}); err != nil {
		t.Fatal(err)
	}
	want := [][2]any{{"item", 1}, {"item", 3}, {"item", 1}}
	if !slices.Equal(batches, want) {
		t.Errorf("batches = %v, want %v: one for Item(2), then one per LoadMany for the ids the cache lacks", batches, want)
	}
}
