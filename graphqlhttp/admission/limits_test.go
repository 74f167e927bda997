package admission

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// checkText parses query and measures it against l as the documents do
// (documents.examine); a query that does not parse is nil here, as
// gqlgen reports it.
func checkText(query string, l Limits) *Refusal {
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, l.MaxTokens)
	if err != nil {
		return nil
	}
	return Check(doc, l, true)
}

// measure measures each operation of query as Check does, before
// the limits are applied.
func measure(t *testing.T, query string) []shape {
	t.Helper()
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err != nil {
		t.Fatalf("parsing %q: %v", query, err)
	}
	frags := map[string]*ast.FragmentDefinition{}
	for _, f := range doc.Fragments {
		if _, dup := frags[f.Name]; !dup {
			frags[f.Name] = f
		}
	}
	m := measurer{frags: frags, memo: map[string]shape{}}
	var out []shape
	for _, op := range doc.Operations {
		out = append(out, m.selections(op.SelectionSet))
	}
	return out
}

func TestMeasure(t *testing.T) {
	for _, tt := range []struct {
		name, query string
		want        shape
	}{
		{"one field", "{ a }", shape{depth: 1, fields: 1}},
		{"nested", "{ a { b { c } d } e }", shape{depth: 3, fields: 5}},
		{"arguments are not fields", `{ a(x: 1, y: {z: [1, 2]}) { b } }`, shape{depth: 2, fields: 2}},
		{"aliases", "{ x: a y: a { b: c } a }", shape{depth: 2, fields: 4, aliases: 3}},
		{"an alias of its own name is none", "{ a: a }", shape{depth: 1, fields: 1}},
		{"duplicated fields count each", "{ a a a }", shape{depth: 1, fields: 3}},
		{"directives on fields", "{ a @x @y { b @z } }", shape{depth: 2, fields: 2, directives: 3}},
		{"directives on fragments", "{ ... @x { a } ...F @y } fragment F on Q @z { b @w }", shape{depth: 1, fields: 2, directives: 4}},
		{"inline fragments add no depth", "{ a { ... on T { ... { b { c } } } } }", shape{depth: 3, fields: 3}},
		{"a fragment counts where it is spread", "{ a { ...F } } fragment F on T { b { c } }", shape{depth: 3, fields: 3}},
		{"a fragment spread twice counts twice", "{ x: a { ...F } y: a { ...F } } fragment F on T { b: c d }", shape{depth: 2, fields: 6, aliases: 4}},
		{"fragments through fragments", "{ ...A } fragment A on Q { a { ...B ...B } } fragment B on T { b { c } }", shape{depth: 3, fields: 5}},
		{"an unknown fragment is empty", "{ a ...Nowhere }", shape{depth: 1, fields: 1}},
		{"the first of two fragments of one name", "{ ...F } fragment F on Q { a } fragment F on Q { b { c } }", shape{depth: 1, fields: 1}},
		{"__typename is data", "{ __typename }", shape{depth: 1, fields: 1}},
		{"__typename under data", "{ a { b { __typename } } }", shape{depth: 3, fields: 3}},
		{"__typename beside a leaf adds no depth", "{ a { b __typename } }", shape{depth: 2, fields: 3}},
		{"__typename in introspection", "{ __schema { types { __typename } } }", shape{introspectionDepth: 3, fields: 3}},
		{"__schema apart", "{ __schema { types { fields { name } } } }", shape{introspectionDepth: 4, fields: 4}},
		{"__type apart from data", "{ a { b } __type(name: \"T\") { ofType { ofType { name } } } }", shape{depth: 2, introspectionDepth: 4, fields: 6}},
		{"introspection through a fragment", "{ __schema { ...S } } fragment S on __Schema { types { ...T } } fragment T on __Type { name }", shape{introspectionDepth: 3, fields: 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := measure(t, tt.query)
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("measure(%q) = %+v, want %+v", tt.query, got, tt.want)
			}
		})
	}
}

