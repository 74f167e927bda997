package refgraph

import (
	"fmt"
	"go/types"
	"path"
	"sort"
	"strings"

	"github.com/99designs/gqlgen/codegen"
	"github.com/vektah/gqlparser/v2/ast"
)

// accessors collects the Go types the schema's output fields bind to, as
// gqlgen bound them (codegen.Field's GoFieldName, GoFieldType and
// TypeReference), and writes them as the engine's Types (engine.Type):
// typed functions that read each field, with no reflection. The engine
// plans and runs a query with them, and the cost walk reads the lists'
// lengths with them: gqlgen's binder is the only one.
type accessors struct {
	g       *graph
	objects map[string]*codegen.Object // by GraphQL name
	refs    map[string]*reference      // by "Owner.field"
	rels    map[string]*relation
	types   map[string]*accType // by name
	// pending are the struct types whose fields are not written yet.
	pending       []*accType
	pkgPath       string // of the generated file
	cataloguePath string
	schema        *ast.Schema
	imports       map[string]string
}

// accType is one Go type, as bound to one GraphQL type.
type accType struct {
	name   string // its field in the generated table, "ptr_Item"
	goType types.Type
	shape  string // the engine's Shape
	elem   *accType
	obj    *codegen.Object // of a Struct
	// byValue is set for a List whose value is the slice, not its
	// address.
	byValue bool
	enum    string // an Enum's GraphQL name
	// union is a Union's GraphQL name, and members its object types'
	// Structs, by GraphQL name.
	union   string
	members map[string]*accType
	fields  []string // a Struct's, as Go source
}

func newAccessors(data *codegen.Data, g *graph, pkgPath, cataloguePath string) *accessors {
	a := &accessors{g: g, objects: map[string]*codegen.Object{}, refs: map[string]*reference{},
		rels: map[string]*relation{}, types: map[string]*accType{}, pkgPath: pkgPath, cataloguePath: cataloguePath,
		schema:  data.Schema,
		imports: map[string]string{"github.com/catalogue-gateway/gateway/engine": "engine"}}
	for _, o := range data.Objects {
		a.objects[o.Name] = o
	}
	for _, r := range g.refs {
		a.refs[r.owner+"."+r.field] = r
	}
	for _, r := range g.rels {
		a.rels[r.owner.name+"."+r.field] = r
	}
	return a
}

// qualify names a package as the generated file imports it.
func (a *accessors) qualify(p *types.Package) string {
	if p.Path() == a.pkgPath {
		return ""
	}
	a.imports[p.Path()] = p.Name()
	return p.Name()
}

func (a *accessors) goName(t types.Type) string { return types.TypeString(t, a.qualify) }

// typeOf returns the type of Go type t bound to GraphQL type gt, adding it
// (and what it holds) to the table.
func (a *accessors) typeOf(t types.Type, gt *ast.Type) *accType {
	var at accType
	switch u := t.(type) {
	case *types.Pointer:
		if _, ptr := u.Elem().(*types.Pointer); ptr {
			break // a pointer's value is the pointer itself: one level only
		}
		elem := a.typeOf(u.Elem(), gt)
		at = accType{name: "ptr_" + elem.name, shape: "Pointer", elem: elem}
	case *types.Slice:
		if gt.Elem == nil {
			break
		}
		elem := a.typeOf(u.Elem(), gt.Elem)
		at = accType{name: "list_" + elem.name, shape: "List", elem: elem}
	case *types.Named:
		obj := u.Obj()
		if obj.Pkg() != nil && obj.Pkg().Path() == a.cataloguePath && (obj.Name() == "Number" || obj.Name() == "JSONValue") {
			at = accType{name: "go_" + obj.Name(), shape: obj.Name()}
			break
		}
		if o := a.objects[gt.Name()]; o != nil && !o.Root && types.Identical(o.Type, t) {
			if _, ok := u.Underlying().(*types.Struct); ok {
				at = accType{name: o.Name, shape: "Struct", obj: o}
			}
		}
		var def *ast.Definition
		if a.schema != nil && gt.Elem == nil {
			def = a.schema.Types[gt.Name()]
		}
		if def != nil && def.Kind == ast.Enum && generatedEnum(u) {
			at = accType{name: "enum_" + def.Name, shape: "Enum", enum: def.Name}
		}
		if _, ok := u.Underlying().(*types.Interface); ok && def != nil && def.Kind == ast.Union {
			at = a.unionOf(def)
		}
	case *types.Basic:
		switch u.Kind() {
		case types.String:
			at = accType{name: "go_string", shape: "String"}
		case types.Bool:
			at = accType{name: "go_bool", shape: "Bool"}
		case types.Int, types.Int64:
			at = accType{name: "go_" + u.Name(), shape: "Int"}
		}
	}
	if at.shape == "" {
		at = accType{name: "other_" + identifier(a.goName(t)), shape: "Other"}
	}
	if known := a.types[at.name]; known != nil {
		return known
	}
	at.goType = t
	a.types[at.name] = &at
	if at.shape == "Struct" {
		a.pending = append(a.pending, &at)
	}
	return &at
}

