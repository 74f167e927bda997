package graphqlhttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/catalogue-gateway/gateway/internal/clientaddr"
	"github.com/catalogue-gateway/gateway/internal/memory"
	coderws "github.com/coder/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// CodeForbiddenOrigin refuses a WebSocket opened by a page whose origin
// AllowedOrigins does not name.
const CodeForbiddenOrigin = "FORBIDDEN_ORIGIN"

// wsSubprotocol is the only WebSocket protocol served: graphql-ws's
// GraphQL over WebSocket. The older protocol of
// subscriptions-transport-ws, unmaintained since 2018, has no way to
// answer a ping, and the graphql-ws client does not speak it.
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

// The graphql-transport-ws close codes (the protocol's, and the
// WebSocket's own).
const (
	wsBadMessage   coderws.StatusCode = 4400 // a message the protocol does not allow
	wsUnauthorized coderws.StatusCode = 4401 // subscribe before connection_ack
	wsInitTimeout  coderws.StatusCode = 4408 // no connection_init in time
	wsDuplicateID  coderws.StatusCode = 4409 // subscribe with an id in use
	wsTooManyInits coderws.StatusCode = 4429 // a second connection_init
)

const (
	// wsCloseWait bounds a close: once the close frame is queued, the
	// queue before it and the frame are written, and the client's close
	// answered, within it, or the TCP connection is closed. A client
	// that reads does it in a round trip.
	wsCloseWait = 2 * time.Second
	// wsMaxQueued is how many messages may be queued for one client
	// before the connection's own messages wait for room, besides the
	// bytes bound (Options.WebSocketBufferBytes), as gorilla/websocket's
	// chat example bounds its clients' queues. (Answers are bounded by
	// bytes only, each charged wsMessageOverhead besides its own.)
	wsMaxQueued = 256
)

// CodeTooManyOperations refuses an operation over a WebSocket beyond
// Options.MaxOperationsPerWebSocket: the connection has that many under
// way; the client sends it again once one has ended.
const CodeTooManyOperations = "TOO_MANY_OPERATIONS"

// wsMessage is a graphql-transport-ws message.
type wsMessage struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// websocket serves the graphql-transport-ws protocol over coder/websocket,
// running each operation on the endpoint's executor (wsExecutor), with the
// endpoint's limits:
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
//     mutation) runs within RequestTimeout, in its client's turn for a
//     core, and within MaxResponseBytes; a subscription has no time
//     budget. At most MaxOperationsPerWebSocket operations, queries and
//     subscriptions, are under way at once; one more gets an error
//     message, TOO_MANY_OPERATIONS.
//   - A message is at most MaxBodyBytes, as a POST body is.
//   - What is sent waits in a queue of WebSocketBufferBytes, written by
//     one writer, each message within WebSocketWriteTimeout. A client
//     that does not read fast enough to keep within both is cut off at
//     once: its TCP connection is closed, since no close frame would
//     reach it before the bytes it has not read (its library reports
//     1006); its operations are cancelled and its places freed. The
//     connection's own messages (acknowledgement, pongs, refusals) wait
//     for room instead, up to the write timeout, and the client's next
//     message is not read meanwhile (see send).
//   - The connection's queries hold at most half the cores (at least one)
//     at once, and take their turns as their client's (see admission).
//   - The server pings every KeepAlive and closes a connection whose client
//     has not answered a ping within two; a pong sent unasked does not
//     count. A client must send connection_init within 10 s (else 4408),
//     once (4429), before it subscribes (4401). A message the protocol
//     does not allow closes the connection with 4400, a subscribe whose
//     id is under way with 4409.
//   - At StreamMaxAge (less up to a tenth) or when Done closes, each open
//     subscription gets complete, queries under way are answered (within
//     their budget), and the connection closes normally (1000), so that
//     its client connects again, to whichever replica the balancer picks;
//     a client that does not take the close within 2 s is cut off.
//
// It returns the outcome, for the observer.
func (e *endpoint) websocket(w http.ResponseWriter, r *http.Request) string {
	if !e.webSocketAllowed(w, r) {
		return "rejected"
	}
	client := clientaddr.Key(r, e.opts.TrustedProxies)
	if herr := e.takePlace(client); herr != nil {
		e.refusePlace(w, r, herr)
		return "rejected"
	}
	// The connection's base place is given back once every operation it
	// ran has ended: serveWebSocket returns only then.
	defer e.releasePlace(client)
	conn, netConn, ok := e.acceptWebSocket(w, r)
	if !ok {
		return "rejected"
	}
	e.serveWebSocket(r, client, conn, netConn)
	return "ok"
}

