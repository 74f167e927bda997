package engine

// Compiles is how many operations e has compiled.
func Compiles(e *Engine) int64 { return e.compiles.Load() }
