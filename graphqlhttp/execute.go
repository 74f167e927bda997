package graphqlhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"go.opentelemetry.io/otel/trace"
)

// Executor names, as the metrics and the traces give them.
const (
	// executorEngine is Options.Executor (the engine, in the gateway).
	executorEngine = "engine"
	// executorGqlgen is gqlgen's generated executor.
	executorGqlgen = "gqlgen"
)

// chooser is the one place that decides which executor runs an
// operation, whatever carried it (POST, GET, an event stream, a
// WebSocket): Options.Executor, when set and it takes the operation, else
// gqlgen's. It is gqlgen's executor, decorated: the transports that take
// a graphql.GraphExecutor (gqlgen's SSE, the WebSocket's wsExecutor) are
// given it, and execute (POST and GET) calls its run, which keeps the
// Executor's answer as the bytes it wrote.
type chooser struct {
	*executor.Executor
	e *endpoint
}

var _ graphql.GraphExecutor = (*chooser)(nil)

// chosenRun is what the chooser did with an operation: which executor ran it
// (executorEngine or executorGqlgen) and, for the engine, its answer or
// why it stopped (err, ErrResponseTooLarge or the context's error); for
// gqlgen, its responses.
type chosenRun struct {
	executor  string
	answer    execution.Answer
	err       error
	responses graphql.ResponseHandler
}

// run runs oc on the Executor if it takes it, else on gqlgen's executor,
// and counts which ran it; a decline is counted by its reason, and logged
// once per document (see declined).
func (x *chooser) run(ctx context.Context, oc *graphql.OperationContext) (chosenRun, context.Context) {
	e := x.e
	if e.opts.Executor != nil {
		memo := e.docs.ForOperation(oc)
		answer, err := e.opts.Executor.Execute(ctx, oc, memo, e.opts.Limits.MaxResponseBytes)
		if !errors.Is(err, execution.ErrDeclined) {
			e.opts.Observer.Executed(executorEngine)
			return chosenRun{executor: executorEngine, answer: answer, err: err}, ctx
		}
		e.declined(ctx, oc, memo, err)
	}
	e.opts.Observer.Executed(executorGqlgen)
	// gqlgen answers whole: its own @defer parts would be lost.
	responses, ctx := x.Executor.DispatchOperation(ctx, withoutDefer(oc))
	if oc.Operation.Operation == ast.Subscription {
		return chosenRun{executor: executorGqlgen, responses: responses}, ctx
	}
	// gqlgen's executor builds the whole answer before it returns: the
	// bound is checked on what it built, which the cost limit keeps to
	// MaxComplexity values. A subscription's events are not bounded.
	maxBytes := e.opts.Limits.MaxResponseBytes
	return chosenRun{executor: executorGqlgen, responses: func(ctx context.Context) *graphql.Response {
		resp := responses(ctx)
		if resp != nil && len(resp.Data) > maxBytes {
			resp = x.Executor.DispatchError(ctx, gqlerror.List{e.stopped(ctx, execution.ErrResponseTooLarge)})
		}
		return resp
	}}, ctx
}

// DispatchOperation is run as gqlgen's transports take it: the engine's
// answer, or why it stopped, as a gqlgen response.
func (x *chooser) DispatchOperation(ctx context.Context, oc *graphql.OperationContext) (graphql.ResponseHandler, context.Context) {
	out, ctx := x.run(ctx, oc)
	switch {
	case out.responses != nil:
		return out.responses, ctx
	case out.err == nil:
		return graphql.OneShot(x.e.answerResponse(ctx, out.answer)), ctx
	default:
		return graphql.OneShot(x.Executor.DispatchError(graphql.WithOperationContext(ctx, oc), gqlerror.List{x.e.stopped(ctx, out.err)})), ctx
	}
}

// dispatchPayloads is DispatchOperation with each response as the JSON
// payload a transport sends: an answer the Executor cut into parts (@defer,
// @stream) comes as its parts, in the deferSpec=20220824 format; anything
// else as gqlgen's responses, marshalled. A nil payload ends it.
func (x *chooser) dispatchPayloads(ctx context.Context, oc *graphql.OperationContext) (func(context.Context) []byte, context.Context) {
	out, ctx := x.run(ctx, oc)
	if out.responses == nil && out.err == nil && out.answer.Incremental != nil {
		payloads := x.e.payloads(ctx, out.answer.Incremental, multipartDefer20220824)
		return func(context.Context) []byte {
			if len(payloads) == 0 {
				return nil
			}
			p := payloads[0]
			payloads = payloads[1:]
			return p
		}, ctx
	}
	var responses graphql.ResponseHandler
	switch {
	case out.responses != nil:
		responses = out.responses
	case out.err == nil:
		responses = graphql.OneShot(x.e.answerResponse(ctx, out.answer))
	default:
		responses = graphql.OneShot(x.Executor.DispatchError(graphql.WithOperationContext(ctx, oc), gqlerror.List{x.e.stopped(ctx, out.err)}))
	}
	return func(ctx context.Context) []byte {
		if resp := responses(ctx); resp != nil {
			return marshal(resp)
		}
		return nil
	}, ctx
}

// declineNoted is the key under which a document's memo remembers that
// its operation's decline was logged.
type declineNoted struct{ operation string }

