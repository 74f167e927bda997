package resolvers

import (
	"context"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/engine"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/loader"
)

// entityType is how the federation's entities of one record type are read:
// its collection, how a batch of its ids is read, and its Go type as the
// engine writes it (bindings_gen.go).
type entityType struct {
	collection catalogue.Collection
	read       batchRead
	typ        *engine.Type
}

// entityKey is the shape of every entity's batch input gqlgen's federation
// plugin generates (graph/model: ItemByIDsInput, …): the one key field,
// id, bound to an Int.
type entityKey = struct {
	ID int `json:"ID"`
}

// entities resolves, for gqlgen's executor, one batch of representations
// of the record type typeName, in their order: the record each id names,
// or nil where there is none (the federation's null, as for any id that
// names nothing). gqlgen's federation runtime gives each type's
// representations at once, whatever their number.
func entities[T any, R ~entityKey](ctx context.Context, typeName string, reps []*R) ([]*T, error) {
	ids := make([]int64, len(reps))
	for i, r := range reps {
		ids[i] = int64(entityKey(*r).ID)
	}
	recs, err := readEntities(ctx, entityTypes[typeName], ids)
	if err != nil {
		return nil, err
	}
	out := make([]*T, len(reps))
	for i, rec := range recs {
		out[i], _ = rec.(*T)
	}
	return out, nil
}

// readEntities reads the records of type et that ids name, one for each
// (nil for none), asking each distinct id once.
func readEntities(ctx context.Context, et entityType, ids []int64) ([]any, error) {
	snap, err := loader.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	if snap == nil || snap.Part(et.collection) == nil {
		return nil, unavailable(et.collection)
	}
	at := make(map[int64]int, len(ids)) // where each distinct id stands in distinct
	distinct := make([]int64, 0, len(ids))
	for _, id := range ids {
		if _, seen := at[id]; !seen {
			at[id] = len(distinct)
			distinct = append(distinct, id)
		}
	}
	// Found or not: a record that arrives later must drop the answer.
	keys := make([]catalogue.Key, len(distinct))
	for i, id := range distinct {
		keys[i] = catalogue.RecordKey(et.collection, id)
	}
	loader.NoteKeys(ctx, keys...)
	recs, err := et.read(ctx, snap, distinct)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = recs[at[id]]
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

// entitiesRoot is _entities as the engine calls it: the representations
// grouped by type, each type's read as gqlgen's executor reads them
// (readEntities: a batch per kind), and answered in their order as the
// union's values. What the gqlgen path would answer otherwise (a
// collection not loaded yet, an id not read as its Int) it declines, for
// gqlgen's executor to answer; graphqlhttp has refused the
// representations that name no entity by its key before either runs.
func entitiesRoot() engine.Root {
	members := make(map[string]*engine.Type, len(entityTypes))
	for name, et := range entityTypes {
		members[name] = et.typ
	}
	union := &engine.Type{Name: "_Entity", Shape: engine.Union, Object: "_Entity", Members: members}
	list := &engine.Type{Name: "[]engine.UnionValue", Shape: engine.List, Elem: union,
		IsNil: func(v any) bool { return *v.(*[]engine.UnionValue) == nil },
		Len:   func(v any) int { return len(*v.(*[]engine.UnionValue)) },
		Index: func(v any, i int) any { return &(*v.(*[]engine.UnionValue))[i] }}
	decline := func(detail string) error {
		return &execution.Declined{Reason: execution.DeclineRun, Detail: "_entities: " + detail}
	}
	return engine.Root{Type: list, Resolve: func(ctx context.Context, args map[string]any) (any, error) {
		reps, ok := args["representations"].([]any)
		if !ok {
			return nil, decline("representations not a list")
		}
		out := make([]engine.UnionValue, len(reps))
		type group struct {
			at  []int // where each of the type's representations stands
			ids []int64
		}
		var order []string
		groups := map[string]*group{}
		for i, r := range reps {
			m, _ := r.(map[string]any)
			typ, _ := m["__typename"].(string)
			id, ok := intArg(m["id"])
			if _, known := entityTypes[typ]; !known || !ok {
				return nil, decline("a representation gqlgen's executor reads")
			}
			g := groups[typ]
			if g == nil {
				g = &group{}
				groups[typ] = g
				order = append(order, typ)
			}
			g.at, g.ids = append(g.at, i), append(g.ids, int64(id))
		}
		for _, typ := range order {
			g := groups[typ]
			recs, err := readEntities(ctx, entityTypes[typ], g.ids)
			if err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				return nil, decline(err.Error())
			}
			for j, i := range g.at {
				out[i] = engine.UnionValue{Type: typ, Value: recs[j]}
			}
		}
		return &out, nil
	}}
}
