// Package admission decides what an operation may ask and when it runs:
// the limits on a document's shape (Check: depth, fields, aliases,
// directives, fragment cycles, introspection), on its cost (Coster: the
// most JSON values its answer could hold), the queue that gives each
// operation a core in turns fair between clients (Queue), and each
// client's count of open streams (ClientStreams). Everything here is
// measured against a parsed document and a schema; nothing reads an HTTP
// request.
//
// It imports internal/execution (a document's memo, where a cost is kept)
// and internal/memory, nothing of the transport (package graphqlhttp),
// which asks it.
package admission

import (
	"fmt"
	"strings"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
)

// Limits bound what one request may ask. Each is checked before the query
// is validated or executed; zero means the default.
type Limits struct {
	// MaxBodyBytes bounds a POST body (413 beyond it). Default 64 KiB.
	MaxBodyBytes int64
	// MaxURLBytes bounds the request target of a GET (414 beyond it).
	// Default 8 KiB.
	MaxURLBytes int
	// MaxTokens bounds the tokens the parser reads. Default 5000.
	MaxTokens int
	// MaxDepth bounds how deeply selections nest, fragments expanded.
	// Introspection fields (__schema, __type) are measured apart against
	// MaxIntrospectionDepth, since the playground's own introspection
	// query nests deeper than any data query needs. Defaults 10 and 15.
	MaxDepth              int
	MaxIntrospectionDepth int
	// MaxFields bounds the fields of an operation, fragments expanded (a
	// fragment spread twice counts twice). Default 1000. A document may
	// hold twice as many selections in all, so that no new one costs
	// validation more than a few milliseconds (see Check).
	MaxFields int
	// MaxAliases bounds the aliased fields, fragments expanded. Default 30.
	MaxAliases int
	// MaxDirectives bounds the directives, fragments expanded. Default 20.
	MaxDirectives int
	// MaxComplexity bounds the operation's cost: the most JSON values
	// its answer could hold, lists counted at their longest (see
	// cost.go). Default 100000.
	MaxComplexity int

	// MaxResponseBytes bounds an answer's body: one that would be longer
	// is stopped while it is built and answered RESPONSE_TOO_LARGE, with
	// no data. Default 8 MiB.
	MaxResponseBytes int
}

// DefaultLimits are the limits a zero field of Limits takes: the one place
// each is stated (the gateway's flags default to them too).
func DefaultLimits() Limits {
	return Limits{
		MaxBodyBytes:          64 << 10,
		MaxURLBytes:           8 << 10,
		MaxTokens:             5000,
		MaxDepth:              10,
		MaxIntrospectionDepth: 15,
		MaxFields:             1000,
		MaxAliases:            30,
		MaxDirectives:         20,
		MaxComplexity:         100000,
		MaxResponseBytes:      8 << 20,
	}
}

// orDefault sets *v to d when *v is not above zero: an option or a limit
// left unset.
func orDefault[T int | int64 | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// WithDefaults is l with each field not above zero taken from
// DefaultLimits.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	orDefault(&l.MaxBodyBytes, d.MaxBodyBytes)
	orDefault(&l.MaxURLBytes, d.MaxURLBytes)
	orDefault(&l.MaxTokens, d.MaxTokens)
	orDefault(&l.MaxDepth, d.MaxDepth)
	orDefault(&l.MaxIntrospectionDepth, d.MaxIntrospectionDepth)
	orDefault(&l.MaxFields, d.MaxFields)
	orDefault(&l.MaxAliases, d.MaxAliases)
	orDefault(&l.MaxDirectives, d.MaxDirectives)
	orDefault(&l.MaxComplexity, d.MaxComplexity)
	orDefault(&l.MaxResponseBytes, d.MaxResponseBytes)
	return l
}

