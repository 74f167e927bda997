package resolvers_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/google/go-cmp/cmp"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/loader"
)

// batchCounter records the batches loaders run, by kind.
type batchCounter struct {
	mu      sync.Mutex
	batches map[string]int
	keys    map[string]int
}

func (c *batchCounter) record(kind string, keys int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.batches[kind]++
	c.keys[kind] += keys
}

func newBatchCounter() *batchCounter {
	return &batchCounter{batches: map[string]int{}, keys: map[string]int{}}
}

// TestBatching: resolving many references of one kind costs one batch per
// nesting level, not one look-up per reference.
//
// gqlgen runs the resolvers of a list's elements concurrently, so the
// references at one level of a query meet in one batch. It marshals a
// record's plain (non-resolver) fields one after another, though, so
// references under two sibling plain fields (say crafting and
// monsterDrops of one item) are asked for in two waves; each query below
// therefore follows one path.
func TestBatching(t *testing.T) {
	snap := embedded(t)
	const n = 200
	// The first n items, and what they reference, counted from the
	// snapshot itself.
	materials, subMaterials := map[int64]bool{}, map[int64]bool{}
	monsters, monsterItems := map[int64]bool{}, map[int64]bool{}
	for i := range n {
		it := snap.Items().At(i)
		for _, d := range it.MonsterDrops {
			monsters[d.MonsterID] = true
			if m, ok := snap.Monsters().Get(d.MonsterID); ok {
				for _, md := range m.Drops {
					if md.ItemID != nil {
						monsterItems[*md.ItemID] = true
					}
				}
			}
		}
		if it.Crafting == nil {
			continue
		}
		for _, m := range it.Crafting.Materials {
			materials[m.ItemID] = true
			if sub, ok := snap.Items().Get(m.ItemID); ok && sub.Crafting != nil {
				for _, m2 := range sub.Crafting.Materials {
					if !materials[m2.ItemID] {
						subMaterials[m2.ItemID] = true
					}
				}
			}
		}
	}
	// A loader caches what it loaded for the rest of the request, so the
	// second level only asks for ids the first did not.
	for id := range materials {
		delete(subMaterials, id)
	}
	if len(materials) < 10 || len(monsters) < 10 || len(monsterItems) < 10 {
		t.Fatalf("the embedded catalogue is too thin for this test: %d, %d, %d references",
			len(materials), len(monsters), len(monsterItems))
	}

	tests := []struct {
		name        string
		query       string
		wantBatches map[string]int
		wantKeys    map[string]int
	}{
		{"one level", fmt.Sprintf(`{ items(first: %d) { nodes { monsterDrops { monster { id } } } } }`, n),
			map[string]int{"monster": 1}, map[string]int{"monster": len(monsters)}},
		{"two levels of one kind", fmt.Sprintf(`{ items(first: %d) { nodes { crafting { materials { item { id crafting { materials { item { id } } } } } } } } }`, n),
			map[string]int{"item": 1 + min(len(subMaterials), 1)}, map[string]int{"item": len(materials) + len(subMaterials)}},
		{"two levels of two kinds", fmt.Sprintf(`{ items(first: %d) { nodes { monsterDrops { monster { drops { item { id } } } } } } }`, n),
			map[string]int{"monster": 1, "item": 1}, map[string]int{"monster": len(monsters), "item": len(monsterItems)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			counter := newBatchCounter()
			// A generous window: the test is about batching, not timing,
			// and must hold on a loaded machine under the race detector.
			// The production window is measured by BenchmarkNestedQuery.
			// And no cost limit: a whole page of the longest lists.
			srv := serveWith(t, storeOf(snap), loader.Options{Wait: time.Second, OnBatch: counter.record},
				graphqlhttp.Options{Limits: admission.Limits{MaxComplexity: 1 << 30}})
			data(t, srv, tt.query, nil)
			if diff := cmp.Diff(tt.wantBatches, counter.batches); diff != "" {
				t.Errorf("batches by kind (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantKeys, counter.keys); diff != "" {
				t.Errorf("keys by kind (-want +got)\n%s", diff)
			}
		})
	}
}

// TestSnapshotPinning: a refresh in the middle of a request does not change
// what that request sees.
func TestSnapshotPinning(t *testing.T) {
	before, after := fixture(t), embedded(t)
	src := &swappingSource{first: before, then: after}
	srv := serve(t, src, loader.Options{})

	// Every field below reads the catalogue; the fixture and the embedded
	// catalogue disagree on all of them.
	d := data(t, srv, `{
		items { totalCount }
		item(id: 3) { name ingredientOf { id } }
		monsters { totalCount nodes { id } }
		quest(id: 2) { prerequisite { questName } }
		secretRares { totalCount }
	}`, nil)
	if src.calls() != 1 {
		t.Fatalf("the snapshot was read %d times in one request, want 1", src.calls())
	}
	want := jsonValue(t, `{"items":{"totalCount":4},"item":{"name":"Fish & Chips","ingredientOf":[]},
		"monsters":{"totalCount":2,"nodes":[{"id":1},{"id":2}]},
		"quest":{"prerequisite":{"questName":"First Steps"}},"secretRares":{"totalCount":2}}`)
	if fmt.Sprint(want) != fmt.Sprint(any(d)) {
		t.Fatalf("the request saw another snapshot:\n got %v\nwant %v", d, want)
	}
	// The next request sees the new snapshot.
	if d := data(t, srv, `{ items { totalCount } }`, nil); fmt.Sprint(d["items"].(map[string]any)["totalCount"]) == "4" {
		t.Fatal("the next request still saw the old snapshot")
	}
}

// swappingSource serves one snapshot, then, from the moment it has been
// read once, another: as if a refresh landed just after a request began.
type swappingSource struct {
	mu          sync.Mutex
	first, then *catalogue.Snapshot
	n           int
}

func (s *swappingSource) Current() *catalogue.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	if s.n == 1 {
		return s.first
	}
	return s.then
}

// Watch serves no subscription here: the test asks only queries.
func (s *swappingSource) Watch() (*catalogue.Snapshot, <-chan struct{}) { return s.Current(), nil }

func (s *swappingSource) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}
