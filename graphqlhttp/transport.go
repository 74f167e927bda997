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
// would: the same data, as the same bytes, and only complete answers;
// anything it cannot answer so (an error, a field it does not know) it
// declines, and gqlgen runs the operation.
type Executor interface {
	// Execute returns the whole response body, {"data":…}, as gqlgen's
	// transports write it (encoding/json's compact form, with <, >, &,
	// U+2028 and U+2029 escaped), or ErrDeclined to leave the operation
	// to gqlgen. It stops, with no answer, as soon as the body grows
	// past maxBytes (ErrResponseTooLarge) or ctx is done (ctx's error):
	// it checks both while it works, not only at the end.
	Execute(ctx context.Context, oc *graphql.OperationContext, maxBytes int) (body []byte, err error)
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

func (noExecutor) Execute(context.Context, *graphql.OperationContext, int) ([]byte, error) {
	return nil, ErrDeclined
}

// transport is the endpoint's one gqlgen transport, for GET and POST. The
// request was read and checked by admit, so it is decoded once; the
// operation is parsed, validated and measured by gqlgen's executor, and run
// by the Executor when one is set and takes it, else by gqlgen.
//
// Statuses and bodies are those of gqlgen's own GET and POST transports.
type transport struct{ e *endpoint }

type requestKey struct{}

func (transport) Supports(r *http.Request) bool {
	_, ok := r.Context().Value(requestKey{}).(*request)
	return ok
}

func (t transport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ctx := r.Context()
	req := ctx.Value(requestKey{}).(*request)
	contentType := responseType(r.Header.Get("Accept"))
	w.Header().Set("Content-Type", contentType)

	start := graphql.Now()
	params := &graphql.RawParams{
		Query:         req.query,
		OperationName: req.operationName,
		Headers:       r.Header,
	}
	// Numbers as json.Number, as gqlgen's transports decode them; admit
	// has checked that the variables are a JSON object, and decoded the
	// extensions so.
	if err := decodeObject(req.variables, &params.Variables); err != nil {
		t.writeErrors(w, ctx, exec, http.StatusBadRequest, gqlerror.List{{Message: "variables could not be decoded"}})
		return
	}
	params.Extensions = req.extensions
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}

	oc, errs := exec.CreateOperationContext(ctx, params)
	if tr := t.e.opts.Tracer; tr != nil {
		traceChecks(ctx, tr, oc, errs)
	}
	if errs != nil {
		status := requestErrorStatus(errs, contentType)
		resp := exec.DispatchError(graphql.WithOperationContext(ctx, oc), errs)
		w.WriteHeader(status)
		if status != http.StatusOK && contentType == typeGraphQLResponse {
			// Nothing ran, so there is no data, not even null: a
			// graphql-response+json client reads its absence, with the
			// 4xx, as "not executed".
			writeWithoutData(w, resp)
			return
		}
		writeJSON(w, resp)
		return
	}
	if r.Method == http.MethodGet && oc.Operation.Operation != ast.Query {
		w.WriteHeader(http.StatusNotAcceptable)
		writeJSON(w, &graphql.Response{Errors: gqlerror.List{{Message: "GET requests only allow query operations"}}})
		return
	}
	if oc.Operation.Operation == ast.Subscription {
		// gqlgen's POST transport would answer with the first event, after
		// waiting for it for as long as the time budget allows.
		t.writeErrors(w, graphql.WithOperationContext(ctx, oc), exec, http.StatusBadRequest, gqlerror.List{{
			Message:    "subscriptions are served as Server-Sent Events: POST them with Accept: text/event-stream",
			Extensions: map[string]any{"code": CodeBadRequest}}})
		return
	}
	if info, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok && oc.Operation != nil {
		info.operation = oc.Operation.Name
	}
	var span trace.Span // the execute span, when tracing
	if tr := t.e.opts.Tracer; tr != nil {
		ctx, span = startExecute(ctx, tr, oc)
	}
	maxBytes := t.e.opts.Limits.MaxResponseBytes
	if t.e.opts.Executor != nil {
		body, err := t.e.opts.Executor.Execute(ctx, oc, maxBytes)
		if !errors.Is(err, ErrDeclined) {
			t.e.opts.Observer.Executed("engine")
		}
		if err == nil {
			if span != nil {
				endExecute(span, nil)
			}
			w.Write(body)
			return
		}
		if !errors.Is(err, ErrDeclined) {
			resp := exec.DispatchError(graphql.WithOperationContext(ctx, oc), gqlerror.List{t.e.stopped(ctx, err)})
			if span != nil {
				endExecute(span, resp)
			}
			writeJSON(w, resp)
			return
		}
	}
	t.e.opts.Observer.Executed("gqlgen")
	responses, ctx := exec.DispatchOperation(ctx, oc)
	resp := responses(ctx)
	// gqlgen's executor builds the whole answer before it returns: the
	// bound is checked on what it built, which the cost limit keeps to
	// MaxComplexity values.
	if resp != nil && len(resp.Data) > maxBytes {
		resp = exec.DispatchError(ctx, gqlerror.List{t.e.stopped(ctx, ErrResponseTooLarge)})
	}
	if span != nil {
		endExecute(span, resp)
	}
	writeJSON(w, resp)
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

func (transport) writeErrors(w http.ResponseWriter, ctx context.Context, exec graphql.GraphExecutor, status int, errs gqlerror.List) {
	w.WriteHeader(status)
	writeJSON(w, exec.DispatchError(ctx, errs))
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

// writeJSON writes a response as gqlgen's transports do, so that an answer
// is the same bytes whichever executor made it.
func writeJSON(w http.ResponseWriter, resp *graphql.Response) { marshal(w, resp) }

// writeWithoutData writes a response's errors and extensions with no data
// entry at all, which gqlgen's Response always writes.
func writeWithoutData(w http.ResponseWriter, resp *graphql.Response) {
	marshal(w, struct {
		Errors     gqlerror.List  `json:"errors,omitempty"`
		Extensions map[string]any `json:"extensions,omitempty"`
	}{resp.Errors, resp.Extensions})
}

func marshal(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Only data that is not valid JSON fails, which is a bug here.
		panic("graphqlhttp: marshalling a response: " + err.Error())
	}
	w.Write(b)
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