// unionOf is the type of a Go interface gqlgen binds union def to: the
// value it holds is one of the members' structs, or a pointer to one, as
// gqlgen's generated executor tells them apart; Other (a zero accType)
// when a member is bound to anything else.
func (a *accessors) unionOf(def *ast.Definition) accType {
	at := accType{name: "union_" + def.Name, shape: "Union", union: def.Name, members: map[string]*accType{}}
	for _, name := range def.Types {
		o := a.objects[name]
		if o == nil {
			return accType{}
		}
		mt := a.typeOf(o.Type, &ast.Type{NamedType: name, NonNull: true})
		if mt.shape != "Struct" {
			return accType{}
		}
		at.members[name] = mt
	}
	return at
}

// generatedEnum reports whether t is an enum type as gqlgen generates
// one: a string whose MarshalGQL writes strconv.Quote of its String,
// which is the string itself. The engine writes such a value as that
// (an enum bound to a type of one's own marshals as it likes: gqlgen's
// executor writes it).
func generatedEnum(t *types.Named) bool {
	if b, ok := t.Underlying().(*types.Basic); !ok || b.Kind() != types.String {
		return false
	}
	methods := map[string]bool{}
	for i := range t.NumMethods() {
		methods[t.Method(i).Name()] = true
	}
	return methods["MarshalGQL"] && methods["IsValid"] && methods["String"] && strings.HasSuffix(t.Obj().Pkg().Path(), "/graph/model")
}

// listByValue is typeOf for a slice t whose value is the slice itself
// rather than its address: a list computed, not a field.
func (a *accessors) listByValue(t types.Type, gt *ast.Type) *accType {
	s, ok := t.(*types.Slice)
	if !ok || gt.Elem == nil {
		return a.typeOf(t, gt)
	}
	elem := a.typeOf(s.Elem(), gt.Elem)
	at := &accType{name: "value_list_" + elem.name, shape: "List", elem: elem, goType: t, byValue: true}
	if known := a.types[at.name]; known != nil {
		return known
	}
	a.types[at.name] = at
	return at
}

