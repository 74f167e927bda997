// Package loader resolves the catalogue's id references in batches, through
// per-request dataloaders that read the request's pinned snapshot.
//
// A GraphQL request gets one [Loaders] from [Pin], carried in its context
// ([NewContext]): one snapshot, and one loader per kind of record a
// reference can point at. Resolvers find it with [For]. Loaders are never
// shared between requests, so one request's cache never answers another's.
package loader

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graph-gophers/dataloader/v7"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// Options tune the loaders.
type Options struct {
	// Wait is how long a loader collects keys before it runs its batch.
	// The data is in memory, so a batch costs microseconds: the window
	// only needs to be long enough for sibling resolvers, which gqlgen
	// runs concurrently, to ask for their keys. See DefaultWait.
	Wait time.Duration
	// MaxBatch caps the keys of one batch; 0 means no cap.
	MaxBatch int
	// OnBatch, if set, is called with the kind of record and the number of
	// keys of every batch a loader runs; metrics and tests use it.
	OnBatch func(kind string, keys int)
	// Tracer, if set, records a "loader.batch" span for every batch, a
	// child of the span in the context of the batch's first Load, with
	// the kind of record (loader.kind) and the number of keys
	// (loader.keys). Nil records nothing and costs nothing.
	Tracer trace.Tracer
	// AwaitCold, if set, is called when a request arrives while some
	// collection has no good snapshot; it waits for the upstream read
	// under way, at most until its context ends. ColdWait bounds that
	// wait (default 10s). After it, the request pins what there is, and
	// fields of missing collections answer an error.
	AwaitCold func(ctx context.Context, c catalogue.Collection)
	ColdWait  time.Duration
}

// DefaultWait is the batching window used when Options.Wait is zero. It is
// chosen by measurement (see docs/graphql.md, Batching): long enough that the resolvers of
// a 50-record page land in one batch on a busy 2-core machine, short enough
// to add no visible latency to a request.
const DefaultWait = 200 * time.Microsecond

// Source gives the snapshot a request pins; *catalogue.Store is one.
type Source interface {
	Current() *catalogue.Snapshot
}

// Loaders are one request's view of the catalogue: its pinned snapshot and a
// loader per kind of record a reference can name, each made when the
// request first asks for that kind.
type Loaders struct {
	snapshot *catalogue.Snapshot
	opts     batching

	kinds kindLoaders // kinds_gen.go
	keys  keySet      // keys.go
}

// New returns loaders reading snap, which may be nil before the first
// snapshot: every lookup then finds nothing.
func New(snap *catalogue.Snapshot, opts Options) *Loaders {
	if opts.Wait <= 0 {
		opts.Wait = DefaultWait
	}
	return &Loaders{snapshot: snap, opts: batching{Wait: opts.Wait, MaxBatch: opts.MaxBatch, OnBatch: opts.OnBatch, Tracer: opts.Tracer}}
}

// batching is what a request's loaders need of Options. Loaders are made
// for every request, so they keep only this: the whole Options would put
// them in a larger allocation size class.
type batching struct {
	Wait     time.Duration
	MaxBatch int
	OnBatch  func(kind string, keys int)
	Tracer   trace.Tracer
}

// Snapshot returns the snapshot the request pinned, or nil if there was
// none yet.
func (l *Loaders) Snapshot() *catalogue.Snapshot { return l.snapshot }

// Release lets go of the pinned snapshot, for a request that outlives it: a
// subscription, open across many refreshes, would otherwise keep the
// snapshot of its start in memory. Lookups made after it find nothing; it
// must not race with them. (A subscription's one field reads no records,
// so no kind's loader was made to hold on to a table.)
func (l *Loaders) Release() { l.snapshot = nil }

// lazy is one kind's slot in a request's loaders: a pointer, set when the
// request first asks for that kind. Loaders are made for every request and
// most ask for one or two kinds of the ten, so the slots are a word each
// and only a used kind pays for its state.
type lazy[T any] struct {
	p atomic.Pointer[lazyState[T]]
}

// state returns the slot's state, making it on first use; resolvers run
// concurrently, so the first to store it wins and the others use it.
func (z *lazy[T]) state() *lazyState[T] {
	if s := z.p.Load(); s != nil {
		return s
	}
	s := new(lazyState[T])
	if z.p.CompareAndSwap(nil, s) {
		return s
	}
	return z.p.Load()
}

