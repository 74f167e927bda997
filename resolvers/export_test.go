package resolvers

// LengthsOf is lengthsOf, for the cost tests of package resolvers_test.
var LengthsOf = lengthsOf

// Counting wraps an Executor and counts the operations it answered, for
// the tests of package resolvers_test as for those here.
type Counting = counting

// Answered returns how many operations the executor answered.
func (c *counting) Answered() int64 { return c.answered.Load() }
