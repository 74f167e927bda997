// Package engine executes the catalogue's GraphQL queries: every query the
// schema allows but introspection, answered as gqlgen's generated
// executor answers it, byte for byte, field errors included, several
// times faster; and, for a query whose @defer or @stream asks for it, the
// same answer cut into the parts the incremental delivery proposal
// describes (incremental.go).
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
	"fmt"
	"runtime/debug"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/internal/memory"
	"github.com/vektah/gqlparser/v2/ast"
)

// Root is one of the schema's Query fields, as the engine calls it.
type Root struct {
	// Resolve answers the field for its arguments, as gqlgen coerced
	// them (graphql.CollectedField.ArgumentMap); a nil pointer comes back
	// as a nil any.
	Resolve func(ctx context.Context, args map[string]any) (any, error)
	// Type is the Go type of the values Resolve returns, as the engine
	// reads them: a value of a pointer type is the pointer, of any other
	// type its address (see Type).
	Type *Type
}

// Engine answers queries; it implements execution.Executor. Its plans
// are kept in the memo of their document (execution.Memo), so they live
// and are charged with it.
type Engine struct {
	roots map[string]Root
	// fragments are the renderings of records kept for the newest
	// snapshot.
	fragments fragments
	// compiles counts the operations compiled, for tests.
	compiles atomic.Int64
}

// New returns an engine over the schema's root fields, by name, keeping
// renderings within the renderings' share of mem (reported there as the
// store "renderings"); a nil mem is the default budget's share.
func New(roots map[string]Root, mem *memory.Budget) *Engine {
	e := &Engine{roots: roots}
	e.fragments.maxBytes = mem.Shares().Renderings
	e.fragments.sweepEvery = sweepEvery
	mem.Register("renderings", e.fragments.stats)
	return e
}

// Execute answers the operation in oc, or returns a *execution.Declined
// saying why it leaves it to gqlgen. It stops when the answer grows past
// maxBytes or ctx is done, checking both as it writes. An operation whose
// @defer or @stream asks for parts gets them too (Answer.Incremental),
// bounded together by maxBytes.
func (e *Engine) Execute(ctx context.Context, oc *graphql.OperationContext, memo *execution.Memo, maxBytes int) (answer execution.Answer, err error) {
	if oc.Operation == nil || oc.Operation.Operation != ast.Query {
		return execution.Answer{}, &execution.Declined{Reason: execution.DeclineOperation, Detail: "not a query"}
	}
	// A panic here is a bug: a query the engine does not handle as gqlgen
	// does. It is declined, with its value and stack, for the endpoint to
	// log and count, and gqlgen answers as it would have.
	defer func() {
		if p := recover(); p != nil {
			answer, err = execution.Answer{}, &execution.Declined{Reason: execution.DeclinePanic,
				Detail: fmt.Sprint(p), Stack: debug.Stack()}
		}
	}()
	c := e.compiled(oc, memo)
	if c.declined != nil {
		return execution.Answer{}, c.declined
	}
	if !c.plan.incremental {
		return c.plan.run(ctx, &e.fragments, oc.Variables, maxBytes, nil)
	}
	types := map[int]string{}
	answer, err = c.plan.run(ctx, &e.fragments, oc.Variables, maxBytes, types)
	if err != nil {
		return answer, err
	}
	answer.Incremental, err = split(oc, answer, types, maxBytes)
	if err != nil {
		return execution.Answer{}, err
	}
	return answer, nil
}

// Prepare compiles the plan of oc's operation into memo, as its first
// Execute would: the endpoint prepares its trusted documents so when they
// are loaded (execution.Preparer). A panic compiling it is the
// caller's to recover.
func (e *Engine) Prepare(oc *graphql.OperationContext, memo *execution.Memo) {
	if oc.Operation != nil && oc.Operation.Operation == ast.Query {
		e.compiled(oc, memo)
	}
}

// compiled is the plan of oc's operation, from memo or compiled now and
// kept there.
func (e *Engine) compiled(oc *graphql.OperationContext, memo *execution.Memo) compiled {
	key := keyOf(oc)
	if kept, seen := memo.Load(key); seen {
		return kept.(compiled)
	}
	// A plan is compiled once per document and operation while the
	// document is kept, and so is a decline; a panic compiling it
	// leaves nothing kept, and panics each time.
	var c compiled
	e.compiles.Add(1)
	c.plan, c.declined = compileOperation(oc, e.roots)
	size := planSize(c.plan) + int64(len(key.operation)+len(key.booleans))
	if c.declined != nil {
		size += declinedSize + int64(len(c.declined.Detail))
	}
	memo.Store(key, c, size)
	return c
}

// declinedSize is a execution.Declined's struct, rounded up as the
// allocator rounds it: three headers, 64 bytes.
const declinedSize = 64

// compiled is what a document's memo keeps of an operation: its plan, or
// why it was declined (the Declined is shared, and read only).
type compiled struct {
	plan     *operationPlan
	declined *execution.Declined
}

// planKey names the plan of an operation in its document's memo: its
// name, and the values of its Boolean variables, the only ones @skip and
// @include can take, since a plan holds the fields those leave in.
type planKey struct {
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
	return planKey{operation: oc.OperationName, booleans: string(booleans)}
}
