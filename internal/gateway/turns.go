package gateway

import (
	"context"
	"net"
	"net/http"
	"runtime"
	"time"
)

// Taking turns between connections. net/http serves a connection on one
// goroutine and starts another, its background reader, for each request;
// Go runs a goroutine made ready by the running one next, on the rest of
// the running one's time slice. So a connection whose next request is
// already there when an answer is written (a client on the same host: a
// proxy beside the gateway, or a load generator) goes on, request after
// request, until the runtime ends the slice at 10 ms, while the other
// connections' requests wait in the P's queue (docs/speed.md, "Who ran
// instead"; Go issue 52934). A connection that has done turnSlice of work
// in back-to-back requests yields (runtime.Gosched) before its next one,
// and goes to the back of the queue.
//
// Only requests that take more than cheapRequest count as work: a yield
// cost the one-record query 9–14 % of its throughput for a third off its
// p99, while the nested pages, each over 40 µs, lost nothing measurable
// and halved theirs (docs/speed.md, "Taking turns"). A client a network
// away leaves a gap before each request, and never yields.
const (
	// turnSlice is how much work back-to-back requests of one connection
	// do before it yields.
	turnSlice = 200 * time.Microsecond
	// backToBack is the longest gap between the end of one request's
	// handler and the start of the next that still counts as back to
	// back: writing the answer and reading the next request take tens of
	// microseconds, a client's round trip over a network far more.
	backToBack = 50 * time.Microsecond
	// cheapRequest is the longest a request may take and not count
	// towards the slice.
	cheapRequest = 25 * time.Microsecond
)

// turn is a connection's: when its last request ended, and the work of
// the back-to-back requests since it last yielded or waited. An HTTP/1
// connection serves one request at a time, so only one goroutine uses it.
type turn struct {
	lastEnd time.Time
	work    time.Duration
}

type turnKey struct{}

// turns gives each connection its turn (http.Server.ConnContext) and has
// the requests of HTTP/1 connections take turns (wrap). now and yield are
// time.Now and runtime.Gosched but in tests.
type turns struct {
	now   func() time.Time
	yield func()
}

func newTurns() turns { return turns{now: time.Now, yield: runtime.Gosched} }

func (turns) connContext(ctx context.Context, _ net.Conn) context.Context {
	return context.WithValue(ctx, turnKey{}, &turn{})
}

func (ts turns) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, _ := r.Context().Value(turnKey{}).(*turn)
		if t == nil || r.ProtoMajor != 1 {
			// HTTP/2 runs a connection's requests at once, on
			// goroutines of their own.
			h.ServeHTTP(w, r)
			return
		}
		start := ts.now()
		if start.Sub(t.lastEnd) > backToBack {
			t.work = 0
		} else if t.work > turnSlice {
			ts.yield()
			t.work = 0
			start = ts.now()
		}
		h.ServeHTTP(w, r)
		t.lastEnd = ts.now()
		if d := t.lastEnd.Sub(start); d > cheapRequest {
			t.work += d
		}
	})
}
