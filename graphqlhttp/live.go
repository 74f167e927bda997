package graphqlhttp

import (
	"context"
	"crypto/sha256"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/internal/memory"
)

// Live queries: a query marked @live, asked for as an event stream or
// over a WebSocket, is answered, then answered again, whole, each time
// the data changes what it read and the answer with it. Which keys a
// change touched is Options.Changes's to say; which keys an answer read,
// Options.Keys's (the same keys a cache purges by). An answer is run
// again only when the two meet, and sent only when its hash differs from
// the last one sent. Everything else is a stream's: its places, its age,
// its ending; and a run is a query's: its time budget, its turn for a
// core, whichever executor the chooser picks.

// liveJitter spreads the runs a change sets off: each waits a random time
// below it, so that a refresh that touches every open live query does not
// run them all in the same instant. Below a second, so that every one
// runs within two seconds of the snapshot that set it off, queueing for
// a core included.
const liveJitter = time.Second

// liveKeysBytes is what a live query keeps of the keys its answer read:
// Options.Keys bounds them (the gateway's catalogue.MaxKeysBytes, 4 KiB,
// which this package does not import). They are kept as one string,
// sorted, and searched in place, so that they cost their text and no
// header per key. An answer whose keys are longer keeps none, and is run
// again on every change.
const liveKeysBytes = 4 << 10

// liveOverhead is what a live query keeps besides its text, variables
// and keys: its state (about 200 bytes), the hash, the slice of its keys
// and the goroutines' share of the change's watch; a round figure above
// them.
const liveOverhead = 1 << 10

// liveAsk is what an operation's @live asks.
type liveAsk struct {
	// throttle is the least time between two answers sent.
	throttle time.Duration
}

// liveOf is what oc's @live asks, or nil when oc is not a live query: not
// a query, not marked, or marked with if: false. Its arguments are read
// with the operation's coerced variables.
func liveOf(oc *graphql.OperationContext) *liveAsk {
	if oc == nil || oc.Operation == nil {
		return nil
	}
	return liveOfOperation(oc.Operation, oc.Variables)
}

func liveOfOperation(op *ast.OperationDefinition, vars map[string]any) *liveAsk {
	if op.Operation != ast.Query {
		return nil
	}
	d := op.Directives.ForName("live")
	if d == nil {
		return nil
	}
	args := d.ArgumentMap(vars)
	if on, ok := args["if"].(bool); ok && !on {
		return nil
	}
	ask := &liveAsk{}
	if ms, ok := execution.IntValue(args["throttle"]); ok && ms > 0 {
		// At most the stream's age: a larger one would never send again.
		ask.throttle = min(time.Duration(ms)*time.Millisecond, 24*time.Hour)
	}
	return ask
}

// streamed reports whether oc is served as a stream, holding a stream's
// place: a subscription, or a live query when live queries are served
// (Options.Changes).
func (e *endpoint) streamed(oc *graphql.OperationContext) bool {
	switch oc.Operation.Operation {
	case ast.Subscription:
		return true
	case ast.Query:
		return e.opts.Changes != nil && liveOf(oc) != nil
	}
	return false
}

// liveStore is the live queries' store of the memory budget: what the
// open ones keep between their runs, against the share.
type liveStore struct {
	share   int64
	bytes   atomic.Int64
	open    atomic.Int64
	refused atomic.Uint64
}

// take charges n bytes for a live query, or reports that the share has
// no room for them.
func (s *liveStore) take(n int64) bool {
	if s.bytes.Add(n) > s.share {
		s.bytes.Add(-n)
		s.refused.Add(1)
		return false
	}
	s.open.Add(1)
	return true
}

// give returns what take charged.
func (s *liveStore) give(n int64) {
	s.bytes.Add(-n)
	s.open.Add(-1)
}

// stats reports the store: its entries are the live queries open, its
// evictions those refused for want of room.
func (s *liveStore) stats() memory.StoreStats {
	return memory.StoreStats{Bytes: s.bytes.Load(), Share: s.share, Entries: int(s.open.Load()), Evictions: s.refused.Load()}
}

// liveQuery is one live query between its runs.
type liveQuery struct {
	e      *endpoint
	oc     *graphql.OperationContext
	client netip.Prefix
	ask    *liveAsk
	// pin gives a run's context its own view of the data, the one
	// current when it runs (Options.PerRequest or PerOperation).
	pin func(context.Context) context.Context
	// changes tells of each change of the data, the keys it touched; nil
	// when the query is answered once.
	changes <-chan []string
	// charged is what the query holds of the live queries' share.
	charged int64

	// What the last run left, for the next to compare with.
	ran      bool
	sum      [sha256.Size]byte
	keys     string    // space-separated, sorted; see hasKey
	all      bool      // the keys were too many to keep: every change touches it
	lastSent time.Time // when the last answer was sent, for throttle
}

// liveCharge is what a live query of oc keeps between its runs.
func liveCharge(oc *graphql.OperationContext) int64 {
	n := int64(len(oc.RawQuery)) + liveKeysBytes + liveOverhead
	if len(oc.Variables) > 0 {
		// Decoded, a JSON object holds each member as a map slot, a key
		// and an interface: about three times its text.
		n += 3 * int64(len(marshal(oc.Variables)))
	}
	return n
}

