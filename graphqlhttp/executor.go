package graphqlhttp

// gqlgen's executor as the endpoint configures it (newExecutor), then the
// extensions it runs on every operation, whatever carries it, in the
// order they run: the trusted documents' check (trusted.go), the
// persisted queries, the guard, the variables' coercion, the cost limit,
// and a subgraph's representations (federation.go).

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"
	"github.com/catalogue-gateway/gateway/graphqlhttp/documents"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// newExecutor returns gqlgen's executor, without its HTTP handler: the
// endpoint reads each request once itself (admit), and hands the executor
// the operation (execute), or a subscription to gqlgen's SSE transport
// (stream). Its extensions run in this order: the trusted documents, the
// persisted queries, the guard, the variables' coercion, the cost limit,
// the federation's representations.
func (e *endpoint) newExecutor(es graphql.ExecutableSchema, apq *documents.PersistedQueries) *executor.Executor {
	opts := e.opts
	srv := executor.New(es)
	srv.SetQueryCache(e.docs.QueryCache())
	srv.SetParserTokenLimit(opts.Limits.MaxTokens)
	// "Did you mean" suggestions, as graphql-js gives them, only with
	// introspection on: with it off they would let anyone map the schema.
	srv.SetDisableSuggestion(!opts.Introspection)
	// The documents' rules, so that a document the store finds invalid
	// (which gqlgen then validates itself, to report it) is invalid to
	// gqlgen too.
	srv.SetDefaultRulesFn(func() *rules.Rules { return documents.ValidationRules(opts.Introspection) })
	if opts.Introspection {
		srv.Use(extension.Introspection{})
	}
	opts.Memory.Register("documents", e.docs.Stats)
	if opts.TrustedDocuments != nil {
		opts.Memory.Register("trusted_documents", e.docs.PinnedStats)
		// Before the persisted queries: a hash the manifest lists is
		// answered from it, and in enforce mode nothing unlisted
		// reaches their store.
		srv.Use(trustCheck{e})
	}
	opts.Memory.Register("persisted_queries", apq.Stats)
	opts.Memory.Register("websocket_buffers", e.websocketStats)
	opts.Memory.Register("live_queries", e.lives.stats)
	srv.Use(persistedQueries{extension.AutomaticPersistedQuery{Cache: apq}})
	srv.Use(guard{e})
	// Variables are coerced once the guard has passed the document and
	// before gqlgen reads them; the cost limit, after, prices what they
	// coerced to.
	srv.Use(variableCoercion{e})
	srv.Use(costLimit{e})
	// A federation subgraph's _entities, its representations checked
	// once they are coerced (federation.go).
	srv.Use(newEntityRepresentations(e, es.Schema()))
	// The time budget is the request context's deadline. No middleware
	// wraps every field to check it (that cost an eighth of a nested
	// query's time): every resolver that does work checks the context
	// before it starts, and presentError reports what it returns as a
	// timeout.
	srv.AroundOperations(answerTimeouts)
	srv.AroundResponses(e.capErrors)
	srv.SetErrorPresenter(e.presentError)
	srv.SetRecoverFunc(e.recoverPanic)
	return srv
}

// persistedQueries is gqlgen's automatic persisted queries, with a code on
// the errors it reports without one (a bad hash, version or extension):
// they are the caller's mistakes, not internal errors.
type persistedQueries struct {
	extension.AutomaticPersistedQuery
}

func (p persistedQueries) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	err := p.AutomaticPersistedQuery.MutateOperationParameters(ctx, params)
	if err != nil && err.Extensions["code"] == nil {
		errcode.Set(err, CodeBadRequest)
	}
	return err
}

// guard is the gqlgen extension that refuses, before gqlgen parses and
// validates it, a query the documents found over the limits (see
// admission.Check): it reads their verdict, kept with the text.
type guard struct{ e *endpoint }

func (guard) ExtensionName() string { return "QueryGuard" }

func (guard) Validate(graphql.ExecutableSchema) error { return nil }

