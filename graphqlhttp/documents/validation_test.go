package documents

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/catalogue-gateway/gateway/graph"
)

// repeat joins n copies of s, each made by f from its index.
func repeat(n int, f func(i int) string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(f(i))
		b.WriteByte(' ')
	}
	return b.String()
}

// hostileDocuments are documents whose validation costs far more than
// their size (issue 22: 4 operations of 999 __typename, 44 KB, took 0.2 s
// of CPU), each within the token limit and every per-operation limit.
var hostileDocuments = []struct{ name, query, limit string }{
	{"4 operations × 999 __typename", repeat(4, func(i int) string {
		return fmt.Sprintf("query Q%d { %s}", i, strings.Repeat("__typename ", 999))
	}), "document_fields"},
	{"one operation of 999 __typename", "{ " + strings.Repeat("__typename ", 999) + "}", "field_pairs"},
	{"29 × items { nodes { 29 × id } }", "{ " + strings.Repeat("items { nodes { "+strings.Repeat("id ", 29)+"} } ", 29) + "}", "field_pairs"},
	{"an unused fragment of 999 __typename", "{ __typename } fragment F on Query { " + strings.Repeat("__typename ", 999) + "}", "field_pairs"},
	{"one fragment spread by 600 others", "{ __typename } fragment F on Query { " + repeat(30, func(i int) string { return fmt.Sprintf("a%d: __typename", i) }) + "} " +
		repeat(600, func(i int) string { return fmt.Sprintf("fragment G%d on Query { ...F }", i) }), "document_fields"},
}

// TestHostileDocumentsRefusedBeforeValidation: each hostile document is
// refused by the guard, TOO_MANY_FIELDS, naming what it measured.
func TestHostileDocumentsRefusedBeforeValidation(t *testing.T) {
	limits := admission.Limits{}.WithDefaults()
	for _, tt := range hostileDocuments {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: tt.query}, limits.MaxTokens)
			if err != nil {
				t.Fatalf("does not parse within the token limit: %v", err)
			}
			v := admission.Check(doc, limits, true)
			if v == nil || v.Code != admission.CodeTooManyFields || v.Limit != tt.limit {
				t.Errorf("verdict %+v; want %s, limit %s", v, admission.CodeTooManyFields, tt.limit)
			}
		})
	}
}

// worstDocuments are the costliest documents to validate that the guard
// lets through, at the edge of each bound.
var worstDocuments = []struct{ name, query string }{
	{"141 __typename (9,870 pairs)", "{ " + strings.Repeat("__typename ", 141) + "}"},
	{"2 operations × 100 __typename", repeat(2, func(i int) string {
		return fmt.Sprintf("query Q%d { %s}", i, strings.Repeat("__typename ", 100))
	})},
	{"57 × items { nodes { id } }", "{ " + strings.Repeat("items { nodes { id } } ", 57) + "}"},
	{"33 aliased pages", "{ " + repeat(33, func(i int) string {
		return fmt.Sprintf("a%d: items(first: 1) { nodes { id name } pageInfo { hasNextPage endCursor } }", i)
	}) + "}"},
}

// TestWorstDocumentsAdmitted: the worst documents the bounds let through
// are admitted, so the benchmark measures what a client can make the
// gateway validate.
func TestWorstDocumentsAdmitted(t *testing.T) {
	limits := admission.Limits{MaxAliases: 40}.WithDefaults()
	for _, tt := range worstDocuments {
		doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: tt.query}, limits.MaxTokens)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if v := admission.Check(doc, limits, true); v != nil {
			t.Errorf("%s: refused, %v", tt.name, v)
		}
	}
}

// BenchmarkValidateWorstDocument measures gqlparser's validation of the
// worst documents the guard admits, against the served schema: each
// should take about a millisecond, where 4 × 999 __typename took 143 ms.
func BenchmarkValidateWorstDocument(b *testing.B) {
	schema := graph.ServedSchema()
	for _, tt := range worstDocuments {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				doc, err := parser.ParseQuery(&ast.Source{Input: tt.query})
				if err != nil {
					b.Fatal(err)
				}
				validator.ValidateWithRules(schema, doc, ValidationRules(false))
			}
		})
	}
}

// TestValidationCostLogged logs how long the worst admitted documents
// take to validate once, for the record; it asserts nothing of time.
func TestValidationCostLogged(t *testing.T) {
	schema := graph.ServedSchema()
	for _, tt := range worstDocuments {
		doc, _ := parser.ParseQuery(&ast.Source{Input: tt.query})
		start := time.Now()
		validator.ValidateWithRules(schema, doc, ValidationRules(false))
		t.Logf("%s: %d bytes, validated in %v", tt.name, len(tt.query), time.Since(start))
	}
}
