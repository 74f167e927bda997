package querygen

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// InputCase is one request that tries how a server coerces an input: an
// operation and, for a variable, its variables as the JSON text to send
// (the spelling is the point: 1e3, 1.0 and "1000" are one number to some
// readers and not to others).
type InputCase struct {
	// Name says what is tried, for a report.
	Name      string `json:"name"`
	Query     string `json:"query"`
	Variables string `json:"variables,omitempty"`
	// Spec is the specification's verdict ("refused") where graphql-js
	// 16, the reference implementation, gives another: a Float literal
	// no finite float64 holds, which graphql-js reads as Infinity.
	Spec string `json:"spec,omitempty"`
}

// spelling is one way to write an input: as a literal, as the JSON of a
// variable, or both ("" for a form it has not).
type spelling struct {
	desc, literal, json string
	// specRefuses marks a literal the specification refuses and
	// graphql-js 16 accepts.
	specRefuses bool
}

// spellings are the inputs tried for a named type: valid ones, values
// of the wrong type, out of range, null, lists for a single value, and,
// for numbers, the JSON spellings a JavaScript reader takes as integers.
func (g *inputGen) spellings(t *ast.Type) []spelling {
	if t.Elem != nil {
		return g.listSpellings(t.Elem)
	}
	def := g.schema.Types[t.NamedType]
	switch def.Kind {
	case ast.Enum:
		return enumSpellings(def)
	case ast.InputObject:
		return g.objectSpellings(t, def)
	}
	table, ok := scalarSpellings[def.Name]
	if !ok {
		return nil // a custom scalar takes anything: nothing to try
	}
	return append(anyTypeSpellings(), table...)
}

// anyTypeSpellings are tried for every named type: null, and objects
// where the type may not be one. A new slice each time, since each caller
// appends its own.
func anyTypeSpellings() []spelling {
	return []spelling{
		{"null", "null", "null", false},
		{"an object", "{a: 1}", `{"a":1}`, false},
		{"an empty object", "{}", "{}", false},
	}
}

// listSpellings are tried for a list of elem: a valid element as a list,
// as a single value (which coercion wraps), and lists that hold null or
// nest a level too deep.
func (g *inputGen) listSpellings(elem *ast.Type) []spelling {
	e := g.valid(elem)
	return []spelling{
		{"a list", "[" + e.literal + "]", "[" + e.json + "]", false},
		{"a single value for a list", e.literal, e.json, false},
		{"an empty list", "[]", "[]", false},
		{"a list with null", "[" + e.literal + ", null]", "[" + e.json + ",null]", false},
		{"a list of lists", "[[" + e.literal + "]]", "[[" + e.json + "]]", false},
	}
}

// enumSpellings are tried for an enum: its first and last values, and
// the near misses a client writes (a string, another case, an unknown
// name, a number or a boolean), as literals and as JSON.
func enumSpellings(def *ast.Definition) []spelling {
	first, last := def.EnumValues[0].Name, def.EnumValues[len(def.EnumValues)-1].Name
	return append(anyTypeSpellings(),
		spelling{"an enum value", first, `"` + first + `"`, false},
		spelling{"the last enum value", last, `"` + last + `"`, false},
		spelling{"an enum value as a string", `"` + first + `"`, "", false},
		spelling{"an enum value in lower case", strings.ToLower(first), `"` + strings.ToLower(first) + `"`, false},
		spelling{"an unknown enum value", "NOT_A_VALUE", `"NOT_A_VALUE"`, false},
		spelling{"a number for an enum", "1", "1", false},
		spelling{"a boolean for an enum", "true", "true", false},
		spelling{"a list of an enum value", "[" + first + "]", `["` + first + `"]`, false},
	)
}

