package graphqlhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/graphqlhttp/wstest"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/resolvers"
)

// introspection is a query with a large answer (about 50 KB on the
// catalogue's schema).
const introspection = `{ __schema { types { name description fields { name description args { name type { name } } type { name kind ofType { name kind } } } } } }`

// smallBuffers makes every connection's kernel buffers small, on both
// sides, so that a client that stops reading stalls the server's writes
// after a few tens of kilobytes rather than megabytes.
const smallBuffers = 8 << 10

// stallingServer is streamServer with small socket buffers, and a client
// whose connections have small ones too.
func stallingServer(t *testing.T, opts graphqlhttp.Options) (*httptest.Server, *http.Client) {
	t.Helper()
	srv := httptest.NewUnstartedServer(resolvers.NewHandler(freshStore(t), loader.Options{}, withEngine(opts)))
	srv.Listener = smallBufferListener{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)
	d := &net.Dialer{}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(smallBuffers)
		}
		return c, err
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return srv, &http.Client{Transport: tr}
}

type smallBufferListener struct{ net.Listener }

func (l smallBufferListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(smallBuffers)
	}
	return c, err
}

// execObserver counts the operations executed.
type execObserver struct {
	*streamObserver
	executed atomic.Int64
}

func (o *execObserver) Executed(string) { o.executed.Add(1) }
func (o *execObserver) Declined(string) {}

// stall makes ws a client that stops reading while the server has large
// answers to send it: it subscribes, stops reading, then asks for n
// introspection queries, and waits until the server has run them all,
// so that their answers (about 50 KB each) wait for it.
func stall(t *testing.T, ws *wstest.Client, obs *execObserver, n int) {
	t.Helper()
	ws.Subscribe(t, "sub", changesSubscription)
	ws.StopReading()
	before := obs.executed.Load()
	for i := range n {
		ws.Subscribe(t, fmt.Sprint("q", i), introspection)
	}
	for deadline := time.Now().Add(10 * time.Second); obs.executed.Load() < before+int64(n); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			// Cut off already: the queue filled.
			return
		}
	}
}

// TestWebSocketClientThatStopsReading: a client that stops reading while
// the server has answers for it is cut off, whether its queue fills or a
// write passes its deadline first, and its place goes to another client.
func TestWebSocketClientThatStopsReading(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts graphqlhttp.Options
		// want is the limit the observer is told of.
		want string
	}{
		{"the queue fills", graphqlhttp.Options{WebSocketBufferBytes: 64 << 10, WebSocketWriteTimeout: time.Hour},
			"websocket_buffer"},
		// The next client's answer (113 KB) goes through only if the
		// bytes the first one was charged are given back.
		{"all WebSockets' budget is reached", graphqlhttp.Options{WebSocketBufferBytes: 1 << 30, WebSocketBudgetBytes: 64 << 10,
			WebSocketWriteTimeout: time.Hour}, "websocket_buffer"},
		{"a write passes its deadline", graphqlhttp.Options{WebSocketBufferBytes: 1 << 30, WebSocketWriteTimeout: time.Second},
			"websocket_write"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			obs := &execObserver{streamObserver: &streamObserver{}}
			tt.opts.MaxStreams, tt.opts.Introspection, tt.opts.Observer = 1, true, obs
			// The operations must not end the connection first.
			tt.opts.MaxOperationsPerWebSocket, tt.opts.StreamMaxAge = 1000, time.Hour
			srv, client := stallingServer(t, tt.opts)
			ws := wstest.Connect(t, client, srv.URL)
			stall(t, ws, obs, 100)
			waitForPlaces(t, obs.streamObserver, 0) // fails if the connection is still open 10 s on
			other := wstest.Connect(t, http.DefaultClient, srv.URL)
			other.Subscribe(t, "1", changesSubscription)
			other.Subscribe(t, "q", introspection)
			if m := other.Next(t); m.Type != "next" || m.ID != "q" || len(m.Payload) < 32<<10 {
				t.Errorf("the next client got %s %s (%d bytes), want its answer", m.Type, m.ID, len(m.Payload))
			}
			if got := obs.rejections(); !slices.Contains(got, tt.want) {
				t.Errorf("the observer was told of %q, want %s", got, tt.want)
			}
		})
	}
}

