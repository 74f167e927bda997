// Command gqlgen is gqlgen with the reference graph's plugin
// (graph/refgraph): it generates graph/ from the schema as `gqlgen
// generate` does, the resolvers' bodies of the fields with @ref, @reverse
// and @follow, and the files derived from the graph in catalogue/,
// loader/ and resolvers/. The root's generate.go runs it, from the module
// root, with gqlgen's version pinned by go.mod.
package main

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/99designs/gqlgen/api"
	"github.com/99designs/gqlgen/codegen/config"

	"github.com/catalogue-gateway/gateway/graph/refgraph"
)

const module = "github.com/catalogue-gateway/gateway"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gqlgen:", err)
		os.Exit(1)
	}
}

func run() error {
	// gqlgen logs every resolver it adds; its own command discards them too.
	log.SetOutput(io.Discard)
	cfg, err := config.LoadConfig("gqlgen.yml")
	if err != nil {
		return err
	}
	// Before gqlgen loads any Go package, the reference graph's plugin
	// writes the collections' files from the schema alone (its pre-pass,
	// InjectSourcesLate): the Collection constants, the IsEntity methods
	// the federation plugin checks and the connections modelgen binds to.
	// The plugins then run in this order: gqlgen's federation plugin (first,
	// as api.Generate puts it, since gqlgen.yml has a federation section:
	// it adds _entities, _service and the _Entity union to the schema
	// before anything reads it), modelgen, resolvergen (which asks the
	// reference graph's plugin for resolver bodies), then the reference
	// graph's, appended, which reads the whole schema, the federation's
	// fields with it (roots.go leaves them out of RootFields: gqlgen's
	// federation runtime, not the QueryResolver, answers them).
	return api.Generate(cfg, api.AddPlugin(refgraph.New(refgraph.Options{
		Catalogue:     "catalogue",
		Loader:        "loader",
		Resolvers:     "resolvers",
		Model:         "graph/model",
		Explorer:      "web/explorer/src/filters.gen.json",
		CataloguePath: module + "/catalogue",
		ResolversPath: module + "/resolvers",
	})))
}