// identifier turns a Go type's name into part of an identifier.
func identifier(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// fields writes the fields of every struct type met, and of those their
// fields hold, until none is left.
func (a *accessors) fields() {
	for len(a.pending) > 0 {
		st := a.pending[0]
		a.pending = a.pending[1:]
		recv := "v.(*" + a.goName(st.goType) + ")"
		for _, f := range st.obj.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			key := st.obj.Name + "." + f.Name
			var line string
			switch {
			case a.refs[key] != nil:
				ft := a.typeOf(f.TypeReference.GO, f.Type)
				line = fmt.Sprintf("{Type: t.%s, Ref: &catalogue.References[catalogue.%s]}", ft.name, a.refs[key].constName())
				a.qualify(types.NewPackage(a.cataloguePath, "catalogue"))
			case a.rels[key] != nil:
				// The snapshot's list, held by value: an empty one,
				// nil, costs no allocation in an any.
				rel := a.rels[key]
				ft := a.listByValue(f.TypeReference.GO, f.Type)
				list := a.goName(f.TypeReference.GO)
				line = fmt.Sprintf("{Type: t.%s, Relation: func(s *catalogue.Snapshot, v any) any {\n"+
					"\t\tif s == nil {\n\t\t\treturn %s(nil)\n\t\t}\n"+
					"\t\treturn s.%s(%s.%s)\n\t}}", ft.name, list, rel.method(), recv, rel.owner.idField.name)
			case f.IsResolver:
				continue // gqlgen's: the engine declines it
			case f.GoFieldType == codegen.GoFieldVariable:
				ft := a.typeOf(f.TypeReference.GO, f.Type)
				read := "&" + recv + "." + f.GoFieldName
				if _, ptr := f.TypeReference.GO.(*types.Pointer); ptr {
					read = recv + "." + f.GoFieldName
				}
				line = fmt.Sprintf("{Type: t.%s, Get: func(v any) any { return %s }}", ft.name, read)
			case f.GoFieldType == codegen.GoFieldMethod && !f.MethodHasContext && f.NoErr && !f.VOkFunc && len(f.Args) == 0:
				ft := a.typeOf(f.TypeReference.GO, f.Type)
				call := recv + "." + f.GoFieldName + "()"
				if _, ptr := f.TypeReference.GO.(*types.Pointer); ptr {
					line = fmt.Sprintf("{Type: t.%s, Get: func(v any) any { return %s }}", ft.name, call)
				} else {
					line = fmt.Sprintf("{Type: t.%s, Get: func(v any) any {\n\t\tr := %s\n\t\treturn &r\n\t}}", ft.name, call)
				}
			default:
				continue
			}
			st.fields = append(st.fields, fmt.Sprintf("%q: %s,", f.Name, line))
		}
	}
}

// records adds the list of each record type's records, for the cost
// walk, and returns their types by record.
func (a *accessors) records() map[*record]*accType {
	out := map[*record]*accType{}
	for _, rec := range a.g.records {
		o := a.objects[rec.name]
		if o == nil {
			continue
		}
		out[rec] = a.typeOf(types.NewSlice(o.Type), &ast.Type{Elem: &ast.Type{NamedType: rec.name, NonNull: true}, NonNull: true})
	}
	return out
}

// bindingsHeader starts resolvers/bindings_gen.go.
const bindingsHeader = "// Code generated by graph/refgraph from gqlgen's bindings of the schema. DO NOT EDIT.\n\n"

