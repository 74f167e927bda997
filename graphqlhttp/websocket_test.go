package graphqlhttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
)

// wsMessage is a graphql-transport-ws message.
type wsMessage struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// wsClient is a graphql-transport-ws client, as small as the tests need: it
// answers the server's pings itself, and hands every other message on.
type wsClient struct {
	conn     *websocket.Conn
	messages chan wsMessage
	// closed is the close status, once the connection is closed.
	closed chan websocket.StatusCode
	// pings counts the server's pings.
	pings atomic.Int64
	// mute, once set, stops the client answering pings: a client gone
	// without closing its connection.
	mute atomic.Bool
}

// dialWS opens a WebSocket to the endpoint from c's connections, with
// headers given as name, value pairs; the HTTP response when the server
// refused it.
func dialWS(t *testing.T, c *http.Client, endpoint string, header ...string) (*wsClient, *http.Response) {
	t.Helper()
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(endpoint, "http"), &websocket.DialOptions{
		HTTPClient: c, HTTPHeader: h, Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		if resp == nil {
			t.Fatalf("dialling: %v", err)
		}
		return nil, resp
	}
	ws := &wsClient{conn: conn, messages: make(chan wsMessage, 100), closed: make(chan websocket.StatusCode, 1)}
	t.Cleanup(func() { conn.CloseNow() })
	go func() {
		defer close(ws.messages)
		for {
			_, b, err := conn.Read(context.Background())
			if err != nil {
				ws.closed <- websocket.CloseStatus(err)
				return
			}
			var m wsMessage
			if err := json.Unmarshal(b, &m); err != nil {
				ws.closed <- -2
				return
			}
			if m.Type == "ping" {
				ws.pings.Add(1)
				if !ws.mute.Load() {
					ws.send(t, wsMessage{Type: "pong"})
				}
				continue
			}
			ws.messages <- m
		}
	}()
	return ws, resp
}

// connect opens a WebSocket and initialises the protocol.
func connectWS(t *testing.T, c *http.Client, endpoint string, header ...string) *wsClient {
	t.Helper()
	ws, resp := dialWS(t, c, endpoint, header...)
	if ws == nil {
		t.Fatalf("the WebSocket was refused: %d", resp.StatusCode)
	}
	ws.send(t, wsMessage{Type: "connection_init"})
	if m := ws.next(t); m.Type != "connection_ack" {
		t.Fatalf("got %+v, want connection_ack", m)
	}
	return ws
}

func (ws *wsClient) send(t *testing.T, m wsMessage) {
	b, _ := json.Marshal(m)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ws.conn.Write(ctx, websocket.MessageText, b); err != nil {
		t.Logf("sending %s: %v", b, err)
	}
}

// subscribe sends a subscribe message for query under id.
func (ws *wsClient) subscribe(t *testing.T, id, query string) {
	t.Helper()
	payload, _ := json.Marshal(map[string]any{"query": query})
	ws.send(t, wsMessage{Type: "subscribe", ID: id, Payload: payload})
}

