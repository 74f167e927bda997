package resolvers

import (
	"context"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/catalogue-gateway/gateway/internal/execution"
)

// LengthsOf is lengthsOf, for the cost tests of package resolvers_test.
var LengthsOf = lengthsOf

// Counting wraps an Executor and counts the operations it answered.
type Counting struct {
	execution.Executor
	answered atomic.Int64
}

func (c *Counting) Execute(ctx context.Context, oc *graphql.OperationContext, memo *execution.Memo, maxBytes int) (execution.Answer, error) {
	answer, err := c.Executor.Execute(ctx, oc, memo, maxBytes)
	if err == nil {
		c.answered.Add(1)
	}
	return answer, err
}

// Answered returns how many operations the executor answered.
func (c *Counting) Answered() int64 { return c.answered.Load() }

// EntityTypes are the names of entityTypes, for TestEntityTypesAreTheUnion.
func EntityTypes() []string {
	var names []string
	for name, et := range entityTypes {
		switch {
		case et.typ == nil:
			names = append(names, name+" (with no Type)")
			continue
		case et.typ.Object != name:
			names = append(names, name+" (bound to "+et.typ.Name+")")
			continue
		}
		names = append(names, name)
	}
	return names
}
