package graphqlhttp

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	gqltransport "github.com/99designs/gqlgen/graphql/handler/transport"
	coderws "github.com/coder/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// CodeForbiddenOrigin refuses a WebSocket opened by a page whose origin
// AllowedOrigins does not name.
const CodeForbiddenOrigin = "FORBIDDEN_ORIGIN"

// wsSubprotocol is the only WebSocket protocol served: graphql-ws's
// GraphQL over WebSocket. gqlgen also speaks the older protocol of
// subscriptions-transport-ws, unmaintained since 2018, which has no way to
// answer a ping, and which the graphql-ws client does not speak.
const wsSubprotocol = "graphql-transport-ws"

// isWebSocket reports a request to open a WebSocket.
func isWebSocket(r *http.Request) bool {
	return r.Method == http.MethodGet && headerHasToken(r.Header, "Upgrade", "websocket")
}

// IsWebSocket reports whether r asks to open a WebSocket on the endpoint;
// middleware that sets up one request for one operation (the loaders) has
// nothing to do for it, since a WebSocket carries many (see
// Options.PerOperation).
func IsWebSocket(r *http.Request) bool { return isWebSocket(r) }

// headerHasToken reports whether a comma-separated header names token,
// case aside.
func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for part := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

// originAllowed reports whether a browser page at the request's Origin
// may open a WebSocket: the same origin always, others as CORS lets them
// call the endpoint (AllowedOrigins). A WebSocket is not subject to CORS,
// so without this check any site could open one from its visitors'
// browsers. A request without Origin is not from a browser's page.
func (e *endpoint) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err == nil && strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, allowed := range e.opts.AllowedOrigins {
		if originMatches(allowed, origin) {
			return true
		}
	}
	return false
}

// originMatches matches an origin against a pattern as rs/cors does: "*"
// matches any, one "*" inside a pattern any run of characters, and
// otherwise the origin must be equal, case aside.
func originMatches(pattern, origin string) bool {
	pattern, origin = strings.ToLower(strings.TrimSpace(pattern)), strings.ToLower(origin)
	if pattern == "*" {
		return true
	}
	prefix, suffix, wild := strings.Cut(pattern, "*")
	if !wild {
		return pattern == origin
	}
	return len(origin) >= len(prefix)+len(suffix) && strings.HasPrefix(origin, prefix) && strings.HasSuffix(origin, suffix)
}

