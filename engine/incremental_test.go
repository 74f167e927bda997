package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator/rules"

	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/internal/execution"
)

// operation is query, validated against the served schema, as the
// endpoint hands it to the engine.
func operation(t *testing.T, query string, vars map[string]any) *graphql.OperationContext {
	t.Helper()
	doc, errs := gqlparser.LoadQueryWithRules(graph.ServedSchema(), query, rules.NewDefaultRules())
	if errs != nil {
		t.Fatalf("%s: %v", query, errs)
	}
	return &graphql.OperationContext{Doc: doc, Operation: doc.Operations[0], Variables: vars}
}

// TestSplitPlacesErrors: a field error goes with the part that first
// writes its null: the deferred fragment's, or the first payload when the
// null reached an object written there.
func TestSplitPlacesErrors(t *testing.T) {
	oc := operation(t, `{ item(id: 1) { id ... @defer(label: "d") { name ... @defer(label: "e") { rarity } } } }`, nil)
	errAt := func(path ...any) execution.FieldError {
		var p ast.Path
		for _, el := range path {
			switch el := el.(type) {
			case string:
				p = append(p, ast.PathName(el))
			case int:
				p = append(p, ast.PathIndex(el))
			}
		}
		return execution.FieldError{Path: p, Err: errors.New("failed")}
	}
	for _, tt := range []struct {
		name string
		body string
		errs []execution.FieldError
		// owners are the parts that get each error, -1 the first payload;
		// parts, how many there are.
		owners []int
		parts  int
	}{
		{"in the deferred fragment", `{"data":{"item":{"id":1,"name":null,"rarity":"x"}}}`, []execution.FieldError{errAt("item", "name")}, []int{0}, 2},
		{"in the nested fragment", `{"data":{"item":{"id":1,"name":"n","rarity":null}}}`, []execution.FieldError{errAt("item", "rarity")}, []int{1}, 2},
		{"in the first payload", `{"data":{"item":null}}`, []execution.FieldError{errAt("item", "name")}, []int{-1}, 0},
		{"each where it is", `{"data":{"item":{"id":1,"name":null,"rarity":null}}}`,
			[]execution.FieldError{errAt("item", "rarity"), errAt("item", "name")}, []int{1, 0}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			inc, err := split(oc, execution.Answer{Body: []byte(tt.body), Errors: tt.errs}, nil, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if len(inc.Parts) != tt.parts {
				t.Fatalf("%d parts, want %d", len(inc.Parts), tt.parts)
			}
			for i, owner := range tt.owners {
				var in []execution.FieldError
				if owner < 0 {
					in = inc.Errors
				} else {
					in = inc.Parts[owner].Errors
				}
				found := false
				for _, fe := range in {
					found = found || fe.Path.String() == tt.errs[i].Path.String()
				}
				if !found {
					t.Errorf("the error at %s is not in part %d", tt.errs[i].Path, owner)
				}
			}
		})
	}
}

// TestSplitParts: what each part holds, its path and label, and the bound
// on the parts together.
func TestSplitParts(t *testing.T) {
	oc := operation(t, `query($n: Int!) { items(first: 3) { nodes @stream(initialCount: $n, label: "s") { id ... @defer { name } } } }`,
		map[string]any{"n": int64(1)})
	body := `{"data":{"items":{"nodes":[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}]}}}`
	inc, err := split(oc, execution.Answer{Body: []byte(body)}, nil, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(inc.Body), `{"data":{"items":{"nodes":[{"id":1}]}}}`; got != want {
		t.Errorf("first payload %s, want %s", got, want)
	}
	var got []string
	size := len(inc.Body)
	for _, p := range inc.Parts {
		got = append(got, p.Path.String()+" "+p.Label+" "+string(p.Data))
		size += len(p.Data)
	}
	want := []string{
		`items.nodes s [{"id":2},{"id":3}]`,
		`items.nodes[0]  {"name":"a"}`,
		`items.nodes[1]  {"name":"b"}`,
		`items.nodes[2]  {"name":"c"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parts\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if inc.Parts[0].Start != 1 || !inc.Parts[0].Stream || inc.Parts[1].Parent != -1 || inc.Parts[2].Parent != 0 {
		t.Errorf("the stream starts at %d (stream %t); the fragments' parents %d, %d; want 1, true, -1 and 0",
			inc.Parts[0].Start, inc.Parts[0].Stream, inc.Parts[1].Parent, inc.Parts[2].Parent)
	}
	if size <= len(body) {
		t.Fatalf("the parts together are %d bytes, the whole %d: the bound below goes untested", size, len(body))
	}
	if _, err := split(oc, execution.Answer{Body: []byte(body)}, nil, size-1); !errors.Is(err, execution.ErrResponseTooLarge) {
		t.Errorf("parts of %d bytes under a bound of %d: %v, want ErrResponseTooLarge", size, size-1, err)
	}
	if _, err := split(oc, execution.Answer{Body: []byte(body)}, nil, size); err != nil {
		t.Errorf("parts of %d bytes under a bound of as many: %v", size, err)
	}
}
