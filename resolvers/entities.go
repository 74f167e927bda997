package resolvers

import (
	"context"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/loader"
)

// entityKey is the shape of every entity's batch input gqlgen's federation
// plugin generates (graph/model: ItemByIDsInput, …): the one key field,
// id, bound to an Int.
type entityKey = struct {
	ID int `json:"ID"`
}

// entities resolves one batch of representations of a record type, in
// their order: the record each id names, or nil where there is none (the
// federation's null, as for any id that names nothing). gqlgen's
// federation runtime gives each type's representations at once, whatever
// their number; read by kind, they are one batch of the request's loader
// (duplicates asked once), and by table, for the types no reference names
// and that so have no loader, lookups in the pinned snapshot.
func entities[T any, R ~entityKey](ctx context.Context, c catalogue.Collection, read batchRead, reps []*R) ([]*T, error) {
	snap, err := loader.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	if snap == nil || snap.Part(c) == nil {
		return nil, unavailable(c)
	}
	at := make(map[int64]int, len(reps)) // where each distinct id stands in ids
	ids := make([]int64, 0, len(reps))
	for _, r := range reps {
		id := int64(entityKey(*r).ID)
		if _, seen := at[id]; !seen {
			at[id] = len(ids)
			ids = append(ids, id)
		}
	}
	recs, err := read(ctx, snap, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*T, len(reps))
	for i, r := range reps {
		out[i], _ = recs[at[int64(entityKey(*r).ID)]].(*T)
	}
	return out, nil
}

// batchRead reads distinct ids of one record type: the records as
// pointers (*catalogue.Item, …), nil where there is none.
type batchRead func(ctx context.Context, snap *catalogue.Snapshot, ids []int64) ([]any, error)

// byKind reads through the request's loader of kind k: one batch.
func byKind(k catalogue.Kind) batchRead {
	return func(ctx context.Context, _ *catalogue.Snapshot, ids []int64) ([]any, error) {
		return loader.LoadMany(ctx, k, ids)
	}
}

// byTable reads the pinned snapshot's table directly, for the record
// types that are no kind (no reference names them): as secretRare(id:)
// does, there is nothing to batch.
func byTable[T any](table func(*catalogue.Snapshot) *catalogue.Table[T]) batchRead {
	return func(_ context.Context, snap *catalogue.Snapshot, ids []int64) ([]any, error) {
		t := table(snap)
		out := make([]any, len(ids))
		for i, id := range ids {
			if rec, ok := t.Get(id); ok {
				out[i] = rec
			}
		}
		return out, nil
	}
}
