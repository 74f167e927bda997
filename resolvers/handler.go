package resolvers

import (
	"net/http"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/loader"
)

// NewHandler returns the /graphql endpoint: GraphQL over HTTP with the
// transports the contract names (POST with a JSON body; GET for queries,
// never mutations), every request pinned to the snapshot src serves when it
// arrives and given its own loaders.
func NewHandler(src loader.Source, opts loader.Options) http.Handler {
	srv := handler.New(graph.NewExecutableSchema(graph.Config{Resolvers: &Resolver{}}))
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	// Parsed and validated documents are kept, so a repeated query is not
	// parsed again.
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	return loader.Middleware(src, opts, srv)
}
