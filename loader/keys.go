package loader

import (
	"context"
	"sync"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// keySet collects the entity keys of what one request read (see
// catalogue.Key): gqlgen's resolvers note them concurrently, as they run;
// the engine notes a run's at once, at its end. Duplicates are kept until
// the keys are written (FormatKeys drops them): noting a key is an
// append.
type keySet struct {
	mu   sync.Mutex
	keys []catalogue.Key
}

// NoteKeys adds keys to what the request in ctx read; a context with no
// loaders notes nothing.
func NoteKeys(ctx context.Context, keys ...catalogue.Key) {
	if l, ok := For(ctx); ok {
		l.NoteKeys(keys...)
	}
}

// NoteKeys adds keys to what the request read.
func (l *Loaders) NoteKeys(keys ...catalogue.Key) {
	if len(keys) == 0 {
		return
	}
	l.keys.mu.Lock()
	l.keys.keys = append(l.keys.keys, keys...)
	l.keys.mu.Unlock()
}

// AddKeys adds keys to what the request in ctx read, as NoteKeys, but
// keeps them rather than copy them when the request noted none yet: the
// caller hands them over and must not change them after (the engine, at
// the end of a run, hands over all it noted).
func AddKeys(ctx context.Context, keys []catalogue.Key) {
	l, ok := For(ctx)
	if !ok || len(keys) == 0 {
		return
	}
	l.keys.mu.Lock()
	if l.keys.keys == nil {
		l.keys.keys = keys
	} else {
		l.keys.keys = append(l.keys.keys, keys...)
	}
	l.keys.mu.Unlock()
}

// Keys returns the entity keys of what the request in ctx read so far,
// distinct and sorted, separated by spaces and bounded by
// catalogue.MaxKeysBytes (see catalogue.FormatKeys); "" for none.
func Keys(ctx context.Context) string {
	l, ok := For(ctx)
	if !ok {
		return ""
	}
	l.keys.mu.Lock()
	defer l.keys.mu.Unlock()
	return catalogue.FormatKeys(l.keys.keys, ' ', catalogue.MaxKeysBytes)
}
