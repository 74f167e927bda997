package documents

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/validator/core"
)

// Input coercion, in one place: how a value the request gives (a literal
// in the document, or a variable's JSON) becomes the value an argument
// holds, as the GraphQL specification says (sections 3.5 and 3.10, Input
// Coercion; 5.6.1, Values of Correct Type; 6.1.2, Coercing Variable
// Values) and as graphql-js, its reference implementation, does it. e2e/coercion
// checks the verdicts against graphql-js on operations generated from the
// schema.
//
// gqlparser is laxer (an Int out of 32 bits, a JSON string for an Int or a
// Float, a number for a String, an enum in any case), and what it lets
// through then fails inside gqlgen's unmarshalling as an internal error,
// or runs: the cost limit priced a string "1000" as the default page
// while the resolver read it as 1000. So literals are checked by
// valuesOfCorrectType, which replaces gqlparser's rule, and variables by
// the transport's variableCoercion, before gqlparser's own VariableValues sees them: it
// then gets values already coerced, which it passes as they are.
//
// A coerced value has one Go representation per type, whatever its
// spelling (5, 5.0 or 5e0): Int is an int64 in the signed 32-bit range,
// Float a finite float64, String and ID a string, Boolean a bool, an enum
// its value's name as a string, an input object a map[string]any with its
// fields' defaults filled in, a list a []any (a single value given for a
// list is a list of one); a custom scalar's value is left as it came, for
// its own unmarshaller. Literals are read into the same representation
// (literalValue), so the cost walk, the engine and gqlgen's resolvers all
// read one value, priced as it runs.
//
// The schema's Int stays a Go int (gqlgen's default) rather than
// graphql.Int32: the range is enforced here, before execution, as the
// specification asks (a request error, not a field error), on every path;
// Int32 would only check it while a resolver runs, after the cost limit,
// and would put conversions on every record's fields.

// MaxVariableErrors is graphql-js's limit on the variables' errors
// reported; past it, TooManyVariableErrors ends the list, in graphql-js's
// words.
const (
	MaxVariableErrors     = 50
	TooManyVariableErrors = "Too many errors processing variables, error limit reached. Execution aborted."
)

// CoerceVariables coerces the variables given for op (CoerceVariableValues):
// each defined variable's value against its type, its default when it is
// absent, and nothing else (a variable op does not define is dropped). The
// errors are worded as graphql-js words them, without its "did you mean".
func CoerceVariables(schema *ast.Schema, op *ast.OperationDefinition, given map[string]any) (map[string]any, gqlerror.List) {
	if len(op.VariableDefinitions) == 0 {
		// Nothing to coerce, and whatever was given is ignored: gqlgen
		// makes the operation's (empty) variables from nil as well.
		return nil, nil
	}
	coerced := make(map[string]any, len(op.VariableDefinitions))
	var errs gqlerror.List
	for _, def := range op.VariableDefinitions {
		if len(errs) > MaxVariableErrors {
			// Refused already, and told of more than it will be shown.
			break
		}
		fail := func(msg string) {
			err := &gqlerror.Error{Message: msg}
			if def.Position != nil {
				err.Locations = []gqlerror.Location{{Line: def.Position.Line, Column: def.Position.Column}}
			}
			errs = append(errs, err)
		}
		v, present := given[def.Variable]
		switch {
		case !present && def.DefaultValue != nil:
			coerced[def.Variable] = literalValue(schema, def.DefaultValue, def.Type)
			continue
		case !present:
			if def.Type.NonNull {
				fail(fmt.Sprintf("Variable \"$%s\" of required type \"%s\" was not provided.", def.Variable, def.Type))
			}
			continue
		case v == nil && def.Type.NonNull:
			fail(fmt.Sprintf("Variable \"$%s\" of non-null type \"%s\" must not be null.", def.Variable, def.Type))
			continue
		}
		c := coercer{schema: schema, max: MaxVariableErrors + 1 - len(errs)}
		out, ok := c.value(v, def.Type, nil)
		if !ok {
			for _, p := range c.problems {
				msg := fmt.Sprintf("Variable \"$%s\" got invalid value %s", def.Variable, inspect(p.invalid))
				if len(p.path) > 0 {
					msg += fmt.Sprintf(" at \"%s%s\"", def.Variable, printPath(p.path))
				}
				fail(msg + "; " + p.why)
			}
			continue
		}
		coerced[def.Variable] = out
	}
	return coerced, errs
}

