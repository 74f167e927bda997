package graphqlhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"go.opentelemetry.io/otel/trace"
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
}

// FieldError is a field's error: the field's value is null (or the null
// reached its nearest nullable parent), and the error says why.
type FieldError struct {
	Path ast.Path
	Err  error
}

var (
	// ErrDeclined is an Executor's answer for an operation it leaves to
	// gqlgen.
	ErrDeclined = errors.New("graphqlhttp: operation declined by the executor")
	// ErrResponseTooLarge stops an answer that would be larger than
	// Limits.MaxResponseBytes.
	ErrResponseTooLarge = errors.New("graphqlhttp: the answer is larger than the response bound")
)

// NoExecutor declines every operation: gqlgen's generated executor runs
// them all.
var NoExecutor Executor = noExecutor{}

type noExecutor struct{}

func (noExecutor) Execute(context.Context, *graphql.OperationContext, *Memo, int) (Answer, error) {
	return Answer{}, ErrDeclined
}

// execute runs req under ctx, as gqlgen's own GET and POST transports
// would, with their statuses and bodies: the operation is parsed,
// validated and measured by gqlgen's executor (with the guard and the
// cost limit among its extensions), and run by the Executor when one is
// set and takes it, else by gqlgen. The result says whether it is a
// complete answer: the executor that made it knows, so nothing reads the
// bytes to find out.
func (e *endpoint) execute(ctx context.Context, r *http.Request, req *request) *result {
	res := &result{status: http.StatusOK, contentType: responseType(r.Header.Get("Accept"))}
	exec := e.exec
	oc, errs := e.check(ctx, r, req)
	if tr := e.opts.Tracer; tr != nil {
		traceChecks(ctx, tr, oc, errs)
	}
	if errs != nil {
		res.status = requestErrorStatus(errs, res.contentType)
		// Nothing ran, so there is no data entry, not even null, under
		// either media type: the specification's response section says
		// so of an error raised before execution begins, and clients
		// read the absence as "not executed".
		res.body = marshalWithoutData(exec.DispatchError(graphql.WithOperationContext(ctx, oc), errs))
		return res
	}
	res.operation = oc.Operation.Name
	if r.Method == http.MethodGet && oc.Operation.Operation != ast.Query {
		res.status = http.StatusNotAcceptable
		res.body = marshalWithoutData(&graphql.Response{Errors: gqlerror.List{{Message: "GET requests only allow query operations"}}})
		return res
	}
	if oc.Operation.Operation == ast.Subscription {
		// gqlgen's POST transport would answer with the first event, after
		// waiting for it for as long as the time budget allows.
		res.status = http.StatusBadRequest
		res.body = marshalWithoutData(exec.DispatchError(graphql.WithOperationContext(ctx, oc), gqlerror.List{{
			Message:    "subscriptions are served as Server-Sent Events: POST them with Accept: text/event-stream",
			Extensions: map[string]any{"code": CodeBadRequest}}}))
		return res
	}
	var span trace.Span // the execute span, when tracing
	if tr := e.opts.Tracer; tr != nil {
		ctx, span = startExecute(ctx, tr, oc)
	}
	maxBytes := e.opts.Limits.MaxResponseBytes
	if e.opts.Executor != nil {
		answer, err := e.opts.Executor.Execute(ctx, oc, e.docs.forOperation(oc), maxBytes)
		if !errors.Is(err, ErrDeclined) {
			e.opts.Observer.Executed("engine")
		}
		if err == nil {
			if span != nil {
				endExecute(span, nil)
			}
			res.body, res.complete = e.withErrors(ctx, answer), len(answer.Errors) == 0
			return res
		}
		if !errors.Is(err, ErrDeclined) {
			resp := exec.DispatchError(graphql.WithOperationContext(ctx, oc), gqlerror.List{e.stopped(ctx, err)})
			if span != nil {
				endExecute(span, resp)
			}
			res.body = marshal(resp)
			return res
		}
	}
	e.opts.Observer.Executed("gqlgen")
	responses, ctx := exec.DispatchOperation(ctx, oc)
	resp := responses(ctx)
	// gqlgen's executor builds the whole answer before it returns: the
	// bound is checked on what it built, which the cost limit keeps to
	// MaxComplexity values.
	if resp != nil && len(resp.Data) > maxBytes {
		resp = exec.DispatchError(ctx, gqlerror.List{e.stopped(ctx, ErrResponseTooLarge)})
	}
	if span != nil {
		endExecute(span, resp)
	}
	res.body = marshal(resp)
	res.complete = resp != nil && len(resp.Errors) == 0
	return res
}

