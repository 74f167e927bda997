package graphqlhttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/coder/websocket"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/graphqlhttp/wstest"
	"github.com/catalogue-gateway/gateway/internal/execution"
)

// errorsOf decodes the payload of an error message, or the errors of a
// next message's result.
func errorsOf(t *testing.T, m wstest.Message) []gqlError {
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

	ws := wstest.Connect(t, http.DefaultClient, srv.URL)
	ws.Subscribe(t, "1", changesSubscription)
	// Idle for longer than the server's read and write timeouts, until
	// the server pings: the connection stays open.
	for deadline := time.Now().Add(10 * time.Second); ws.Pings.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no ping within 10 s")
		}
	}

	t.Run("a query on the same connection", func(t *testing.T) {
		payload, _ := json.Marshal(map[string]any{"query": `{ item(id: 1) { name } }`})
		ws.Send(t, wstest.Message{Type: "subscribe", ID: "q", Payload: payload})
		if m := ws.Next(t); m.Type != "next" || m.ID != "q" || string(m.Payload) != `{"data":{"item":{"name":"Copper Ore"}}}` {
			t.Errorf("got %+v, want the answer", m)
		}
		if m := ws.Next(t); m.Type != "complete" || m.ID != "q" {
			t.Errorf("got %+v, want complete", m)
		}
	})

	t.Run("every variable that does not coerce", func(t *testing.T) {
		payload, _ := json.Marshal(map[string]any{
			"query":     `query($id: Int!, $first: Int) { item(id: $id) { name } items(first: $first) { totalCount } }`,
			"variables": map[string]any{"first": true},
		})
		ws.Send(t, wstest.Message{Type: "subscribe", ID: "v", Payload: payload})
		// A refused operation ends with its error message alone.
		m := ws.Next(t)
		errs := errorsOf(t, m)
		if m.Type != "error" || m.ID != "v" || len(errs) != 2 || !strings.Contains(errs[0].Message, `"$id"`) || !strings.Contains(errs[1].Message, `"$first"`) {
			t.Errorf("got %s %s %s, want an error with the errors of $id and $first", m.Type, m.ID, m.Payload)
		}
	})

	if n := obs.open.Load(); n != 1 {
		t.Errorf("the observer counts %d places taken, want 1", n)
	}
	next := changedSnapshot(t, st.Current())
	st.Publish(next)
	m := ws.Next(t)
	want := `{"data":{"catalogueChanged":{"version":"` + next.Version() + `","collections":["items"]}}}`
	if m.Type != "next" || m.ID != "1" || string(m.Payload) != want {
		t.Fatalf("got %+v, want next with %s", m, want)
	}

	t.Run("each operation reads the snapshot current when it starts", func(t *testing.T) {
		payload, _ := json.Marshal(map[string]any{"query": `{ item(id: 1) { name } }`})
		ws.Send(t, wstest.Message{Type: "subscribe", ID: "q2", Payload: payload})
		if m := ws.Next(t); m.Type != "next" || string(m.Payload) != `{"data":{"item":{"name":"Copper Nugget"}}}` {
			t.Errorf("got %+v, want the new name", m)
		}
		if m := ws.Next(t); m.Type != "complete" || m.ID != "q2" {
			t.Errorf("got %+v, want complete", m)
		}
	})

	close(done) // the server shuts down
	if m := ws.Next(t); m.Type != "complete" || m.ID != "1" {
		t.Fatalf("got %+v, want complete", m)
	}
	if status := ws.CloseStatus(t); status != websocket.StatusNormalClosure {
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

	ws := wstest.Connect(t, http.DefaultClient, srv.URL)
	ws.Subscribe(t, "1", changesSubscription)
	waitForPlaces(t, obs, 1)
	// Answering, it stays open past several intervals.
	time.Sleep(5 * interval)
	if code, closed := ws.Closed(); closed {
		t.Fatalf("closed (%d) while answering pings", code)
	}
	pings := ws.Pings.Load()
	ws.Mute.Store(true)
	ws.CloseStatus(t) // fails if the connection is still open 10 s on
	if ws.Pings.Load() <= pings {
		t.Error("no ping went unanswered before the close")
	}
	waitForPlaces(t, obs, 0)
	// The place it held is free for another client.
	other := wstest.Connect(t, http.DefaultClient, srv.URL)
	other.Subscribe(t, "1", changesSubscription)
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

	ws := wstest.Connect(t, first, srv.URL)
	ws.Subscribe(t, "a", changesSubscription)
	ws.Subscribe(t, "b", changesSubscription)
	waitForPlaces(t, obs, 2)
	if s := openGetStream(t, first, srv.URL, map[string]any{"query": changesSubscription}); s.resp.StatusCode != http.StatusOK {
		t.Fatalf("an event stream besides: status %d, want 200", s.resp.StatusCode)
	}
	// The client's cap is reached.
	ws.Subscribe(t, "c", changesSubscription)
	m := ws.Next(t)
	if errs := errorsOf(t, m); m.Type != "error" || m.ID != "c" || len(errs) != 1 || errs[0].code() != graphqlhttp.CodeTooManyStreamsForClient {
		t.Fatalf("got %+v, want an error %s", m, graphqlhttp.CodeTooManyStreamsForClient)
	}
	checkRefusedForClient(t, openStreamWith(t, first, srv.URL, map[string]any{"query": changesSubscription}))
	if _, resp := wstest.Dial(t, first, srv.URL); resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a second connection: %v, want 429", resp)
	}

	t.Run("a subscription completed gives its place back", func(t *testing.T) {
		ws.Send(t, wstest.Message{Type: "complete", ID: "b"})
		waitForPlaces(t, obs, 2)
		ws.Subscribe(t, "d", changesSubscription)
		waitForPlaces(t, obs, 3)
	})

	t.Run("the server's cap", func(t *testing.T) {
		other := wstest.Connect(t, clientFrom(t, "127.0.0.2"), srv.URL) // the 4th place
		other.Subscribe(t, "a", changesSubscription)
		other.Subscribe(t, "b", changesSubscription) // the 5th
		waitForPlaces(t, obs, 5)
		other.Subscribe(t, "c", changesSubscription)
		m := other.Next(t)
		if errs := errorsOf(t, m); m.Type != "error" || len(errs) != 1 || errs[0].code() != graphqlhttp.CodeTooManyStreams {
			t.Fatalf("got %+v, want an error %s", m, graphqlhttp.CodeTooManyStreams)
		}
		if _, resp := wstest.Dial(t, clientFrom(t, "127.0.0.3"), srv.URL); resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("a connection beyond the server's cap: %v, want 503", resp)
		}
	})

	t.Run("a connection closed gives its places back", func(t *testing.T) {
		ws.Conn.Close(websocket.StatusNormalClosure, "")
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
	ws := wstest.Connect(t, http.DefaultClient, srv.URL)
	ws.Subscribe(t, "a", changesSubscription)
	ws.Subscribe(t, "b", changesSubscription)
	completed := map[string]bool{}
	for range 2 {
		m := ws.Next(t)
		if m.Type != "complete" {
			t.Fatalf("got %+v, want complete", m)
		}
		completed[m.ID] = true
	}
	if !completed["a"] || !completed["b"] {
		t.Errorf("completed %v, want a and b", completed)
	}
	if status := ws.CloseStatus(t); status != websocket.StatusNormalClosure {
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
		{name: "depth", opts: graphqlhttp.Options{Limits: admission.Limits{MaxDepth: 3}}, query: deep,
			code: admission.CodeTooDeep, asError: true},
		{name: "depth of a subscription", opts: graphqlhttp.Options{Limits: admission.Limits{MaxDepth: 1}},
			query: changesSubscription, code: admission.CodeTooDeep, asError: true},
		{name: "complexity", opts: graphqlhttp.Options{Limits: admission.Limits{MaxComplexity: 10}},
			query: `{ items(first: 100) { nodes { name } } }`, code: admission.CodeTooComplex, asError: true},
		{name: "tokens", opts: graphqlhttp.Options{Limits: admission.Limits{MaxTokens: 5}},
			query: `{ item(id: 1) { name } }`, code: "GRAPHQL_PARSE_FAILED", asError: true},
		{name: "introspection off", opts: graphqlhttp.Options{},
			query: `{ __schema { types { name } } }`, code: admission.CodeNoIntrospection, asError: true},
		{name: "time budget", opts: graphqlhttp.Options{RequestTimeout: time.Nanosecond},
			query: `{ item(id: 1) { name } }`, code: graphqlhttp.CodeTimeout},
		{name: "response bytes", opts: graphqlhttp.Options{Limits: admission.Limits{MaxResponseBytes: 100}},
			query: `{ items(first: 100) { nodes { name } } }`, code: graphqlhttp.CodeResponseTooLarge},
		{name: "time budget, gqlgen's executor", opts: graphqlhttp.Options{RequestTimeout: time.Nanosecond, Executor: execution.None},
			query: `{ item(id: 1) { name } }`, code: graphqlhttp.CodeTimeout},
		{name: "response bytes, gqlgen's executor", opts: graphqlhttp.Options{Limits: admission.Limits{MaxResponseBytes: 100}, Executor: execution.None},
			query: `{ items(first: 100) { nodes { name } } }`, code: graphqlhttp.CodeResponseTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.MaxStreams = 5
			srv, _, batches := countingStreamServer(t, tt.opts)
			ws := wstest.Connect(t, http.DefaultClient, srv.URL)
			ws.Subscribe(t, "1", tt.query)
			m := ws.Next(t)
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
		srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 5, Limits: admission.Limits{MaxBodyBytes: 1000}})
		ws := wstest.Connect(t, http.DefaultClient, srv.URL)
		ws.Subscribe(t, "1", `{ item(id: 1) { name } }`+strings.Repeat(" ", 1000))
		if status := ws.CloseStatus(t); status != websocket.StatusMessageTooBig {
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
			ws, resp := wstest.Dial(t, http.DefaultClient, tt.url, tt.header...)
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
	wstest.Connect(t, http.DefaultClient, srv.URL, "X-Forwarded-For", "198.51.100.1")
	wstest.Connect(t, http.DefaultClient, srv.URL, "X-Forwarded-For", "198.51.100.2")
	if _, resp := wstest.Dial(t, http.DefaultClient, srv.URL, "X-Forwarded-For", "198.51.100.1"); resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a second connection of one client: %v, want 429", resp)
	}
}