// coercer coerces one variable's value, and keeps every problem it finds
// there: graphql-js reports each (every bad item of a list, every bad or
// missing field of an input object), so a form learns of all its bad
// fields at once. It stops at max problems, past what is reported: a
// list of a hundred thousand bad items costs no more than one of max.
type coercer struct {
	schema   *ast.Schema
	max      int
	problems []coercionProblem
}

// full says the coercer has found as many problems as it keeps.
func (c *coercer) full() bool { return len(c.problems) >= c.max }

// coercionProblem is where a value failed to coerce within its variable,
// what was there, and why.
type coercionProblem struct {
	path    []any
	invalid any
	why     string
}

func (c *coercer) fail(path []any, invalid any, why string) (any, bool) {
	if !c.full() {
		c.problems = append(c.problems, coercionProblem{slices.Clone(path), invalid, why})
	}
	return nil, false
}

// value coerces v, decoded from JSON (numbers as json.Number or float64),
// to type t, at path within the variable.
func (c *coercer) value(v any, t *ast.Type, path []any) (any, bool) {
	if t.NonNull {
		if v == nil {
			return c.fail(path, v, fmt.Sprintf("Expected non-nullable type \"%s\" not to be null.", t))
		}
		nullable := *t
		nullable.NonNull = false
		t = &nullable
	}
	if v == nil {
		return nil, true
	}
	if t.Elem != nil {
		list, isList := v.([]any)
		if !isList {
			// A single value is a list of one.
			e, ok := c.value(v, t.Elem, path)
			return []any{e}, ok
		}
		out := make([]any, len(list))
		ok := true
		for i, e := range list {
			if c.full() {
				return nil, false
			}
			var itemOK bool
			out[i], itemOK = c.value(e, t.Elem, append(path, i))
			ok = ok && itemOK
		}
		if !ok {
			return nil, false
		}
		return out, true
	}
	def := c.schema.Types[t.NamedType]
	if def == nil {
		return c.fail(path, v, fmt.Sprintf("Unknown type \"%s\".", t.NamedType)) // validation refuses it first
	}
	switch def.Kind {
	case ast.InputObject:
		return c.object(v, def, path)
	case ast.Enum:
		name, ok := v.(string)
		if !ok {
			return c.fail(path, v, fmt.Sprintf("Enum \"%s\" cannot represent non-string value: %s.", def.Name, inspect(v)))
		}
		if def.EnumValues.ForName(name) == nil {
			return c.fail(path, v, fmt.Sprintf("The value does not exist in \"%s\" enum.", def.Name))
		}
		return name, true
	case ast.Scalar:
		out, err := scalarValue(def.Name, v)
		if err != nil {
			return c.fail(path, v, err.Error())
		}
		return out, true
	}
	return c.fail(path, v, fmt.Sprintf("\"%s\" is not an input type.", def.Name))
}