// webSocketAllowed refuses, answering it, a WebSocket without the
// graphql-transport-ws subprotocol or from an origin the CORS policy does
// not allow.
func (e *endpoint) webSocketAllowed(w http.ResponseWriter, r *http.Request) bool {
	if !headerHasToken(r.Header, "Sec-WebSocket-Protocol", wsSubprotocol) {
		e.opts.Observer.Rejected("websocket_protocol")
		e.reject(w, r, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "websocket_protocol",
			"open the WebSocket with the graphql-transport-ws subprotocol"}})
		return false
	}
	if !e.originAllowed(r) {
		e.opts.Observer.Rejected("origin")
		e.reject(w, r, &httpError{http.StatusForbidden, limitError{CodeForbiddenOrigin, "origin",
			"pages from this origin may not open a WebSocket here"}})
		return false
	}
	return true
}

// acceptWebSocket completes the handshake, returning the connection and
// the TCP connection under it; a handshake the library does not take is
// answered as any request the endpoint refuses, and ok is false.
func (e *endpoint) acceptWebSocket(w http.ResponseWriter, r *http.Request) (conn *coderws.Conn, netConn net.Conn, ok bool) {
	// A WebSocket outlives the server's read and write timeouts, which
	// the hijacked connection would otherwise keep.
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
	uw := &upgradeWriter{ResponseWriter: w}
	// The origin was checked before, against the CORS policy rather than
	// the library's same-host rule.
	conn, err := coderws.Accept(uw, r, &coderws.AcceptOptions{Subprotocols: []string{wsSubprotocol}, InsecureSkipVerify: true})
	if err != nil {
		// Logged here rather than by a library.
		e.opts.Logger.InfoContext(r.Context(), "websocket: handshake refused", "request_id", RequestID(r.Context()), "err", err)
		if uw.status != 0 {
			e.opts.Observer.Rejected("websocket_handshake")
			e.reject(w, r, &httpError{uw.status, limitError{CodeBadRequest, "websocket_handshake",
				"not a WebSocket handshake this server takes (RFC 6455, version 13)"}})
		}
		return nil, nil, false
	}
	return conn, uw.conn, true
}

// serveWebSocket runs an accepted connection until it ends, and returns
// once every operation it ran has ended.
func (e *endpoint) serveWebSocket(r *http.Request, client netip.Prefix, conn *coderws.Conn, netConn net.Conn) {
	if wg := e.opts.Connections; wg != nil {
		wg.Add(1)
		defer wg.Done()
	}
	e.wsOpen.Add(1)
	defer e.wsOpen.Add(-1)
	conn.SetReadLimit(e.opts.Limits.MaxBodyBytes)

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	ending, end := context.WithCancel(context.WithoutCancel(ctx))
	defer end()
	c := &wsConn{e: e, client: client, conn: conn, netConn: netConn, header: r.Header, ending: ending,
		pending: map[*graphql.OperationContext]func(context.Context) context.Context{}, zero: make(chan struct{}),
		active: map[string]*wsOp{}, wake: make(chan struct{}, 1), cut: make(chan struct{}), written: make(chan struct{}),
		cores: make(chan struct{}, max(1, e.running.Size()/2))}
	c.exec = &wsExecutor{Executor: e.exec, choose: e.chooser, c: c}
	defer func() {
		if p := recover(); p != nil {
			e.exec.PresentRecoveredError(ctx, p)
		}
	}()
	go c.writeLoop()
	go c.live(ctx, end)
	initTimer := time.AfterFunc(e.wsInitWait, func() {
		c.mu.Lock()
		acked := c.acked
		c.mu.Unlock()
		if !acked {
			c.close(wsInitTimeout, "Connection initialisation timeout")
		}
	})

	c.readLoop(ctx)

	initTimer.Stop()
	c.mu.Lock()
	closing := c.closeCode != 0
	c.mu.Unlock()
	if !closing {
		// The client closed, or the connection broke: nothing more can
		// be sent.
		c.cutOff()
	}
	<-c.written // within wsCloseWait
	c.cutOff()
	conn.CloseNow()
	// Every operation is cancelled; queries end within their budget.
	cancel()
	c.running.Wait()
	<-c.idle()
}