// startLive readies oc, a live query of client's, to be answered on a
// stream whose context is ctx: it watches the data's changes from now
// on (before the first run pins its view, so that no change between
// the two is missed) and charges the query to the live queries' share.
// A nil ask (not live, or if: false), or no Options.Changes, answers it
// once. It returns nil when the share has no room; the charge is given
// back when ctx ends.
func (e *endpoint) startLive(ctx context.Context, oc *graphql.OperationContext, client netip.Prefix, ask *liveAsk,
	pin func(context.Context) context.Context) *liveQuery {
	q := &liveQuery{e: e, oc: oc, client: client, ask: ask, pin: pin}
	if ask == nil || e.opts.Changes == nil {
		return q
	}
	q.charged = liveCharge(oc)
	if !e.lives.take(q.charged) {
		return nil
	}
	context.AfterFunc(ctx, func() { e.lives.give(q.charged) })
	q.changes = e.opts.Changes(ctx)
	return q
}

// liveRefusal is the error of a live query refused for want of room in
// its share.
func liveRefusal() *httpError {
	return &httpError{http.StatusServiceUnavailable, limitError{CodeTooManyStreams, "live_queries",
		"live queries hold all the memory the server gives them; try again later"}}
}

// next is the query's answers as a gqlgen transport reads them: the
// first at once, then each answer that differs from the last sent, after
// a change that touched what the last run read; nil when ctx ends, or
// the changes do.
func (q *liveQuery) next(ctx context.Context) *graphql.Response {
	if !q.ran {
		q.lastSent = time.Now()
		return q.run(ctx)
	}
	if q.changes == nil {
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case changed, ok := <-q.changes:
			if !ok {
				return nil
			}
			if !q.reads(changed) {
				continue
			}
		}
		wait := rand.N(liveJitter)
		if q.ask.throttle > 0 {
			wait = max(wait, time.Until(q.lastSent.Add(q.ask.throttle)))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		// What changed while waiting, the run sees: it reads the newest
		// data.
	drain:
		for {
			select {
			case _, ok := <-q.changes:
				if !ok {
					return nil
				}
			default:
				break drain
			}
		}
		prev := q.sum
		resp := q.run(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if q.sum != prev {
			q.lastSent = time.Now()
			return resp
		}
	}
}

// reads reports whether changed names a key the last answer read.
func (q *liveQuery) reads(changed []string) bool {
	if q.all {
		return true
	}
	for _, k := range changed {
		if hasKey(q.keys, k) {
			return true
		}
	}
	return false
}

// hasKey reports whether keys, space-separated and sorted, holds k: a
// binary search over the bytes, each probe widened to the key it lands
// in.
func hasKey(keys, k string) bool {
	lo, hi := 0, len(keys) // a key starts at lo; keys[lo:hi] is left
	for lo < hi {
		mid := lo + (hi-lo)/2
		start := lo + strings.LastIndexByte(keys[lo:mid], ' ') + 1
		end := strings.IndexByte(keys[start:], ' ')
		if end < 0 {
			end = len(keys)
		} else {
			end += start
		}
		switch w := keys[start:end]; {
		case w == k:
			return true
		case w < k:
			lo = end + 1
		default:
			hi = max(start-1, lo)
		}
	}
	return false
}

// run runs the query on the data current now, within a query's time
// budget and in its client's turn for a core, and keeps what it read and
// the hash of its answer.
func (q *liveQuery) run(ctx context.Context) *graphql.Response {
	e := q.e
	q.ran = true
	runCtx := ctx
	if q.pin != nil {
		runCtx = q.pin(ctx)
	}
	runCtx, cancel := context.WithTimeout(runCtx, e.opts.RequestTimeout)
	defer cancel()
	if t, err := e.running.Acquire(runCtx, q.client); err == nil {
		defer e.running.Release(t)
	}
	out, runCtx := e.chooser.run(runCtx, q.oc)
	var resp *graphql.Response
	switch {
	case out.responses != nil:
		resp = out.responses(runCtx)
	case out.err == nil:
		resp = e.answerResponse(runCtx, out.answer)
	default:
		resp = e.exec.DispatchError(graphql.WithOperationContext(runCtx, q.oc), gqlerror.List{e.stopped(runCtx, out.err)})
	}
	if resp == nil {
		resp = &graphql.Response{}
	}
	q.sum = sha256.Sum256(marshal(resp))
	if q.changes != nil {
		q.keep(runCtx, e.opts.Keys)
	}
	return resp
}

// keep notes the keys the run in ctx read, sorted as strings (Keys
// sorts them its own way).
func (q *liveQuery) keep(ctx context.Context, keysOf func(context.Context) string) {
	if keysOf == nil {
		q.keys, q.all = "", true
		return
	}
	keys := keysOf(ctx)
	if len(keys) > liveKeysBytes {
		q.keys, q.all = "", true
		return
	}
	sorted := strings.Fields(keys)
	slices.Sort(sorted)
	q.keys, q.all = strings.Join(sorted, " "), false
}

// liveOperation is an operation already checked (checkedOperation), run
// as a live query on an event stream.
type liveOperation struct {
	checkedOperation
	q *liveQuery
}

func (l liveOperation) DispatchOperation(ctx context.Context, _ *graphql.OperationContext) (graphql.ResponseHandler, context.Context) {
	return l.q.next, ctx
}