// bindingsFile writes the table of types, resolvers/bindings_gen.go.
func (a *accessors) bindingsFile(records map[*record]*accType) string {
	a.fields()
	a.qualify(types.NewPackage(a.cataloguePath, "catalogue"))
	var names []string
	for n := range a.types {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("// bindings are the Go types the schema's output fields bind to, as the\n")
	w("// engine and the cost walk read them: gqlgen's binding of each field,\n")
	w("// as typed functions.\n")
	w("var bindings = newBindings()\n\n")
	w("// boundTypes holds each type once, by its Go type and GraphQL type.\n")
	w("type boundTypes struct {\n")
	for _, n := range names {
		w("\t%s *engine.Type\n", n)
	}
	w("\t// kinds are the struct types of each kind's records.\n")
	w("\tkinds [catalogue.NumKinds]*engine.Type\n")
	w("}\n\n")
	w("func newBindings() *boundTypes {\n\tt := &boundTypes{}\n")
	for _, n := range names {
		at := a.types[n]
		w("\tt.%s = &engine.Type{Name: %q, Shape: engine.%s}\n", n, a.goName(at.goType), at.shape)
	}
	kinds := map[string]*record{}
	for _, k := range a.g.kinds {
		kinds[k.name] = k
	}
	for _, n := range names {
		at := a.types[n]
		gt := a.goName(at.goType)
		switch at.shape {
		case "Pointer":
			w("\tt.%s.Elem = t.%s\n", n, at.elem.name)
			w("\tt.%s.IsNil = func(v any) bool { return v.(%s) == nil }\n", n, gt)
		case "List":
			slice, indexed := "*v.(*"+gt+")", "(*v.(*"+gt+"))"
			if at.byValue {
				slice, indexed = "v.("+gt+")", "v.("+gt+")"
			}
			w("\tt.%s.Elem = t.%s\n", n, at.elem.name)
			w("\tt.%s.IsNil = func(v any) bool { return %s == nil }\n", n, slice)
			w("\tt.%s.Len = func(v any) int { return len(%s) }\n", n, slice)
			if _, ptr := at.elem.goType.(*types.Pointer); ptr {
				w("\tt.%s.Index = func(v any, i int) any { return %s[i] }\n", n, indexed)
			} else {
				w("\tt.%s.Index = func(v any, i int) any { return &%s[i] }\n", n, indexed)
			}
		case "Union":
			members := make([]string, 0, len(at.members))
			for name := range at.members {
				members = append(members, name)
			}
			sort.Strings(members)
			w("\tt.%s.Object = %q\n", n, at.union)
			w("\tt.%s.Members = map[string]*engine.Type{", n)
			for _, m := range members {
				w("%q: t.%s, ", m, at.members[m].name)
			}
			w("}\n")
			w("\tt.%s.Member = func(v any) (string, any) {\n\t\tswitch m := (*v.(*%s)).(type) {\n", n, gt)
			for _, m := range members {
				st := a.goName(at.members[m].goType)
				w("\t\tcase *%s:\n\t\t\tif m == nil {\n\t\t\t\treturn \"\", nil\n\t\t\t}\n\t\t\treturn %q, m\n", st, m)
				w("\t\tcase %s:\n\t\t\treturn %q, &m\n", st, m)
			}
			w("\t\tcase nil:\n\t\t\treturn \"\", nil\n\t\t}\n\t\treturn \"?\", v\n\t}\n")
		case "Enum":
			w("\tt.%s.Object = %q\n", n, at.enum)
			w("\tt.%s.EnumName = func(v any) string { return string(*v.(*%s)) }\n", n, gt)
		case "Struct":
			if k := kinds[at.obj.Name]; k != nil {
				w("\tt.%s.Record, t.%s.IsRecord = catalogue.%s, true\n", n, n, k.kindConst())
				w("\tt.kinds[catalogue.%s] = t.%s\n", k.kindConst(), n)
			}
			w("\tt.%s.Object = %q\n", n, at.obj.Name)
			w("\tt.%s.Fields = map[string]engine.Field{\n", n)
			for _, f := range at.fields {
				w("\t\t%s\n", f)
			}
			w("\t}\n")
		}
	}
	w("\treturn t\n}\n\n")
	w("// recordsOf returns the records of a part, as a list, and its type.\n")
	w("func recordsOf(p *catalogue.Part) (*engine.Type, any) {\n\tswitch l := p.Records().(type) {\n")
	for _, rec := range a.g.records {
		if at := records[rec]; at != nil {
			w("\tcase %s:\n\t\treturn bindings.%s, &l\n", a.goName(at.goType), at.name)
		}
	}
	w("\t}\n\treturn nil, nil\n}\n")
	return goFile(a.pkgPath, a.imports, bindingsHeader, b.String())
}

// goFile is a Go file of package pkgPath: its header, its imports
// grouped as goimports groups them (the standard library first), and
// body.
func goFile(pkgPath string, imports map[string]string, header, body string) string {
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("package " + path.Base(pkgPath) + "\n\nimport (\n")
	var std, others []string
	for p := range imports {
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
			others = append(others, p)
		} else {
			std = append(std, p)
		}
	}
	sort.Strings(std)
	sort.Strings(others)
	for _, p := range std {
		fmt.Fprintf(&b, "\t%q\n", p)
	}
	b.WriteString("\n")
	for _, p := range others {
		fmt.Fprintf(&b, "\t%q\n", p)
	}
	b.WriteString(")\n\n")
	b.WriteString(body)
	return b.String()
}