// upgradeWriter is the response writer a WebSocket is accepted on: it
// keeps the TCP connection the library takes over, so that a client that
// does not read can be cut off whatever the library's writer is doing,
// and it holds back the plain-text answer the library writes to a
// handshake it refuses, for the endpoint to answer as it answers every
// refusal.
type upgradeWriter struct {
	http.ResponseWriter
	conn net.Conn
	// status is a refusal's status; its body is dropped.
	status int
}

func (u *upgradeWriter) WriteHeader(status int) {
	if status != http.StatusSwitchingProtocols {
		u.status = status
		return
	}
	u.ResponseWriter.WriteHeader(status)
}

func (u *upgradeWriter) Write(p []byte) (int, error) {
	if u.status != 0 {
		return len(p), nil
	}
	return u.ResponseWriter.Write(p)
}

func (u *upgradeWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(u.ResponseWriter).Hijack()
	u.conn = conn
	return conn, brw, err
}

func (u *upgradeWriter) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// wsConn is one WebSocket: its places, the operations it runs and what it
// has to send.
type wsConn struct {
	e       *endpoint
	client  netip.Prefix
	conn    *coderws.Conn
	netConn net.Conn
	header  http.Header
	exec    *wsExecutor
	// ending is done when the connection is to end: its subscriptions
	// complete.
	ending context.Context
	// running counts the operations' goroutines.
	running sync.WaitGroup
	// cores holds a token for each core the connection's queries hold.
	cores chan struct{}
	// wake tells the writer a message, or the close, is queued.
	wake chan struct{}
	// cut is closed when the TCP connection is closed (cutOff).
	cut chan struct{}
	// written is closed when the writer is done.
	written chan struct{}

	mu sync.Mutex
	// subs counts the subscriptions open; the connection holds
	// max(1, subs) places.
	subs int
	// ops counts the operations checked and not yet ended.
	ops int
	// pending holds, from its check to its run, what PerOperation gave
	// each operation, so that both see the same snapshot.
	pending map[*graphql.OperationContext]func(context.Context) context.Context
	// zero is closed, and replaced, each time ops and inFlight fall to 0.
	zero chan struct{}
	// acked reports connection_init answered.
	acked bool
	// active are the operations under way by id; inFlight counts them
	// with those the client completed that are still winding down.
	active   map[string]*wsOp
	inFlight int
	// pingSent is when the oldest ping not answered was sent; zero when
	// every ping is answered.
	pingSent time.Time
	// queue holds the messages to send, queued their bytes; charged is
	// what the connection counts in the endpoint's wsBytes: the queue and
	// the message being written.
	queue   [][]byte
	queued  int
	charged int
	// closeCode, once set, is the close frame the writer sends after the
	// queue; nothing more is queued.
	closeCode   coderws.StatusCode
	closeReason string
	isCut       bool
	// room, when someone waits for room in the queue, is closed when a
	// message leaves it.
	room chan struct{}
}

// wsOp is an operation under way.
type wsOp struct {
	id     string
	cancel context.CancelFunc
}

// closed is a channel that is closed.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// idle returns a channel closed once no operation is under way, being
// checked, run or answered.
func (c *wsConn) idle() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ops == 0 && c.inFlight == 0 {
		return closed
	}
	return c.zero
}

