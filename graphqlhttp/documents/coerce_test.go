package documents

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// coercionSchema has what the catalogue's schema lacks: lists, nested
// lists, ID, a custom scalar, input objects with lists and defaults.
const coercionSchema = `
scalar Any
enum E { A B }
input In { xs: [Int!] e: E = A n: Int! }
type Query { f(xs: [Int], ys: [[Int]], zs: [Int!]!, id: ID, any: Any, in: In, ins: [In]): Int }
`

// TestCoerceVariables: variables of every kind of type coerce to one
// representation, or are refused, as the specification's input coercion
// says (graphql-js agrees on each).
func TestCoerceVariables(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: coercionSchema})
	const query = `query($xs: [Int], $ys: [[Int]], $zs: [Int!]!, $id: ID, $any: Any, $in: In, $ins: [In]) {
		f(xs: $xs, ys: $ys, zs: $zs, id: $id, any: $any, in: $in, ins: $ins) }`
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err != nil {
		t.Fatal(err)
	}
	if errs := validator.ValidateWithRules(schema, doc, ValidationRules(false)); len(errs) > 0 {
		t.Fatal(errs)
	}
	op := doc.Operations[0]
	for _, tt := range []struct {
		name, vars string
		want       map[string]any // nil: refused
	}{
		{"a list", `{"zs":[1,2e0]}`, map[string]any{"zs": []any{int64(1), int64(2)}}},
		{"a single value for a list", `{"zs":7,"xs":8}`, map[string]any{"zs": []any{int64(7)}, "xs": []any{int64(8)}}},
		{"a single value for a list of lists", `{"zs":[],"ys":1}`, map[string]any{"zs": []any{}, "ys": []any{[]any{int64(1)}}}},
		{"a list for a list of lists", `{"zs":[],"ys":[1,[2],null]}`, map[string]any{"zs": []any{}, "ys": []any{[]any{int64(1)}, []any{int64(2)}, nil}}},
		{"null in a list of non-null", `{"zs":[1,null]}`, nil},
		{"null for a non-null list", `{"zs":null}`, nil},
		{"a string in a list of Int", `{"zs":["1"]}`, nil},
		{"an Int past 32 bits in a list", `{"zs":[2147483648]}`, nil},
		{"an ID as an integer", `{"zs":[],"id":1e3}`, map[string]any{"zs": []any{}, "id": "1000"}},
		{"an ID as a string", `{"zs":[],"id":"x"}`, map[string]any{"zs": []any{}, "id": "x"}},
		{"an ID as a fraction", `{"zs":[],"id":1.5}`, nil},
		{"an ID as a boolean", `{"zs":[],"id":true}`, nil},
		{"a custom scalar takes anything", `{"zs":[],"any":{"a":["b",1]}}`, map[string]any{"zs": []any{}, "any": map[string]any{"a": []any{"b", json.Number("1")}}}},
		{"an input object, defaults filled", `{"zs":[],"in":{"n":1,"xs":2}}`, map[string]any{"zs": []any{}, "in": map[string]any{"n": int64(1), "xs": []any{int64(2)}, "e": "A"}}},
		{"a single input object for a list", `{"zs":[],"ins":{"n":1}}`, map[string]any{"zs": []any{}, "ins": []any{map[string]any{"n": int64(1), "e": "A"}}}},
		{"an input object missing a required field", `{"zs":[],"ins":[{"n":1},{}]}`, nil},
		{"an enum by another case", `{"zs":[],"in":{"n":1,"e":"a"}}`, nil},
		{"an undefined variable is dropped", `{"zs":[],"other":"x"}`, map[string]any{"zs": []any{}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dec := json.NewDecoder(bytes.NewReader([]byte(tt.vars)))
			dec.UseNumber()
			var vars map[string]any
			if err := dec.Decode(&vars); err != nil {
				t.Fatal(err)
			}
			got, errs := CoerceVariables(schema, op, vars)
			if tt.want == nil {
				if len(errs) == 0 {
					t.Errorf("coerced to %v, want refused", got)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("refused: %v", errs)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			// gqlparser's own coercion, which gqlgen runs next, passes
			// the coerced values as they are.
			again, err := validator.VariableValues(schema, op, got)
			if err != nil {
				t.Fatalf("gqlparser refuses the coerced values: %v", err)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("gqlparser changed the coerced values (-ours +gqlparser)\n%s", diff)
			}
		})
	}
}

// TestCoerceVariablesReportsEveryProblem: every problem in a variable's
// value is an error of its own, in the order graphql-js reports them
// (each bad item of a list; an input object's fields in the order the
// type defines them, then the fields it does not define), worded as
// graphql-js words them but for the values a client's markup could be
// made of ("<b>"), which are named by kind.
// graphql-js 16.15 gives the same seven errors for these variables.
func TestCoerceVariablesReportsEveryProblem(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: coercionSchema})
	doc, err := parser.ParseQuery(&ast.Source{Input: `query($zs: [Int!]!, $in: In, $ins: [In]) { f(zs: $zs, in: $in, ins: $ins) }`})
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(`{"zs":[1,"a",null],"in":{"xs":["<b>"],"q":1},"ins":[{"n":1},{"e":"C"}]}`))
	dec.UseNumber()
	var vars map[string]any
	if err := dec.Decode(&vars); err != nil {
		t.Fatal(err)
	}
	_, errs := CoerceVariables(schema, doc.Operations[0], vars)
	var got []string
	for _, e := range errs {
		got = append(got, e.Message)
	}
	want := []string{
		`Variable "$zs" got invalid value "a" at "zs[1]"; Int cannot represent non-integer value: "a"`,
		`Variable "$zs" got invalid value null at "zs[2]"; Expected non-nullable type "Int!" not to be null.`,
		`Variable "$in" got invalid value a string at "in.xs[0]"; Int cannot represent non-integer value: a string`,
		`Variable "$in" got invalid value an object; Field "n" of required type "Int!" was not provided.`,
		`Variable "$in" got invalid value an object; A field is not defined by type "In".`,
		`Variable "$ins" got invalid value "C" at "ins[1].e"; The value does not exist in "E" enum.`,
		`Variable "$ins" got invalid value an object at "ins[1]"; Field "n" of required type "Int!" was not provided.`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got)\n%s", diff)
	}
}