// object coerces an input object: every field the type defines, given or
// defaulted, and no other.
func (c *coercer) object(v any, def *ast.Definition, path []any) (any, bool) {
	given, ok := v.(map[string]any)
	if !ok {
		return c.fail(path, v, fmt.Sprintf("Expected type \"%s\" to be an object.", def.Name))
	}
	out := make(map[string]any, len(def.Fields))
	ok = true
	for _, f := range def.Fields {
		if c.full() {
			return nil, false
		}
		fv, present := given[f.Name]
		if !present {
			switch {
			case f.DefaultValue != nil:
				out[f.Name] = literalValue(c.schema, f.DefaultValue, f.Type)
			case f.Type.NonNull:
				_, ok = c.fail(path, v, fmt.Sprintf("Field \"%s\" of required type \"%s\" was not provided.", f.Name, f.Type))
			}
			continue
		}
		var fieldOK bool
		out[f.Name], fieldOK = c.value(fv, f.Type, append(path, f.Name))
		ok = ok && fieldOK
	}
	for _, name := range sortedKeys(given) {
		if c.full() {
			return nil, false
		}
		if def.Fields.ForName(name) == nil {
			_, ok = c.fail(path, v, fmt.Sprintf("A field is not defined by type \"%s\".", def.Name))
		}
	}
	if isOneOf(def) {
		if len(given) != 1 {
			_, ok = c.fail(path, v, fmt.Sprintf("Exactly one key must be specified for OneOf type \"%s\".", def.Name))
		}
		for _, name := range sortedKeys(given) {
			if given[name] == nil {
				_, ok = c.fail(append(path, name), nil, fmt.Sprintf("Field \"%s\" must be non-null.", name))
			}
		}
	}
	if !ok {
		return nil, false
	}
	return out, true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func isOneOf(def *ast.Definition) bool { return def.Directives.ForName("oneOf") != nil }

// The range of GraphQL's Int: a signed 32-bit integer.
const (
	minInt = math.MinInt32
	maxInt = math.MaxInt32
)

// scalarValue coerces a variable's JSON value to a built-in scalar (a
// custom scalar's value passes as it is). A JSON number is read as a
// JavaScript reader reads it, into a float64: 1e3 and 1.0 are the
// integers 1000 and 1, as JSON.parse makes them.
func scalarValue(scalar string, v any) (any, error) {
	switch scalar {
	case "Int":
		f, ok := number(v)
		if !ok || math.IsInf(f, 0) || f != math.Trunc(f) {
			return nil, fmt.Errorf("Int cannot represent non-integer value: %s", inspect(v))
		}
		if f < minInt || f > maxInt {
			return nil, fmt.Errorf("Int cannot represent non 32-bit signed integer value: %s", inspect(v))
		}
		return int64(f), nil
	case "Float":
		f, ok := number(v)
		if !ok || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("Float cannot represent non numeric value: %s", inspect(v))
		}
		return f, nil
	case "String":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("String cannot represent a non string value: %s", inspect(v))
		}
		return s, nil
	case "Boolean":
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("Boolean cannot represent a non boolean value: %s", inspect(v))
		}
		return b, nil
	case "ID":
		if s, ok := v.(string); ok {
			return s, nil
		}
		if f, ok := number(v); ok && !math.IsInf(f, 0) && f == math.Trunc(f) {
			return jsInteger(f), nil
		}
		return nil, fmt.Errorf("ID cannot represent value: %s", inspect(v))
	}
	return v, nil
}

// number reads a JSON number as JavaScript does (a float64, ±Inf beyond
// its range); false for anything else.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false
		}
		return f, true
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	}
	return 0, false
}

// jsInteger writes an integral float64 as JavaScript's Number#toString
// does, which is how graphql-js turns a numeric ID into its string.
func jsInteger(f float64) string {
	switch {
	case f == 0:
		return "0"
	case math.Abs(f) < 1e21:
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// inspect names a variable's value for an error message, as graphql-js
// does: a number, a boolean or a short string as it is (the string in
// JSON's quotes), anything else by its kind. A string is echoed only if it
// is short and holds none of the characters markup and scripts are made
// of (<, >, &, quotes, backslashes, control characters): what an error
// carries back, a careless client may show as markup, so "abc" is named
// as graphql-js names it and "<img …>" as "a string".
func inspect(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case string:
		if echoable(v) {
			return `"` + v + `"`
		}
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	case json.Number:
		if len(v) <= 24 {
			return string(v)
		}
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return "a number"
}

// maxEchoed is the longest string inspect echoes: a word or two, what a
// form field holds by mistake.
const maxEchoed = 32

// echoable says whether inspect may echo s: short, and printable ASCII
// with none of <>&'"`\.
func echoable(s string) bool {
	if len(s) > maxEchoed {
		return false
	}
	for i := range len(s) {
		if c := s[i]; c < ' ' || c > '~' || strings.IndexByte("<>&'\"`\\", c) >= 0 {
			return false
		}
	}
	return true
}

// printPath writes a path within a value as graphql-js does: .field, [0].
func printPath(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch p := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		default:
			fmt.Fprintf(&b, ".%v", p)
		}
	}
	return b.String()
}