func (g guard) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	err := g.e.docs.Lookup(p.Query).Verdict
	if err != nil {
		g.e.opts.Observer.Rejected(err.Limit)
		gerr := &gqlerror.Error{Message: err.Message}
		errcode.Set(gerr, err.Code)
		return gerr
	}
	return nil
}

// variableCoercion is the gqlgen extension that coerces a request's
// variables as the specification says, before gqlgen's executor reads
// them: every path (POST, GET, persisted queries, event streams,
// WebSockets) goes through it. A variable that does not coerce refuses
// the request before it runs, with GRAPHQL_VALIDATION_FAILED, as gqlgen
// refuses the ones gqlparser finds wrong.
type variableCoercion struct{ e *endpoint }

func (variableCoercion) ExtensionName() string                   { return "VariableCoercion" }
func (variableCoercion) Validate(graphql.ExecutableSchema) error { return nil }

func (c variableCoercion) MutateOperationParameters(_ context.Context, p *graphql.RawParams) *gqlerror.Error {
	doc := c.e.docs.Lookup(p.Query)
	if !doc.Valid {
		// The document's own errors come first, as graphql-js validates
		// before it coerces: gqlgen reports them.
		return nil
	}
	op := doc.Parsed.Operations.ForName(p.OperationName)
	if op == nil {
		return nil // gqlgen reports it
	}
	vars, errs := documents.CoerceVariables(c.e.docs.Schema(), op, p.Variables)
	if len(errs) > 0 {
		// gqlgen's extensions return one error: the first. The others
		// are added back by withEveryVariableError.
		errcode.Set(errs[0], errcode.ValidationFailed)
		return errs[0]
	}
	p.Variables = vars
	return nil
}

// withEveryVariableError returns errs, the errors creating an operation
// context for p gave, with every problem the variables have where gqlgen
// kept the first alone: its extensions return one error, while graphql-js
// reports each (up to its limit of 50, then one saying the limit was
// reached), so that a form learns of all its bad fields at once. It
// coerces again, on that error path only: when the one error is the first
// the variables give.
func (e *endpoint) withEveryVariableError(p *graphql.RawParams, errs gqlerror.List) gqlerror.List {
	if len(errs) != 1 || len(p.Variables) == 0 {
		return errs
	}
	doc := e.docs.Lookup(p.Query)
	if !doc.Valid {
		return errs
	}
	op := doc.Parsed.Operations.ForName(p.OperationName)
	if op == nil {
		return errs
	}
	_, all := documents.CoerceVariables(e.docs.Schema(), op, p.Variables)
	if len(all) < 2 || all[0].Message != errs[0].Message {
		return errs
	}
	if len(all) > documents.MaxVariableErrors {
		all = append(all[:documents.MaxVariableErrors], &gqlerror.Error{Message: documents.TooManyVariableErrors})
	}
	for _, err := range all {
		errcode.Set(err, errcode.ValidationFailed)
	}
	return all
}

// costLimit is the gqlgen extension that measures an operation once it is
// validated, with its variables, before it runs: gqlgen's executor runs
// it for every request, POST, GET, persisted queries and event streams
// alike.
type costLimit struct{ e *endpoint }

func (costLimit) ExtensionName() string                   { return "CostLimit" }
func (costLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (c costLimit) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	var lengths admission.Lengths
	if c.e.opts.Lengths != nil {
		lengths = c.e.opts.Lengths(ctx)
	}
	limit := c.e.opts.Limits.MaxComplexity
	// The walk visits each field once (the guard bounds them, fragments
	// expanded), so the exact figure is cheap to report.
	cost := c.e.costs.Cost(oc, c.e.docs.ForOperation(oc), lengths)
	if cost <= limit {
		return nil
	}
	c.e.opts.Observer.Rejected("complexity")
	err := gqlerror.Errorf("the query could return up to %d values, and at most %d are allowed: ask for smaller pages (first, last) or nest fewer lists", cost, limit)
	errcode.Set(err, admission.CodeTooComplex)
	return err
}