// TestWebSocketStuckClientEnded: a client that neither reads nor closes,
// with the server's writer stuck on it, is ended at its maximum age and
// at shutdown, after their grace, although its writes have not passed
// their deadline.
func TestWebSocketStuckClientEnded(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts graphqlhttp.Options
		end  func(done chan struct{})
	}{
		{"by its maximum age", graphqlhttp.Options{StreamMaxAge: 2 * time.Second}, func(chan struct{}) {}},
		{"by Done", graphqlhttp.Options{StreamMaxAge: time.Hour}, func(done chan struct{}) { close(done) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			obs := &execObserver{streamObserver: &streamObserver{}}
			done := make(chan struct{})
			var connections sync.WaitGroup
			tt.opts.MaxStreams, tt.opts.Introspection, tt.opts.Observer, tt.opts.Done = 1, true, obs, done
			tt.opts.Connections = &connections
			tt.opts.WebSocketBufferBytes, tt.opts.WebSocketWriteTimeout = 1<<30, time.Hour
			tt.opts.MaxOperationsPerWebSocket, tt.opts.RequestTimeout = 1000, time.Second
			srv, client := stallingServer(t, tt.opts)
			ws := wstest.Connect(t, client, srv.URL)
			stall(t, ws, obs, 30)
			tt.end(done)
			waitForPlaces(t, obs.streamObserver, 0)
			ended := make(chan struct{})
			go func() { connections.Wait(); close(ended) }()
			select {
			case <-ended:
			case <-time.After(10 * time.Second):
				t.Fatal("the connection's handler had not returned 10 s on")
			}
		})
	}
}

// TestWebSocketUnsolicitedPong: pongs a client sends before it is pinged
// are not answers: muted, it is closed as any silent client is.
func TestWebSocketUnsolicitedPong(t *testing.T) {
	obs := &streamObserver{}
	const interval = 300 * time.Millisecond
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 1, KeepAlive: interval, Observer: obs})
	ws := wstest.Connect(t, http.DefaultClient, srv.URL)
	ws.Mute.Store(true)
	for range 5 {
		ws.Send(t, wstest.Message{Type: "pong"})
	}
	ws.Subscribe(t, "1", changesSubscription)
	ws.CloseStatus(t) // fails if the connection is still open 10 s on
	if ws.Pings.Load() == 0 {
		t.Error("closed before any ping")
	}
	waitForPlaces(t, obs, 0)
}

// TestWebSocketOperationsCap: operations under way over one connection,
// queries and subscriptions alike, are capped; one ended makes room.
func TestWebSocketOperationsCap(t *testing.T) {
	obs := &streamObserver{}
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 5, MaxOperationsPerWebSocket: 2, Observer: obs})
	ws := wstest.Connect(t, http.DefaultClient, srv.URL)
	ws.Subscribe(t, "a", changesSubscription)
	ws.Subscribe(t, "b", changesSubscription)
	for _, tt := range []struct{ id, query string }{{"c", changesSubscription}, {"q", `{ item(id: 1) { name } }`}} {
		ws.Subscribe(t, tt.id, tt.query)
		m := ws.Next(t)
		if errs := errorsOf(t, m); m.Type != "error" || m.ID != tt.id || len(errs) != 1 || errs[0].code() != graphqlhttp.CodeTooManyOperations {
			t.Fatalf("%s: got %+v, want an error %s", tt.id, m, graphqlhttp.CodeTooManyOperations)
		}
	}
	if got := obs.rejections(); !slices.Contains(got, "operations_per_websocket") {
		t.Errorf("rejections %q, want operations_per_websocket", got)
	}
	ws.Send(t, wstest.Message{Type: "complete", ID: "a"})
	// The completed subscription winds down as the client's complete
	// is read: the query goes through once it has.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ws.Subscribe(t, "q", `{ item(id: 1) { name } }`)
		m := ws.Next(t)
		if m.Type == "next" && m.ID == "q" {
			break
		}
		if m.Type != "error" || time.Now().After(deadline) {
			t.Fatalf("got %+v, want the answer once a subscription was completed", m)
		}
	}
	if m := ws.Next(t); m.Type != "complete" || m.ID != "q" {
		t.Errorf("got %+v, want complete", m)
	}
}

