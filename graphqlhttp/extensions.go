package graphqlhttp

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// guard is the gqlgen extension that refuses, before gqlgen parses and
// validates it, a query the documents found over the limits (see
// admission.Check): it reads their verdict, kept with the text.
type guard struct{ e *endpoint }

func (guard) ExtensionName() string { return "QueryGuard" }

func (guard) Validate(graphql.ExecutableSchema) error { return nil }

func (g guard) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	err := g.e.docs.lookup(p.Query).verdict
	if err != nil {
		g.e.opts.Observer.Rejected(err.Limit)
		gerr := &gqlerror.Error{Message: err.Message}
		errcode.Set(gerr, err.Code)
		return gerr
	}
	return nil
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
	cost := c.e.costs.Cost(oc, c.e.docs.forOperation(oc), lengths)
	if cost <= limit {
		return nil
	}
	c.e.opts.Observer.Rejected("complexity")
	err := gqlerror.Errorf("the query could return up to %d values, and at most %d are allowed: ask for smaller pages (first, last) or nest fewer lists", cost, limit)
	errcode.Set(err, admission.CodeTooComplex)
	return err
}