// noteIdleLocked closes zero if no operation is under way. c.mu is held.
func (c *wsConn) noteIdleLocked() {
	if c.ops == 0 && c.inFlight == 0 {
		close(c.zero)
		c.zero = make(chan struct{})
	}
}

// live ends the connection at its age, when Done closes or never (if the
// client leaves first): the subscriptions first (end), then, once the
// operations under way are over or had their time budget, the connection,
// closed normally.
func (c *wsConn) live(ctx context.Context, end context.CancelFunc) {
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
	c.close(coderws.StatusNormalClosure, "")
}

// readLoop reads the client's messages until the connection closes, or
// the server closes it.
func (c *wsConn) readLoop(ctx context.Context) {
	for {
		_, b, err := c.conn.Read(ctx)
		if err != nil {
			return
		}
		start := graphql.Now()
		c.mu.Lock()
		closing := c.closeCode != 0
		c.mu.Unlock()
		if closing {
			// Nothing more is taken; the close is under way.
			continue
		}
		var m wsMessage
		if err := json.Unmarshal(b, &m); err != nil {
			c.close(wsBadMessage, "Invalid message received")
			continue
		}
		switch m.Type {
		case "connection_init":
			c.mu.Lock()
			again := c.acked
			c.acked = true
			c.mu.Unlock()
			if again {
				c.close(wsTooManyInits, "Too many initialisation requests")
				continue
			}
			c.send(marshal(wsMessage{Type: "connection_ack"}))
			go c.keepAlive(ctx)
		case "ping":
			// Answered as graphql-ws answers it, with its payload.
			c.send(marshal(wsMessage{Type: "pong", Payload: m.Payload}))
		case "pong":
			// Only an answer to a ping counts: one sent unasked says
			// nothing of whether the client still reads.
			c.mu.Lock()
			c.pingSent = time.Time{}
			c.mu.Unlock()
		case "subscribe":
			c.subscribe(ctx, m, start)
		case "complete":
			c.mu.Lock()
			op := c.active[m.ID]
			delete(c.active, m.ID)
			c.mu.Unlock()
			if op != nil {
				op.cancel()
			}
		default:
			c.close(wsBadMessage, "Invalid message received")
		}
	}
}