// Error codes of operations refused by a limit, in extensions.code.
const (
	CodeTooDeep          = "QUERY_TOO_DEEP"
	CodeTooManyFields    = "TOO_MANY_FIELDS"
	CodeTooManyAliases   = "TOO_MANY_ALIASES"
	CodeTooManyDirective = "TOO_MANY_DIRECTIVES"
	CodeFragmentCycle    = "FRAGMENT_CYCLE"
	CodeTooComplex       = "COMPLEXITY_LIMIT_EXCEEDED"
	CodeNoIntrospection  = "INTROSPECTION_DISABLED"
)

// Refusal is a query refused by a limit: its code, which limit (for
// metrics), and a short message that echoes nothing of the request.
type Refusal struct {
	Code, Limit, Message string
}

func (e *Refusal) Error() string { return e.Message }

// shape is what the guard measures of a selection set, fragments expanded.
type shape struct {
	depth, introspectionDepth   int
	fields, aliases, directives int
}

// Check measures a parsed query against the limits, before it is
// validated (the documents' store does so as it first reads a text), because validating some queries is
// itself the danger. Fragments that each spread the next twice expand to
// 2^n fields: gqlparser's validation and gqlgen's complexity count walk
// every one of them, with no deadline. And gqlparser has overflowed the
// stack on a self-spread nested inside its fragment (an upstream bug: the
// version pinned here survives it, and the guard keeps it so whatever the
// version), which no recover can catch. The measurer counts each fragment
// once, so neither costs it more than the query's length.
func Check(doc *ast.QueryDocument, l Limits, introspection bool) *Refusal {
	frags := map[string]*ast.FragmentDefinition{}
	for _, f := range doc.Fragments {
		if _, dup := frags[f.Name]; !dup {
			frags[f.Name] = f
		}
	}
	if cyclic(frags) {
		return &Refusal{CodeFragmentCycle, "fragment_cycle", "fragments must not spread themselves, directly or through others"}
	}
	if n := documentSelections(doc); n > 2*l.MaxFields {
		return &Refusal{CodeTooManyFields, "document_fields", fmt.Sprintf("the document holds more than %d selections in all its operations and fragments", 2*l.MaxFields)}
	}
	m := measurer{frags: frags, memo: map[string]shape{}}
	total := 0 // fields of every operation, fragments expanded
	for _, op := range doc.Operations {
		s := m.selections(op.SelectionSet)
		s.directives = add(s.directives, len(op.Directives))
		for _, v := range op.VariableDefinitions {
			s.directives = add(s.directives, len(v.Directives))
		}
		switch {
		case !introspection && s.introspectionDepth > 0:
			return &Refusal{CodeNoIntrospection, "introspection", "introspection is disabled on this server"}
		case s.depth > l.MaxDepth:
			return &Refusal{CodeTooDeep, "depth", fmt.Sprintf("the query nests %d levels deep; at most %d are allowed", s.depth, l.MaxDepth)}
		case s.introspectionDepth > l.MaxIntrospectionDepth:
			return &Refusal{CodeTooDeep, "introspection_depth", fmt.Sprintf("the introspection query nests %d levels deep; at most %d are allowed", s.introspectionDepth, l.MaxIntrospectionDepth)}
		case s.fields > l.MaxFields:
			return &Refusal{CodeTooManyFields, "fields", fmt.Sprintf("the query selects more than %d fields, fragments expanded", l.MaxFields)}
		case s.aliases > l.MaxAliases:
			return &Refusal{CodeTooManyAliases, "aliases", fmt.Sprintf("the query uses more than %d aliases", l.MaxAliases)}
		case s.directives > l.MaxDirectives:
			return &Refusal{CodeTooManyDirective, "directives", fmt.Sprintf("the query uses more than %d directives", l.MaxDirectives)}
		}
		if total = add(total, s.fields); total > 2*l.MaxFields {
			return &Refusal{CodeTooManyFields, "document_fields", fmt.Sprintf("the document's operations select more than %d fields together, fragments expanded", 2*l.MaxFields)}
		}
	}
	// Validation compares every two fields that share a response key in
	// one selection set (gqlparser's OverlappingFieldsCanBeMerged), with
	// what they select: 999 __typename in one set cost 36 ms of CPU, 4
	// such operations 143 ms. The pairs are counted first, each set's
	// fields measured at most MaxFields by now (an unused fragment is
	// measured here too, since validation walks it as well).
	sets := make([]ast.SelectionSet, 0, len(doc.Operations)+len(doc.Fragments))
	for _, op := range doc.Operations {
		sets = append(sets, op.SelectionSet)
	}
	fragmentFields := 0 // of every fragment, each expanded
	for _, f := range doc.Fragments {
		n := m.fragment(f.Name).fields
		if n > l.MaxFields {
			return &Refusal{CodeTooManyFields, "fields", fmt.Sprintf("the query selects more than %d fields, fragments expanded", l.MaxFields)}
		}
		// Validation walks each fragment expanded, so do the pairs
		// below: a thousand fragments spreading one large one would
		// cost a thousand times it. Fragments nested in fragments
		// count in each, hence more room than for the operations.
		if fragmentFields = add(fragmentFields, n); fragmentFields > 4*l.MaxFields {
			return &Refusal{CodeTooManyFields, "document_fields", fmt.Sprintf("the document's fragments select more than %d fields together, each expanded", 4*l.MaxFields)}
		}
		sets = append(sets, f.SelectionSet)
	}
	pairs := 0
	for _, set := range sets {
		if pairs = add(pairs, m.fieldPairs([]ast.SelectionSet{set}, maxFieldPairs-pairs)); pairs > maxFieldPairs {
			return &Refusal{CodeTooManyFields, "field_pairs", "the document selects the same field too many times in one selection set, fragments expanded"}
		}
	}
	return nil
}