// check parses, validates and measures req's operation and coerces its
// variables, as gqlgen's executor does with the guard, the variables'
// coercion and the cost limit among its extensions, on the document
// parsed and validated once (documents): the one check of every
// operation read from an HTTP request, run or streamed. errs are why it
// is refused before it runs.
func (e *endpoint) check(ctx context.Context, r *http.Request, req *request) (oc *graphql.OperationContext, errs gqlerror.List) {
	start := graphql.Now()
	return e.exec.CreateOperationContext(ctx, &graphql.RawParams{
		Query:         req.query,
		OperationName: req.operationName,
		Headers:       r.Header,
		Variables:     req.variables,
		Extensions:    req.extensions,
		ReadTime:      graphql.TraceTiming{Start: start, End: start},
	})
}

// withErrors is an Executor's answer as gqlgen writes it: its field errors,
// presented and capped as gqlgen's are, before its data.
func (e *endpoint) withErrors(ctx context.Context, a Answer) []byte {
	if len(a.Errors) == 0 {
		return a.Body
	}
	body := append(marshal(e.answerErrors(ctx, a)), ',')
	body = append([]byte(`{"errors":`), body...)
	return append(body, a.Body[1:]...)
}

// answerErrors are an Executor's field errors, presented and capped as
// gqlgen's are.
func (e *endpoint) answerErrors(ctx context.Context, a Answer) gqlerror.List {
	errs := make(gqlerror.List, len(a.Errors))
	for i, fe := range a.Errors {
		errs[i] = e.presentErrorAt(ctx, fe.Path, fe.Err)
	}
	return e.capErrors(ctx, func(context.Context) *graphql.Response { return &graphql.Response{Errors: errs} }).Errors
}

// answerResponse is an Executor's answer as a gqlgen response, for a
// transport that writes those (the WebSocket's).
func (e *endpoint) answerResponse(ctx context.Context, a Answer) *graphql.Response {
	data, _ := bytes.CutPrefix(a.Body, []byte(`{"data":`))
	resp := &graphql.Response{Data: data[:len(data)-1]}
	if len(a.Errors) > 0 {
		resp.Errors = e.answerErrors(ctx, a)
	}
	return resp
}

// stopped is the error of an answer an Executor stopped: too large, or
// out of time. Either way no data is sent, not even a part of it.
func (e *endpoint) stopped(ctx context.Context, err error) *gqlerror.Error {
	if errors.Is(err, ErrResponseTooLarge) {
		return &gqlerror.Error{
			Message: fmt.Sprintf("the answer would be larger than %d bytes: ask for smaller pages (first, last) or fewer fields",
				e.opts.Limits.MaxResponseBytes),
			Extensions: map[string]any{"code": CodeResponseTooLarge, "requestId": RequestID(ctx)},
		}
	}
	if ctx.Err() != nil {
		return &gqlerror.Error{Message: "the request ran out of time",
			Extensions: map[string]any{"code": CodeTimeout, "requestId": RequestID(ctx)}}
	}
	// Anything else is a failure of ours: presentError logs it and
	// shows the caller an internal error.
	return gqlerror.WrapPath(nil, err)
}

// requestErrorStatus is the status of a request that was read but not
// executed, as GraphQL over HTTP asks it: under application/json, 200 for
// what GraphQL itself refuses (a document that does not parse or
// validate, variables that do not coerce), as for every well-formed
// request; the refusals of this endpoint's own limits stay 422, so that
// caches and monitoring see them as refused. Under
// application/graphql-response+json, every refusal is 400.
func requestErrorStatus(errs gqlerror.List, contentType string) int {
	if errcode.GetErrorKind(errs) != errcode.KindProtocol {
		return http.StatusOK
	}
	if contentType == typeGraphQLResponse {
		return http.StatusBadRequest
	}
	for _, e := range errs {
		if code, _ := e.Extensions["code"].(string); code != errcode.ParseFailed && code != errcode.ValidationFailed {
			return http.StatusUnprocessableEntity
		}
	}
	return http.StatusOK
}

// marshal writes a response as gqlgen's transports do (encoding/json,
// compact, HTML-escaped), so that an answer is the same bytes whichever
// executor made it.
func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Only data that is not valid JSON fails, which is a bug here.
		panic("graphqlhttp: marshalling a response: " + err.Error())
	}
	return b
}

// marshalWithoutData writes a response's errors and extensions with no
// data entry at all, which gqlgen's Response always writes.
func marshalWithoutData(resp *graphql.Response) []byte {
	return marshal(struct {
		Errors     gqlerror.List  `json:"errors,omitempty"`
		Extensions map[string]any `json:"extensions,omitempty"`
	}{resp.Errors, resp.Extensions})
}

// decodeObject decodes a JSON object, with numbers as json.Number; nil or
// JSON null leaves *v nil.
func decodeObject(raw json.RawMessage, v *map[string]any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}
