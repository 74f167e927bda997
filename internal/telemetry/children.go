package telemetry

import (
	"maps"
	"sync"
	"sync/atomic"
)

// children are a metric vector's children by one label's value, each
// resolved once. WithLabelValues hashes its values and takes the vector's
// lock on every call; the gateway calls these vectors for every request
// and every loader batch, with a handful of values that never change (the
// executors, the outcomes, the kinds of record). A child is made on first
// use, as WithLabelValues makes it, so /metrics shows the same series.
// The callers bound the values, as they must for the vector itself.
type children[T any] struct {
	with func(...string) T

	mu   sync.Mutex // held while a value is added
	seen atomic.Pointer[map[string]T]
}

func newChildren[T any](with func(...string) T) *children[T] {
	return &children[T]{with: with}
}

// get returns the child for value; after its first use, a map read with
// neither a lock nor an allocation.
func (c *children[T]) get(value string) T {
	if m := c.seen.Load(); m != nil {
		if child, ok := (*m)[value]; ok {
			return child
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	next := map[string]T{}
	if m := c.seen.Load(); m != nil {
		if child, ok := (*m)[value]; ok {
			return child
		}
		next = maps.Clone(*m)
	}
	child := c.with(value)
	next[value] = child
	c.seen.Store(&next)
	return child
}
