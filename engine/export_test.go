package engine

import "time"

// Compiles is how many operations e has compiled.
func Compiles(e *Engine) int64 { return e.compiles.Load() }

// SetSweepEvery sets the least time between two sweeps of e's full
// renderings store (a second outside tests).
func SetSweepEvery(e *Engine, d time.Duration) { e.fragments.sweepEvery = d }

// TableCost is what a table of renderings of n records is charged.
func TableCost(n int) int64 { return tableCost(n, false) }
