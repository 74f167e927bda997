// Package graph holds the GraphQL schema (*.graphqls) and the execution
// code gqlgen generates from it. Nothing here is edited by hand but the
// schema; run `go generate ./...` from the repository root after changing
// it (the //go:generate line is in the root's generate.go, since gqlgen
// reads gqlgen.yml's paths from the directory it runs in).
package graph
