package documents

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/catalogue-gateway/gateway/internal/memory"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// TestDocumentsParseOnce: a query text is parsed, measured and validated
// once however often it is looked up, and gqlgen's executor is handed the
// parse of a valid one (and none for an invalid one, which it parses to
// report).
func TestDocumentsParseOnce(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: `type Query { a: Int b: Int }`})
	docs := NewStore(schema, admission.Limits{MaxTokens: 1000, MaxDepth: 5, MaxFields: 3}.WithDefaults(), true, 1<<20)
	cache := queryCache{docs}
	ctx := context.Background()

	const valid, invalid, tooWide, broken = `{ a b }`, `{ c }`, `{ a b x: a y: b }`, `{ a`
	for range 3 {
		for _, q := range []string{valid, invalid, tooWide, broken} {
			docs.Lookup(q)
		}
	}
	if docs.parses != 4 {
		t.Errorf("%d parses for 4 texts looked up 3 times each, want 4", docs.parses)
	}
	if doc, ok := cache.Get(ctx, valid); !ok || doc != docs.Lookup(valid).Parsed {
		t.Errorf("gqlgen's cache: %v, %t for a valid query; want its parse", doc, ok)
	}
	for _, q := range []string{invalid, tooWide, broken} {
		if _, ok := cache.Get(ctx, q); ok {
			t.Errorf("gqlgen's cache gave a document for %q, want none: gqlgen must report it", q)
		}
	}
	if v := docs.Lookup(tooWide).Verdict; v == nil || v.Code != admission.CodeTooManyFields {
		t.Errorf("verdict on %q: %v, want %s", tooWide, v, admission.CodeTooManyFields)
	}
	if docs.Lookup(valid).Verdict != nil || docs.Lookup(broken).Parsed != nil {
		t.Errorf("a valid query refused, or a broken one parsed")
	}
}

// TestDocumentsBounded: what the documents are charged never passes
// their share, the oldest are let go first, and the evictions are
// counted.
func TestDocumentsBounded(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: `type Query { a: Int b: Int }`})
	const share = 256 << 10
	docs := NewStore(schema, admission.Limits{MaxTokens: 1 << 20}.WithDefaults(), true, share)
	var last string
	for i := range 200 {
		last = fmt.Sprintf("query Q%d { a b x: a y: b }", i)
		docs.Lookup(last)
		if st := docs.Stats(); st.Bytes > share {
			t.Fatalf("after %d texts the documents are charged %d bytes, over their share %d", i+1, st.Bytes, share)
		}
	}
	st := docs.Stats()
	if st.Evictions == 0 || st.Entries >= 200 {
		t.Errorf("200 valid documents in %d bytes: %+v; want some let go, and counted", share, st)
	}
	if _, ok := docs.entries.Peek(docKey{text: last}); !ok {
		t.Errorf("the newest text was let go")
	}
	if _, ok := docs.entries.Peek(docKey{text: "query Q0 { a b x: a y: b }"}); ok {
		t.Errorf("the oldest text is still kept")
	}
}

// TestRefusedTextsKeepOnlyTheirVerdict: 1,000 distinct refused 10 KB
// texts (the attack of issue 22, which held a gigabyte of parses) leave
// the documents charged their verdicts only, a few hundred bytes each,
// and a refused text is still refused, without a parse, when it comes
// back.
func TestRefusedTextsKeepOnlyTheirVerdict(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: `type Query { abcdefgh: Int }`})
	docs := NewStore(schema, admission.Limits{}.WithDefaults(), true, 64<<20)
	text := func(i int) string {
		return fmt.Sprintf("# %d\n{ %s}", i, strings.Repeat("abcdefgh ", 1130)) // 10 KB, 1,130 fields
	}
	for i := range 1000 {
		doc := docs.Lookup(text(i))
		if doc.Verdict == nil || doc.Verdict.Code != admission.CodeTooManyFields || doc.Parsed != nil {
			t.Fatalf("text %d: verdict %v, parse %v; want TOO_MANY_FIELDS and no parse", i, doc.Verdict, doc.Parsed)
		}
	}
	st := docs.Stats()
	if st.Entries != 1000 || st.Bytes > 1000*400 {
		t.Errorf("1,000 refused texts: %+v; want 1,000 entries of at most 400 bytes each", st)
	}
	parses := docs.parses
	if v := docs.Lookup(text(7)).Verdict; v == nil || docs.parses != parses {
		t.Errorf("a refused text seen again: verdict %v, parsed again %t", v, docs.parses != parses)
	}
	for k := range docs.entries.All() {
		if k.text != "" {
			t.Fatalf("a refused text is kept as a key")
		}
	}
}

