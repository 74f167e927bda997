package resolvers

import (
	"context"
	"net/http"

	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
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
func NewHandler(src Source, loaderOpts loader.Options, httpOpts graphqlhttp.Options) http.Handler {
	cfg := graph.Config{Resolvers: &Resolver{src: src}, Schema: graph.ServedSchema()}
	// Unless told otherwise, operations run from compiled plans where
	// they can (see Compiled), and by gqlgen's executor where not.
	if httpOpts.Executor == nil {
		httpOpts.Executor = NewCompiled()
	}
	httpOpts.Lengths = newLengthsCache().forRequest
	httpOpts.Version = func(ctx context.Context) (string, bool) {
		snap, err := loader.Snapshot(ctx)
		if err != nil || snap == nil {
			return "", false
		}
		return snap.Version(), snap == src.Current()
	}
	return loader.Middleware(src, loaderOpts, graphqlhttp.New(graph.NewExecutableSchema(cfg), httpOpts))
}