// next returns the next message but pings; it fails the test if none
// comes within 10 s, or the connection closes first.
func (ws *wsClient) next(t *testing.T) wsMessage {
	t.Helper()
	select {
	case m, ok := <-ws.messages:
		if !ok {
			t.Fatalf("the connection closed: %v", <-ws.closed)
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message within 10 s")
	}
	return wsMessage{}
}

// closeStatus waits for the connection to close and returns its status.
func (ws *wsClient) closeStatus(t *testing.T) websocket.StatusCode {
	t.Helper()
	for {
		select {
		case m, ok := <-ws.messages:
			if ok {
				t.Errorf("a message %+v before the close", m)
				continue
			}
			return <-ws.closed
		case <-time.After(10 * time.Second):
			t.Fatal("the connection was not closed within 10 s")
		}
	}
}

// errorsOf decodes the payload of an error message, or the errors of a
// next message's result.
func errorsOf(t *testing.T, m wsMessage) []gqlError {
	t.Helper()
	var errs []gqlError
	if m.Type == "error" {
		if err := json.Unmarshal(m.Payload, &errs); err != nil {
			t.Fatalf("error payload %s: %v", m.Payload, err)
		}
		return errs
	}
	var r gqlResponse
	if err := json.Unmarshal(m.Payload, &r); err != nil {
		t.Fatalf("payload %s: %v", m.Payload, err)
	}
	return r.Errors
}

func TestSubscriptionOverWebSocket(t *testing.T) {
	done := make(chan struct{})
	obs := &streamObserver{}
	// A client has two intervals to answer a ping: one of a second is
	// long enough for any load the tests meet.
	srv, st := streamServer(t, graphqlhttp.Options{MaxStreams: 5, KeepAlive: time.Second, Done: done, Observer: obs})

	ws := connectWS(t, http.DefaultClient, srv.URL)
	ws.subscribe(t, "1", changesSubscription)
	// Idle for longer than the server's read and write timeouts, until
	// the server pings: the connection stays open.
	for deadline := time.Now().Add(10 * time.Second); ws.pings.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no ping within 10 s")
		}
	}

	t.Run("a query on the same connection", func(t *testing.T) {
		payload, _ := json.Marshal(map[string]any{"query": `{ item(id: 1) { name } }`})
		ws.send(t, wsMessage{Type: "subscribe", ID: "q", Payload: payload})
		if m := ws.next(t); m.Type != "next" || m.ID != "q" || string(m.Payload) != `{"data":{"item":{"name":"Copper Ore"}}}` {
			t.Errorf("got %+v, want the answer", m)
		}
		if m := ws.next(t); m.Type != "complete" || m.ID != "q" {
			t.Errorf("got %+v, want complete", m)
		}
	})

	if n := obs.open.Load(); n != 1 {
		t.Errorf("the observer counts %d places taken, want 1", n)
	}
	next := changedSnapshot(t, st.Current())
	st.Publish(next)
	m := ws.next(t)
	want := `{"data":{"catalogueChanged":{"version":"` + next.Version() + `","collections":["items"]}}}`
	if m.Type != "next" || m.ID != "1" || string(m.Payload) != want {
		t.Fatalf("got %+v, want next with %s", m, want)
	}

	t.Run("each operation reads the snapshot current when it starts", func(t *testing.T) {
		payload, _ := json.Marshal(map[string]any{"query": `{ item(id: 1) { name } }`})
		ws.send(t, wsMessage{Type: "subscribe", ID: "q2", Payload: payload})
		if m := ws.next(t); m.Type != "next" || string(m.Payload) != `{"data":{"item":{"name":"Copper Nugget"}}}` {
			t.Errorf("got %+v, want the new name", m)
		}
		if m := ws.next(t); m.Type != "complete" || m.ID != "q2" {
			t.Errorf("got %+v, want complete", m)
		}
	})

	close(done) // the server shuts down
	if m := ws.next(t); m.Type != "complete" || m.ID != "1" {
		t.Fatalf("got %+v, want complete", m)
	}
	if status := ws.closeStatus(t); status != websocket.StatusNormalClosure {
		t.Errorf("closed with %d, want %d", status, websocket.StatusNormalClosure)
	}
	waitForPlaces(t, obs, 0)
	// The connection's lifetime is a stream's, not a request's latency.
	waitForStreamEnded(t, obs, 0)
	if got := obs.requestOutcomes(); len(got) != 0 {
		t.Errorf("requests observed %q, want none: the connection is a stream", got)
	}
}