// literalValue reads a literal the document or the schema holds (a
// default, which validation has found to be of its type) into the
// representation a variable of type t is coerced to.
func literalValue(schema *ast.Schema, v *ast.Value, t *ast.Type) any {
	if v == nil || v.Kind == ast.NullValue {
		return nil
	}
	if t.Elem != nil {
		if v.Kind != ast.ListValue {
			return []any{literalValue(schema, v, t.Elem)}
		}
		out := make([]any, len(v.Children))
		for i, c := range v.Children {
			out[i] = literalValue(schema, c.Value, t.Elem)
		}
		return out
	}
	def := schema.Types[t.NamedType]
	if def != nil && def.Kind == ast.InputObject && v.Kind == ast.ObjectValue {
		out := make(map[string]any, len(def.Fields))
		for _, f := range def.Fields {
			switch c := v.Children.ForName(f.Name); {
			case c != nil:
				out[f.Name] = literalValue(schema, c, f.Type)
			case f.DefaultValue != nil:
				out[f.Name] = literalValue(schema, f.DefaultValue, f.Type)
			}
		}
		return out
	}
	switch {
	case t.NamedType == "Float" && (v.Kind == ast.IntValue || v.Kind == ast.FloatValue):
		f, _ := strconv.ParseFloat(v.Raw, 64)
		return f
	case t.NamedType == "ID" && v.Kind == ast.IntValue:
		return v.Raw
	}
	out, _ := v.Value(nil)
	return out
}

// valuesOfCorrectType is the validation rule for literals (Values of
// Correct Type), in place of gqlparser's: a literal must be of the type
// its position expects, as the specification's input coercion reads it.
// Int is an integer literal in the 32-bit range; Float an integer or float
// literal, finite; String a string; Boolean true or false; ID a string or
// an integer; an enum one of its values' names, bare (never a string); an
// input object only the fields its type defines, with the required ones;
// null nowhere non-null. A single value stands for a list of one.
func valuesOfCorrectType(suggest bool) core.Rule {
	return core.Rule{Name: "ValuesOfCorrectTypeAsSpecified", RuleFunc: func(observers *core.Events, addError core.AddErrFunc) {
		observers.OnValue(func(_ *core.Walker, v *ast.Value) {
			problems := literalProblems(v, suggest)
			for _, msg := range problems {
				addError(core.Message("%s", msg), core.At(v.Position))
			}
			if len(problems) == 0 {
				readableInteger(v)
			}
		})
	}}
}

// readableInteger makes an integer literal beyond 64 bits, which a
// position other than Int takes (a Float, an ID, a custom scalar),
// readable by gqlparser's ast.Value.Value, which reads every integer
// literal into an int64 and fails, and gqlgen with it, on this one (a 500
// once): for an ID it is its digits, as graphql-js reads it; anywhere else
// the float it stands for. The walker sets each literal's type on the
// document it validates; this, on the same walk, sets how it is read.
func readableInteger(v *ast.Value) {
	if v.Kind != ast.IntValue {
		return
	}
	if _, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
		return
	}
	if v.Definition != nil && v.Definition.Name == "ID" {
		v.Kind = ast.StringValue
		return
	}
	v.Kind = ast.FloatValue
}

// literalProblems says what is wrong with literal v at its position, in
// graphql-js's words; nothing for a variable, or a value whose position
// is unknown (other rules report that).
func literalProblems(v *ast.Value, suggest bool) []string {
	t := v.ExpectedType
	if t == nil || v.Kind == ast.Variable {
		return nil
	}
	expected := func() []string {
		return []string{fmt.Sprintf("Expected value of type \"%s\", found %s.", t, v)}
	}
	def := v.Definition
	switch v.Kind {
	case ast.NullValue:
		if t.NonNull {
			return expected()
		}
		return nil
	case ast.ListValue:
		if t.Elem != nil {
			return nil // each element is checked against the list's type
		}
	case ast.ObjectValue:
		if def != nil && def.Kind == ast.InputObject {
			return objectProblems(v, def, suggest)
		}
	}
	if def == nil {
		return nil
	}
	switch def.Kind {
	case ast.Enum:
		switch {
		case v.Kind != ast.EnumValue:
			return []string{fmt.Sprintf("Enum \"%s\" cannot represent non-enum value: %s.", def.Name, v)}
		case def.EnumValues.ForName(v.Raw) == nil:
			msg := fmt.Sprintf("Value \"%s\" does not exist in \"%s\" enum.", v.Raw, def.Name)
			if suggest {
				names := make([]string, len(def.EnumValues))
				for i, e := range def.EnumValues {
					names[i] = e.Name
				}
				msg += didYouMean("the enum value ", v.Raw, names)
			}
			return []string{msg}
		}
		return nil
	case ast.Scalar:
		if msg := scalarLiteralProblem(def.Name, v); msg != "" {
			return []string{fmt.Sprintf("Expected value of type \"%s\", found %s; %s", t, v, msg)}
		}
		return nil
	}
	return expected()
}

