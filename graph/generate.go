// Package graph holds the GraphQL schema (*.graphqls) and the execution
// code gqlgen generates from it (generated.go, model/models_gen.go), which
// is never edited by hand. Besides the schema, only served.go (the schema
// as callers see it) and model/connection.go are written here; graph/gqlgen
// (gqlgen with the reference graph's plugin), graph/refgraph (the plugin)
// and graph/querygen (operations for tests) are packages of their own. Run
// `go generate ./...` from the repository root after changing the schema
// (the //go:generate line is in the root's generate.go, since gqlgen reads
// gqlgen.yml's paths from the directory it runs in).
package graph
