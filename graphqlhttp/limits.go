package graphqlhttp

import (
	"context"
	"fmt"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
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
	// fragment spread twice counts twice). Default 1000.
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

	// noIntrospection refuses __schema and __type; New sets it from
	// Options.Introspection.
	noIntrospection bool
}

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = 64 << 10
	}
	def(&l.MaxURLBytes, 8<<10)
	def(&l.MaxTokens, 5000)
	def(&l.MaxDepth, 10)
	def(&l.MaxIntrospectionDepth, 15)
	def(&l.MaxFields, 1000)
	def(&l.MaxAliases, 30)
	def(&l.MaxDirectives, 20)
	def(&l.MaxComplexity, 100000)
	def(&l.MaxResponseBytes, 8<<20)
	return l
}

// Error codes of requests refused by a limit, in extensions.code.
const (
	CodeBodyTooLarge     = "BODY_TOO_LARGE"
	CodeURLTooLong       = "URL_TOO_LONG"
	CodeBadRequest       = "BAD_REQUEST"
	CodeUnsupportedMedia = "UNSUPPORTED_MEDIA_TYPE"
	CodeMethodNotAllowed = "METHOD_NOT_ALLOWED"
	CodeBatching         = "BATCHING_NOT_SUPPORTED"
	CodeTooDeep          = "QUERY_TOO_DEEP"
	CodeTooManyFields    = "TOO_MANY_FIELDS"
	CodeTooManyAliases   = "TOO_MANY_ALIASES"
	CodeTooManyDirective = "TOO_MANY_DIRECTIVES"
	CodeFragmentCycle    = "FRAGMENT_CYCLE"
	CodeTooComplex       = "COMPLEXITY_LIMIT_EXCEEDED"
	CodeNoIntrospection  = "INTROSPECTION_DISABLED"
	CodeTooManyErrors    = "TOO_MANY_ERRORS"
	CodeTimeout          = "REQUEST_TIMEOUT"
	CodeResponseTooLarge = "RESPONSE_TOO_LARGE"
	CodeTooManyStreams   = "TOO_MANY_SUBSCRIPTIONS"
	CodeStreamsOff       = "SUBSCRIPTIONS_DISABLED"
	CodeInternal         = "INTERNAL_SERVER_ERROR"
)

// limitError is a query refused by a limit: its code, which limit (for
// metrics), and a short message that echoes nothing of the request.
type limitError struct {
	code, limit, message string
}

func (e *limitError) Error() string { return e.message }

// shape is what the guard measures of a selection set, fragments expanded.
type shape struct {
	depth, introspectionDepth   int
	fields, aliases, directives int
}

// checkQuery parses query on its own and measures it against the limits,
// before gqlgen validates it, because validating some queries is itself the
// danger. Fragments that each spread the next twice expand to 2^n fields:
// gqlparser's validation and gqlgen's complexity count walk every one of
// them, with no deadline. And gqlparser has overflowed the stack on a
// self-spread nested inside its fragment (an upstream bug: the version
// pinned here survives it, and the guard keeps it so whatever the version),
// which no recover can catch. The measurer counts each fragment once, so
// neither costs it more than the query's length. A query that does not
// parse is left for gqlgen to report.
func checkQuery(query string, l Limits) *limitError {
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, l.MaxTokens)
	if err != nil {
		return nil
	}
	return checkDocument(doc, l)
}

// checkDocument measures a parsed query against the limits (see
// checkQuery).
func checkDocument(doc *ast.QueryDocument, l Limits) *limitError {
	frags := map[string]*ast.FragmentDefinition{}
	for _, f := range doc.Fragments {
		if _, dup := frags[f.Name]; !dup {
			frags[f.Name] = f
		}
	}
	if cyclic(frags) {
		return &limitError{CodeFragmentCycle, "fragment_cycle", "fragments must not spread themselves, directly or through others"}
	}
	m := measurer{frags: frags, memo: map[string]shape{}}
	for _, op := range doc.Operations {
		s := m.selections(op.SelectionSet)
		s.directives = add(s.directives, len(op.Directives))
		for _, v := range op.VariableDefinitions {
			s.directives = add(s.directives, len(v.Directives))
		}
		switch {
		case l.noIntrospection && s.introspectionDepth > 0:
			return &limitError{CodeNoIntrospection, "introspection", "introspection is disabled on this server"}
		case s.depth > l.MaxDepth:
			return &limitError{CodeTooDeep, "depth", fmt.Sprintf("the query nests %d levels deep; at most %d are allowed", s.depth, l.MaxDepth)}
		case s.introspectionDepth > l.MaxIntrospectionDepth:
			return &limitError{CodeTooDeep, "introspection_depth", fmt.Sprintf("the introspection query nests %d levels deep; at most %d are allowed", s.introspectionDepth, l.MaxIntrospectionDepth)}
		case s.fields > l.MaxFields:
			return &limitError{CodeTooManyFields, "fields", fmt.Sprintf("the query selects more than %d fields, fragments expanded", l.MaxFields)}
		case s.aliases > l.MaxAliases:
			return &limitError{CodeTooManyAliases, "aliases", fmt.Sprintf("the query uses more than %d aliases", l.MaxAliases)}
		case s.directives > l.MaxDirectives:
			return &limitError{CodeTooManyDirective, "directives", fmt.Sprintf("the query uses more than %d directives", l.MaxDirectives)}
		}
	}
	return nil
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
			fs, ok := m.memo[f.Name]
			if !ok {
				if def, known := m.frags[f.Name]; known {
					fs = m.selections(def.SelectionSet)
					fs.directives = add(fs.directives, len(def.Directives))
				}
				m.memo[f.Name] = fs
			}
			child = fs
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

// guard is the gqlgen extension that measures a query before gqlgen parses
// and validates it (see checkQuery).
type guard struct{ e *endpoint }

func (guard) ExtensionName() string { return "QueryGuard" }

func (guard) Validate(graphql.ExecutableSchema) error { return nil }

func (g guard) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	err := g.e.docs.lookup(p.Query).verdict
	if err != nil {
		g.e.opts.Observer.Rejected(err.limit)
		gerr := &gqlerror.Error{Message: err.message}
		errcode.Set(gerr, err.code)
		return gerr
	}
	return nil
}
