package loader

import (
	"context"
	"errors"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// ErrNoLoaders is returned by lookups on a context that did not pass
// through Middleware: a wiring mistake, never the caller's fault.
var ErrNoLoaders = errors.New("loader: no loaders in the request context")

// load resolves one id through the request's loader of one kind. A record
// that does not exist is nil with no error.
func load[T any](ctx context.Context, pick func(*Loaders) *dataloader.Loader[int64, *T], id int64) (*T, error) {
	l, ok := For(ctx)
	if !ok {
		return nil, ErrNoLoaders
	}
	return pick(l).Load(ctx, id)()
}

// Item resolves an item id.
func Item(ctx context.Context, id int64) (*catalogue.Item, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.Item] { return l.Item }, id)
}

// Monster resolves a monster id.
func Monster(ctx context.Context, id int64) (*catalogue.Monster, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.Monster] { return l.Monster }, id)
}

// Quest resolves a quest id.
func Quest(ctx context.Context, id int64) (*catalogue.Quest, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.Quest] { return l.Quest }, id)
}

// BaseCamp resolves a base camp id.
func BaseCamp(ctx context.Context, id int64) (*catalogue.BaseCamp, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.BaseCamp] { return l.BaseCamp }, id)
}

// EventChest resolves an event chest id.
func EventChest(ctx context.Context, id int64) (*catalogue.EventChest, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.EventChest] { return l.EventChest }, id)
}

// DiscoveryLocation resolves a discovery location id.
func DiscoveryLocation(ctx context.Context, id int64) (*catalogue.DiscoveryLocation, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.DiscoveryLocation] {
		return l.DiscoveryLocation
	}, id)
}

// CookingRecipe resolves a cooking recipe id.
func CookingRecipe(ctx context.Context, id int64) (*catalogue.CookingRecipe, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.CookingRecipe] { return l.CookingRecipe }, id)
}

// FletchingRecipe resolves a fletching recipe id.
func FletchingRecipe(ctx context.Context, id int64) (*catalogue.FletchingRecipe, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.FletchingRecipe] {
		return l.FletchingRecipe
	}, id)
}

// FarmingSeed resolves a farming seed id.
func FarmingSeed(ctx context.Context, id int64) (*catalogue.FarmingSeed, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.FarmingSeed] { return l.FarmingSeed }, id)
}

// ForestryTree resolves a forestry tree id.
func ForestryTree(ctx context.Context, id int64) (*catalogue.ForestryTree, error) {
	return load(ctx, func(l *Loaders) *dataloader.Loader[int64, *catalogue.ForestryTree] { return l.ForestryTree }, id)
}

// Snapshot returns the snapshot the request pinned; nil, with no error,
// before the first snapshot exists.
func Snapshot(ctx context.Context) (*catalogue.Snapshot, error) {
	l, ok := For(ctx)
	if !ok {
		return nil, ErrNoLoaders
	}
	return l.snapshot, nil
}
