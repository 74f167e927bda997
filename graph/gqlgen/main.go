// Command gqlgen is gqlgen with the reference graph's plugin
// (graph/refgraph): it generates graph/ from the schema as `gqlgen
// generate` does, the resolvers' bodies of the fields with @ref, @reverse
// and @follow, and the files derived from the graph in catalogue/,
// loader/ and resolvers/. The root's generate.go runs it, from the module
// root, with gqlgen's version pinned by go.mod.
package main

import (
	"fmt"
	"os"

	"github.com/catalogue-gateway/gateway/graph/refgraph"
)

const module = "github.com/catalogue-gateway/gateway"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gqlgen:", err)
		os.Exit(1)
	}
}

func run() error { return refgraph.Generate("gqlgen.yml", refgraph.Layout(module)) }