// TestWebSocketSilentClientIsClosed: a client that stops answering pings
// (gone without closing, behind a proxy that keeps the TCP connection) is
// closed by the server within two ping intervals, and its place is freed.
func TestWebSocketSilentClientIsClosed(t *testing.T) {
	obs := &streamObserver{}
	const interval = 300 * time.Millisecond
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 1, KeepAlive: interval, Observer: obs})

	ws := connectWS(t, http.DefaultClient, srv.URL)
	ws.subscribe(t, "1", changesSubscription)
	waitForPlaces(t, obs, 1)
	// Answering, it stays open past several intervals.
	time.Sleep(5 * interval)
	select {
	case code := <-ws.closed:
		t.Fatalf("closed (%d) while answering pings", code)
	default:
	}
	pings := ws.pings.Load()
	ws.mute.Store(true)
	ws.closeStatus(t) // fails if the connection is still open 10 s on
	if ws.pings.Load() <= pings {
		t.Error("no ping went unanswered before the close")
	}
	waitForPlaces(t, obs, 0)
	// The place it held is free for another client.
	other := connectWS(t, http.DefaultClient, srv.URL)
	other.subscribe(t, "1", changesSubscription)
	waitForPlaces(t, obs, 1)
}

// waitForPlaces waits until the observer counts n places taken.
func waitForPlaces(t *testing.T, obs *streamObserver, n int64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); obs.open.Load() != n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the observer counts %d places taken, want %d", obs.open.Load(), n)
		}
	}
}

// TestWebSocketPlaces: a connection holds one place, its first
// subscription uses it, each further one takes one more; they count with
// the client's event streams, against the client's cap and the server's.
func TestWebSocketPlaces(t *testing.T) {
	const perClient = 3
	obs := &streamObserver{}
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 5, MaxStreamsPerClient: perClient, Observer: obs})
	first := clientFrom(t, "127.0.0.1")

	ws := connectWS(t, first, srv.URL)
	ws.subscribe(t, "a", changesSubscription)
	ws.subscribe(t, "b", changesSubscription)
	waitForPlaces(t, obs, 2)
	if s := openGetStream(t, first, srv.URL, map[string]any{"query": changesSubscription}); s.resp.StatusCode != http.StatusOK {
		t.Fatalf("an event stream besides: status %d, want 200", s.resp.StatusCode)
	}
	// The client's cap is reached.
	ws.subscribe(t, "c", changesSubscription)
	m := ws.next(t)
	if errs := errorsOf(t, m); m.Type != "error" || m.ID != "c" || len(errs) != 1 || errs[0].code() != graphqlhttp.CodeTooManyStreamsForClient {
		t.Fatalf("got %+v, want an error %s", m, graphqlhttp.CodeTooManyStreamsForClient)
	}
	checkRefusedForClient(t, openStreamWith(t, first, srv.URL, map[string]any{"query": changesSubscription}))
	if _, resp := dialWS(t, first, srv.URL); resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a second connection: %v, want 429", resp)
	}

	t.Run("a subscription completed gives its place back", func(t *testing.T) {
		ws.send(t, wsMessage{Type: "complete", ID: "b"})
		waitForPlaces(t, obs, 2)
		ws.subscribe(t, "d", changesSubscription)
		waitForPlaces(t, obs, 3)
	})

	t.Run("the server's cap", func(t *testing.T) {
		other := connectWS(t, clientFrom(t, "127.0.0.2"), srv.URL) // the 4th place
		other.subscribe(t, "a", changesSubscription)
		other.subscribe(t, "b", changesSubscription) // the 5th
		waitForPlaces(t, obs, 5)
		other.subscribe(t, "c", changesSubscription)
		m := other.next(t)
		if errs := errorsOf(t, m); m.Type != "error" || len(errs) != 1 || errs[0].code() != graphqlhttp.CodeTooManyStreams {
			t.Fatalf("got %+v, want an error %s", m, graphqlhttp.CodeTooManyStreams)
		}
		if _, resp := dialWS(t, clientFrom(t, "127.0.0.3"), srv.URL); resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("a connection beyond the server's cap: %v, want 503", resp)
		}
	})

	t.Run("a connection closed gives its places back", func(t *testing.T) {
		ws.conn.Close(websocket.StatusNormalClosure, "")
		waitForPlaces(t, obs, 1) // the GET stream's (the other client's went with its subtest)
	})
}

