package graphqlhttp

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Error codes of requests refused by the transport or stopped while they
// ran, in extensions.code. Those of the limits on an operation's shape
// and cost are admission's.
const (
	CodeBodyTooLarge     = "BODY_TOO_LARGE"
	CodeURLTooLong       = "URL_TOO_LONG"
	CodeBadRequest       = "BAD_REQUEST"
	CodeUnsupportedMedia = "UNSUPPORTED_MEDIA_TYPE"
	CodeMethodNotAllowed = "METHOD_NOT_ALLOWED"
	CodeBatching         = "BATCHING_NOT_SUPPORTED"
	CodeTooManyErrors    = "TOO_MANY_ERRORS"
	CodeTimeout          = "REQUEST_TIMEOUT"
	CodeResponseTooLarge = "RESPONSE_TOO_LARGE"
	CodeTooManyStreams   = "TOO_MANY_SUBSCRIPTIONS"
	CodeStreamsOff       = "SUBSCRIPTIONS_DISABLED"
	CodeInternal         = "INTERNAL_SERVER_ERROR"
)

// CodeTooManyStreamsForClient refuses an event stream beyond
// Options.MaxStreamsPerClient: this client holds too many open, whatever
// the server's room (that is CodeTooManyStreams).
const CodeTooManyStreamsForClient = "TOO_MANY_SUBSCRIPTIONS_FOR_CLIENT"

// limitError is a request refused by a limit: its code, which limit (for
// metrics), and a short message that echoes nothing of the request.
type limitError struct {
	code, limit, message string
}

func (e *limitError) Error() string { return e.message }

// answerTimeouts answers a request whose time ran out before its execution
// began: gqlgen then gives no response at all, which would be written as
// a bare "null".
func answerTimeouts(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	responses := next(ctx)
	first := true
	return func(ctx context.Context) *graphql.Response {
		resp := responses(ctx)
		if resp == nil && first && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			resp = &graphql.Response{Errors: gqlerror.List{{Message: "the request ran out of time",
				Extensions: map[string]any{"code": CodeTimeout, "requestId": RequestID(ctx)}}}}
		}
		first = false
		return resp
	}
}

// capErrors keeps a response's errors to MaxErrors.
func (e *endpoint) capErrors(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp != nil && len(resp.Errors) > e.opts.MaxErrors {
		more := len(resp.Errors) - e.opts.MaxErrors
		resp.Errors = append(resp.Errors[:e.opts.MaxErrors:e.opts.MaxErrors], &gqlerror.Error{
			Message:    fmt.Sprintf("%d more errors left out", more),
			Extensions: map[string]any{"code": CodeTooManyErrors},
		})
	}
	return resp
}

// presentError shapes every error a response carries. Errors with a code
// were made to be read by the caller and pass as they are. Anything else is
// an internal failure: the caller sees a generic message, the code and the
// request id; the detail goes to the log.
func (e *endpoint) presentError(ctx context.Context, err error) *gqlerror.Error {
	return e.presentErrorAt(ctx, pathOf(ctx), err)
}

// presentErrorAt presents the error of the field at path.
func (e *endpoint) presentErrorAt(ctx context.Context, path ast.Path, err error) *gqlerror.Error {
	if ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
		// A resolver stopped because the request's own budget ran out.
		// (An error that merely wraps DeadlineExceeded while the budget
		// remains, say from an upstream call, is an internal one.)
		return &gqlerror.Error{Message: "the request ran out of time", Path: path,
			Extensions: map[string]any{"code": CodeTimeout}}
	}
	var gerr *gqlerror.Error
	if errors.As(err, &gerr) && gerr.Extensions["code"] != nil {
		if gerr.Path == nil {
			gerr.Path = path
		}
		gerr = graphql.DefaultErrorPresenter(ctx, gerr)
		if len(gerr.Message) > maxMessageBytes {
			// Validation messages quote the query's names and values,
			// which may be as long as the body.
			short := *gerr
			short.Message = strings.ToValidUTF8(gerr.Message[:maxMessageBytes], "") + "…"
			gerr = &short
		}
		return gerr
	}
	id := RequestID(ctx)
	e.opts.Logger.ErrorContext(ctx, "graphql: internal error", "request_id", id, "path", path, "err", err)
	return &gqlerror.Error{
		Message:    "internal error",
		Path:       path,
		Extensions: map[string]any{"code": CodeInternal, "requestId": id},
	}
}

// maxMessageBytes bounds an error message.
const maxMessageBytes = 200

func pathOf(ctx context.Context) ast.Path {
	if graphql.GetFieldContext(ctx) == nil {
		return nil
	}
	return graphql.GetPath(ctx)
}

// recoverPanic turns a resolver's panic into an internal error; the stack
// goes to the log, never to the caller.
func (e *endpoint) recoverPanic(ctx context.Context, p any) error {
	e.opts.Logger.ErrorContext(ctx, "graphql: panic", "request_id", RequestID(ctx), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	return errors.New("panic in a resolver")
}