// TestMeasureFanOut measures fragments that spread the next one twice,
// 2^n fields expanded: counted without being expanded, and saturated
// rather than overflowed.
func TestMeasureFanOut(t *testing.T) {
	for _, n := range []int{10, 39, 40, 41, 62, 64, 200} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var q strings.Builder
			q.WriteString("{ ...F0 }")
			for i := range n {
				fmt.Fprintf(&q, " fragment F%d on Q { ...F%d ...F%d }", i, i+1, i+1)
			}
			fmt.Fprintf(&q, " fragment F%d on Q { x: a }", n)
			query := q.String()
			start := time.Now()
			got := measure(t, query)
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %s", d)
			}
			want := shape{depth: 1, fields: saturated, aliases: saturated}
			if n < 40 {
				want.fields, want.aliases = 1<<n, 1<<n
			}
			if len(got) != 1 || got[0] != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
			if err := checkText(query, Limits{MaxTokens: 1 << 20}.WithDefaults()); err == nil || err.Code != CodeTooManyFields {
				t.Errorf("checkText: %v, want %s", err, CodeTooManyFields)
			}
		})
	}
}

// TestCheckQueryCounts checks each measure against its limit at the edge:
// a query measuring n passes a limit of n and is refused by n-1, with the
// limit's code.
func TestCheckQueryCounts(t *testing.T) {
	for _, tt := range []struct {
		name, query string
		n           int
		set         func(*Limits, int)
		code, limit string
	}{
		{"depth", "{ a { b { c } } d }", 3, func(l *Limits, n int) { l.MaxDepth = n }, CodeTooDeep, "depth"},
		{"depth through fragments", "{ a { ...F } } fragment F on T { b { ...G } } fragment G on T { c { d } }", 4, func(l *Limits, n int) { l.MaxDepth = n }, CodeTooDeep, "depth"},
		{"introspection depth", "{ __schema { types { fields { type { ofType { name } } } } } }", 6, func(l *Limits, n int) { l.MaxIntrospectionDepth = n }, CodeTooDeep, "introspection_depth"},
		{"fields", "{ a { b c } d }", 4, func(l *Limits, n int) { l.MaxFields = n }, CodeTooManyFields, "fields"},
		{"fields, fragments expanded", "{ ...F ...F ...F } fragment F on Q { a b }", 6, func(l *Limits, n int) { l.MaxFields = n }, CodeTooManyFields, "fields"},
		{"aliases", "{ x: a y: b { z: c } }", 3, func(l *Limits, n int) { l.MaxAliases = n }, CodeTooManyAliases, "aliases"},
		{"aliases, fragments expanded", "{ ...F ...F } fragment F on Q { x: a }", 2, func(l *Limits, n int) { l.MaxAliases = n }, CodeTooManyAliases, "aliases"},
		{"directives everywhere", `query Q($v: Int @a @b) @c { f @d ... @e { g } ...F @f } fragment F on Q @g { h @h }`, 8, func(l *Limits, n int) { l.MaxDirectives = n }, CodeTooManyDirective, "directives"},
		{"directives, fragments expanded", "{ ...F ...F ...F } fragment F on Q { a @x }", 3, func(l *Limits, n int) { l.MaxDirectives = n }, CodeTooManyDirective, "directives"},
		{"directives on variables", "query($a: Int @x @x, $b: Int @x) { f }", 3, func(l *Limits, n int) { l.MaxDirectives = n }, CodeTooManyDirective, "directives"},
		// A data query the depth limit allows is not refused as
		// introspection for the __typename a client adds to it.
		{"deep data with __typename", "{ a { a { a { a { a { a { a { a { a { a { a { a { a { a { a { a { __typename } } } } } } } } } } } } } } } } }", 17, func(l *Limits, n int) { l.MaxDepth = n }, CodeTooDeep, "depth"},
		{"the worst of several operations", "query A { a } query B { b { c { d } } }", 3, func(l *Limits, n int) { l.MaxDepth = n }, CodeTooDeep, "depth"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var l Limits
			tt.set(&l, tt.n)
			if err := checkText(tt.query, l.WithDefaults()); err != nil {
				t.Errorf("with a limit of %d: %+v, want no error", tt.n, err)
			}
			tt.set(&l, tt.n-1)
			err := checkText(tt.query, l.WithDefaults())
			if err == nil || err.Code != tt.code || err.Limit != tt.limit {
				t.Fatalf("with a limit of %d: %+v, want code %s, limit %s", tt.n-1, err, tt.code, tt.limit)
			}
			checkMessage(t, err, tt.query)
		})
	}
}

// checkMessage checks that a refusal's message says something and quotes
// nothing of the query.
func checkMessage(t *testing.T, err *Refusal, query string) {
	t.Helper()
	if err.Message == "" || err.Error() != err.Message {
		t.Errorf("message %q, Error() %q", err.Message, err.Error())
	}
	for _, word := range strings.FieldsFunc(query, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_')
	}) {
		if len(word) > 2 && word != "query" && word != "fragment" && strings.Contains(err.Message, word) {
			t.Errorf("message %q quotes %q from the query", err.Message, word)
		}
	}
}

