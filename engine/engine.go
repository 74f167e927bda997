// Package engine executes the catalogue's GraphQL queries: every query the
// schema allows but introspection (and @defer, which gqlgen streams),
// answered as gqlgen's generated executor answers it, byte for byte,
// field errors included, several times faster.
//
// gqlgen still parses, validates and measures every operation; the engine
// only executes. It compiles a plan once per document: which root field
// each selection calls, and for every object below, which struct field,
// reference or reverse relation each selected field reads and how its
// value is written. A run then resolves the references of each level of
// the query in one batch per kind, through the request's dataloaders
// (loader.LoadMany), and writes the answer in one buffer.
//
// Why: gqlgen's executor makes a field context, a context and a marshaler
// per value and a goroutine per list element, about 20 allocations per
// value of an answer; a nested page of 2,500 values spent most of its time
// there. A plan has nothing per value to allocate.
//
// The engine stops, rather than declines, an answer that outgrows the
// response bound or the request's time. gqlgen's executor stays for
// introspection and as the reference the engine is tested against.
package engine

import (
	"context"
	"reflect"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
)

// Root is one of the schema's Query fields, as the engine calls it.
type Root struct {
	// Resolve answers the field for its arguments, as gqlgen coerced
	// them (graphql.CollectedField.ArgumentMap); a nil pointer comes back
	// as a nil any.
	Resolve func(ctx context.Context, args map[string]any) (any, error)
	// Type is the Go type of the values Resolve returns.
	Type reflect.Type
}

// Engine answers queries; it implements graphqlhttp.Executor.
type Engine struct {
	roots map[string]Root
	// plans holds the plan of each document and operation name, or nil
	// for one the plan compiler declined.
	plans *lru.Cache[planKey, *operationPlan]
	// nodes numbers the references of every plan compiled.
	nodes atomic.Uint32
	// fragments are the renderings of records kept for the newest
	// snapshot.
	fragments fragments
}

// New returns an engine over the schema's root fields, by name.
func New(roots map[string]Root) *Engine {
	plans, _ := lru.New[planKey, *operationPlan](1000)
	return &Engine{roots: roots, plans: plans}
}

// Execute answers the operation in oc, or returns graphqlhttp.ErrDeclined
// to leave it to gqlgen. It stops when the answer grows past maxBytes or
// ctx is done, checking both as it writes.
func (e *Engine) Execute(ctx context.Context, oc *graphql.OperationContext, maxBytes int) (answer graphqlhttp.Answer, err error) {
	if oc.Operation == nil || oc.Operation.Operation != ast.Query {
		return graphqlhttp.Answer{}, graphqlhttp.ErrDeclined
	}
	// A panic here is a query the engine does not handle as gqlgen does:
	// decline it, and gqlgen answers as it would have.
	defer func() {
		if recover() != nil {
			answer, err = graphqlhttp.Answer{}, graphqlhttp.ErrDeclined
		}
	}()
	key := keyOf(oc)
	plan, seen := e.plans.Get(key)
	if !seen {
		e.plans.Add(key, nil) // declined, should compiling panic
		plan = compileOperation(oc, e.roots, &e.nodes)
		e.plans.Add(key, plan)
	}
	if plan == nil {
		return graphqlhttp.Answer{}, graphqlhttp.ErrDeclined
	}
	return plan.run(ctx, &e.fragments, oc.Variables, maxBytes)
}

// planKey names the plan of an operation: its document, its name, and the
// values of its Boolean variables, the only ones @skip and @include can
// take, since a plan holds the fields those leave in. The document is the
// parse the endpoint keeps of the query (one per text while it is kept),
// so finding a plan costs no hash of the text.
type planKey struct {
	doc       *ast.QueryDocument
	operation string
	booleans  string
}

func keyOf(oc *graphql.OperationContext) planKey {
	var booleans []byte
	for _, v := range oc.Operation.VariableDefinitions {
		if v.Type.NamedType != "Boolean" || v.Type.Elem != nil {
			continue
		}
		switch oc.Variables[v.Variable] {
		case true:
			booleans = append(booleans, 't')
		case false:
			booleans = append(booleans, 'f')
		default:
			booleans = append(booleans, '-')
		}
	}
	return planKey{doc: oc.Doc, operation: oc.OperationName, booleans: string(booleans)}
}
