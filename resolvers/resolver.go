// Package resolvers answers the GraphQL schema of package graph from the
// catalogue. gqlgen generates the *.resolvers.go files; the reference
// graph's plugin (graph/refgraph) writes the bodies of records.resolvers.go
// (package loader's references, and related for the reverse relations and
// followed paths) and roots_gen.go (the Query fields as the engine calls
// them). Two are filled by hand: schema.resolvers.go, with one call each
// into the helpers of the other files here (list, lookup, watchChanges),
// and entity.resolvers.go, the federation's entity lookups (one per
// record type, each a call into entities.go).
// handler.go makes the /graphql endpoint.
package resolvers

// Resolver is the root resolver. It holds no state of its own: every query
// reads the snapshot its loaders pinned (see package loader), so one
// request always sees one consistent catalogue; subscriptions watch src for
// new snapshots.
type Resolver struct{ src Source }