// websocket serves the graphql-transport-ws protocol by gqlgen's WebSocket
// transport, with the endpoint's limits:
//
//   - A connection holds one of MaxStreams places and one of its client's
//     MaxStreamsPerClient from the start, which its first subscription
//     uses; each further subscription open at once takes one more place, so
//     a client's subscriptions are counted the same over Server-Sent Events
//     and WebSockets, and an idle connection is counted too. A connection
//     refused at the start is answered as a refused stream (503 or 429),
//     a subscription refused later gets the protocol's error message with
//     the same code.
//   - Every operation goes through gqlgen's executor, with the guard, the
//     cost limit and the other extensions, as over HTTP. A query (or
//     mutation) runs within RequestTimeout, in its turn for a core, and
//     within MaxResponseBytes; a subscription has no time budget.
//   - A message is at most MaxBodyBytes, as a POST body is.
//   - The server pings every KeepAlive and closes a connection whose client
//     does not answer within two; a client must send connection_init within
//     10 s.
//   - At StreamMaxAge (less up to a tenth) or when Done closes, each open
//     subscription gets complete, queries under way are answered (within
//     their budget), and the connection closes normally (1000), so that
//     its client connects again, to whichever replica the balancer picks.
//
// It returns the outcome, for the observer.
func (e *endpoint) websocket(w http.ResponseWriter, r *http.Request) string {
	if !headerHasToken(r.Header, "Sec-WebSocket-Protocol", wsSubprotocol) {
		e.opts.Observer.Rejected("websocket_protocol")
		e.reject(w, r, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "websocket_protocol",
			"open the WebSocket with the graphql-transport-ws subprotocol"}})
		return "rejected"
	}
	if !e.originAllowed(r) {
		e.opts.Observer.Rejected("origin")
		e.reject(w, r, &httpError{http.StatusForbidden, limitError{CodeForbiddenOrigin, "origin",
			"pages from this origin may not open a WebSocket here"}})
		return "rejected"
	}
	client := clientKey(clientAddr(r, e.opts.TrustedProxies))
	if herr := e.takePlace(client); herr != nil {
		e.refusePlace(w, r, herr)
		return "rejected"
	}
	if wg := e.opts.Connections; wg != nil {
		wg.Add(1)
		defer wg.Done()
	}
	// The connection's base place is given back once every operation it
	// ran has ended (below, after the transport returns).
	ctx, closeConn := context.WithCancel(r.Context())
	defer closeConn()
	ending, end := context.WithCancel(context.WithoutCancel(ctx))
	defer end()
	c := &wsConn{e: e, client: client, ending: ending,
		pending: map[*graphql.OperationContext]func(context.Context) context.Context{}, zero: make(chan struct{})}
	defer func() {
		// The transport has cancelled what was still running; queries
		// end within their budget.
		<-c.idle()
		e.releasePlace(client)
	}()
	// A WebSocket outlives the server's read and write timeouts, which
	// the hijacked connection would otherwise keep.
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
	go c.live(ctx, end, closeConn)

	// The transport negotiates the subprotocols it knows: it is offered
	// only this one. The origin was checked above, against the CORS
	// policy rather than the library's same-host rule.
	r = r.Clone(ctx)
	r.Header.Set("Sec-WebSocket-Protocol", wsSubprotocol)
	readLimit := e.opts.Limits.MaxBodyBytes
	t := gqltransport.Websocket{
		Implementation:   gqltransport.CoderWebsocketImplementation{AcceptOptions: coderws.AcceptOptions{InsecureSkipVerify: true}},
		InitTimeout:      10 * time.Second,
		PingPongInterval: e.opts.KeepAlive,
		PayloadReadLimit: &readLimit,
		ErrorFunc:        func(context.Context, error) {}, // a client leaving is no error of ours
	}
	defer func() {
		if p := recover(); p != nil {
			e.exec.PresentRecoveredError(ctx, p)
		}
	}()
	t.Do(w, r, &wsExecutor{Executor: e.exec, c: c})
	return "ok"
}

// wsConn is one WebSocket's share of the endpoint: its places and the
// operations it runs.
type wsConn struct {
	e      *endpoint
	client netip.Prefix
	// ending is done when the connection is to end: its subscriptions
	// complete.
	ending context.Context

	mu sync.Mutex
	// subs counts the subscriptions open; the connection holds
	// max(1, subs) places.
	subs int
	// ops counts the operations checked and not yet ended.
	ops int
	// pending holds, from its check to its run, what PerOperation gave
	// each operation, so that both see the same snapshot.
	pending map[*graphql.OperationContext]func(context.Context) context.Context
	// zero is closed, and replaced, each time ops falls to 0.
	zero chan struct{}
}

// closed is a channel that is closed.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// idle returns a channel closed once no operation is under way.
func (c *wsConn) idle() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ops == 0 {
		return closed
	}
	return c.zero
}

// live ends the connection at its age, when Done closes or never (if the
// client leaves first): the subscriptions first (end), then, once the
// operations under way are over or had their time budget, the connection
// (closeConn), which the transport closes normally.
func (c *wsConn) live(ctx context.Context, end, closeConn context.CancelFunc) {
	age := time.NewTimer(streamAge(c.e.opts.StreamMaxAge))
	defer age.Stop()
	select {
	case <-c.e.opts.Done: // nil: never
	case <-age.C:
	case <-ctx.Done():
		return
	}
	end()
	grace := time.NewTimer(c.e.opts.RequestTimeout)
	defer grace.Stop()
	select {
	case <-c.idle():
	case <-grace.C:
	case <-ctx.Done():
		return
	}
	closeConn()
}