// subscribe starts the operation of a subscribe message.
func (c *wsConn) subscribe(ctx context.Context, m wsMessage, start time.Time) {
	params := &graphql.RawParams{}
	dec := json.NewDecoder(bytes.NewReader(m.Payload))
	dec.UseNumber()
	if m.ID == "" || dec.Decode(params) != nil {
		c.close(wsBadMessage, "Invalid message received")
		return
	}
	if c.e.opts.TrustedDocuments != nil {
		// GraphQL over HTTP's documentId, read here as over HTTP (see
		// documentID).
		var persisted struct {
			DocumentID string `json:"documentId"`
		}
		json.Unmarshal(m.Payload, &persisted)
		req := &request{query: params.Query, extensions: params.Extensions}
		if herr := c.e.documentID(req, persisted.DocumentID); herr != nil {
			c.send(marshal(wsMessage{Type: "error", ID: m.ID, Payload: marshal(gqlerror.List{{
				Message: herr.message, Extensions: map[string]any{"code": herr.code}}})}))
			return
		}
		params.Extensions = req.extensions
	}
	c.mu.Lock()
	if !c.acked {
		c.mu.Unlock()
		c.close(wsUnauthorized, "Unauthorized")
		return
	}
	if c.active[m.ID] != nil {
		c.mu.Unlock()
		// A close reason is at most 123 bytes.
		c.close(wsDuplicateID, "Subscriber for "+strings.ToValidUTF8(m.ID[:min(len(m.ID), 80)], "")+" already exists")
		return
	}
	if c.inFlight >= c.e.opts.MaxOperationsPerWebSocket {
		c.mu.Unlock()
		c.send(marshal(wsMessage{Type: "error", ID: m.ID, Payload: marshal(gqlerror.List{{
			Message: fmt.Sprintf("this connection has %d operations under way; send it again once one has ended",
				c.e.opts.MaxOperationsPerWebSocket),
			Extensions: map[string]any{"code": CodeTooManyOperations}}})}))
		c.e.opts.Observer.Rejected("operations_per_websocket")
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	op := &wsOp{id: m.ID, cancel: cancel}
	c.active[m.ID] = op
	c.inFlight++
	c.running.Add(1)
	c.mu.Unlock()
	params.Headers = c.header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	go c.run(ctx, op, params)
}

// run runs an operation and sends what it answers, then complete: what
// gqlgen's executor refuses goes as an error message when the protocol
// would have refused it (a document that does not parse or validate, a
// limit), else as a result with the errors.
func (c *wsConn) run(ctx context.Context, op *wsOp, params *graphql.RawParams) {
	defer func() {
		op.cancel()
		c.mu.Lock()
		if c.active[op.id] == op {
			delete(c.active, op.id)
		}
		c.inFlight--
		c.noteIdleLocked()
		c.mu.Unlock()
		c.running.Done()
	}()
	ctx = graphql.StartOperationTrace(ctx)
	oc, errs := c.exec.CreateOperationContext(ctx, params)
	if errs != nil {
		resp := c.exec.DispatchError(graphql.WithOperationContext(ctx, oc), errs)
		if errcode.GetErrorKind(errs) == errcode.KindProtocol {
			// The operation ends with the error: no complete follows.
			c.sendFor(op, "error", marshal(resp.Errors))
			return
		}
		c.sendFor(op, "next", marshal(resp))
		c.sendFor(op, "complete", nil)
		return
	}
	ctx = graphql.WithOperationContext(ctx, oc)
	defer func() {
		if p := recover(); p != nil {
			err := c.e.exec.PresentRecoveredError(ctx, p)
			gerr, _ := err.(*gqlerror.Error)
			c.sendFor(op, "error", marshal(gqlerror.List{gerr}))
		}
	}()
	payloads, ctx := c.exec.dispatchPayloads(ctx, oc)
	for {
		payload := payloads(ctx)
		if payload == nil {
			break
		}
		c.sendFor(op, "next", payload)
	}
	c.sendFor(op, "complete", nil)
}

// sendFor sends a message of op's, unless the client has completed it.
func (c *wsConn) sendFor(op *wsOp, typ string, payload []byte) {
	c.enqueue(marshal(wsMessage{Type: typ, ID: op.id, Payload: payload}), op)
}

// send sends a message of the connection's own (connection_ack, a pong, a
// ping, a refusal).
func (c *wsConn) send(b []byte) { c.enqueue(b, nil) }

// wsSmallMessage is the size up to which a message waits for room in a
// full queue rather than cut its client off: a complete, a refusal, a
// pong, a small answer. Waiting, each holds little; an operation's
// complete must not find the queue full because its own answer
// overshoots the bound.
const wsSmallMessage = 4 << 10

// wsMessageOverhead is what a queued message is charged besides its
// bytes, so that many small ones fill the queue too.
const wsMessageOverhead = 64

// enqueue queues a message for the writer (for op, unless the client has
// completed op; nil for the connection's own), unless the connection is
// closing.
//
// The queue takes a message while it holds less than
// WebSocketBufferBytes, and all WebSockets' queues less than
// WebSocketBudgetBytes: one answer may overshoot them, and none is
// refused for its size alone (MaxResponseBytes bounds that). A larger answer that
// finds it full, or all WebSockets' queues at WebSocketBudgetBytes, is
// not kept waiting with its bytes: the client is not reading fast enough,
// and is cut off. A small message waits for room instead, up to
// WebSocketWriteTimeout (then the client is cut off); when it is the
// reader's, the client's next message is not read meanwhile, so a client
// that sends faster than it reads is slowed to what it reads.
func (c *wsConn) enqueue(b []byte, op *wsOp) {
	size := len(b) + wsMessageOverhead
	small := size <= wsSmallMessage
	var deadline *time.Timer
	defer func() {
		if deadline != nil {
			deadline.Stop()
		}
	}()
	c.mu.Lock()
	for {
		if c.closeCode != 0 || c.isCut || (op != nil && c.active[op.id] != op) {
			c.mu.Unlock()
			return
		}
		full := c.queued >= c.e.opts.WebSocketBufferBytes
		if small {
			full = full || len(c.queue) >= wsMaxQueued
		} else {
			full = full || c.e.wsBytes.Load() >= int64(c.e.opts.WebSocketBudgetBytes)
		}
		if !full {
			break
		}
		if !small {
			c.mu.Unlock()
			c.e.opts.Observer.Rejected("websocket_buffer")
			c.cutOff()
			return
		}
		if deadline == nil {
			deadline = time.NewTimer(c.e.opts.WebSocketWriteTimeout)
		}
		if c.room == nil {
			c.room = make(chan struct{})
		}
		room := c.room
		c.mu.Unlock()
		select {
		case <-room:
		case <-c.cut:
			return
		case <-deadline.C:
			c.e.opts.Observer.Rejected("websocket_buffer")
			c.cutOff()
			return
		}
		c.mu.Lock()
	}
	c.queue = append(c.queue, b)
	c.queued += size
	c.charged += size
	c.e.wsBytes.Add(int64(size))
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// close queues the close frame after what is queued; a client that does
// not take it within wsCloseWait is cut off.
func (c *wsConn) close(code coderws.StatusCode, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeCode != 0 || c.isCut {
		return
	}
	c.closeCode, c.closeReason = code, reason
	select {
	case c.wake <- struct{}{}:
	default:
	}
	time.AfterFunc(wsCloseWait, c.cutOff)
}

// cutOff closes the TCP connection at once, whatever the writer is doing:
// reads and writes fail, and the connection ends.
func (c *wsConn) cutOff() {
	c.mu.Lock()
	if c.isCut {
		c.mu.Unlock()
		return
	}
	c.isCut = true
	c.e.wsCuts.Add(1)
	c.queue, c.queued = nil, 0
	c.e.wsBytes.Add(-int64(c.charged))
	c.charged = 0
	c.mu.Unlock()
	close(c.cut)
	if c.netConn != nil {
		c.netConn.Close()
	}
}

// writeLoop writes the queue, each message within WebSocketWriteTimeout
// (the library closes the connection when one is not written in time),
// then the close frame once one is queued.
func (c *wsConn) writeLoop() {
	defer close(c.written)
	for {
		c.mu.Lock()
		if c.isCut {
			c.mu.Unlock()
			return
		}
		if len(c.queue) > 0 {
			b := c.queue[0]
			c.queue[0] = nil
			c.queue = c.queue[1:]
			c.queued -= len(b) + wsMessageOverhead
			if c.room != nil {
				close(c.room)
				c.room = nil
			}
			c.mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), c.e.opts.WebSocketWriteTimeout)
			err := c.conn.Write(ctx, coderws.MessageText, b)
			cancel()
			c.mu.Lock()
			if !c.isCut { // else cutOff gave back every byte charged
				size := len(b) + wsMessageOverhead
				c.charged -= size
				c.e.wsBytes.Add(-int64(size))
			}
			c.mu.Unlock()
			if err != nil {
				if !errors.Is(err, net.ErrClosed) {
					c.e.opts.Observer.Rejected("websocket_write")
				}
				c.cutOff()
				return
			}
			continue
		}
		if code := c.closeCode; code != 0 {
			reason := c.closeReason
			c.mu.Unlock()
			c.conn.Close(code, reason)
			return
		}
		c.mu.Unlock()
		select {
		case <-c.wake:
		case <-c.cut:
			return
		}
	}
}

