// Package documents remembers what the endpoint learned of each query
// text (Store: parsed, measured against the limits and validated once,
// bounded by its share of the memory budget), pins the trusted
// documents of a manifest (Pinned, read by ParseManifest), keeps the
// automatic persisted queries' texts (PersistedQueries), and coerces
// variables and checks literals as the specification says (coerce.go).
//
// It imports admission (a text is measured against the limits before it
// is validated), internal/execution (a document's Memo) and
// internal/memory, nothing of the transport (package graphqlhttp), whose
// gqlgen extensions ask it.
package documents

import (
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/99designs/gqlgen/graphql"
	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/internal/memory"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/core"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// Store remembers what the endpoint learned of each query text. A
// valid text is kept with its parse, and with what is derived from it
// (its Memo: the engine's plans, the costs of its operations), under the
// text itself. A text that does not parse, is refused by a limit or is
// not valid keeps only that verdict, under the SHA-256 of the text: no
// text and no parse, so that a stream of distinct refused queries costs
// a few hundred bytes each rather than the megabyte a 10 KB parse weighs.
// A query is parsed and validated once while it is remembered, whoever
// asks: the guard, gqlgen's executor (QueryCache), the
// event streams, the cost limit and the engine.
//
// Entries are charged what they keep on the heap (parseSize, the text,
// the memo, the key and the LRU's own) against the documents' share of the
// memory budget; the least recently used go first.
type Store struct {
	schema *ast.Schema
	limits admission.Limits
	// introspection allows __schema and __type (Options.Introspection).
	introspection bool

	mu      sync.Mutex
	entries *memory.LRU[docKey, *Document]
	// parses counts the texts parsed, for tests.
	parses int

	// share is the documents' share of the memory budget: the pinned
	// documents' bytes first, the LRU's bound what remains.
	share int64
	// pinned are the trusted documents (see Pinned), kept whatever
	// other texts come, and found before the LRU's; nil when there is no
	// manifest.
	pinned atomic.Pointer[Pinned]
	// pins counts the sets pinned, to name each.
	pins atomic.Uint64
}

// docKey names an entry: a valid document by its text, any other by the
// digest of its text.
type docKey struct {
	text string
	sum  [sha256.Size]byte
}

// Document is what is known of one query text.
//
// A Document is shared by every request that brings its text: its
// fields are read, never written, once Lookup returns it.
type Document struct {
	// Parsed is the text's parse, kept only for a valid document.
	Parsed *ast.QueryDocument
	// Parses is set when the text parses; when it does not, gqlgen
	// reports why.
	Parses bool
	// Verdict is the limits' (admission.Check): nil within them.
	Verdict *admission.Refusal
	// Valid is set when the text passed gqlgen's validation, which then
	// need not run again.
	Valid bool
	// Memo holds what is derived from a valid document; nil for others.
	Memo *execution.Memo
	// InParts is set when a valid document carries @defer or @stream, so
	// that its answer may come in parts: found once, not per request.
	InParts bool
}

// Verdicts are shared by every entry that has them: only a limit's own
// message (with the measured figure) is made per text.
var (
	invalidDocument  = &Document{Parses: true}
	unparsedDocument = &Document{}
)

// verdictSize is what a kept refusal costs besides the LRU's overhead:
// the document, the refusal and its message.
func verdictSize(d *Document) int64 {
	n := memory.HeapSize(int64(unsafe.Sizeof(Document{})))
	if d.Verdict != nil {
		n += memory.HeapSize(int64(unsafe.Sizeof(admission.Refusal{}))) + memory.HeapSize(int64(len(d.Verdict.Message)))
	}
	return n
}

// NewStore returns an empty store validating against schema, measuring
// against limits (introspection allows __schema and __type), within
// maxBytes.
func NewStore(schema *ast.Schema, limits admission.Limits, introspection bool, maxBytes int64) *Store {
	return &Store{schema: schema, limits: limits, introspection: introspection, share: maxBytes,
		entries: memory.NewLRU[docKey, *Document](maxBytes)}
}

// ValidationRules are the rules the store and gqlgen's executor (its
// default rules, SetDefaultRulesFn) validate with: gqlparser's, with
// literals checked as the specification coerces them (valuesOfCorrectType)
// rather than as gqlparser does, and with graphql-js's "Did you mean"
// suggestions (of fields, arguments, types, enum values and input fields)
// exactly when suggest is set: the endpoint sets it when introspection is
// on, since a suggestion would let anyone map the schema with it off.
// Unknown types are reported by knownTypeNames, which suggests for a
// variable's type and a fragment's condition alike, as graphql-js does
// (gqlparser's rule suggests for named fragments only).
func ValidationRules(suggest bool) *rules.Rules {
	r := rules.NewDefaultRules()
	r.RemoveRule(rules.ValuesOfCorrectTypeRule.Name)
	literals := valuesOfCorrectType(suggest)
	r.AddRule(literals.Name, literals.RuleFunc)
	r.RemoveRule(rules.KnownTypeNamesRule.Name)
	types := knownTypeNames(suggest)
	r.AddRule(types.Name, types.RuleFunc)
	incremental := incrementalDelivery()
	r.AddRule(incremental.Name, incremental.RuleFunc)
	if suggest {
		return r
	}
	for _, swap := range []struct {
		with, without core.Rule
	}{
		{rules.FieldsOnCorrectTypeRule, rules.FieldsOnCorrectTypeRuleWithoutSuggestions},
		{rules.ScalarLeafsRule, rules.ScalarLeafsRuleWithoutSuggestions},
		{rules.KnownArgumentNamesRule, rules.KnownArgumentNamesRuleWithoutSuggestions},
	} {
		r.RemoveRule(swap.with.Name)
		r.AddRule(swap.without.Name, swap.without.RuleFunc)
	}
	return r
}

// Lookup returns what is known of query, parsing, measuring and
// validating it if it is new. The parse is outside the lock: two requests
// bringing the same new text at once may both parse it, and the first to
// finish is kept. Only a valid document comes back with its parse.
func (d *Store) Lookup(query string) *Document {
	if doc := d.pinnedDoc(query); doc != nil {
		return doc
	}
	d.mu.Lock()
	doc, ok := d.entries.Get(docKey{text: query})
	d.mu.Unlock()
	if ok {
		return doc
	}
	sum := docKey{sum: sha256.Sum256([]byte(query))}
	d.mu.Lock()
	doc, ok = d.entries.Get(sum)
	d.mu.Unlock()
	if ok {
		return doc
	}
	doc, size := d.examine(query)
	key := sum
	if doc.Valid {
		key = docKey{text: query}
		doc.Memo = execution.NewMemo(func(n int64) { d.charge(key, n) })
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.parses++
	if kept, ok := d.entries.Get(key); ok {
		return kept
	}
	d.entries.Add(key, doc, size+memory.LRUEntryOverhead(int64(unsafe.Sizeof(docKey{}))))
	return doc
}

// examine parses query, measures it, and validates what is within the
// limits: measuring comes first because validating some documents is
// itself the danger (see admission.Check). It returns what is to be kept of
// the text and what that costs.
func (d *Store) examine(query string) (*Document, int64) {
	parsed, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, d.limits.MaxTokens)
	if err != nil {
		return unparsedDocument, verdictSize(unparsedDocument)
	}
	if verdict := admission.Check(parsed, d.limits, d.introspection); verdict != nil {
		doc := &Document{Parses: true, Verdict: verdict}
		return doc, verdictSize(doc)
	}
	if len(parsed.Operations) == 0 || len(validator.ValidateWithRules(d.schema, parsed, ValidationRules(d.introspection))) > 0 {
		return invalidDocument, verdictSize(invalidDocument)
	}
	doc := &Document{Parsed: parsed, Parses: true, Valid: true, InParts: HasDeferOrStream(parsed)}
	// The parse points into the text (its Source, every name), so the
	// text is kept once, as the key.
	return doc, verdictSize(doc) + memory.HeapSize(int64(len(query))) + parseSize(parsed) +
		memory.HeapSize(int64(unsafe.Sizeof(execution.Memo{})))
}

// ForOperation returns the memo of the document oc runs: nil when the
// document is not kept, or oc holds another parse of its text (one gqlgen
// made after the kept one was let go).
func (d *Store) ForOperation(oc *graphql.OperationContext) *execution.Memo {
	if oc == nil || oc.Doc == nil {
		return nil
	}
	if doc := d.pinnedDoc(oc.RawQuery); doc != nil && doc.Parsed == oc.Doc {
		return doc.Memo
	}
	d.mu.Lock()
	doc, ok := d.entries.Peek(docKey{text: oc.RawQuery})
	d.mu.Unlock()
	if !ok || doc.Parsed != oc.Doc {
		return nil
	}
	return doc.Memo
}

// pinnedDoc is the pinned document of query, or nil.
func (d *Store) pinnedDoc(query string) *Document {
	if s := d.pinned.Load(); s != nil {
		if td := s.byText[query]; td != nil {
			return td.Doc
		}
	}
	return nil
}

// charge counts n more bytes against the entry of key, if it is kept.
func (d *Store) charge(key docKey, n int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.entries.Grow(key, n)
}

func (d *Store) Stats() memory.StoreStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.entries.Stats()
}

