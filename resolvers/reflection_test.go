package resolvers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// requestPath are the packages a request runs through, by their
// directory from here: none of their code, generated or not, may reflect.
// A field is read through the accessors graph/refgraph generates from
// gqlgen's bindings (bindings_gen.go), never found by reflection.
var requestPath = []string{"../engine", ".", "../graphqlhttp", "../loader", "../restcompat",
	"../catalogue", "../contentcoding", "../graph", "../graph/model",
	"../internal/gateway", "../internal/telemetry"}

// reflectionAllowed are the files of those packages that may reflect,
// each with why it is not on the request path.
var reflectionAllowed = map[string]string{
	"../catalogue/decode.go":    "decodes an upstream body into records when a snapshot is made, never for a request",
	"../catalogue/canonical.go": "digests the records of a collection a refresh changed, when the snapshot is made, never for a request",
}

// TestNoReflectionOnTheRequestPath parses every Go file of the request
// path's packages but their tests, and fails on any that imports reflect
// (under any name) and is not listed, with its reason, in
// reflectionAllowed.
func TestNoReflectionOnTheRequestPath(t *testing.T) {
	seen := map[string]bool{}
	for _, dir := range requestPath {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			uses, err := reflectionIn(name, src)
			if err != nil {
				t.Fatal(err)
			}
			key := filepath.ToSlash(name)
			if !strings.HasPrefix(key, "../") {
				key = "./" + key
			}
			if _, allowed := reflectionAllowed[key]; allowed {
				seen[key] = true
				if len(uses) == 0 {
					t.Errorf("%s is allowed to reflect and does not: drop it from reflectionAllowed", key)
				}
				continue
			}
			for _, u := range uses {
				t.Errorf("%s: reflection on the request path; read fields through the generated bindings (graph/refgraph/accessors.go)", u)
			}
		}
	}
	for name := range reflectionAllowed {
		if !seen[name] {
			t.Errorf("reflectionAllowed lists %s, which is not on the request path", name)
		}
	}
}

// reflectionIn returns the places in a Go file that import reflect or use
// it.
func reflectionIn(name string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var uses []string
	local := map[string]bool{}
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == "reflect" {
			uses = append(uses, fset.Position(imp.Pos()).String()+": imports reflect")
			id := "reflect"
			if imp.Name != nil {
				id = imp.Name.Name
			}
			local[id] = true
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && local[x.Name] {
				uses = append(uses, fset.Position(sel.Pos()).String()+": reflect."+sel.Sel.Name)
			}
		}
		return true
	})
	return uses, nil
}

// TestReflectionInFindsReflection: the check above finds an import of
// reflect, under its name or another, and each use.
func TestReflectionInFindsReflection(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      []string
	}{
		{"plain", "package p\nimport \"reflect\"\nvar t = reflect.TypeOf(1)\n",
			[]string{"x.go:2:8: imports reflect", "x.go:3:9: reflect.TypeOf"}},
		{"renamed", "package p\nimport r \"reflect\"\nvar v = r.ValueOf(1)\n",
			[]string{"x.go:2:8: imports reflect", "x.go:3:9: reflect.ValueOf"}},
		{"none", "package p\nimport \"strings\"\nvar s = strings.ToUpper(\"reflect\")\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := reflectionIn("x.go", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