// objectSpellings are tried for an input object: a valid one, one with
// a field too many, a scalar in its place, and for each required field
// the object without it.
func (g *inputGen) objectSpellings(t *ast.Type, def *ast.Definition) []spelling {
	v := g.valid(t)
	out := append(anyTypeSpellings(),
		spelling{"a valid object", v.literal, v.json, false},
		spelling{"a list of a valid object", "[" + v.literal + "]", "[" + v.json + "]", false},
		spelling{"an object with an unknown field", addField(v.literal, "notAField: 1"), addField(v.json, `"notAField":1`), false},
		spelling{"an object with __typename", addField(v.literal, `__typename: "x"`), addField(v.json, `"__typename":"x"`), false},
		spelling{"a string for an object", `"x"`, `"x"`, false},
		spelling{"a number for an object", "1", "1", false},
	)
	for _, f := range def.Fields {
		if f.Type.NonNull {
			out = append(out, spelling{"an object without " + f.Name, g.object(def, f.Name, false), g.object(def, f.Name, true), false})
		}
	}
	return out
}

// scalarSpellings are what is tried for each built-in scalar beyond
// anyTypeSpellings, by the scalar's name. Read only.
var scalarSpellings = map[string][]spelling{
	"Int":     intSpellings,
	"ID":      intSpellings,
	"Float":   floatSpellings,
	"String":  stringSpellings,
	"Boolean": booleanSpellings,
}

// intSpellings are tried for Int and ID: the bounds of 32 bits and just
// past them, numbers that are whole only to some readers (1.0, 1e3), and
// other types. Those with no literal are JSON only: spellings a
// JavaScript reader takes as integers (-0, 1E3, 10e-1) or cannot hold
// exactly (past 2^53, past float64).
var intSpellings = []spelling{
	{"0", "0", "0", false},
	{"7", "7", "7", false},
	{"-1", "-1", "-1", false},
	{"the largest Int", "2147483647", "2147483647", false},
	{"the smallest Int", "-2147483648", "-2147483648", false},
	{"just past 32 bits", "2147483648", "2147483648", false},
	{"just below 32 bits", "-2147483649", "-2147483649", false},
	{"past 64 bits", "99999999999999999999", "99999999999999999999", false},
	{"1.0", "1.0", "1.0", false},
	{"1e3", "1e3", "1e3", false},
	{"a fraction", "1.5", "1.5", false},
	{"an integer as a string", `"7"`, `"7"`, false},
	{"a word", `"seven"`, `"seven"`, false},
	{"true", "true", "true", false},
	{"an enum value for a number", "SEVEN", "", false},
	{"a list of one", "[7]", "[7]", false},
	{"-0", "", "-0", false},
	{"1E3", "", "1E3", false},
	{"10e-1", "", "10e-1", false},
	{"2147483647.0", "", "2147483647.0", false},
	{"a whole number past 2^53", "", "9007199254740993", false},
	{"past float64", "", "1e400", false},
	{"below float64", "", "-1e400", false},
	{"an underflow", "", "1e-400", false},
	{"an empty string", `""`, `""`, false},
}

// floatSpellings are tried for Float: integers (which a Float takes),
// fractions and exponents, the edges of float64 (a literal past it is
// where the specification and graphql-js part: specRefuses), and other
// types.
var floatSpellings = []spelling{
	{"0", "0", "0", false},
	{"an integer", "5", "5", false},
	{"a fraction", "1.5", "1.5", false},
	{"a negative fraction", "-0.25", "-0.25", false},
	{"an exponent", "1.5e2", "1.5e2", false},
	{"an integer past 32 bits", "2147483648", "2147483648", false},
	{"an integer past 64 bits", "99999999999999999999", "99999999999999999999", false},
	{"the largest float64", "1.7976931348623157e308", "1.7976931348623157e308", false},
	{"past float64", "1e400", "1e400", true},
	{"an underflow", "1e-400", "1e-400", false},
	{"a number as a string", `"1.5"`, `"1.5"`, false},
	{"true", "true", "true", false},
	{"an enum value for a number", "ONE", "", false},
	{"a list of one", "[1.5]", "[1.5]", false},
	{"-0", "", "-0", false},
}

