package resolvers

import (
	"context"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/loader"
)

// related answers a reverse relation from the request's snapshot, where it
// was computed once for the whole snapshot. The list is never null.
func related[T any](ctx context.Context, rel func(*catalogue.Snapshot, int64) []*T, id int64) ([]*T, error) {
	snap, err := loader.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	// A list: any change in its collection can change it.
	if c, ok := catalogue.CollectionOf[T](); ok {
		loader.NoteKeys(ctx, catalogue.CollectionKey(c))
	}
	if snap != nil {
		if l := rel(snap, id); l != nil {
			return l, nil
		}
	}
	return []*T{}, nil
}

// lookup answers a one-record field: the record of collection c with the
// id, or null if there is none; an error if c has not been loaded yet.
func lookup[T any](ctx context.Context, c catalogue.Collection, load func(context.Context, int64) (*T, error), id int) (*T, error) {
	snap, err := loader.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	if snap == nil || snap.Part(c) == nil {
		return nil, unavailable(c)
	}
	// Found or not: a record that arrives later must drop the answer.
	loader.NoteKeys(ctx, catalogue.RecordKey(c, int64(id)))
	return load(ctx, int64(id))
}

// fromTable looks records up directly in the request's snapshot, for the
// kinds no reference points at, which so have nothing to batch.
func fromTable[T any](table func(*catalogue.Snapshot) *catalogue.Table[T]) func(context.Context, int64) (*T, error) {
	return func(ctx context.Context, id int64) (*T, error) {
		snap, err := loader.Snapshot(ctx)
		if err != nil || snap == nil {
			return nil, err
		}
		rec, _ := table(snap).Get(id)
		return rec, nil
	}
}
