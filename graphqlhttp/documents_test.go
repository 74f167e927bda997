package graphqlhttp

import (
	"context"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// TestDocumentsParseOnce: a query text is parsed, measured and validated
// once however often it is looked up, and gqlgen's executor is handed the
// parse of a valid one (and none for an invalid one, which it parses to
// report).
func TestDocumentsParseOnce(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: `type Query { a: Int b: Int }`})
	docs := newDocuments(schema, Limits{MaxTokens: 1000, MaxDepth: 5, MaxFields: 3}.withDefaults())
	cache := queryCache{docs}
	ctx := context.Background()

	const valid, invalid, tooWide, broken = `{ a b }`, `{ c }`, `{ a b x: a y: b }`, `{ a`
	for range 3 {
		for _, q := range []string{valid, invalid, tooWide, broken} {
			docs.lookup(q)
		}
	}
	if docs.parses != 4 {
		t.Errorf("%d parses for 4 texts looked up 3 times each, want 4", docs.parses)
	}
	if doc, ok := cache.Get(ctx, valid); !ok || doc != docs.lookup(valid).parsed {
		t.Errorf("gqlgen's cache: %v, %t for a valid query; want its parse", doc, ok)
	}
	for _, q := range []string{invalid, tooWide, broken} {
		if _, ok := cache.Get(ctx, q); ok {
			t.Errorf("gqlgen's cache gave a document for %q, want none: gqlgen must report it", q)
		}
	}
	if v := docs.lookup(tooWide).verdict; v == nil || v.code != CodeTooManyFields {
		t.Errorf("verdict on %q: %v, want %s", tooWide, v, CodeTooManyFields)
	}
	if docs.lookup(valid).verdict != nil || docs.lookup(broken).parsed != nil {
		t.Errorf("a valid query refused, or a broken one parsed")
	}
}

// TestDocumentsBounded: the texts held stay within their bound in bytes,
// the oldest let go first.
func TestDocumentsBounded(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: `type Query { a: Int }`})
	docs := newDocuments(schema, Limits{MaxTokens: 1 << 20}.withDefaults())
	pad := strings.Repeat(" ", maxDocumentBytes/4)
	for i := range 10 {
		docs.lookup("{ a }" + pad + strings.Repeat(" ", i))
	}
	if docs.bytes > maxDocumentBytes || docs.entries.Len() > 4 {
		t.Errorf("%d texts of %d bytes held, want at most %d bytes", docs.entries.Len(), docs.bytes, maxDocumentBytes)
	}
	if _, ok := docs.entries.Peek("{ a }" + pad + strings.Repeat(" ", 9)); !ok {
		t.Errorf("the newest text was let go")
	}
}
