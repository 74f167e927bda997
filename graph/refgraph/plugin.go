package refgraph

import (
	"fmt"
	"go/format"
	"go/types"
	"os"
	"path/filepath"

	"github.com/99designs/gqlgen/codegen"
)

// Options say where the generated files go.
type Options struct {
	// Catalogue, Loader, Resolvers and Model are the directories of those
	// packages, relative to where the generator runs (the module root);
	// CataloguePath and ResolversPath their import paths.
	Catalogue, Loader, Resolvers, Model string
	CataloguePath, ResolversPath        string
	// Explorer is the path of the lists' description the explorer imports.
	Explorer string
}

// Plugin is the gqlgen plugin: a ResolverImplementer for the bodies of
// the fields with @ref, @reverse and @follow, and a CodeGenerator for the
// files derived from the graph.
type Plugin struct {
	opts Options
	// collections are the schema's, read by the pre-pass
	// (InjectSourcesLate) before anything else runs.
	collections []*collection
}

// New returns the plugin.
func New(opts Options) *Plugin { return &Plugin{opts: opts} }

// Name is the plugin's name in gqlgen's errors.
func (p *Plugin) Name() string { return "refgraph" }

// Implement returns the body of a resolver: a lookup through the loaders
// for a @ref, a read of the snapshot's relation for a @reverse or a
// @follow, a collection's list or record for its root fields, its
// records by id for the federation's entities, and otherwise the body
// written by hand (gqlgen's stub when there is none yet).
func (p *Plugin) Implement(prev string, f *codegen.Field) string {
	var args []string
	for _, a := range f.Args {
		args = append(args, a.VarName)
	}
	switch {
	case f.Object.Name == "Query" && p.rootBody(f.Name, args) != "":
		return p.rootBody(f.Name, args)
	case f.Object.Name == "Entity" && p.collectionOf(f.FieldDefinition.Type.Name()) != nil && len(args) == 1:
		t := f.FieldDefinition.Type.Name()
		return fmt.Sprintf("return entities[catalogue.%s](ctx, %q, %s)", t, t, args[0])
	case f.FieldDefinition.Directives.ForName("ref") != nil:
		ref := reference{owner: f.Object.Name, field: f.Name}
		return fmt.Sprintf("return loader.%sRef(ctx, catalogue.%s, obj)", f.Type.Name(), ref.constName())
	case f.FieldDefinition.Directives.ForName("reverse") != nil, f.FieldDefinition.Directives.ForName("follow") != nil:
		rel := relation{owner: &record{name: f.Object.Name}, field: f.Name}
		id := "ID"
		if gf := boundField(f.Object, "id"); gf != nil {
			id = gf.GoFieldName
		}
		return fmt.Sprintf("return related(ctx, (*catalogue.Snapshot).%s, obj.%s)", rel.method(), id)
	case prev != "":
		return prev
	}
	return fmt.Sprintf("panic(fmt.Errorf(\"not implemented: %v - %v\"))", f.GoFieldName, f.Name)
}

// GenerateCode writes the files derived from the graph.
func (p *Plugin) GenerateCode(data *codegen.Data) error {
	files, err := p.files(data, p.bindings(data))
	if err != nil {
		return err
	}
	for name, src := range files {
		if err := write(name, src); err != nil {
			return err
		}
	}
	return nil
}

// bindings are gqlgen's binding decisions, as the graph's reader asks
// for them.
func (p *Plugin) bindings(data *codegen.Data) goTypes {
	return goTypes{
		of: func(name string) types.Type {
			o := data.Objects.ByName(name)
			if o == nil {
				return nil
			}
			if n, ok := o.Type.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == p.opts.CataloguePath {
				return o.Type
			}
			return nil
		},
		field: func(typeName, name string) *goField {
			if o := data.Objects.ByName(typeName); o != nil {
				if f := boundField(o, name); f != nil {
					return &goField{gql: name, name: f.GoFieldName, typ: f.TypeReference.GO}
				}
			}
			return nil
		},
	}
}

// boundField is the field name of o if gqlgen bound it to a Go struct
// field, else nil.
func boundField(o *codegen.Object, name string) *codegen.Field {
	for _, f := range o.Fields {
		if f.Name == name && !f.IsResolver && f.GoFieldType == codegen.GoFieldVariable {
			return f
		}
	}
	return nil
}

// files returns the generated files' contents by path.
func (p *Plugin) files(data *codegen.Data, bound goTypes) (map[string]string, error) {
	g, err := read(data.Schema, bound)
	if err != nil {
		return nil, err
	}
	occs, err := g.occurrences(data.Schema, bound)
	if err != nil {
		return nil, err
	}
	files := map[string]string{
		filepath.Join(p.opts.Catalogue, "refgraph_gen.go"): g.catalogueFile(occs),
		filepath.Join(p.opts.Loader, "kinds_gen.go"):       g.loaderFile(p.opts.CataloguePath),
	}
	// The root fields, and the types they and the records bind to, in
	// one table the roots name theirs from.
	acc := newAccessors(data, g, p.opts.ResolversPath, p.opts.CataloguePath)
	if data.QueryRoot != nil {
		roots, err := rootsFile(data.QueryRoot, acc)
		if err != nil {
			return nil, err
		}
		files[filepath.Join(p.opts.Resolvers, "roots_gen.go")] = roots
	}
	records := acc.records()
	files[filepath.Join(p.opts.Resolvers, "bindings_gen.go")] = acc.bindingsFile(records)
	files[filepath.Join(p.opts.Resolvers, "entities_gen.go")] = p.entitiesFile(g, records)
	if err := p.filterFiles(data, g, bound, files); err != nil {
		return nil, err
	}
	return files, nil
}

// write formats src and writes it, unless the file already holds it.
func write(name, src string) error {
	out := []byte(src)
	if filepath.Ext(name) == ".go" {
		var err error
		if out, err = format.Source(out); err != nil {
			return fmt.Errorf("formatting %s: %w\n%s", name, err, src)
		}
	}
	if old, err := os.ReadFile(name); err == nil && string(old) == string(out) {
		return nil // keeps its mtime, so the build after need not redo it
	}
	return os.WriteFile(name, out, 0o644)
}