// Schema is the schema the store validates against.
func (d *Store) Schema() *ast.Schema { return d.schema }

// Pinned is the set of documents pinned, or nil.
func (d *Store) Pinned() *Pinned { return d.pinned.Load() }

// QueryCache is the store as gqlgen's executor's query cache
// (executor.SetQueryCache).
func (d *Store) QueryCache() graphql.Cache[*ast.QueryDocument] { return queryCache{d} }

// queryCache is documents as gqlgen's executor sees its query cache: it
// finds the valid documents, already parsed; the others it parses and
// validates itself, to report their errors as it does.
type queryCache struct{ d *Store }

var _ graphql.Cache[*ast.QueryDocument] = queryCache{}

func (c queryCache) Get(_ context.Context, query string) (*ast.QueryDocument, bool) {
	if doc := c.d.pinnedDoc(query); doc != nil {
		return doc.Parsed, true
	}
	c.d.mu.Lock()
	doc, ok := c.d.entries.Peek(docKey{text: query})
	c.d.mu.Unlock()
	if !ok || !doc.Valid {
		return nil, false
	}
	return doc.Parsed, true
}

// Add is called for a document gqlgen validated: one documents found
// invalid or never saw, which it keeps as it is.
func (queryCache) Add(context.Context, string, *ast.QueryDocument) {}

