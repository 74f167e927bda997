package loader

import (
	"context"
	"errors"
	"fmt"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// ErrNoLoaders is returned by lookups on a context that did not pass
// through Middleware: a wiring mistake, never the caller's fault.
var ErrNoLoaders = errors.New("loader: no loaders in the request context")

// load resolves one id through the request's loader of one kind. A record
// that does not exist is nil with no error.
func load[T any](ctx context.Context, pick func(*Loaders) *dataloader.Loader[int64, *T], id int64) (*T, error) {
	l, err := request(ctx)
	if err != nil {
		return nil, err
	}
	return pick(l).Load(ctx, id)()
}

// request returns the request's loaders, or why it may not use them: its
// time has run out, or it did not pass through Middleware. Every lookup
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

// Item resolves an item id.
func Item(ctx context.Context, id int64) (*catalogue.Item, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.Item] {
		return l.item.get(l, "item", (*catalogue.Snapshot).Items)
	}, id)
}

// Monster resolves a monster id.
func Monster(ctx context.Context, id int64) (*catalogue.Monster, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.Monster] {
		return l.monster.get(l, "monster", (*catalogue.Snapshot).Monsters)
	}, id)
}

// Quest resolves a quest id.
func Quest(ctx context.Context, id int64) (*catalogue.Quest, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.Quest] {
		return l.quest.get(l, "quest", (*catalogue.Snapshot).Quests)
	}, id)
}

// BaseCamp resolves a base camp id.
func BaseCamp(ctx context.Context, id int64) (*catalogue.BaseCamp, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.BaseCamp] {
		return l.baseCamp.get(l, "baseCamp", (*catalogue.Snapshot).BaseCamps)
	}, id)
}

// EventChest resolves an event chest id.
func EventChest(ctx context.Context, id int64) (*catalogue.EventChest, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.EventChest] {
		return l.eventChest.get(l, "eventChest", (*catalogue.Snapshot).EventChests)
	}, id)
}

// DiscoveryLocation resolves a discovery location id.
func DiscoveryLocation(ctx context.Context, id int64) (*catalogue.DiscoveryLocation, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.DiscoveryLocation] {
		return l.discoveryLocation.get(l, "discoveryLocation", (*catalogue.Snapshot).DiscoveryLocations)
	}, id)
}

// CookingRecipe resolves a cooking recipe id.
func CookingRecipe(ctx context.Context, id int64) (*catalogue.CookingRecipe, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.CookingRecipe] {
		return l.cookingRecipe.get(l, "cookingRecipe", (*catalogue.Snapshot).CookingRecipes)
	}, id)
}

// FletchingRecipe resolves a fletching recipe id.
func FletchingRecipe(ctx context.Context, id int64) (*catalogue.FletchingRecipe, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.FletchingRecipe] {
		return l.fletchingRecipe.get(l, "fletchingRecipe", (*catalogue.Snapshot).FletchingRecipes)
	}, id)
}

// FarmingSeed resolves a farming seed id.
func FarmingSeed(ctx context.Context, id int64) (*catalogue.FarmingSeed, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.FarmingSeed] {
		return l.farmingSeed.get(l, "farmingSeed", (*catalogue.Snapshot).FarmingSeeds)
	}, id)
}

// ForestryTree resolves a forestry tree id.
func ForestryTree(ctx context.Context, id int64) (*catalogue.ForestryTree, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.ForestryTree] {
		return l.forestryTree.get(l, "forestryTree", (*catalogue.Snapshot).ForestryTrees)
	}, id)
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

// Kind is a kind of record a reference can name: one of the loaders.
type Kind uint8

// The kinds of record references name.
const (
	ItemKind Kind = iota
	MonsterKind
	QuestKind
	BaseCampKind
	EventChestKind
	DiscoveryLocationKind
	CookingRecipeKind
	FletchingRecipeKind
	FarmingSeedKind
	ForestryTreeKind
)

// LoadMany resolves ids of kind k, as one batch that runs as soon as the
// last id is asked for. Result i is the record ids[i] names, as a pointer
// (*catalogue.Item for ItemKind, and so on), or nil when there is none.
//
// It is for a caller that knows every key of a batch at once (the compiled
// plans do, level by level): the batch is a loader of the request's
// snapshot made for exactly these keys, so nothing waits out a batching
// window, which under load also meant waiting for the scheduler to run the
// window's timer. The ids must be distinct.
func LoadMany(ctx context.Context, k Kind, ids []int64) ([]any, error) {
	l, err := request(ctx)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	switch k {
	case ItemKind:
		return many(ctx, l, "item", (*catalogue.Snapshot).Items, ids)
	case MonsterKind:
		return many(ctx, l, "monster", (*catalogue.Snapshot).Monsters, ids)
	case QuestKind:
		return many(ctx, l, "quest", (*catalogue.Snapshot).Quests, ids)
	case BaseCampKind:
		return many(ctx, l, "baseCamp", (*catalogue.Snapshot).BaseCamps, ids)
	case EventChestKind:
		return many(ctx, l, "eventChest", (*catalogue.Snapshot).EventChests, ids)
	case DiscoveryLocationKind:
		return many(ctx, l, "discoveryLocation", (*catalogue.Snapshot).DiscoveryLocations, ids)
	case CookingRecipeKind:
		return many(ctx, l, "cookingRecipe", (*catalogue.Snapshot).CookingRecipes, ids)
	case FletchingRecipeKind:
		return many(ctx, l, "fletchingRecipe", (*catalogue.Snapshot).FletchingRecipes, ids)
	case FarmingSeedKind:
		return many(ctx, l, "farmingSeed", (*catalogue.Snapshot).FarmingSeeds, ids)
	case ForestryTreeKind:
		return many(ctx, l, "forestryTree", (*catalogue.Snapshot).ForestryTrees, ids)
	}
	return nil, fmt.Errorf("loader: unknown kind %d", k)
}

// many loads ids through a loader whose batch holds exactly them: asking
// for the last one runs the batch. Every id is asked for before any is
// waited on. (The loader's own LoadMany starts a goroutine per key to do
// the same, which cost a nested query more than resolving its references.)
func many[T any](ctx context.Context, l *Loaders, kind string, table func(*catalogue.Snapshot) *catalogue.Table[T], ids []int64) ([]any, error) {
	var t *catalogue.Table[T] // nil before the first snapshot: finds nothing
	if l.snapshot != nil {
		t = table(l.snapshot)
	}
	opts := l.opts
	opts.MaxBatch = len(ids)
	ld := newLoader(opts, kind, t)
	thunks := make([]dataloader.Thunk[*T], len(ids))
	for i, id := range ids {
		thunks[i] = ld.Load(ctx, id)
	}
	out := make([]any, len(ids))
	for i, thunk := range thunks {
		rec, err := thunk()
		if err != nil {
			return nil, err
		}
		if rec != nil {
			out[i] = rec
		}
	}
	return out, nil
}
