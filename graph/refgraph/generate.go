package refgraph

import (
	"io"
	"log"

	"github.com/99designs/gqlgen/api"
	"github.com/99designs/gqlgen/codegen/config"
)

// Layout is where a module laid out as this one (its import path module)
// has the packages the plugin writes to, relative to its root.
func Layout(module string) Options {
	return Options{
		Catalogue:     "catalogue",
		Loader:        "loader",
		Resolvers:     "resolvers",
		Model:         "graph/model",
		Explorer:      "web/explorer/src/filters.gen.json",
		CataloguePath: module + "/catalogue",
		ResolversPath: module + "/resolvers",
	}
}

// Generate runs gqlgen with the plugin, from the directory of the
// configuration file configFile (the module root), as go generate does
// (graph/gqlgen) and as the fixture test does on a copy of the module.
//
// Before gqlgen loads any Go package, the plugin writes the collections'
// files from the schema alone (its pre-pass, InjectSourcesLate): the
// Collection constants, the IsEntity methods the federation plugin checks
// and the connections modelgen binds to. The plugins then run in this
// order: gqlgen's federation plugin (first, as api.Generate puts it,
// since gqlgen.yml has a federation section: it adds _entities, _service
// and the _Entity union to the schema before anything reads it),
// modelgen, resolvergen (which asks the plugin for resolver bodies), then
// the plugin, appended, which reads the whole schema, the federation's
// fields with it (roots.go leaves them out of RootFields: gqlgen's
// federation runtime, not the QueryResolver, answers them).
func Generate(configFile string, opts Options) error {
	// gqlgen logs every resolver it adds; its own command discards them too.
	log.SetOutput(io.Discard)
	cfg, err := config.LoadConfig(configFile)
	if err != nil {
		return err
	}
	return api.Generate(cfg, api.AddPlugin(New(opts)))
}