// TestWebSocketMaxAge: a connection open for its maximum age completes
// its subscriptions, closes normally, and gives its places back.
func TestWebSocketMaxAge(t *testing.T) {
	const maxAge = 300 * time.Millisecond
	obs := &streamObserver{}
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 2, StreamMaxAge: maxAge, Observer: obs})
	start := time.Now()
	ws := connectWS(t, http.DefaultClient, srv.URL)
	ws.subscribe(t, "a", changesSubscription)
	ws.subscribe(t, "b", changesSubscription)
	completed := map[string]bool{}
	for range 2 {
		m := ws.next(t)
		if m.Type != "complete" {
			t.Fatalf("got %+v, want complete", m)
		}
		completed[m.ID] = true
	}
	if !completed["a"] || !completed["b"] {
		t.Errorf("completed %v, want a and b", completed)
	}
	if status := ws.closeStatus(t); status != websocket.StatusNormalClosure {
		t.Errorf("closed with %d, want %d", status, websocket.StatusNormalClosure)
	}
	// Timers never fire early: this bound holds however loaded the
	// machine is.
	if lasted := time.Since(start); lasted < maxAge-maxAge/10 {
		t.Errorf("the connection ended after %s, before its maximum age of %s less a tenth", lasted, maxAge)
	}
	waitForPlaces(t, obs, 0)
}

// TestWebSocketLimits: an operation over a WebSocket meets every limit it
// would meet over HTTP.
func TestWebSocketLimits(t *testing.T) {
	deep := "{ item(id: 1) { droppedByMonsters { drops { item { droppedByMonsters { drops { item { droppedByMonsters { drops { item { name } } } } } } } } } } }"
	for _, tt := range []struct {
		name  string
		opts  graphqlhttp.Options
		query string
		code  string
		// asError: the protocol's error message (the operation did not
		// run), else a result with the error.
		asError bool
	}{
		{name: "depth", opts: graphqlhttp.Options{Limits: graphqlhttp.Limits{MaxDepth: 3}}, query: deep,
			code: graphqlhttp.CodeTooDeep, asError: true},
		{name: "depth of a subscription", opts: graphqlhttp.Options{Limits: graphqlhttp.Limits{MaxDepth: 1}},
			query: changesSubscription, code: graphqlhttp.CodeTooDeep, asError: true},
		{name: "complexity", opts: graphqlhttp.Options{Limits: graphqlhttp.Limits{MaxComplexity: 10}},
			query: `{ items(first: 100) { nodes { name } } }`, code: graphqlhttp.CodeTooComplex, asError: true},
		{name: "tokens", opts: graphqlhttp.Options{Limits: graphqlhttp.Limits{MaxTokens: 5}},
			query: `{ item(id: 1) { name } }`, code: "GRAPHQL_PARSE_FAILED", asError: true},
		{name: "introspection off", opts: graphqlhttp.Options{},
			query: `{ __schema { types { name } } }`, code: graphqlhttp.CodeNoIntrospection, asError: true},
		{name: "time budget", opts: graphqlhttp.Options{RequestTimeout: time.Nanosecond},
			query: `{ item(id: 1) { name } }`, code: graphqlhttp.CodeTimeout},
		{name: "response bytes", opts: graphqlhttp.Options{Limits: graphqlhttp.Limits{MaxResponseBytes: 100}},
			query: `{ items(first: 100) { nodes { name } } }`, code: graphqlhttp.CodeResponseTooLarge},
		{name: "time budget, gqlgen's executor", opts: graphqlhttp.Options{RequestTimeout: time.Nanosecond, Executor: graphqlhttp.NoExecutor},
			query: `{ item(id: 1) { name } }`, code: graphqlhttp.CodeTimeout},
		{name: "response bytes, gqlgen's executor", opts: graphqlhttp.Options{Limits: graphqlhttp.Limits{MaxResponseBytes: 100}, Executor: graphqlhttp.NoExecutor},
			query: `{ items(first: 100) { nodes { name } } }`, code: graphqlhttp.CodeResponseTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.MaxStreams = 5
			srv, _, batches := countingStreamServer(t, tt.opts)
			ws := connectWS(t, http.DefaultClient, srv.URL)
			ws.subscribe(t, "1", tt.query)
			m := ws.next(t)
			errs := errorsOf(t, m)
			wantType := "next"
			if tt.asError {
				wantType = "error"
			}
			if m.Type != wantType || len(errs) != 1 || errs[0].code() != tt.code {
				t.Fatalf("got %+v, want a %s message with one %s error", m, wantType, tt.code)
			}
			if tt.asError && batches.Load() != 0 {
				t.Errorf("%d loader batches ran, want none", batches.Load())
			}
		})
	}

	t.Run("a message larger than a request body", func(t *testing.T) {
		srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 5, Limits: graphqlhttp.Limits{MaxBodyBytes: 1000}})
		ws := connectWS(t, http.DefaultClient, srv.URL)
		ws.subscribe(t, "1", `{ item(id: 1) { name } }`+strings.Repeat(" ", 1000))
		if status := ws.closeStatus(t); status != websocket.StatusMessageTooBig {
			t.Errorf("closed with %d, want %d", status, websocket.StatusMessageTooBig)
		}
	})
}

