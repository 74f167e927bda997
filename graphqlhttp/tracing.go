package graphqlhttp

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// With Options.Tracer set, each operation the endpoint runs gets these
// spans, children of the span in the request's context (the HTTP server
// span, when the server has one):
//
//	graphql.parse     reading the document; next to nothing when gqlgen's
//	                  query cache already holds it
//	graphql.validate  checking the document against the schema, then the
//	                  variables, complexity and introspection
//	graphql.execute   running the operation, by the Executor or by gqlgen;
//	                  the loaders' batch spans are its children
//
// gqlgen parses and validates within one call, CreateOperationContext,
// with no hook in between, so those two spans are recorded after the fact
// from the timings gqlgen keeps (OperationContext.Stats); the validate span
// ends when the call returns. A phase that fails has status Error,
// described by the error's code, never by its message, which may quote the
// document. The checks of limits that come before parsing (guard) have no
// span of their own.
//
// The operation's name and type (graphql.operation.name and
// graphql.operation.type, as the OpenTelemetry semantic conventions name
// them) are set on the validate and execute spans and on the request's
// span. The document (graphql.document) is not recorded: it may be as long
// as the body allows, and carry what its sender would not want kept. With
// a response cache, the request's span also gets graphql.response_cache:
// "hit", "miss", "shared" (answered by the run of an identical request
// under way) or "bypass" (not an answer the cache may keep or give). A
// request answered from the cache has no GraphQL spans.
//
// Event streams (subscriptions) get no GraphQL spans: gqlgen's SSE
// transport serves them.

// Attributes of this package's own, with no semantic convention.
const (
	// attrExecutor names what ran an operation: "engine" for
	// Options.Executor (whether it answered or stopped the answer),
	// "gqlgen" for gqlgen's generated executor.
	attrExecutor = attribute.Key("graphql.executor")
)

// setAttributes sets attrs on the span in ctx.
func setAttributes(ctx context.Context, attrs ...attribute.KeyValue) {
	trace.SpanFromContext(ctx).SetAttributes(attrs...)
}

// traceChecks records the parse and validate spans of an operation gqlgen
// has parsed and validated, or failed to (errs), and notes the operation
// on the request's span.
func traceChecks(ctx context.Context, tr trace.Tracer, oc *graphql.OperationContext, errs gqlerror.List) {
	if oc == nil || oc.Stats.Parsing.Start.IsZero() {
		return // refused before parsing: by a limit, or a persisted query's check
	}
	parsing, now := oc.Stats.Parsing, time.Now()
	_, span := tr.Start(ctx, "graphql.parse", trace.WithTimestamp(parsing.Start))
	if parsing.End.IsZero() {
		// gqlgen stops its clock only when parsing succeeds.
		failed(span, errs)
		span.End(trace.WithTimestamp(now))
		return
	}
	span.End(trace.WithTimestamp(parsing.End))
	attrs := operationAttributes(oc)
	_, span = tr.Start(ctx, "graphql.validate", trace.WithTimestamp(oc.Stats.Validation.Start), trace.WithAttributes(attrs...))
	if len(errs) > 0 {
		failed(span, errs)
	}
	span.End(trace.WithTimestamp(now))
	setAttributes(ctx, attrs...)
}

// startExecute starts the execute span of oc.
func startExecute(ctx context.Context, tr trace.Tracer, oc *graphql.OperationContext) (context.Context, trace.Span) {
	return tr.Start(ctx, "graphql.execute", trace.WithAttributes(operationAttributes(oc)...))
}

// endExecute ends an execute span: executor is what ran the operation
// (executorEngine or executorGqlgen), resp its response as gqlgen's
// errors present it, nil for an answer the engine wrote (whose field
// errors, as gqlgen's partial answers, do not fail the span).
func endExecute(span trace.Span, executor string, resp *graphql.Response) {
	span.SetAttributes(attrExecutor.String(executor))
	if resp != nil && len(resp.Errors) > 0 {
		failed(span, resp.Errors)
	}
	span.End()
}

// operationAttributes describes oc's operation, once it is known.
func operationAttributes(oc *graphql.OperationContext) []attribute.KeyValue {
	op := oc.Operation
	if op == nil {
		return nil
	}
	attrs := make([]attribute.KeyValue, 0, 2)
	switch op.Operation {
	case ast.Query:
		attrs = append(attrs, semconv.GraphQLOperationTypeQuery)
	case ast.Mutation:
		attrs = append(attrs, semconv.GraphQLOperationTypeMutation)
	case ast.Subscription:
		attrs = append(attrs, semconv.GraphQLOperationTypeSubscription)
	}
	if op.Name != "" {
		attrs = append(attrs, semconv.GraphQLOperationName(op.Name))
	}
	return attrs
}

// failed marks span as failed, described by the first error's code. The
// message is left out: it may quote the document.
func failed(span trace.Span, errs gqlerror.List) {
	desc := "error"
	if len(errs) > 0 {
		if code, ok := errs[0].Extensions["code"].(string); ok && code != "" {
			desc = code
		}
	}
	span.SetStatus(codes.Error, desc)
}
