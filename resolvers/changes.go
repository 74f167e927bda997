package resolvers

import (
	"context"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graph/model"
	"github.com/catalogue-gateway/gateway/loader"
)

// Source is what the endpoint serves: the current snapshot, for queries,
// and word of each new one, for subscriptions. *catalogue.Store is one.
type Source interface {
	loader.Source
	// Watch returns the snapshot being served and a channel closed when
	// another replaces it.
	Watch() (*catalogue.Snapshot, <-chan struct{})
}

// watchChanges sends a CatalogueChange for each snapshot src swaps in
// after the call, until ctx ends. Snapshots that follow each other faster
// than the client reads are told as one change, from the last snapshot the
// client heard of to the newest, so a slow client holds no backlog.
func watchChanges(ctx context.Context, src Source) <-chan *model.CatalogueChange {
	events := make(chan *model.CatalogueChange)
	// Only the bodies' names and the version are kept: the stream
	// outlives the snapshot its request pinned, and holding it (here or in
	// the loaders) would keep it in memory for as long as the client
	// listens. The newest snapshot remembers what changed since (see
	// catalogue.Snapshot.ChangeSince).
	first, replaced := src.Watch()
	last, lastVersion := first.BodyETags(), versionOf(first)
	if l, ok := loader.For(ctx); ok {
		l.Release()
	}
	go func() {
		defer close(events)
		for {
			select {
			case <-ctx.Done():
				return
			case <-replaced:
			}
			var snap *catalogue.Snapshot
			snap, replaced = src.Watch()
			if snap == nil {
				continue
			}
			next := snap.BodyETags()
			ev := &model.CatalogueChange{Version: snap.Version(), Collections: []string{}, Keys: []string{}}
			for c := range catalogue.NumCollections {
				if next[c] != last[c] {
					ev.Collections = append(ev.Collections, c.String())
				}
			}
			if len(ev.Collections) == 0 {
				continue
			}
			// A collection's first body is a change with no keys: no
			// cache could hold what it did not have.
			if ch, _ := snap.ChangeSince(lastVersion, last); len(ch.Keys) > 0 {
				ev.Keys = ch.Keys
			}
			// Snapshots swapped in while the client is still reading this
			// event are told together in the next one.
			select {
			case events <- ev:
				last, lastVersion = next, ev.Version
			case <-ctx.Done():
				return
			}
		}
	}()
	return events
}

// versionOf is s's version, "" for nil (before the first snapshot).
func versionOf(s *catalogue.Snapshot) string {
	if s == nil {
		return ""
	}
	return s.Version()
}

// changedKeys sends, for each snapshot src swaps in after the call, the
// keys of what it changed, as watchChanges tells them (a collection's
// first body, which has no keys, by its collection's key), until ctx
// ends; then it closes the channel. Like watchChanges, it lets go of the
// snapshot the request in ctx pinned.
func changedKeys(ctx context.Context, src Source) <-chan []string {
	events := watchChanges(ctx, src)
	keys := make(chan []string)
	go func() {
		defer close(keys)
		for ev := range events {
			k := ev.Keys
			if len(k) == 0 {
				k = ev.Collections
			}
			select {
			case keys <- k:
			case <-ctx.Done():
				return
			}
		}
	}()
	return keys
}