// declined counts the Executor's decline of oc by its reason and logs it
// once per document, remembered in the document's memo (a document not
// kept is logged each time it declines): at debug level, as a decline is
// the Executor working as designed, but at error level, with its stack,
// for a panic, which is a bug.
func (e *endpoint) declined(ctx context.Context, oc *graphql.OperationContext, memo *execution.Memo, err error) {
	d, ok := errors.AsType[*execution.Declined](err)
	if !ok {
		d = &execution.Declined{Reason: execution.DeclineOther}
	}
	e.opts.Observer.Declined(d.Reason)
	level := slog.LevelDebug
	if d.Reason == execution.DeclinePanic {
		level = slog.LevelError
	}
	if !e.opts.Logger.Enabled(ctx, level) {
		return
	}
	if memo != nil && !memo.StoreNew(declineNoted{oc.OperationName}, true, int64(len(oc.OperationName))) {
		return
	}
	attrs := []any{"request_id", RequestID(ctx), "operation", oc.Operation.Name, "reason", d.Reason}
	if d.Detail != "" {
		attrs = append(attrs, "detail", d.Detail)
	}
	if d.Stack != nil {
		attrs = append(attrs, "stack", string(d.Stack))
		e.opts.Logger.Log(ctx, level, "engine: panic; gqlgen answers the operation", attrs...)
		return
	}
	e.opts.Logger.Log(ctx, level, "engine: operation declined; gqlgen answers it", attrs...)
}

// execute runs req under ctx, as gqlgen's own GET and POST transports
// would, with their statuses and bodies: the operation is parsed,
// validated and measured by gqlgen's executor (with the guard and the
// cost limit among its extensions), and run by the executor the chooser
// picks. The result says whether it is a complete answer: the executor
// that made it knows, so nothing reads the bytes to find out.
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
		msg := "GET requests only allow query operations"
		if oc.Operation.Operation == ast.Subscription {
			msg += "; to subscribe with GET, as an EventSource does, send Accept: text/event-stream"
		}
		res.status = http.StatusNotAcceptable
		res.body = marshalWithoutData(&graphql.Response{Errors: gqlerror.List{{Message: msg}}})
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
	res.cacheControl = e.cacheControlOf(oc)
	var span trace.Span // the execute span, when tracing
	if tr := e.opts.Tracer; tr != nil {
		ctx, span = startExecute(ctx, tr, oc)
	}
	out, ctx := e.chooser.run(ctx, oc)
	var resp *graphql.Response
	switch {
	case out.responses != nil:
		resp = out.responses(ctx)
		res.body = marshal(resp)
		res.complete = resp != nil && len(resp.Errors) == 0
	case out.err == nil && out.answer.Incremental != nil && req.delivery != wholeAnswer:
		res.payloads, res.delivery = e.payloads(ctx, out.answer.Incremental, req.delivery), req.delivery
	case out.err == nil:
		res.body, res.complete = e.withErrors(ctx, out.answer), len(out.answer.Errors) == 0
	default:
		resp = exec.DispatchError(graphql.WithOperationContext(ctx, oc), gqlerror.List{e.stopped(ctx, out.err)})
		res.body = marshal(resp)
	}
	if span != nil {
		endExecute(span, out.executor, resp)
	}
	if req.delivery != wholeAnswer && res.payloads == nil && res.status == http.StatusOK && !acceptsJSON(r.Header.Get("Accept")) {
		// Asked only in parts (an event stream gets this far only for a
		// query with @defer or @stream): the whole answer is the one
		// part.
		whole := append(res.body[:len(res.body)-1:len(res.body)-1], `,"hasNext":false}`...)
		res.payloads, res.delivery = [][]byte{whole}, req.delivery
	}
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
	params := &graphql.RawParams{
		Query:         req.query,
		OperationName: req.operationName,
		Headers:       r.Header,
		Variables:     req.variables,
		Extensions:    req.extensions,
		ReadTime:      graphql.TraceTiming{Start: start, End: start},
	}
	oc, errs = e.exec.CreateOperationContext(ctx, params)
	return oc, e.withEveryVariableError(params, errs)
}

// withErrors is an Executor's answer as gqlgen writes it: its field errors,
// presented and capped as gqlgen's are, before its data.
func (e *endpoint) withErrors(ctx context.Context, a execution.Answer) []byte {
	if len(a.Errors) == 0 {
		return a.Body
	}
	body := append(marshal(e.answerErrors(ctx, a)), ',')
	body = append([]byte(`{"errors":`), body...)
	return append(body, a.Body[1:]...)
}

// answerErrors are an Executor's field errors, presented and capped as
// gqlgen's are.
func (e *endpoint) answerErrors(ctx context.Context, a execution.Answer) gqlerror.List {
	errs := make(gqlerror.List, len(a.Errors))
	for i, fe := range a.Errors {
		errs[i] = e.presentErrorAt(ctx, fe.Path, fe.Err)
	}
	return e.capErrors(ctx, func(context.Context) *graphql.Response { return &graphql.Response{Errors: errs} }).Errors
}

// answerResponse is an Executor's answer as a gqlgen response, for a
// transport that writes those (the WebSocket's).
func (e *endpoint) answerResponse(ctx context.Context, a execution.Answer) *graphql.Response {
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
	if errors.Is(err, execution.ErrResponseTooLarge) {
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