// TestParseSizeTracksTheHeap: parseSize, what a parse is charged, is
// within a fifth of what the parses add to the live heap, measured by
// the runtime over many documents of several shapes.
func TestParseSizeTracksTheHeap(t *testing.T) {
	shapes := []func(i int) string{
		func(i int) string { return fmt.Sprintf("{ a%d %s}", i, strings.Repeat("b ", 500)) },
		func(i int) string {
			return fmt.Sprintf(`query Q%d($id: Int!, $s: [String!] = ["x\ty"]) { item(id: $id) @include(if: true) { id name drops { item { id name } } } }`, i)
		},
		func(i int) string {
			return fmt.Sprintf("# comment %d\nquery { ...F ... on Query { x: a } }\nfragment F on Query { a b { c(d: {e: [1, 2, 3], f: \"g\"}) } }", i)
		},
	}
	for n, shape := range shapes {
		const count = 300
		texts := make([]string, count)
		for i := range texts {
			texts[i] = shape(i)
		}
		var before, after runtime.MemStats
		// Two collections each time: what survives exactly one (sync.Pool's
		// victim caches, what waits on a finalizer) would otherwise be in
		// one measurement and not the other (see engine's
		// TestDocumentChargeTracksTheHeap).
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		docs := make([]*ast.QueryDocument, count)
		for i, text := range texts {
			doc, err := parser.ParseQuery(&ast.Source{Input: text})
			if err != nil {
				t.Fatal(err)
			}
			docs[i] = doc
		}
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&after)
		var charged int64
		for _, doc := range docs {
			charged += parseSize(doc) + memory.HeapSize(int64(unsafe.Sizeof(ast.Source{})))
		}
		grown := int64(after.HeapAlloc) - int64(before.HeapAlloc) - memory.HeapSize(int64(count*8))
		runtime.KeepAlive(docs)
		t.Logf("shape %d: charged %d bytes a parse, the heap grew %d", n, charged/count, grown/count)
		if ratio := float64(charged) / float64(grown); ratio < 0.8 || ratio > 1.25 {
			t.Errorf("shape %d: parseSize charged %d bytes for parses that hold %d (ratio %.2f, want 0.8-1.25)", n, charged, grown, ratio)
		}
	}
}

// TestMemoChargesItsDocument: what a valid document's memo keeps is
// charged to the document, in the documents' store (the memo's own
// behaviour is tested in package execution).
func TestMemoChargesItsDocument(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: `type Query { a: Int }`})
	docs := NewStore(schema, admission.Limits{MaxTokens: 1000, MaxDepth: 5, MaxFields: 3}.WithDefaults(), true, 1<<20)
	m := docs.Lookup(`{ a }`).Memo
	if m == nil {
		t.Fatal("a valid document has no memo")
	}
	before := docs.Stats().Bytes
	m.Store("plan", 1, 100)
	// 100 bytes, and the entry's map slot (two interfaces).
	if got := docs.Stats().Bytes - before; got < 100 || got > 100+64 {
		t.Errorf("the document was charged %d bytes for an entry of 100", got)
	}
}
