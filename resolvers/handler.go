package resolvers

import (
	"context"
	"net/http"
	"time"

	"github.com/catalogue-gateway/gateway/engine"
	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/internal/memory"
	"github.com/catalogue-gateway/gateway/loader"
)

// NewHandler returns the /graphql endpoint: the schema served by
// graphqlhttp with its limits, every request pinned to the snapshot src
// serves when it arrives and given its own loaders.
//
// Answers are cached (if httpOpts.Cache is set) under the version of the
// snapshot the request pinned, and only while that snapshot is the one src
// serves: a request that began before a refresh neither reads nor fills
// the new snapshot's cache.
//
// httpOpts.Executor is the caller's to choose, and nothing is assumed
// here: NewEngine(httpOpts.Memory) for the engine, nil or
// execution.None for gqlgen's executor alone. Which of the two runs
// each operation, whatever carries it, graphqlhttp decides in one place
// (its chooser).
func NewHandler(src Source, loaderOpts loader.Options, httpOpts graphqlhttp.Options) http.Handler {
	resolver := &Resolver{src: src}
	schema := graph.NewExecutableSchema(graph.Config{Resolvers: resolver, Schema: graph.ServedSchema()})
	httpOpts.Lengths = newLengthsCache().forRequest
	httpOpts.Modified = func(ctx context.Context) (time.Time, string) {
		if snap, err := loader.Snapshot(ctx); err == nil && snap != nil {
			return snap.Modified(), snap.LastModified()
		}
		return time.Time{}, ""
	}
	httpOpts.Version = func(ctx context.Context) (string, bool) {
		snap, err := loader.Snapshot(ctx)
		if err != nil || snap == nil {
			return "", false
		}
		return snap.Version(), snap == src.Current()
	}
	// What the request read, noted by the resolvers, the loaders and the
	// engine as they ran.
	httpOpts.Keys = loader.Keys
	// Live queries are run again on the keys of what each refresh
	// changed, as catalogueChanged tells them.
	httpOpts.Changes = func(ctx context.Context) <-chan []string { return changedKeys(ctx, src) }
	// A WebSocket is one request carrying many operations over its life:
	// each operation pins its own loaders, on the snapshot current when
	// it starts, rather than the connection holding one snapshot for
	// good.
	httpOpts.PerOperation = func(ctx context.Context) func(context.Context) context.Context {
		l := loader.Pin(ctx, src, loaderOpts)
		return func(ctx context.Context) context.Context { return loader.NewContext(ctx, l) }
	}
	httpOpts.PerRequest = func(ctx context.Context) context.Context {
		return loader.NewContext(ctx, loader.Pin(ctx, src, loaderOpts))
	}
	return graphqlhttp.New(schema, httpOpts)
}

// NewEngine returns the engine over the resolvers' root fields, keeping
// its renderings within mem's share (nil: the default budget's).
func NewEngine(mem *memory.Budget) *engine.Engine {
	roots := (&Resolver{}).RootFields()
	// The federation subgraph's _entities, which gqlgen's federation
	// plugin answers outside the QueryResolver; _service, asked once per
	// composition, is left to gqlgen's executor.
	roots["_entities"] = entitiesRoot()
	return engine.New(roots, mem)
}
