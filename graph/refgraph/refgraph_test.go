package refgraph

import (
	"go/ast"
	"go/format"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/codegen"
	"github.com/vektah/gqlparser/v2"
	gqlast "github.com/vektah/gqlparser/v2/ast"
)

// fakeCatalogue stands for the catalogue package: the generator reads
// only its record structs.
const fakeCatalogue = "package catalogue\n" +
	"type JSONValue []byte\n" +
	"type Part struct {\n\tItemID int64 `json:\"itemId\"`\n}\n" +
	"type Item struct {\n\tID int64 `json:\"id\"`\n\tName string `json:\"name\"`\n\tParts []Part `json:\"parts\"`\n}\n" +
	"type Box struct {\n\tID int64 `json:\"id\"`\n\tItemID *int64 `json:\"itemId\"`\n\tLabel JSONValue `json:\"label\"`\n\tContents []Part `json:\"contents\"`\n}\n"

const baseSchema = `
type Query { item(id: Int!): Item }
type Item @record(collection: "items") {
  id: Int!
  name: String!
  parts: [Part!]!
  usedIn: [Item!]! @reverse(of: ["Item.parts.item"])
}
type Part {
  itemId: Int!
  item: Item @ref(id: "itemId")
}
type Box @record(collection: "boxes") {
  id: Int!
  itemId: Int
  label: JSON
  contents: [Part!]!
}
scalar JSON
`

// generate derives the catalogue's and the loaders' files from schema
// over fakeCatalogue.
func generate(t *testing.T, schema string) (catalogueSrc, loaderSrc string, s *gqlast.Schema, bound goTypes) {
	t.Helper()
	s, bound = loadTestGraph(t, schema, fakeCatalogue)
	g, err := read(s, bound)
	if err != nil {
		t.Fatal(err)
	}
	occs, err := g.occurrences(s, bound)
	if err != nil {
		t.Fatal(err)
	}
	cat, lo := g.catalogueFile(occs), g.loaderFile("example.com/catalogue")
	for name, src := range map[string]string{"catalogue": cat, "loader": lo} {
		if _, err := format.Source([]byte(src)); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, src)
		}
	}
	return cat, lo, s, bound
}