// stringSpellings are tried for String: strings plain, empty, escaped and
// as a block string, and numbers, booleans and enum values in their place.
var stringSpellings = []spelling{
	{"a string", `"ore"`, `"ore"`, false},
	{"an empty string", `""`, `""`, false},
	{"a string with escapes", `"\u00e9\n"`, `"\u00e9\n"`, false},
	{"a block string", `"""ore"""`, "", false},
	{"an integer for a string", "5", "5", false},
	{"a fraction for a string", "1.5", "1.5", false},
	{"a boolean for a string", "true", "true", false},
	{"an enum value for a string", "ORE", "", false},
	{"a list of one string", `["ore"]`, `["ore"]`, false},
}

// booleanSpellings are tried for Boolean: both values, and the strings,
// numbers and enum values a client might send for one.
var booleanSpellings = []spelling{
	{"true", "true", "true", false},
	{"false", "false", "false", false},
	{"a boolean as a string", `"true"`, `"true"`, false},
	{"1 for a boolean", "1", "1", false},
	{"0 for a boolean", "0", "0", false},
	{"an enum value for a boolean", "TRUE", "", false},
	{"a list of one boolean", "[true]", "[true]", false},
}

// addField adds a field to an object's literal or JSON.
func addField(object, field string) string {
	if object == "{}" {
		return "{" + field + "}"
	}
	return strings.TrimSuffix(object, "}") + ", " + field + "}"
}

// valid is a valid value of t: what fills the arguments and fields a
// case does not try.
func (g *inputGen) valid(t *ast.Type) spelling {
	if t.Elem != nil {
		e := g.valid(t.Elem)
		return spelling{"", "[" + e.literal + "]", "[" + e.json + "]", false}
	}
	def := g.schema.Types[t.NamedType]
	switch def.Kind {
	case ast.Enum:
		return spelling{"", def.EnumValues[0].Name, `"` + def.EnumValues[0].Name + `"`, false}
	case ast.InputObject:
		return spelling{"", g.object(def, "", false), g.object(def, "", true), false}
	}
	switch def.Name {
	case "Int":
		return spelling{"", "1", "1", false}
	case "Float":
		return spelling{"", "1.5", "1.5", false}
	case "Boolean":
		return spelling{"", "true", "true", false}
	}
	return spelling{"", `"x"`, `"x"`, false}
}