// keepAlive pings the client every KeepAlive, and cuts it off once a ping
// has gone two intervals unanswered.
func (c *wsConn) keepAlive(ctx context.Context) {
	interval := c.e.opts.KeepAlive
	t := time.NewTicker(interval)
	defer t.Stop()
	ping := marshal(wsMessage{Type: "ping"})
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.cut:
			return
		case now := <-t.C:
			c.mu.Lock()
			sent := c.pingSent
			if sent.IsZero() {
				c.pingSent = now
			}
			c.mu.Unlock()
			if !sent.IsZero() && now.Sub(sent) >= 2*interval {
				c.cutOff()
				return
			}
			c.send(ping)
		}
	}
}

// enter counts an operation checked; a subscription (or a live query)
// beyond the first open takes a place of its own, or is refused.
func (c *wsConn) enter(oc *graphql.OperationContext, with func(context.Context) context.Context) *gqlerror.Error {
	sub := c.e.streamed(oc)
	// Decided and counted under one lock, as leave gives places back:
	// two subscriptions starting at once must not both see none open
	// and both go without a place. (takePlace never blocks.)
	c.mu.Lock()
	defer c.mu.Unlock()
	if sub && c.subs > 0 {
		if herr := c.e.takePlace(c.client); herr != nil {
			return &gqlerror.Error{Message: herr.message, Extensions: map[string]any{"code": herr.code}}
		}
	}
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
	c.noteIdleLocked()
}