// TestCoercionStopsPastTheLimit: a list of 100,000 bad items is told of
// 51 problems (graphql-js's 50 and the one that ends the list), found
// without walking the rest, and the variables after it are not looked at.
func TestCoercionStopsPastTheLimit(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: coercionSchema})
	doc, err := parser.ParseQuery(&ast.Source{Input: `query($zs: [Int!]!, $xs: [Int]) { f(zs: $zs, xs: $xs) }`})
	if err != nil {
		t.Fatal(err)
	}
	bad := make([]any, 100_000)
	for i := range bad {
		bad[i] = "x"
	}
	vars := map[string]any{"zs": bad, "xs": []any{"y"}}
	var errs []error
	allocs := testing.AllocsPerRun(3, func() {
		_, list := CoerceVariables(schema, doc.Operations[0], vars)
		errs = errs[:0]
		for _, e := range list {
			errs = append(errs, e)
		}
	})
	if len(errs) != MaxVariableErrors+1 {
		t.Fatalf("%d errors, want %d", len(errs), MaxVariableErrors+1)
	}
	for _, e := range errs {
		if strings.Contains(e.Error(), "$xs") {
			t.Errorf("a variable past the limit was coerced: %v", e)
		}
	}
	if allocs > 2000 {
		t.Errorf("%.0f allocations for 51 problems: the rest of the list was walked", allocs)
	}
}

// TestLiteralsOfCorrectType: literals are checked as variables are
// coerced, lists included.
func TestLiteralsOfCorrectType(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: coercionSchema})
	for _, tt := range []struct {
		args  string
		valid bool
	}{
		{`zs: 1`, true},
		{`zs: [1, 2]`, true},
		{`zs: [1, null]`, false},
		{`zs: ["1"]`, false},
		{`zs: [2147483648]`, false},
		{`zs: [], ys: 1`, true},
		{`zs: [], ys: [1, [2], null]`, true},
		{`zs: [], ys: [[[1]]]`, false},
		{`zs: [], id: 1`, true},
		{`zs: [], id: "x"`, true},
		{`zs: [], id: 1.5`, false},
		{`zs: [], id: 99999999999999999999`, true},
		{`zs: [], any: [99999999999999999999]`, true},
		{`zs: [], any: {a: ["b", 1.5, C]}`, true},
		{`zs: [], in: {n: 1, xs: 2}`, true},
		{`zs: [], in: {xs: 2}`, false},
		{`zs: [], in: {n: 1, e: "A"}`, false},
		{`zs: [], in: {n: 1, e: a}`, false},
		{`zs: [], ins: {n: 1}`, true},
		{`zs: [], ins: [{n: 1}, {n: 2, m: 3}]`, false},
		{`zs: [], in: [{n: 1}]`, false},
	} {
		t.Run(tt.args, func(t *testing.T) {
			doc, err := parser.ParseQuery(&ast.Source{Input: `{ f(` + tt.args + `) }`})
			if err != nil {
				t.Fatal(err)
			}
			errs := validator.ValidateWithRules(schema, doc, ValidationRules(false))
			if valid := len(errs) == 0; valid != tt.valid {
				t.Errorf("valid = %v, want %v: %v", valid, tt.valid, errs)
			}
			if len(errs) == 0 {
				// Every valid literal reads into a value: gqlparser
				// fails (and gqlgen with it) on one it cannot read.
				for _, a := range doc.Operations[0].SelectionSet[0].(*ast.Field).Arguments {
					if _, err := a.Value.Value(nil); err != nil {
						t.Errorf("%s: %v", a.Name, err)
					}
				}
			}
		})
	}
}
