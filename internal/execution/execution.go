// Package execution is the contract between the endpoint and an executor
// faster than gqlgen's generated one: what an Executor is given (a
// validated operation, its document's Memo, a bound on the answer's
// bytes), what it returns (an Answer, or a Declined that leaves the
// operation to gqlgen), and how it reads the values the endpoint coerced.
//
// It is a leaf: it imports gqlgen's and gqlparser's types and nothing of
// this module, so the engine and the resolvers implement it and the
// transports (package graphqlhttp) call it, and neither depends on the
// other.
package execution

import (
	"context"
	"encoding/json"
	"errors"
	"math"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// Executor runs a validated operation by a faster path than gqlgen's
// generated executor, or declines it. It must answer exactly what gqlgen
// would: the same data, as the same bytes, and the same field errors at
// the same paths. What it cannot answer so, it declines, and gqlgen runs
// the operation.
type Executor interface {
	// Execute answers the operation in oc, or returns ErrDeclined to
	// leave it to gqlgen. It stops, with no answer, as soon as the body
	// grows past maxBytes (ErrResponseTooLarge) or ctx is done (ctx's
	// error): it checks both while it works, not only at the end. memo
	// is where it keeps what it derives from oc's document (its plans):
	// it lives, and is charged to the memory budget, with the document
	// the endpoint keeps; nil (a document not kept) keeps nothing.
	Execute(ctx context.Context, oc *graphql.OperationContext, memo *Memo, maxBytes int) (Answer, error)
}

// Preparer is an Executor that can make ready, before any request, what
// it keeps of an operation (its plan) in the operation's memo, as its
// first Execute would: the trusted documents are prepared so, when they
// are loaded, so that their first request is as fast as any other.
type Preparer interface {
	Prepare(oc *graphql.OperationContext, memo *Memo)
}

// Answer is what an Executor made of an operation.
type Answer struct {
	// Body is the response body without its errors, {"data":…}, as
	// gqlgen's transports write it (encoding/json's compact form, with
	// <, >, &, U+2028 and U+2029 escaped).
	Body []byte
	// Errors are the field errors met, in the order gqlgen reports them,
	// each with its path; the endpoint presents them as it presents
	// gqlgen's.
	Errors []FieldError
	// Incremental, for an operation whose @defer or @stream asks for
	// parts, is the same answer in those parts; nil for any other. Body
	// and Errors stay the whole answer, for a client that takes it at
	// once.
	Incremental *Incremental
}

// Incremental is an answer delivered in parts, as the incremental
// delivery proposal describes them: a first payload without the deferred
// fragments' fields and with each streamed list cut to its initialCount,
// then the parts, each one deferred fragment's fields or one streamed
// list's other items. Merged into the first payload, in order, the parts
// make the whole answer.
type Incremental struct {
	// Body and Errors are the first payload: {"data":…} and its errors.
	Body   []byte
	Errors []FieldError
	// Parts are the later payloads, in the order they are sent: a part
	// comes after the part (or first payload) whose data holds its path.
	Parts []Part
}

// Part is one deferred fragment's fields, or one streamed list's items
// after its initialCount.
type Part struct {
	// Parent is the index in Parts of the part whose data holds this
	// one's path, -1 for the first payload: a client is told of a part
	// (the newer format's pending) when its parent arrives.
	Parent int
	// Label is the directive's label, "" for none.
	Label string
	// Path is the deferred fragment's object, or the streamed list.
	Path ast.Path
	// Stream reports a streamed list's items; Start is the index of the
	// first of them.
	Stream bool
	Start  int
	// Data is the fragment's fields, an object, or the items, an array.
	Data []byte
	// Errors are the field errors met within Data.
	Errors []FieldError
}

// FieldError is a field's error: the field's value is null (or the null
// reached its nearest nullable parent), and the error says why.
type FieldError struct {
	Path ast.Path
	Err  error
}

var (
	// ErrDeclined is an Executor's answer for an operation it leaves to
	// gqlgen: errors.Is finds it in a *Declined, which says why.
	ErrDeclined = errors.New("operation declined by the executor")
	// ErrResponseTooLarge stops an answer that would be larger than the
	// response bound.
	ErrResponseTooLarge = errors.New("the answer is larger than the response bound")
)

// Reasons an Executor declines an operation, the values of Declined.Reason
// and of the declines' metric label: a short, fixed list, so that the
// label stays bounded; what varies (which field, which panic) is in
// Declined.Detail, for the log.
const (
	// DeclineOperation: not a query (a mutation or a subscription).
	DeclineOperation = "operation"
	// DeclineIntrospection: the operation selects __schema or __type.
	DeclineIntrospection = "introspection"
	// DeclineDirective: a directive other than @skip, @include, @defer
	// and @stream.
	DeclineDirective = "directive"
	// DeclinePlan: the compiler declined a part of the operation (a field
	// with arguments below the root, a resolver it does not know).
	DeclinePlan = "plan"
	// DeclineRun: the run met what only gqlgen reports as it should (no
	// snapshot, a load that failed).
	DeclineRun = "run"
	// DeclinePanic: the Executor panicked; the panic is logged with its
	// stack, and gqlgen answers.
	DeclinePanic = "panic"
	// DeclineOther: a bare ErrDeclined, with no reason given.
	DeclineOther = "other"
)

// DeclineReasons are the reasons above, for a metric to report each from
// the start.
var DeclineReasons = []string{DeclineOperation, DeclineIntrospection, DeclineDirective, DeclinePlan, DeclineRun, DeclinePanic, DeclineOther}

// Declined is why an Executor left an operation to gqlgen; errors.Is(d,
// ErrDeclined) holds.
type Declined struct {
	// Reason is one of the Decline constants.
	Reason string
	// Detail says what in the operation was declined (the compiler's
	// reason, the panic's value), for the log.
	Detail string
	// Stack is a recovered panic's stack.
	Stack []byte
}

func (d *Declined) Error() string {
	if d.Detail == "" {
		return ErrDeclined.Error() + ": " + d.Reason
	}
	return ErrDeclined.Error() + ": " + d.Reason + ": " + d.Detail
}

// Is makes a Declined an ErrDeclined.
func (d *Declined) Is(target error) bool { return target == ErrDeclined }

// None declines every operation: gqlgen's generated executor runs them
// all. The endpoint does not ask it (nor count its declines).
var None Executor = none{}

type none struct{}

func (none) Execute(context.Context, *graphql.OperationContext, *Memo, int) (Answer, error) {
	return Answer{}, ErrDeclined
}

// IntValue reads an Int argument as gqlgen hands it over once the
// endpoint has coerced the variables: an int64 (from the document, or a
// variable coerced), an int, or a json.Number written as a whole number.
// It reports false for anything else, and for a value beyond GraphQL's
// 32 bits. The engine reads its arguments with it, and _entities'
// representations are checked with it.
func IntValue(v any) (int64, bool) {
	var n int64
	switch v := v.(type) {
	case int64:
		n = v
	case int:
		n = int64(v)
	case json.Number:
		var err error
		if n, err = v.Int64(); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	return n, n >= math.MinInt32 && n <= math.MaxInt32
}