// wsExecutor is the endpoint's executor (its chooser) as one WebSocket's
// operations see it: with the connection's places and lifetime, each
// operation's own context (PerOperation), and a query's time budget and
// turn for a core.
type wsExecutor struct {
	*executor.Executor
	choose *chooser
	c      *wsConn
}

var _ graphql.GraphExecutor = (*wsExecutor)(nil)

func (x *wsExecutor) CreateOperationContext(ctx context.Context, params *graphql.RawParams) (*graphql.OperationContext, gqlerror.List) {
	with := func(ctx context.Context) context.Context { return ctx }
	if x.c.e.opts.PerOperation != nil {
		with = x.c.e.opts.PerOperation(ctx)
	}
	oc, errs := x.Executor.CreateOperationContext(with(ctx), params)
	if errs != nil {
		return oc, x.c.e.withEveryVariableError(params, errs)
	}
	if err := x.c.enter(oc, with); err != nil {
		return oc, gqlerror.List{err}
	}
	return oc, nil
}

// DispatchOperation runs an operation CreateOperationContext admitted; the
// connection (run) calls it for each, with a context it cancels once the
// operation's last message is queued.
func (x *wsExecutor) DispatchOperation(ctx context.Context, oc *graphql.OperationContext) (graphql.ResponseHandler, context.Context) {
	dispatch := func(ctx context.Context, oc *graphql.OperationContext) (func(context.Context) *graphql.Response, context.Context) {
		return x.choose.DispatchOperation(ctx, oc)
	}
	return dispatchWith(x, ctx, oc, dispatch, func(ctx context.Context) *graphql.Response {
		return &graphql.Response{Errors: gqlerror.List{{Message: "internal error",
			Extensions: map[string]any{"code": CodeInternal}}}}
	}, func(r *graphql.Response) bool { return r == nil })
}

// dispatchPayloads is DispatchOperation with each response as the next
// message's payload: an answer the Executor cut into parts (@defer,
// @stream) is sent as its parts, in the deferSpec=20220824 format.
func (x *wsExecutor) dispatchPayloads(ctx context.Context, oc *graphql.OperationContext) (func(context.Context) []byte, context.Context) {
	dispatch := func(ctx context.Context, oc *graphql.OperationContext) (func(context.Context) []byte, context.Context) {
		if oc.Operation.Operation == ast.Query && x.c.e.streamed(oc) {
			return x.dispatchLive(ctx, oc)
		}
		return x.choose.dispatchPayloads(ctx, oc)
	}
	return dispatchWith(x, ctx, oc, dispatch, func(context.Context) []byte {
		return marshal(&graphql.Response{Errors: gqlerror.List{{Message: "internal error",
			Extensions: map[string]any{"code": CodeInternal}}}})
	}, func(b []byte) bool { return b == nil })
}