// TestWebSocketProtocolErrors: what graphql-transport-ws does not allow
// closes the connection with the protocol's code.
func TestWebSocketProtocolErrors(t *testing.T) {
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 5})
	subscribe := func(id string) wstest.Message {
		payload, _ := json.Marshal(map[string]any{"query": changesSubscription})
		return wstest.Message{Type: "subscribe", ID: id, Payload: payload}
	}
	for _, tt := range []struct {
		name string
		init bool
		send []wstest.Message
		want websocket.StatusCode
	}{
		{"a subscribe whose id is in use", true, []wstest.Message{subscribe("1"), subscribe("1")}, 4409},
		{"a subscribe before connection_ack", false, []wstest.Message{subscribe("1")}, 4401},
		{"a second connection_init", true, []wstest.Message{{Type: "connection_init"}}, 4429},
		{"a message of no known type", true, []wstest.Message{{Type: "start", ID: "1"}}, 4400},
		{"a subscribe without an id", true, []wstest.Message{subscribe("")}, 4400},
		{"a subscribe whose payload is not one", true, []wstest.Message{{Type: "subscribe", ID: "1", Payload: json.RawMessage(`"{}"`)}}, 4400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws, resp := wstest.Dial(t, http.DefaultClient, srv.URL)
			if ws == nil {
				t.Fatalf("refused: %d", resp.StatusCode)
			}
			if tt.init {
				ws.Init(t)
			}
			for _, m := range tt.send {
				ws.Send(t, m)
			}
			if status := ws.CloseStatus(t); status != tt.want {
				t.Errorf("closed with %d, want %d", status, tt.want)
			}
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		ws := wstest.Connect(t, http.DefaultClient, srv.URL)
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		ws.Conn.Write(ctx, websocket.MessageText, []byte("{"))
		if status := ws.CloseStatus(t); status != 4400 {
			t.Errorf("closed with %d, want 4400", status)
		}
	})
	t.Run("an id completed may be used again", func(t *testing.T) {
		ws := wstest.Connect(t, http.DefaultClient, srv.URL)
		ws.Send(t, subscribe("1"))
		ws.Send(t, wstest.Message{Type: "complete", ID: "1"})
		ws.Send(t, wstest.Message{Type: "subscribe", ID: "1", Payload: json.RawMessage(`{"query":"{ item(id: 1) { name } }"}`)})
		if m := ws.Next(t); m.Type != "next" || m.ID != "1" {
			t.Errorf("got %+v, want the answer", m)
		}
	})
}

// TestWebSocketHandshakeLogged: a request that asks for a WebSocket but is
// not a handshake is answered as any refusal, and logged through the
// endpoint's logger, not the standard log package (as gqlgen's transport
// did).
func TestWebSocketHandshakeLogged(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	var stdlog bytes.Buffer
	defer log.SetOutput(log.Writer())
	log.SetOutput(&stdlog)
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 5, Logger: logger})

	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Protocol", "graphql-transport-ws")
	req.Header.Set("Sec-WebSocket-Version", "13") // but no Sec-WebSocket-Key
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body gqlResponse
	if err := json.NewDecoder(resp.Body).Decode(&body); resp.StatusCode != http.StatusBadRequest || err != nil ||
		len(body.Errors) != 1 || body.Errors[0].code() != graphqlhttp.CodeBadRequest {
		t.Errorf("status %d, body %+v (%v): want 400 %s", resp.StatusCode, body, err, graphqlhttp.CodeBadRequest)
	}
	var line struct {
		Msg       string `json:"msg"`
		RequestID string `json:"request_id"`
		Err       string `json:"err"`
	}
	if err := json.Unmarshal(logs.Bytes(), &line); err != nil || line.Msg != "websocket: handshake refused" ||
		line.RequestID != resp.Header.Get("X-Request-ID") || !strings.Contains(line.Err, "Sec-WebSocket-Key") {
		t.Errorf("logged %q (%v), want the refusal with its request id and why", logs.String(), err)
	}
	if stdlog.Len() > 0 {
		t.Errorf("the standard logger got %q", stdlog.String())
	}
}
