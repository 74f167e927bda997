package resolvers_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/loader"
)

// schemaAST parses graph/*.graphqls as written, directives and all.
func schemaAST(t *testing.T) *ast.Schema {
	t.Helper()
	files, err := filepath.Glob("../graph/*.graphqls")
	if err != nil || len(files) == 0 {
		t.Fatalf("no schema files: %v", err)
	}
	var sources []*ast.Source
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, &ast.Source{Name: f, Input: string(b)})
	}
	// The federation directives the files use, which gqlgen's federation
	// plugin declares when it generates.
	sources = append(sources, &ast.Source{Name: "federation", Input: `
directive @link(url: String!, import: [String!]) repeatable on SCHEMA
directive @key(fields: String!, resolvable: Boolean = true) repeatable on OBJECT | INTERFACE`})
	s, err := gqlparser.LoadSchema(sources...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReferenceGraphIsComplete walks the schema as written, not the
// generated tables: every field of an object type that holds a record
// (a @record type) is a reference, a relation, or one of the fields
// deliberately plain (a page's nodes and edges, and the root fields); and
// each has its entry in the tables go generate derives, and no entry is
// left over. A field added without its directive, or a table not
// regenerated, fails here.
func TestReferenceGraphIsComplete(t *testing.T) {
	s := schemaAST(t)
	records := map[string]bool{}
	for name, def := range s.Types {
		if def.Directives.ForName("record") != nil {
			records[name] = true
		}
	}
	if len(records) != int(catalogue.NumCollections) {
		t.Errorf("%d @record types, want one per collection (%d)", len(records), catalogue.NumCollections)
	}
	refs := map[string]catalogue.Reference{}
	for _, r := range catalogue.References {
		refs[r.Owner+"."+r.Field] = r
	}
	rels := map[string]catalogue.Relation{}
	for _, r := range catalogue.Relations {
		rels[r.Owner+"."+r.Field] = r
	}
	targets := map[string]bool{}
	for name, def := range s.Types {
		if def.Kind != ast.Object || def == s.Query || def == s.Subscription || strings.HasPrefix(name, "__") {
			continue
		}
		for _, f := range def.Fields {
			key := name + "." + f.Name
			typ := f.Type.Name()
			ref, rel := f.Directives.ForName("ref"), f.Directives.ForName("reverse")
			if rel == nil {
				rel = f.Directives.ForName("follow")
			}
			switch {
			case ref != nil:
				r, ok := refs[key]
				if !ok {
					t.Errorf("%s has @ref but no entry in catalogue.References: run go generate", key)
					continue
				}
				targets[typ] = true
				if got := catalogue.Kinds[r.Target].Type; got != typ {
					t.Errorf("%s: References names a %s, the schema a %s", key, got, typ)
				}
				delete(refs, key)
			case rel != nil:
				r, ok := rels[key]
				if !ok {
					t.Errorf("%s has @%s but no entry in catalogue.Relations: run go generate", key, rel.Name)
					continue
				}
				if r.Element != typ {
					t.Errorf("%s: Relations lists %s, the schema %s", key, r.Element, typ)
				}
				delete(rels, key)
			case !records[typ]:
			case strings.HasSuffix(name, "Connection") && f.Name == "nodes", strings.HasSuffix(name, "Edge") && f.Name == "node":
				// A page of records: plain, the records themselves.
			default:
				t.Errorf("%s holds a %s but has neither @ref, @reverse nor @follow: describe it, or make it plain here", key, typ)
			}
		}
	}
	for key := range refs {
		t.Errorf("catalogue.References has %s, which has no @ref in the schema: run go generate", key)
	}
	for key := range rels {
		t.Errorf("catalogue.Relations has %s, which is no relation in the schema: run go generate", key)
	}
	kinds := map[string]bool{}
	for _, k := range catalogue.Kinds {
		kinds[k.Type] = true
		if !targets[k.Type] {
			t.Errorf("kind %s is the target of no @ref", k.Type)
		}
	}
	for typ := range targets {
		if !kinds[typ] {
			t.Errorf("%s is the target of a @ref but no kind", typ)
		}
	}
}

// TestServedSchemaHidesTheGraph: the reference graph's and the filters'
// directives say how the gateway is built; introspection lists none of them, and every type
// and field of the schema as written is still served.
func TestServedSchemaHidesTheGraph(t *testing.T) {
	srv := serve(t, storeOf(fixture(t)), loader.Options{})
	d := data(t, srv, `{ __schema { directives { name } types { name fields { name } } } }`, nil)
	schema := d["__schema"].(map[string]any)
	for _, dir := range schema["directives"].([]any) {
		switch name := dir.(map[string]any)["name"]; name {
		case "record", "ref", "reverse", "follow", "contains", "equals", "atLeast", "atMost", "order":
			t.Errorf("introspection lists @%s", name)
		}
	}
	served := map[string]bool{}
	for _, typ := range schema["types"].([]any) {
		typ := typ.(map[string]any)
		fields, _ := typ["fields"].([]any)
		for _, f := range fields {
			served[typ["name"].(string)+"."+f.(map[string]any)["name"].(string)] = true
		}
	}
	for name, def := range schemaAST(t).Types {
		for _, f := range def.Fields {
			if def.Kind == ast.Object && !strings.HasPrefix(f.Name, "__") && !served[name+"."+f.Name] {
				t.Errorf("%s.%s is not served", name, f.Name)
			}
		}
	}
}
