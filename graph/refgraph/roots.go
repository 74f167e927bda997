package refgraph

import (
	"fmt"
	"go/types"
	"strings"

	"github.com/99designs/gqlgen/codegen"
)

// rootsFile is RootFields: for every Query field, the engine's type of
// its value (see accessors) and a call of the QueryResolver method with
// its arguments decoded from the map gqlgen's CollectedField.ArgumentMap
// gives, by the Go types gqlgen bound them to.
func rootsFile(query *codegen.Object, acc *accessors) (string, error) {
	imports := map[string]string{"context": "context", "github.com/catalogue-gateway/gateway/engine": "engine"}
	qualify := func(p *types.Package) string {
		if p.Path() == acc.pkgPath {
			return ""
		}
		imports[p.Path()] = p.Name()
		return p.Name()
	}
	var body strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&body, format, args...) }
	for _, f := range query.Fields {
		if strings.HasPrefix(f.Name, "__") || !f.IsResolver {
			continue
		}
		w("\t\t%q: {Type: bindings.%s, Resolve: func(ctx context.Context, args map[string]any) (any, error) {\n",
			f.Name, acc.typeOf(f.TypeReference.GO, f.Type).name)
		var names []string
		for _, a := range f.Args {
			decode, err := argDecoder(a.TypeReference.GO, qualify)
			if err != nil {
				return "", fmt.Errorf("Query.%s(%s): %w", f.Name, a.Name, err)
			}
			v := "a" + ucFirst(a.VarName)
			names = append(names, v)
			w("\t\t\t%s, err := %s(args, %q)\n\t\t\tif err != nil {\n\t\t\t\treturn nil, err\n\t\t\t}\n", v, decode, a.Name)
		}
		call := fmt.Sprintf("q.%s(%s)", f.GoFieldName, strings.Join(append([]string{"ctx"}, names...), ", "))
		if _, ptr := f.TypeReference.GO.(*types.Pointer); ptr {
			// A nil *T in an any is not == nil: callers test for null.
			w("\t\t\tres, err := %s\n\t\t\tif res == nil {\n\t\t\t\treturn nil, err\n\t\t\t}\n\t\t\treturn res, err\n", call)
		} else {
			// The engine reads a value that is not a pointer by its address.
			w("\t\t\tres, err := %s\n\t\t\treturn &res, err\n", call)
		}
		w("\t\t}},\n")
	}
	var b strings.Builder
	b.WriteString("// RootFields returns every Query field as the engine calls it, by name.\nfunc (r *Resolver) RootFields() map[string]engine.Root {\n\tq := r.Query()\n\treturn map[string]engine.Root{\n")
	b.WriteString(body.String())
	b.WriteString("\t}\n}\n")
	return goFile(acc.pkgPath, imports, header, b.String()), nil
}

// argDecoder names the function of resolvers/roots.go that decodes an
// argument of Go type t.
func argDecoder(t types.Type, qualify func(*types.Package) string) (string, error) {
	switch t := t.(type) {
	case *types.Basic:
		switch t.Kind() {
		case types.Int:
			return "intArgument", nil
		case types.String:
			return "stringArgument", nil
		}
	case *types.Pointer:
		switch e := t.Elem().(type) {
		case *types.Basic:
			switch e.Kind() {
			case types.Int:
				return "optionalIntArgument", nil
			case types.String:
				return "optionalStringArgument", nil
			}
		case *types.Named:
			if _, ok := e.Underlying().(*types.Struct); ok {
				return "inputArgument[" + types.TypeString(e, qualify) + "]", nil
			}
		}
	case *types.Slice:
		// A list of an enum: gqlgen's model enums are named strings.
		if e, ok := t.Elem().(*types.Named); ok {
			if b, ok := e.Underlying().(*types.Basic); ok && b.Kind() == types.String {
				return "enumsArgument[" + types.TypeString(e, qualify) + "]", nil
			}
		}
	}
	return "", fmt.Errorf("no decoder of an argument of Go type %s: add one to resolvers/roots.go and to graph/refgraph/roots.go", t)
}