// TestWebSocketRefused: what is refused before the connection opens, as
// an HTTP answer.
func TestWebSocketRefused(t *testing.T) {
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 5, AllowedOrigins: []string{"https://*.example.org", "http://app.example.com"}})
	off, _ := streamServer(t, graphqlhttp.Options{})
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, tt := range []struct {
		name   string
		url    string
		header []string
		status int
		code   string // "" for a connection opened
	}{
		{"no Origin (not a browser)", srv.URL, nil, 101, ""},
		{"the same origin", srv.URL, []string{"Origin", "http://" + host}, 101, ""},
		{"an allowed origin", srv.URL, []string{"Origin", "http://app.example.com"}, 101, ""},
		{"an allowed pattern", srv.URL, []string{"Origin", "https://shop.example.org"}, 101, ""},
		{"another origin", srv.URL, []string{"Origin", "https://evil.example.net"}, http.StatusForbidden, graphqlhttp.CodeForbiddenOrigin},
		{"subscriptions off", off.URL, nil, http.StatusServiceUnavailable, graphqlhttp.CodeStreamsOff},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws, resp := dialWS(t, http.DefaultClient, tt.url, tt.header...)
			if tt.code == "" {
				if ws == nil {
					t.Fatalf("refused with %d", resp.StatusCode)
				}
				return
			}
			if ws != nil {
				t.Fatal("the connection opened")
			}
			var body gqlResponse
			if err := json.NewDecoder(resp.Body).Decode(&body); resp.StatusCode != tt.status || err != nil ||
				len(body.Errors) != 1 || body.Errors[0].code() != tt.code {
				t.Errorf("status %d, body %+v (%v): want %d %s", resp.StatusCode, body, err, tt.status, tt.code)
			}
		})
	}
	t.Run("the older protocol", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), &websocket.DialOptions{Subprotocols: []string{"graphql-ws"}})
		if err == nil {
			conn.CloseNow()
			t.Fatal("the connection opened")
		}
		if resp == nil || resp.StatusCode != http.StatusBadRequest {
			t.Errorf("got %v (%v), want 400", resp, err)
		}
	})
}

// TestWebSocketBehindProxy: the per-client cap reads X-Forwarded-For from a
// trusted proxy, as for event streams.
func TestWebSocketBehindProxy(t *testing.T) {
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 10, MaxStreamsPerClient: 1,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	connectWS(t, http.DefaultClient, srv.URL, "X-Forwarded-For", "198.51.100.1")
	connectWS(t, http.DefaultClient, srv.URL, "X-Forwarded-For", "198.51.100.2")
	if _, resp := dialWS(t, http.DefaultClient, srv.URL, "X-Forwarded-For", "198.51.100.1"); resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a second connection of one client: %v, want 429", resp)
	}
}
