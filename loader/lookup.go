package loader

import (
	"context"
	"errors"
	"fmt"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/graph-gophers/dataloader/v7"
)

// ErrNoLoaders is returned by lookups on a context given no loaders
// (NewContext): a wiring mistake, never the caller's fault.
var ErrNoLoaders = errors.New("loader: no loaders in the request context")

// recordKind describes one kind of record references name, once for every
// lookup: the loader's name (for Options.OnBatch), the kind, and the
// request's lazily made loader of it. kinds_gen.go has one per kind.
type recordKind[T any] struct {
	name string
	kind catalogue.Kind
	slot func(*Loaders) *lazy[T]
}

// tableOf returns the request's table of kind k; nil before the first
// snapshot, which finds nothing.
func tableOf[T any](l *Loaders, k recordKind[T]) *catalogue.Table[T] {
	if l.snapshot == nil {
		return nil
	}
	return catalogue.KindTable[T](l.snapshot, k.kind)
}

// load resolves one id through the request's loader of kind k. A record
// that does not exist is nil with no error.
func load[T any](ctx context.Context, k recordKind[T], id int64) (*T, error) {
	l, err := request(ctx)
	if err != nil {
		return nil, err
	}
	// Found or not: a record that arrives later must drop the answer.
	l.NoteKeys(catalogue.RecordKey(catalogue.Kinds[k.kind].Collection, id))
	return k.slot(l).get(l, k).Load(ctx, id)()
}

// request returns the request's loaders, or why it may not use them: its
// time has run out, or it was given no loaders. Every lookup
// starts here, so a request past its deadline stops at its next lookup.
func request(ctx context.Context) (*Loaders, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reading the catalogue: %w", err)
	}
	l, ok := For(ctx)
	if !ok {
		return nil, ErrNoLoaders
	}
	return l, nil
}

// loadRef resolves the reference r of rec through the request's loader of
// kind k. A reference by id that names none (a null id, say) is nil at
// once; one by name reads the request's snapshot.
func loadRef[T any](ctx context.Context, k recordKind[T], r catalogue.Ref, rec any) (*T, error) {
	ref := &catalogue.References[r]
	if !ref.ByName {
		id, ok := ref.ID(nil, rec)
		if !ok {
			return nil, nil
		}
		return load(ctx, k, id)
	}
	l, err := request(ctx)
	if err != nil {
		return nil, err
	}
	// A name is looked up among the whole collection's: a record that
	// takes the name, or gives it up, changes what it names.
	c := catalogue.Kinds[k.kind].Collection
	l.NoteKeys(catalogue.CollectionKey(c))
	id, ok := ref.ID(l.snapshot, rec)
	if !ok {
		return nil, nil
	}
	l.NoteKeys(catalogue.RecordKey(c, id))
	return k.slot(l).get(l, k).Load(ctx, id)()
}

// Snapshot returns the snapshot the request pinned; nil, with no error,
// before the first snapshot exists.
func Snapshot(ctx context.Context) (*catalogue.Snapshot, error) {
	l, err := request(ctx)
	if err != nil {
		return nil, err
	}
	return l.snapshot, nil
}

// LoadMany resolves ids of kind k at once, through the request's loader
// of that kind: the ids its cache holds are answered from it, and the
// others go to its batch function together, as one batch. Result i is the
// record ids[i] names, as a pointer (*catalogue.Item for catalogue.ItemKind,
// and so on), or nil when there is none.
//
// It is for a caller that knows every key of a batch at once and keeps
// what it read for the rest of the request (the engine does, level by
// level): nothing waits out the loader's batching window, which under
// load also meant waiting for the scheduler to run its timer, no key costs
// a goroutine or a channel, and the records read are not copied into the
// loader's cache, which measured as a tenth of a nested query's time. The
// ids must be distinct.
func LoadMany(ctx context.Context, k catalogue.Kind, ids []int64) ([]any, error) {
	l, err := request(ctx)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return loadMany(ctx, l, k, ids)
}

// many loads ids as LoadMany says.
func many[T any](ctx context.Context, l *Loaders, k recordKind[T], ids []int64) ([]any, error) {
	z := k.slot(l)
	cache := z.cached()
	out := make([]any, len(ids))
	var missing []int64
	var at []int // where each missing id stands in ids
	for i, id := range ids {
		var thunk dataloader.Thunk[*T]
		cached := false
		if cache != nil {
			thunk, cached = cache.Get(ctx, id)
		}
		if !cached {
			missing = append(missing, id)
			at = append(at, i)
			continue
		}
		rec, err := thunk()
		if err != nil {
			return nil, err
		}
		if rec != nil {
			out[i] = rec
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	for j, res := range z.batch(l, k)(ctx, missing) {
		if res.Error != nil {
			return nil, res.Error
		}
		if res.Data != nil {
			out[at[j]] = res.Data
		}
	}
	return out, nil
}