// objectProblems checks an input object literal's fields: the required
// ones given, no others, and a OneOf type's single key.
func objectProblems(v *ast.Value, def *ast.Definition, suggest bool) []string {
	var out []string
	for _, f := range def.Fields {
		if f.Type.NonNull && f.DefaultValue == nil && v.Children.ForName(f.Name) == nil {
			out = append(out, fmt.Sprintf("Field \"%s.%s\" of required type \"%s\" was not provided.", def.Name, f.Name, f.Type))
		}
	}
	for _, c := range v.Children {
		if def.Fields.ForName(c.Name) == nil {
			msg := fmt.Sprintf("Field \"%s\" is not defined by type \"%s\".", c.Name, def.Name)
			if suggest {
				names := make([]string, len(def.Fields))
				for i, f := range def.Fields {
					names[i] = f.Name
				}
				msg += didYouMean("", c.Name, names)
			}
			out = append(out, msg)
		}
	}
	if isOneOf(def) {
		switch {
		case len(v.Children) != 1:
			out = append(out, fmt.Sprintf("OneOf Input Object \"%s\" must specify exactly one key.", def.Name))
		case v.Children[0].Value == nil || v.Children[0].Value.Kind == ast.NullValue:
			out = append(out, fmt.Sprintf("Field \"%s.%s\" must be non-null.", def.Name, v.Children[0].Name))
		}
	}
	return out
}

// didYouMean is graphql-js's suggestion of the options nearest to given,
// " Did you mean what "a" or "b"?", or "" when none is near.
func didYouMean(what, given string, options []string) string {
	near := core.SuggestionList(given, options)
	if len(near) == 0 {
		return ""
	}
	return " Did you mean " + what + core.QuotedOrList(near...) + "?"
}

// scalarLiteralProblem says why literal v is not a value of a built-in
// scalar ("" if it is one, or the scalar is a custom one, which takes any
// literal).
func scalarLiteralProblem(scalar string, v *ast.Value) string {
	switch scalar {
	case "Int":
		if v.Kind != ast.IntValue {
			return fmt.Sprintf("Int cannot represent non-integer value: %s", v)
		}
		if n, err := strconv.ParseInt(v.Raw, 10, 64); err != nil || n < minInt || n > maxInt {
			return fmt.Sprintf("Int cannot represent non 32-bit signed integer value: %s", v.Raw)
		}
	case "Float":
		if v.Kind != ast.IntValue && v.Kind != ast.FloatValue {
			return fmt.Sprintf("Float cannot represent non numeric value: %s", v)
		}
		// The specification refuses a value no finite float64 holds
		// (1e400); graphql-js 16 reads it as Infinity and lets it pass,
		// the one place the two differ here: the specification wins.
		if f, err := strconv.ParseFloat(v.Raw, 64); err != nil && !errors.Is(err, strconv.ErrRange) || math.IsInf(f, 0) {
			return fmt.Sprintf("Float cannot represent non numeric value: %s", v)
		}
	case "String":
		if v.Kind != ast.StringValue && v.Kind != ast.BlockValue {
			return fmt.Sprintf("String cannot represent a non string value: %s", v)
		}
	case "Boolean":
		if v.Kind != ast.BooleanValue {
			return fmt.Sprintf("Boolean cannot represent a non boolean value: %s", v)
		}
	case "ID":
		if v.Kind != ast.StringValue && v.Kind != ast.BlockValue && v.Kind != ast.IntValue {
			return fmt.Sprintf("ID cannot represent a non-string and non-integer value: %s", v)
		}
	}
	return ""
}