// maxFieldPairs bounds the pairs of same-named fields validation compares
// in a document: 10,000 pairs (141 __typename in one set) take it about a
// millisecond (BenchmarkValidateWorstDocument). A usual query has none or
// a few, from fragments that select a field also selected beside them.
const maxFieldPairs = 10000

// documentSelections counts the selections written in a document, every
// operation and fragment, fragments not expanded: what validation walks
// at least once, whatever the operations spread.
func documentSelections(doc *ast.QueryDocument) int {
	var count func(set ast.SelectionSet) int
	count = func(set ast.SelectionSet) int {
		n := len(set)
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				n += count(s.SelectionSet)
			case *ast.InlineFragment:
				n += count(s.SelectionSet)
			}
		}
		return n
	}
	n := 0
	for _, op := range doc.Operations {
		n += count(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		n += count(f.SelectionSet)
	}
	return n
}

// fragment measures the fragment of that name, once.
func (m measurer) fragment(name string) shape {
	fs, ok := m.memo[name]
	if !ok {
		if def, known := m.frags[name]; known {
			fs = m.selections(def.SelectionSet)
			fs.directives = add(fs.directives, len(def.Directives))
		}
		m.memo[name] = fs
	}
	return fs
}

// fieldPairs counts the pairs of fields sharing a response key in the
// selection sets given (one set, or the sets of same-keyed fields, which
// validation compares with one another), inline fragments and fragments
// expanded, and then the pairs among what each key's fields select,
// merged. It stops once past limit. The sets are those of an operation or
// a fragment already measured within MaxFields, but spreads of a fragment
// that is not defined measure as nothing and still double at every level
// (found by fuzzing: 36 levels hung the walk), so every selection walked
// counts against limit too.
func (m measurer) fieldPairs(sets []ast.SelectionSet, limit int) int {
	counts := map[string]int{}
	subsets := map[string][]ast.SelectionSet{}
	walked := 0
	var collect func(set ast.SelectionSet)
	collect = func(set ast.SelectionSet) {
		for _, sel := range set {
			if walked++; walked > limit {
				return
			}
			switch s := sel.(type) {
			case *ast.Field:
				key := s.Alias
				if key == "" {
					key = s.Name
				}
				counts[key]++
				if len(s.SelectionSet) > 0 {
					subsets[key] = append(subsets[key], s.SelectionSet)
				}
			case *ast.InlineFragment:
				collect(s.SelectionSet)
			case *ast.FragmentSpread:
				if def, ok := m.frags[s.Name]; ok {
					collect(def.SelectionSet)
				}
			}
		}
	}
	for _, set := range sets {
		collect(set)
	}
	if walked > limit {
		return walked
	}
	pairs := 0
	for _, k := range counts {
		if pairs = add(pairs, k*(k-1)/2); pairs > limit {
			return pairs
		}
	}
	for _, sub := range subsets {
		if pairs = add(pairs, m.fieldPairs(sub, limit-pairs)); pairs > limit {
			return pairs
		}
	}
	return pairs
}