// lazyState is one kind's loader, made on first use: a loader costs a
// dozen allocations. Its batch function is made first, on its own:
// LoadMany needs only that and the loader's cache, which is empty until
// the loader is made.
type lazyState[T any] struct {
	fetchOnce sync.Once
	fetch     dataloader.BatchFunc[int64, *T]

	loaderOnce sync.Once
	made       atomic.Bool
	loader     *dataloader.Loader[int64, *T]
	cache      dataloader.Cache[int64, *T]
}

// batch returns the request's batch function of kind k.
func (z *lazy[T]) batch(l *Loaders, k recordKind[T]) dataloader.BatchFunc[int64, *T] {
	s := z.state()
	s.fetchOnce.Do(func() { s.fetch = batchFunc(l.opts, k.name, tableOf(l, k)) })
	return s.fetch
}

// get returns the request's loader of kind k, making it on first use.
func (z *lazy[T]) get(l *Loaders, k recordKind[T]) *dataloader.Loader[int64, *T] {
	s := z.state()
	s.loaderOnce.Do(func() {
		s.cache = dataloader.NewCache[int64, *T]()
		s.loader = newLoader(l.opts, z.batch(l, k), s.cache)
		s.made.Store(true)
	})
	return s.loader
}

// cached returns the loader's cache, or nil before the loader is made.
func (z *lazy[T]) cached() dataloader.Cache[int64, *T] {
	s := z.p.Load()
	if s == nil || !s.made.Load() {
		return nil
	}
	return s.cache
}

// batchFunc reads one batch of ids of a kind of record from its table.
func batchFunc[T any](opts batching, kind string, t *catalogue.Table[T]) dataloader.BatchFunc[int64, *T] {
	return func(ctx context.Context, ids []int64) []*dataloader.Result[*T] {
		if opts.OnBatch != nil {
			opts.OnBatch(kind, len(ids))
		}
		if opts.Tracer != nil {
			_, span := opts.Tracer.Start(ctx, "loader.batch", trace.WithAttributes(
				attribute.String("loader.kind", kind), attribute.Int("loader.keys", len(ids))))
			defer span.End()
		}
		// One result per key, in key order. A missing record is an
		// explicit not-found result with nil Data and no error: a
		// dangling reference resolves to null without failing the
		// response.
		results := make([]dataloader.Result[*T], len(ids))
		out := make([]*dataloader.Result[*T], len(ids))
		for i, id := range ids {
			results[i].Data, _ = t.Get(id)
			out[i] = &results[i]
		}
		return out
	}
}

// newLoader makes a loader of one kind of record from its batch function.
func newLoader[T any](opts batching, fetch dataloader.BatchFunc[int64, *T], cache dataloader.Cache[int64, *T]) *dataloader.Loader[int64, *T] {
	lopts := []dataloader.Option[int64, *T]{dataloader.WithWait[int64, *T](opts.Wait), dataloader.WithCache(cache)}
	if opts.MaxBatch > 0 {
		lopts = append(lopts, dataloader.WithBatchCapacity[int64, *T](opts.MaxBatch))
	}
	return dataloader.NewBatchedLoader(fetch, lopts...)
}

type contextKey struct{}

// NewContext returns a context carrying l.
func NewContext(ctx context.Context, l *Loaders) context.Context {
	return context.WithValue(ctx, contextKey{}, l)
}

// For returns the request's loaders, and false outside a request given
// them with NewContext.
func For(ctx context.Context) (*Loaders, bool) {
	l, ok := ctx.Value(contextKey{}).(*Loaders)
	return l, ok
}

// For returns the request's loaders, and false outside a request given
// them with NewContext.
// Pin returns fresh loaders on src's current snapshot, for one request or
// one operation of a connection that carries many. While the snapshot is
// cold, it first waits (see Options.AwaitCold) for the upstream read
// under way, at most until ctx ends.
func Pin(ctx context.Context, src Source, opts Options) *Loaders {
	snap := src.Current()
	if opts.AwaitCold != nil && (snap == nil || len(snap.Missing()) > 0) {
		wait := opts.ColdWait
		if wait <= 0 {
			wait = DefaultColdWait
		}
		ctx, cancel := context.WithTimeout(ctx, wait)
		for c := range catalogue.NumCollections {
			if snap == nil || snap.Part(c) == nil {
				opts.AwaitCold(ctx, c)
			}
		}
		cancel()
		snap = src.Current()
	}
	return New(snap, opts)
}

// DefaultColdWait is how long a request arriving while the snapshot is
// cold waits for the upstream, unless Options.ColdWait says otherwise.
const DefaultColdWait = 10 * time.Second