// dispatchLive starts a live query: its first answer, then another each
// time a refresh changes what it read (live.go). Each run pins the data
// of its time, in the connection's turn for a core.
func (x *wsExecutor) dispatchLive(ctx context.Context, oc *graphql.OperationContext) (func(context.Context) []byte, context.Context) {
	e := x.c.e
	pin := func(ctx context.Context) context.Context { return ctx }
	if e.opts.PerOperation != nil {
		pin = func(ctx context.Context) context.Context { return e.opts.PerOperation(ctx)(ctx) }
	}
	q := e.startLive(ctx, oc, x.c.client, liveOf(oc), pin)
	if q == nil {
		e.opts.Observer.Rejected("live_queries")
		herr := liveRefusal()
		refusal := marshal(&graphql.Response{Errors: gqlerror.List{{Message: herr.message,
			Extensions: map[string]any{"code": herr.code}}}})
		return func(context.Context) []byte {
			p := refusal
			refusal = nil
			return p
		}, ctx
	}
	return func(ctx context.Context) []byte {
		if resp := q.next(ctx); resp != nil {
			return marshal(resp)
		}
		return nil
	}, ctx
}

// dispatchWith runs an operation CreateOperationContext admitted by
// dispatch, with the connection's places, the operation's context, and
// a query's time budget and turn for a core; unchecked answers an
// operation never checked here.
func dispatchWith[R any](x *wsExecutor, ctx context.Context, oc *graphql.OperationContext,
	dispatch func(context.Context, *graphql.OperationContext) (func(context.Context) R, context.Context),
	unchecked func(context.Context) R, ended func(R) bool) (func(context.Context) R, context.Context) {
	c, e := x.c, x.c.e
	c.mu.Lock()
	with, ok := c.pending[oc]
	delete(c.pending, oc)
	c.mu.Unlock()
	if !ok {
		// Never checked here: nothing run does.
		var zero R
		done := false
		return func(ctx context.Context) R {
			if done {
				return zero
			}
			done = true
			return unchecked(ctx)
		}, ctx
	}
	ctx = with(ctx)
	sub := e.streamed(oc)
	context.AfterFunc(ctx, func() { c.leave(sub) })
	if sub {
		ctx, cancel := context.WithCancel(ctx)
		stop := context.AfterFunc(c.ending, cancel)
		context.AfterFunc(ctx, func() { stop() })
		return dispatch(ctx, oc)
	}
	// A query (or mutation) runs as over HTTP: within its time budget, in
	// its turn for a core, on the executor the chooser picks.
	ctx, cancel := context.WithTimeout(ctx, e.opts.RequestTimeout)
	// Past its time budget while waiting, the operation still runs, and
	// answers with the timeout error.
	//
	// A connection's queries hold at most half the cores (at least one)
	// at once, so that a core stays for everyone else while one
	// connection floods: the turns are fair by time used, but a core
	// taken by a 30 ms introspection query is not given back before it
	// is done, and with both cores of two taken by one flood, a caller's
	// 0.2 ms query had a p99 of 150 ms. They take their turns as their
	// client's.
	ownCore := false
	select {
	case c.cores <- struct{}{}:
		ownCore = true
	case <-ctx.Done():
	}
	ticket, err := e.running.Acquire(ctx, c.client)
	held := err == nil
	release := func() {
		if held {
			held = false
			e.running.Release(ticket)
		}
		if ownCore {
			ownCore = false
			<-c.cores
		}
	}
	responses, ctx := dispatch(ctx, oc)
	return func(ctx context.Context) R {
		resp := responses(ctx)
		release() // the answer is built; deferred parts come as they are
		if ended(resp) {
			cancel()
		}
		return resp
	}, ctx
}

// websocketStats reports the WebSockets' outbound buffers as a store of
// the memory budget: the bytes queued on every open connection, against
// WebSocketBudgetBytes; its entries are the connections open, its
// evictions the clients cut off with what they had queued (for not
// reading, or for not taking the close at their age or at shutdown).
func (e *endpoint) websocketStats() memory.StoreStats {
	return memory.StoreStats{Store: "websocket_buffers", Bytes: e.wsBytes.Load(), Share: int64(e.opts.WebSocketBudgetBytes),
		Entries: int(e.wsOpen.Load()), Evictions: e.wsCuts.Load()}
}
