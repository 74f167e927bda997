package refgraph

import (
	"go/format"
	"go/types"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/codegen"
	"github.com/99designs/gqlgen/codegen/config"
	"github.com/vektah/gqlparser/v2/ast"
)

// TestAccessorsFollowGqlgensBindings: each field's reader is what gqlgen
// bound it to (a struct field by its address, a pointer as itself, a
// method called), a @ref is its reference and a @reverse its relation,
// and a resolver gqlgen keeps (one with arguments) has no reader, so the
// engine declines it.
func TestAccessorsFollowGqlgensBindings(t *testing.T) {
	_, _, s, bound := generate(t, baseSchema+"extend type Box { search(term: String!): [Item!]! }\n")
	g, err := read(s, bound)
	if err != nil {
		t.Fatal(err)
	}
	// gqlgen's decisions, as codegen.Data holds them: plain fields bound
	// to struct fields, Item.name to a method, the rest resolvers.
	data := &codegen.Data{}
	for _, name := range []string{"Item", "Part", "Box"} {
		def := s.Types[name]
		o := &codegen.Object{Definition: def, Type: bound.of(name)}
		for _, fd := range def.Fields {
			f := &codegen.Field{FieldDefinition: fd, Object: o, TypeReference: &config.TypeReference{}}
			switch gf := bound.field(name, fd.Name); {
			case name == "Item" && fd.Name == "name":
				f.GoFieldType, f.GoFieldName, f.NoErr = codegen.GoFieldMethod, "Title", true
				f.TypeReference.GO = types.Typ[types.String]
			case gf != nil:
				f.GoFieldType, f.GoFieldName, f.TypeReference.GO = codegen.GoFieldVariable, gf.name, gf.typ
			default:
				f.IsResolver = true
				elem := types.NewPointer(bound.of(fd.Type.Name()))
				if f.TypeReference.GO = elem; fd.Type.Elem != nil {
					f.TypeReference.GO = types.NewSlice(elem)
				}
			}
			o.Fields = append(o.Fields, f)
		}
		data.Objects = append(data.Objects, o)
	}
	acc := newAccessors(data, g, "example.com/resolvers", "example.com/catalogue")
	acc.typeOf(types.NewPointer(bound.of("Box")), &ast.Type{NamedType: "Box"})
	out, err := format.Source([]byte(acc.bindingsFile(acc.records())))
	if err != nil {
		t.Fatal(err)
	}
	src := string(out)
	// Compared with white space collapsed: gofmt aligns the maps' values.
	flat := strings.Join(strings.Fields(src), " ")
	for _, want := range []string{
		`"id":     {Type: t.go_int64, Get: func(v any) any { return &v.(*catalogue.Item).ID }}`,
		"\"name\": {Type: t.go_string, Get: func(v any) any {\n\t\tr := v.(*catalogue.Item).Title()\n\t\treturn &r\n\t}}",
		`"parts":  {Type: t.list_Part, Get: func(v any) any { return &v.(*catalogue.Item).Parts }}`,
		"\"usedIn\": {Type: t.value_list_ptr_Item, Relation: func(s *catalogue.Snapshot, v any) any {",
		"return s.ItemUsedIn(v.(*catalogue.Item).ID)",
		`"item":   {Type: t.ptr_Item, Ref: &catalogue.References[catalogue.RefPartItem]}`,
		`"itemId": {Type: t.ptr_go_int64, Get: func(v any) any { return v.(*catalogue.Box).ItemID }}`,
		"t.Item.Record, t.Item.IsRecord = catalogue.ItemKind, true",
		"t.list_Part.Index = func(v any, i int) any { return &(*v.(*[]catalogue.Part))[i] }",
		"case []catalogue.Box:\n\t\treturn bindings.list_Box, &l",
	} {
		if !strings.Contains(flat, strings.Join(strings.Fields(want), " ")) {
			t.Errorf("the bindings lack %q", want)
		}
	}
	if strings.Contains(src, `"search"`) {
		t.Error("Box.search, a resolver with arguments, has a reader: the engine would not decline it")
	}
	if t.Failed() {
		t.Logf("the bindings:\n%s", src)
	}
}