// loadTestGraph loads schema beside the reference graph's directives, and
// binds it, as fakeBindings does, to the package catalogueSrc declares.
func loadTestGraph(t *testing.T, schema, catalogueSrc string) (*gqlast.Schema, goTypes) {
	t.Helper()
	directives, err := os.ReadFile("../refgraph.graphqls")
	if err != nil {
		t.Fatal(err)
	}
	s, gerr := gqlparser.LoadSchema(&gqlast.Source{Name: "refgraph.graphqls", Input: string(directives)},
		&gqlast.Source{Name: "test.graphqls", Input: schema})
	if gerr != nil {
		t.Fatal(gerr)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "catalogue.go", catalogueSrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := (&types.Config{Importer: importer.Default()}).Check("example.com/catalogue", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, fakeBindings(pkg)
}

// fakeBindings stands for gqlgen's bindings over pkg, which these tests
// do not run: an object type binds to the struct of its name, a field to
// the struct field whose json tag names it (gqlgen's autobind with
// struct_tag json, as far as fakeCatalogue needs).
func fakeBindings(pkg *types.Package) goTypes {
	of := func(name string) types.Type {
		if o := pkg.Scope().Lookup(name); o != nil {
			return o.Type()
		}
		return nil
	}
	return goTypes{of: of, field: func(typeName, name string) *goField {
		t := of(typeName)
		if t == nil {
			return nil
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok {
			return nil
		}
		for i := range st.NumFields() {
			if tag, _, _ := strings.Cut(reflect.StructTag(st.Tag(i)).Get("json"), ","); tag == name {
				return &goField{gql: name, name: st.Field(i).Name(), typ: st.Field(i).Type()}
			}
		}
		return nil
	}}
}

// TestOneLineAddsAReference: a @ref added to the schema, one line, gives
// its resolver's body, its entry in References with an accessor of its
// id's Go type, and its place in the integrity walk; a @reverse, one
// line, gives its relation's table entry, map, accessor and walk. Nothing
// else is written by hand.
func TestOneLineAddsAReference(t *testing.T) {
	before, _, _, _ := generate(t, baseSchema)
	withRef := strings.Replace(baseSchema, "  label: JSON\n", "  label: JSON\n  item: Item @ref(id: \"itemId\")\n", 1)
	after, _, s, bound := generate(t, withRef)
	for _, want := range []string{
		"RefBoxItem\n",
		`RefBoxItem: {Owner: "Box", Field: "item", Source: "itemId", GoSource: "ItemID", Target: ItemKind`,
		"func refBoxItem(s *Snapshot, r *Box) (int64, bool) {\n\tif r.ItemID == nil {",
		`c.ref("boxes.itemId", ItemKind, id)`,
	} {
		if strings.Contains(before, want) {
			t.Errorf("before the line, the catalogue already has %q", want)
		}
		if !strings.Contains(after, want) {
			t.Errorf("after the line, the catalogue lacks %q:\n%s", want, after)
		}
	}
	def := s.Types["Box"]
	body := New(Options{}).Implement("", &codegen.Field{FieldDefinition: def.Fields.ForName("item"),
		Object: &codegen.Object{Definition: def, Type: bound.of("Box")}})
	if want := "return loader.ItemRef(ctx, catalogue.RefBoxItem, obj)"; body != want {
		t.Errorf("Box.item's resolver is %q, want %q", body, want)
	}

	withRel := strings.Replace(withRef, "  usedIn:", "  inBoxes: [Box!]! @reverse(of: [\"Box.contents.item\"])\n  usedIn:", 1)
	rel, _, s, bound := generate(t, withRel)
	for _, want := range []string{
		`{Owner: "Item", Field: "inBoxes", Element: "Box"`,
		"itemInBoxes map[int64][]*Box",
		"func (s *Snapshot) ItemInBoxes(id int64) []*Box",
		"for i2 := range rec.Contents {\n\t\t\tv2 := &rec.Contents[i2]\n\t\t\tif id, ok := refPartItem(s, v2); ok {\n\t\t\t\trelate(r.itemInBoxes, id, rec)",
		`c.ref("boxes.contents.itemId", ItemKind, id)`,
	} {
		got, _ := format.Source([]byte(rel))
		if !strings.Contains(string(got), want) {
			t.Errorf("after the relation's line, the catalogue lacks %q:\n%s", want, got)
		}
	}
	def = s.Types["Item"]
	body = New(Options{}).Implement("", &codegen.Field{FieldDefinition: def.Fields.ForName("inBoxes"),
		Object: &codegen.Object{Definition: def, Type: bound.of("Item")}})
	if want := "return related(ctx, (*catalogue.Snapshot).ItemInBoxes, obj.ID)"; body != want {
		t.Errorf("Item.inBoxes' resolver is %q, want %q", body, want)
	}
}

// TestMistakesAreReported: a directive the generator cannot honour stops
// go generate with a message naming the field.
func TestMistakesAreReported(t *testing.T) {
	for _, tt := range []struct{ name, from, to, want string }{
		{"non-null reference", `item: Item @ref(id: "itemId")`, `item: Item! @ref(id: "itemId")`, "Part.item: @ref on a non-null field"},
		{"no such id field", `item: Item @ref(id: "itemId")`, `item: Item @ref(id: "nope")`, "Part.item: Part.nope binds to no field"},
		{"id of the wrong type", "  name: String!\n", "  name: String!\n  self: Item @ref(id: \"name\")\n", `Item.self: @ref(id: "name") is a string`},
		{"path to another type", `@reverse(of: ["Item.parts.item"])`, `@reverse(of: ["Box.contents.item"])`, `does not start at Item`},
		{"path through nothing", `@reverse(of: ["Item.parts.item"])`, `@reverse(of: ["Item.nope.item"])`, "Item has no field nope"},
		{"every named through an id", `@reverse(of: ["Item.parts.item"])`, `@reverse(of: ["Item.parts.item"], everyNamed: true)`, "everyNamed on path \"Item.parts.item\", which ends at a @ref by id"},
		{"by name without a name field", `item: Item @ref(id: "itemId")`, `item: Item @ref(name: "itemId")`, "is not a string field"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			directives, _ := os.ReadFile("../refgraph.graphqls")
			s, gerr := gqlparser.LoadSchema(&gqlast.Source{Name: "refgraph.graphqls", Input: string(directives)},
				&gqlast.Source{Name: "test.graphqls", Input: strings.Replace(baseSchema, tt.from, tt.to, 1)})
			if gerr != nil {
				t.Fatal(gerr)
			}
			_, _, _, bound := generate(t, baseSchema)
			_, err := read(s, bound)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one with %q", err, tt.want)
			}
		})
	}
}
