package graphqlhttp

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/catalogue-gateway/gateway/graphqlhttp/documents"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/99designs/gqlgen/graphql"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// preparing is an Executor that prepares: it keeps a mark in the memo for
// each operation and set of Booleans it is asked to prepare, and counts
// the runs that found their mark (prepared before) and those that did not.
type preparing struct {
	mu             sync.Mutex
	prepared       int
	found, missing int
}

type preparedMark struct{ name, vars string }

func markOf(oc *graphql.OperationContext) preparedMark {
	return preparedMark{oc.OperationName, fmt.Sprint(oc.Variables["flag"])}
}

func (p *preparing) Prepare(oc *graphql.OperationContext, memo *execution.Memo) {
	p.mu.Lock()
	p.prepared++
	p.mu.Unlock()
	memo.Store(markOf(oc), true, 64)
}

func (p *preparing) Execute(_ context.Context, oc *graphql.OperationContext, memo *execution.Memo, _ int) (execution.Answer, error) {
	_, ok := memo.Load(markOf(oc))
	p.mu.Lock()
	defer p.mu.Unlock()
	if ok {
		p.found++
	} else {
		p.missing++
	}
	return execution.Answer{}, execution.ErrDeclined
}

// TestTrustedDocumentsReadyAtLoad: the manifest's documents are parsed,
// measured and validated once, when it is loaded, and each operation is
// prepared by the Executor (for its name, none when it is the document's
// only one, and each value of its Boolean variables); asked for later,
// however many other texts came between, none is parsed again, and its
// memo is the one prepared. Pinned, they are charged to the documents'
// share first, and no other text evicts them.
func TestTrustedDocumentsReadyAtLoad(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: `type Query { a: Int b: Int }`})
	const share = 64 << 10
	exec := &preparing{}
	e := &endpoint{opts: Options{Executor: exec, TrustedDocuments: NewTrustedDocuments(TrustedEnforce, documents.Manifest{})},
		docs: documents.NewStore(schema, admission.Limits{MaxTokens: 1 << 20}.WithDefaults(), true, share)}
	const one, flagged = `query One { a }`, `query Flagged($flag: Boolean!) { a b @include(if: $flag) }`
	m := documents.Manifest{Documents: []documents.ManifestDocument{{ID: "1", Body: one}, {ID: "2", Body: flagged}, {ID: "3", Body: one}}}
	s, err := e.prepareTrusted(m)
	if err != nil {
		t.Fatal(err)
	}
	e.docs.Pin(s)
	if e.docs.Parses() != 2 {
		t.Errorf("%d parses loading 2 texts (one listed twice), want 2", e.docs.Parses())
	}
	// One: named and unnamed; Flagged: the same, each with true and false.
	if exec.prepared != 2+4 {
		t.Errorf("%d operations prepared, want 6", exec.prepared)
	}

	// Other texts, enough to evict many times over what the LRU holds.
	for i := range 500 {
		e.docs.Lookup(fmt.Sprintf("query Q%d { a b x: a y: b }", i))
	}
	if st := e.docs.Stats(); st.Evictions == 0 || st.Bytes+e.docs.PinnedStats().Bytes > share {
		t.Errorf("the LRU: %+v beside %d bytes pinned; want evictions, and both within the %d share", st, e.docs.PinnedStats().Bytes, share)
	}
	parses := e.docs.Parses()
	for _, c := range []struct {
		text, name string
		vars       map[string]any
	}{
		{one, "", nil}, {one, "One", nil},
		{flagged, "Flagged", map[string]any{"flag": true}}, {flagged, "", map[string]any{"flag": false}},
	} {
		doc := e.docs.Lookup(c.text)
		if !doc.Valid || doc.Memo == nil || s.ByText(c.text).Doc != doc {
			t.Fatalf("%q: %+v, want the pinned document", c.text, doc)
		}
		oc := &graphql.OperationContext{RawQuery: c.text, Doc: doc.Parsed, Operation: doc.Parsed.Operations.ForName(c.name),
			OperationName: c.name, Variables: c.vars}
		exec.Execute(context.Background(), oc, e.docs.ForOperation(oc), 0)
	}
	if e.docs.Parses() != parses {
		t.Errorf("listed texts parsed again: %d parses, want %d", e.docs.Parses(), parses)
	}
	if exec.found != 4 || exec.missing != 0 {
		t.Errorf("runs found %d prepared operations and missed %d; want 4 and 0", exec.found, exec.missing)
	}
	if st := e.docs.PinnedStats(); st.Entries != 2 || st.Bytes < int64(len(one)+len(flagged)) {
		t.Errorf("the trusted documents' store: %+v", st)
	}
}

// TestUnlistedLoggedBounded: in log mode each unlisted document is logged
// once, and at most documents.MaxUnlistedNoted of them, then one line says the rest
// are counted only.
func TestUnlistedLoggedBounded(t *testing.T) {
	logs := &lines{}
	e := &endpoint{opts: Options{Logger: slog.New(logs)}}
	s := &documents.Pinned{}
	ctx := context.Background()
	for i := range documents.MaxUnlistedNoted + 50 {
		for range 2 {
			e.noteUnlisted(ctx, s, &graphql.RawParams{Query: fmt.Sprintf("{ a%d }", i)})
		}
	}
	if n, more := logs.count("does not list"), logs.count("more unlisted documents"); n != documents.MaxUnlistedNoted || more != 1 {
		t.Errorf("logged %d documents and %d notes of more, want %d and 1", n, more, documents.MaxUnlistedNoted)
	}
}

// lines counts the messages logged through it.
type lines struct {
	mu   sync.Mutex
	msgs []string
}

func (l *lines) Enabled(context.Context, slog.Level) bool { return true }
func (l *lines) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *lines) WithGroup(string) slog.Handler            { return l }
func (l *lines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Message)
	return nil
}

func (l *lines) count(part string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.msgs {
		if strings.Contains(m, part) {
			n++
		}
	}
	return n
}