func TestCheckQueryFragmentCycles(t *testing.T) {
	for _, tt := range []struct {
		name, query string
		cycle       bool
	}{
		{"direct self-spread", "{ ...F } fragment F on Q { ...F }", true},
		{"nested self-spread", "{ a { ...F } } fragment F on T { b { c { ...F } } ...F }", true},
		{"nested self-spread only", "{ a { ...F } } fragment F on T { b { c { ...F } } }", true},
		{"A to B to A", "{ ...A } fragment A on Q { a { ...B } } fragment B on T { ...A }", true},
		{"long chain", chain(500) + "{ ...C0 }", true},
		{"hidden in inline fragments", "{ ...F } fragment F on Q { ... on Q { ... @include(if: true) { a { ... on T { ...F } } } } }", true},
		{"unused", "{ a } fragment A on Q { ...B } fragment B on Q { ...A }", true},
		{"a cycle behind an acyclic fragment", "{ ...A } fragment A on Q { ...B } fragment B on Q { ...C } fragment C on Q { ...B }", true},
		{"in the second of two fragments of one name", "{ ...F } fragment F on Q { a } fragment F on Q { ...F }", false},
		{"diamond", "{ ...A } fragment A on Q { ...B ...C } fragment B on Q { ...D } fragment C on Q { ...D } fragment D on Q { a }", false},
		{"spread twice", "{ ...F ...F } fragment F on Q { a }", false},
		{"unknown fragment", "{ ...Nowhere }", false},
		{"unknown fragment from a fragment", "{ ...F } fragment F on Q { ...Nowhere }", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := checkText(tt.query, Limits{MaxTokens: 1 << 20}.WithDefaults())
			switch {
			case tt.cycle && (err == nil || err.Code != CodeFragmentCycle || err.Limit != "fragment_cycle"):
				t.Errorf("got %+v, want a fragment cycle", err)
			case !tt.cycle && err != nil:
				t.Errorf("got %+v, want no error", err)
			}
			if err != nil {
				checkMessage(t, err, tt.query)
			}
		})
	}
}

// chain is n fragments, each spreading the next, the last the first.
func chain(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "fragment C%d on Q { a { ...C%d } } ", i, (i+1)%n)
	}
	return b.String()
}

// TestCheckQueryLeavesOthersToGqlgen checks that what the guard does not
// measure passes it, for gqlgen to report as it does.
func TestCheckQueryLeavesOthersToGqlgen(t *testing.T) {
	for _, query := range []string{
		"",
		"{",
		"{ a(x: ) }",
		"query { a } query { b }",
		strings.Repeat("{ a ", 2000), // unparsable before any measure
		"{ a " + strings.Repeat("b ", 6000) + "}",   // over the token limit: the parser says so
		"{ a(x: " + strings.Repeat("[", 2000) + "}", // over the parser's nesting bound
	} {
		if err := checkText(query, Limits{}.WithDefaults()); err != nil {
			t.Errorf("checkText(%.40q) = %+v, want nil", query, err)
		}
	}
}

// TestLimitsDefaults: a zero or negative limit takes DefaultLimits' value,
// which every exported limit has (the documented values are checked
// against the gateway's -h by TestFlagsDocumented).
func TestLimitsDefaults(t *testing.T) {
	want := DefaultLimits()
	v := reflect.ValueOf(want)
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() && v.Field(i).Int() <= 0 {
			t.Errorf("DefaultLimits has no %s", f.Name)
		}
	}
	if got := (Limits{}).WithDefaults(); got != want {
		t.Errorf("defaults %+v, want %+v", got, want)
	}
	if got := (Limits{MaxBodyBytes: -1, MaxDepth: -5}).WithDefaults(); got != want {
		t.Errorf("negative limits: %+v, want the defaults %+v", got, want)
	}
	given := Limits{MaxBodyBytes: 1, MaxURLBytes: 2, MaxTokens: 3, MaxDepth: 4, MaxIntrospectionDepth: 5, MaxFields: 6, MaxAliases: 7, MaxDirectives: 8, MaxComplexity: 9, MaxResponseBytes: 10}
	if got := given.WithDefaults(); got != given {
		t.Errorf("given limits became %+v", got)
	}
}
