package resolvers

import (
	"net/http"

	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/loader"
)

// NewHandler returns the /graphql endpoint: the schema served by
// graphqlhttp with its limits, every request pinned to the snapshot src
// serves when it arrives and given its own loaders.
func NewHandler(src loader.Source, loaderOpts loader.Options, httpOpts graphqlhttp.Options) http.Handler {
	cfg := graph.Config{Resolvers: &Resolver{}}
	setComplexity(&cfg.Complexity)
	return loader.Middleware(src, loaderOpts, graphqlhttp.New(graph.NewExecutableSchema(cfg), httpOpts))
}