// cyclic reports whether any fragment spreads itself, directly or through
// other fragments.
func cyclic(frags map[string]*ast.FragmentDefinition) bool {
	const (
		unseen = iota
		visiting
		done
	)
	state := map[string]int{}
	var visit func(name string) bool
	visit = func(name string) bool {
		switch state[name] {
		case visiting:
			return true
		case done:
			return false
		}
		f, ok := frags[name]
		if !ok {
			return false // unknown fragment: validation reports it
		}
		state[name] = visiting
		for _, spread := range spreads(f.SelectionSet, nil) {
			if visit(spread) {
				return true
			}
		}
		state[name] = done
		return false
	}
	for name := range frags {
		if visit(name) {
			return true
		}
	}
	return false
}

// spreads lists the fragment names spread anywhere in a selection set.
func spreads(set ast.SelectionSet, out []string) []string {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			out = spreads(s.SelectionSet, out)
		case *ast.InlineFragment:
			out = spreads(s.SelectionSet, out)
		case *ast.FragmentSpread:
			out = append(out, s.Name)
		}
	}
	return out
}

// measurer measures selection sets, each fragment once: the fragments are
// known to be acyclic, and the memo keeps a fragment spread many times
// (even exponentially many, through other fragments) cheap to measure.
// Counts saturate rather than overflow.
type measurer struct {
	frags map[string]*ast.FragmentDefinition
	memo  map[string]shape
}

// saturated is where counts and costs stop: no count overflows, whatever
// a query multiplies, and any limit is far below it.
const saturated = 1 << 40

func add(a, b int) int { return min(a+b, saturated) }

func (m measurer) selections(set ast.SelectionSet) shape {
	var s shape
	for _, sel := range set {
		var child shape
		switch f := sel.(type) {
		case *ast.Field:
			child = m.selections(f.SelectionSet)
			child.fields = add(child.fields, 1)
			child.directives = add(child.directives, len(f.Directives))
			if f.Alias != "" && f.Alias != f.Name {
				child.aliases = add(child.aliases, 1)
			}
			if strings.HasPrefix(f.Name, "__") && f.Name != "__typename" {
				// Introspection is measured apart: its own depth,
				// and none of the data depth. (__typename is a
				// leaf of the data, which clients add to every
				// selection.)
				child.introspectionDepth = max(child.introspectionDepth, child.depth) + 1
				child.depth = 0
			} else {
				child.depth++
				if child.introspectionDepth > 0 {
					child.introspectionDepth++
				}
			}
		case *ast.InlineFragment:
			child = m.selections(f.SelectionSet)
			child.directives = add(child.directives, len(f.Directives))
		case *ast.FragmentSpread:
			child = m.fragment(f.Name)
			child.directives = add(child.directives, len(f.Directives))
		}
		s.depth = max(s.depth, child.depth)
		s.introspectionDepth = max(s.introspectionDepth, child.introspectionDepth)
		s.fields = add(s.fields, child.fields)
		s.aliases = add(s.aliases, child.aliases)
		s.directives = add(s.directives, child.directives)
	}
	return s
}
