package graphqlhttp

import (
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	lru "github.com/hashicorp/golang-lru/v2/simplelru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// documents remembers what the endpoint learned of each query text: its
// parse, the guard's verdict on it and whether it is valid against the
// schema. A query is parsed and validated once while it is remembered,
// whoever asks: the guard, gqlgen's executor (documents is its query
// cache) and the event streams, and the engine finds its plan by the
// parsed document itself. The texts are the keys, held in a map (not
// digested with a cryptographic hash); they are bounded in number and in
// bytes.
type documents struct {
	schema *ast.Schema
	limits Limits
	rules  func() *rules.Rules

	mu      sync.Mutex
	entries *lru.LRU[string, *document]
	bytes   int // of the texts held
	// parses counts the texts parsed, for tests.
	parses int
}

// document is what is known of one query text.
type document struct {
	// parsed is the text parsed within the token limit; nil when it does
	// not parse, which gqlgen then reports.
	parsed *ast.QueryDocument
	// verdict is the guard's: nil within the limits.
	verdict *limitError
	// valid is set when parsed passed gqlgen's validation, which then
	// need not run again.
	valid bool
}

const (
	maxDocuments     = 1000
	maxDocumentBytes = 16 << 20
)

func newDocuments(schema *ast.Schema, limits Limits) *documents {
	d := &documents{schema: schema, limits: limits, rules: validationRules}
	d.entries, _ = lru.NewLRU(maxDocuments, func(query string, _ *document) { d.bytes -= len(query) })
	return d
}

// validationRules are the rules documents and gqlgen's executor (its
// default rules, SetDefaultRulesFn) validate with: gqlparser's, without
// suggestions ("did you mean" would let anyone map the schema with
// introspection off), and with literals checked as the specification
// coerces them (valuesOfCorrectType, coerce.go) rather than as gqlparser
// does.
func validationRules() *rules.Rules {
	r := rules.NewDefaultRules()
	r.RemoveRule("FieldsOnCorrectType")
	r.AddRule(rules.FieldsOnCorrectTypeRuleWithoutSuggestions.Name, rules.FieldsOnCorrectTypeRuleWithoutSuggestions.RuleFunc)
	r.RemoveRule("ScalarLeafs")
	r.AddRule(rules.ScalarLeafsRuleWithoutSuggestions.Name, rules.ScalarLeafsRuleWithoutSuggestions.RuleFunc)
	r.RemoveRule(rules.ValuesOfCorrectTypeRule.Name)
	r.AddRule(valuesOfCorrectType.Name, valuesOfCorrectType.RuleFunc)
	return r
}

// lookup returns what is known of query, parsing, measuring and
// validating it if it is new. The parse is outside the lock: two requests
// bringing the same new text at once may both parse it, and the first to
// finish is kept.
func (d *documents) lookup(query string) *document {
	d.mu.Lock()
	doc, ok := d.entries.Get(query)
	d.mu.Unlock()
	if ok {
		return doc
	}
	doc = d.examine(query)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.parses++
	if kept, ok := d.entries.Get(query); ok {
		return kept
	}
	if len(query) > maxDocumentBytes {
		return doc
	}
	for d.bytes+len(query) > maxDocumentBytes {
		d.entries.RemoveOldest()
	}
	d.entries.Add(query, doc)
	d.bytes += len(query)
	return doc
}

// examine parses query, measures it, and validates what is within the
// limits: measuring comes first because validating some documents is
// itself the danger (see checkQuery).
func (d *documents) examine(query string) *document {
	parsed, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, d.limits.MaxTokens)
	if err != nil {
		return &document{}
	}
	doc := &document{parsed: parsed, verdict: checkDocument(parsed, d.limits)}
	if doc.verdict == nil && len(parsed.Operations) > 0 {
		doc.valid = len(validator.ValidateWithRules(d.schema, parsed, d.rules())) == 0
	}
	return doc
}

// queryCache is documents as gqlgen's executor sees its query cache: it
// finds the valid documents, already parsed; the others it parses and
// validates itself, to report their errors as it does.
type queryCache struct{ d *documents }

var _ graphql.Cache[*ast.QueryDocument] = queryCache{}

func (c queryCache) Get(_ context.Context, query string) (*ast.QueryDocument, bool) {
	c.d.mu.Lock()
	doc, ok := c.d.entries.Peek(query)
	c.d.mu.Unlock()
	if !ok || !doc.valid {
		return nil, false
	}
	return doc.parsed, true
}

// Add is called for a document gqlgen validated: one documents found
// invalid or never saw, which it keeps as it is.
func (queryCache) Add(context.Context, string, *ast.QueryDocument) {}