// object is an input object with its required fields, but for without,
// as a literal or as JSON.
func (g *inputGen) object(def *ast.Definition, without string, asJSON bool) string {
	var parts []string
	for _, f := range def.Fields {
		if !f.Type.NonNull || f.DefaultValue != nil || f.Name == without {
			continue
		}
		v := g.valid(f.Type)
		if asJSON {
			parts = append(parts, `"`+f.Name+`":`+v.json)
		} else {
			parts = append(parts, f.Name+": "+v.literal)
		}
	}
	if asJSON {
		return "{" + strings.Join(parts, ",") + "}"
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

type inputGen struct {
	schema *ast.Schema
	cases  []InputCase
	// turn spreads the cases of an argument many fields share (first,
	// id) over those fields, rather than trying each on each.
	turn map[string]int
}

// InputCases returns requests that try every input position of schema's
// query fields (introspection's __type too) and of the directives
// @include and @skip: each argument,
// and each field of an input object argument, given each spelling of its
// type (valid, out of range, of another type, null, a list, a single
// value for a list, unknown fields, enums as strings), as a literal, as a
// variable of its type, as a variable's default, and inside an input
// object variable. What the server must answer to each is what the
// specification says; InputCase.Spec notes where graphql-js does not.
func InputCases(schema *ast.Schema) []InputCase {
	g := &inputGen{schema: schema, turn: map[string]int{}}
	g.directives()
	for _, f := range schema.Query.Fields {
		for _, a := range f.Arguments {
			g.argument(f, a)
		}
	}
	g.random(300, 22)
	return g.cases
}

// random adds n random operations of a Generator (nested selections,
// fragments, @include and @skip on variables, arguments as literals and
// variables), each as generated, again with one of its variables given
// another spelling of its type (the inputs above, inside whole
// documents), and, with two variables or more, with every variable given
// another: a request refused for several variables is told of each, as
// many errors as graphql-js gives. A spelling that is a number beyond 100
// is not given, since a page that long, nested, is refused by the cost
// limit, which tries nothing of coercion.
func (g *inputGen) random(n int, seed uint64) {
	r := New(g.schema, seed)
	r.MaxDepth = 3
	// every picks the spellings of the every-variable cases, apart from
	// r, so that the other cases stay as they were.
	every := rand.New(rand.NewPCG(seed, 1))
	for range n {
		query, vars := r.Query()
		doc, err := parser.ParseQuery(&ast.Source{Input: query})
		if err != nil {
			panic(fmt.Sprintf("querygen: a generated operation does not parse: %v", err))
		}
		given, _ := json.Marshal(vars)
		g.add("a random operation", query, string(given), false)
		defs := doc.Operations[0].VariableDefinitions
		if len(defs) == 0 {
			continue
		}
		def := defs[r.rng.IntN(len(defs))]
		spellings := g.pageSpellings(def.Type)
		if len(spellings) == 0 {
			continue
		}
		s := spellings[r.rng.IntN(len(spellings))]
		changed := maps.Clone(vars)
		changed[def.Variable] = json.RawMessage(s.json)
		given, _ = json.Marshal(changed)
		g.add(fmt.Sprintf("a random operation, $%s %s", def.Variable, s.desc), query, string(given), false)

		if len(defs) < 2 {
			continue
		}
		all := maps.Clone(vars)
		for _, def := range defs {
			if spellings := g.pageSpellings(def.Type); len(spellings) > 0 {
				all[def.Variable] = json.RawMessage(spellings[every.IntN(len(spellings))].json)
			}
		}
		given, _ = json.Marshal(all)
		g.add("a random operation, every variable respelled", query, string(given), false)
	}
}

// pageSpellings are t's spellings as a variable's JSON, but for numbers
// beyond 100 (see random).
func (g *inputGen) pageSpellings(t *ast.Type) []spelling {
	var out []spelling
	for _, s := range g.spellings(t) {
		if f, err := strconv.ParseFloat(s.json, 64); s.json != "" && (err != nil || math.Abs(f) <= 100) {
			out = append(out, s)
		}
	}
	return out
}

// selection is what a case selects of f: __typename of an object, or f.
func (g *inputGen) selection(f *ast.FieldDefinition) string {
	if t := g.schema.Types[f.Type.Name()]; t != nil && (t.Kind == ast.Object || t.Kind == ast.Interface || t.Kind == ast.Union) {
		return " { __typename }"
	}
	return ""
}

// field writes f with arg given as value and the other required
// arguments given valid values.
func (g *inputGen) field(f *ast.FieldDefinition, arg, value string) string {
	args := []string{arg + ": " + value}
	for _, a := range f.Arguments {
		if a.Name != arg && a.Type.NonNull && a.DefaultValue == nil {
			args = append(args, a.Name+": "+g.valid(a.Type).literal)
		}
	}
	return f.Name + "(" + strings.Join(args, ", ") + ")" + g.selection(f)
}

func (g *inputGen) add(name, query, variables string, spec bool) {
	c := InputCase{Name: name, Query: query, Variables: variables}
	if spec {
		c.Spec = "refused"
	}
	g.cases = append(g.cases, c)
}

// argument adds the cases of one argument of a query field. An argument
// that many fields share by name and type (first, after, id) has its
// spellings dealt out over those fields in turn.
func (g *inputGen) argument(f *ast.FieldDefinition, a *ast.ArgumentDefinition) {
	shared := a.Name + ":" + a.Type.String()
	sharers := 0
	for _, other := range g.schema.Query.Fields {
		if oa := other.Arguments.ForName(a.Name); oa != nil && oa.Type.String() == a.Type.String() {
			sharers++
		}
	}
	spellings := g.spellings(a.Type)
	turn := g.turn[shared]
	for i, s := range spellings {
		// Spelling i goes to one sharer in turn; with fewer spellings
		// than sharers, each sharer still gets one.
		mine := (turn+i)%sharers == 0 || len(spellings) < sharers && i == turn%len(spellings)
		if sharers > 1 && !mine && g.schema.Types[a.Type.Name()].Kind != ast.InputObject {
			continue
		}
		g.position(fmt.Sprintf("%s(%s:) %s", f.Name, a.Name, s.desc), a.Type, s,
			func(v string) string { return "{ " + g.field(f, a.Name, v) + " }" })
	}
	g.turn[shared]++
	def := g.schema.Types[a.Type.Name()]
	if def.Kind != ast.InputObject || a.Type.Elem != nil {
		return
	}
	// Each field of the input object, the others valid: in an object
	// literal (the field's value a literal or a variable), and in an
	// object variable.
	for _, fd := range def.Fields {
		for _, s := range g.spellings(fd.Type) {
			name := fmt.Sprintf("%s(%s: {%s:}) %s", f.Name, a.Name, fd.Name, s.desc)
			g.position(name, fd.Type, s, func(v string) string {
				return "{ " + g.field(f, a.Name, g.withField(def, fd.Name, v, false)) + " }"
			})
			if s.json != "" {
				g.add(name+", in an object variable",
					"query($o: "+a.Type.String()+") { "+g.field(f, a.Name, "$o")+" }",
					`{"o":`+g.withField(def, fd.Name, s.json, true)+"}", false)
			}
		}
	}
}

// withField is a valid object of def with field given as value.
func (g *inputGen) withField(def *ast.Definition, field, value string, asJSON bool) string {
	var parts []string
	for _, f := range def.Fields {
		switch {
		case f.Name == field && asJSON:
			parts = append(parts, `"`+f.Name+`":`+value)
		case f.Name == field:
			parts = append(parts, f.Name+": "+value)
		case f.Type.NonNull && f.DefaultValue == nil:
			v := g.valid(f.Type)
			if asJSON {
				parts = append(parts, `"`+f.Name+`":`+v.json)
			} else {
				parts = append(parts, f.Name+": "+v.literal)
			}
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// position adds the cases of one input position of type t given s:
// operation(v) writes the operation with v at the position. As a
// literal; as a variable of t, of t made nullable, and absent; and as a
// variable's default.
func (g *inputGen) position(name string, t *ast.Type, s spelling, operation func(v string) string) {
	decl := t.String()
	if s.literal != "" {
		g.add(name+", as a literal", operation(s.literal), "", s.specRefuses)
		g.add(name+", as a variable's default", strings.Replace(operation("$v"), "{", "query($v: "+decl+" = "+s.literal+") {", 1), "{}", s.specRefuses)
	}
	if s.json == "" {
		return
	}
	g.add(name+", as a variable", strings.Replace(operation("$v"), "{", "query($v: "+decl+") {", 1), `{"v":`+s.json+"}", false)
	if t.NonNull {
		nullable := strings.TrimSuffix(decl, "!")
		g.add(name+", as a nullable variable", strings.Replace(operation("$v"), "{", "query($v: "+nullable+") {", 1), `{"v":`+s.json+"}", false)
	}
	if s.desc == "null" {
		g.add(name+", as a variable not given", strings.Replace(operation("$v"), "{", "query($v: "+decl+") {", 1), "{}", false)
	}
}

// directives adds the cases of @include and @skip's if: Boolean!.
func (g *inputGen) directives() {
	t := ast.NonNullNamedType("Boolean", nil)
	for _, d := range []string{"include", "skip"} {
		for _, s := range g.spellings(t) {
			g.position("@"+d+"(if:) "+s.desc, t, s, func(v string) string {
				return "{ __typename @" + d + "(if: " + v + ") }"
			})
		}
	}
}