// Parses counts the texts the store has parsed: each once while it is
// remembered, which tests hold it to.
func (d *Store) Parses() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.parses
}

// knownTypeNames reports a type the schema does not have, named by a
// variable, an inline fragment or a fragment, in graphql-js's words: with
// the nearest type names when suggest is set.
func knownTypeNames(suggest bool) core.Rule {
	return core.Rule{Name: "KnownTypeNamesAsGraphQLJS", RuleFunc: func(observers *core.Events, addError core.AddErrFunc) {
		check := func(w *core.Walker, name string, at *ast.Position) {
			if name == "" || w.Schema.Types[name] != nil {
				return
			}
			msg := fmt.Sprintf("Unknown type \"%s\".", name)
			if suggest {
				msg += didYouMean("", name, slices.Sorted(maps.Keys(w.Schema.Types)))
			}
			addError(core.Message("%s", msg), core.At(at))
		}
		observers.OnVariable(func(w *core.Walker, v *ast.VariableDefinition) { check(w, v.Type.Name(), v.Position) })
		observers.OnInlineFragment(func(w *core.Walker, f *ast.InlineFragment) { check(w, f.TypeCondition, f.Position) })
		observers.OnFragment(func(w *core.Walker, f *ast.FragmentDefinition) { check(w, f.TypeCondition, f.Position) })
	}}
}