// enter counts an operation checked; a subscription beyond the first open
// takes a place of its own, or is refused.
func (c *wsConn) enter(oc *graphql.OperationContext, with func(context.Context) context.Context) *gqlerror.Error {
	sub := oc.Operation.Operation == ast.Subscription
	c.mu.Lock()
	extra := sub && c.subs > 0
	c.mu.Unlock()
	if extra {
		if herr := c.e.takePlace(c.client); herr != nil {
			return &gqlerror.Error{Message: herr.message, Extensions: map[string]any{"code": herr.code}}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if sub {
		c.subs++
	}
	c.ops++
	c.pending[oc] = with
	return nil
}

// leave counts an operation ended, and gives back the place of a
// subscription that was not the connection's only one.
func (c *wsConn) leave(sub bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sub {
		if c.subs > 1 {
			c.e.releasePlace(c.client)
		}
		c.subs--
	}
	c.ops--
	if c.ops == 0 {
		close(c.zero)
		c.zero = make(chan struct{})
	}
}

// wsExecutor is gqlgen's executor as one WebSocket's operations see it:
// with the connection's places and lifetime, each operation's own context
// (PerOperation), and a query's time budget and turn for a core.
type wsExecutor struct {
	*executor.Executor
	c *wsConn
}

var _ graphql.GraphExecutor = (*wsExecutor)(nil)

func (x *wsExecutor) CreateOperationContext(ctx context.Context, params *graphql.RawParams) (*graphql.OperationContext, gqlerror.List) {
	with := func(ctx context.Context) context.Context { return ctx }
	if x.c.e.opts.PerOperation != nil {
		with = x.c.e.opts.PerOperation(ctx)
	}
	oc, errs := x.Executor.CreateOperationContext(with(ctx), params)
	if errs != nil {
		return oc, errs
	}
	if err := x.c.enter(oc, with); err != nil {
		return oc, gqlerror.List{err}
	}
	return oc, nil
}

// DispatchOperation runs an operation CreateOperationContext admitted; the
// transport calls it for each, with a context it cancels once the
// operation's last message is sent.
func (x *wsExecutor) DispatchOperation(ctx context.Context, oc *graphql.OperationContext) (graphql.ResponseHandler, context.Context) {
	c, e := x.c, x.c.e
	c.mu.Lock()
	with, ok := c.pending[oc]
	delete(c.pending, oc)
	c.mu.Unlock()
	if !ok {
		// Never checked here: nothing gqlgen's transport does.
		return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{{Message: "internal error",
			Extensions: map[string]any{"code": CodeInternal}}}}), ctx
	}
	ctx = with(ctx)
	sub := oc.Operation.Operation == ast.Subscription
	context.AfterFunc(ctx, func() { c.leave(sub) })
	if sub {
		ctx, cancel := context.WithCancel(ctx)
		stop := context.AfterFunc(c.ending, cancel)
		context.AfterFunc(ctx, func() { stop() })
		return x.Executor.DispatchOperation(ctx, oc)
	}
	// A query (or mutation) runs as over HTTP: within its time budget, in
	// its turn for a core, on the Executor if it takes it.
	ctx, cancel := context.WithTimeout(ctx, e.opts.RequestTimeout)
	// Past its time budget while waiting, the operation still runs, and
	// answers with the timeout error.
	held := e.running.Acquire(ctx, 1) == nil
	release := func() {
		if held {
			held = false
			e.running.Release(1)
		}
	}
	if e.opts.Executor != nil {
		answer, err := e.opts.Executor.Execute(ctx, oc, e.docs.forOperation(oc), e.opts.Limits.MaxResponseBytes)
		if !errors.Is(err, ErrDeclined) {
			e.opts.Observer.Executed("engine")
			var resp *graphql.Response
			if err == nil {
				resp = e.answerResponse(ctx, answer)
			} else {
				resp = x.Executor.DispatchError(graphql.WithOperationContext(ctx, oc), gqlerror.List{e.stopped(ctx, err)})
			}
			release()
			cancel()
			return graphql.OneShot(resp), ctx
		}
	}
	e.opts.Observer.Executed("gqlgen")
	responses, ctx := x.Executor.DispatchOperation(ctx, oc)
	return func(ctx context.Context) *graphql.Response {
		resp := responses(ctx)
		release() // the answer is built; deferred parts come as they are
		if resp == nil {
			cancel()
			return nil
		}
		// gqlgen builds the whole answer before it returns: the bound
		// is checked on what it built, as over HTTP.
		if len(resp.Data) > e.opts.Limits.MaxResponseBytes {
			resp = x.Executor.DispatchError(ctx, gqlerror.List{e.stopped(ctx, ErrResponseTooLarge)})
		}
		return resp
	}, ctx
}
