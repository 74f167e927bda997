// Package wstest is a graphql-transport-ws client for tests, as small as
// they need: it answers the server's pings itself (unless muted), and
// hands every other message on. The gateway's own tests and graphqlhttp's
// share it, as they share catalogue/upstreamtest.
package wstest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// Message is a graphql-transport-ws message.
type Message struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// Client is one graphql-transport-ws connection.
type Client struct {
	Conn     *websocket.Conn
	messages chan Message
	// closed is the close status, once the connection is closed.
	closed chan websocket.StatusCode
	// Pings counts the server's pings.
	Pings atomic.Int64
	// Mute, once set, stops the client answering pings: a client gone
	// without closing its connection.
	Mute atomic.Bool
	// stopped, once set, stops the client reading (StopReading).
	stopped atomic.Bool
}

// StopReading stops the client reading anything more, the server's close
// included, after the message it may be reading: a client whose
// application hangs while its connection stays open. What it sends still
// goes. Its messages channel stays open, so Next fails on a timeout.
func (ws *Client) StopReading() { ws.stopped.Store(true) }

// Dial opens a WebSocket to the endpoint (an http:// URL) from c's
// connections, with headers given as name, value pairs. When the server
// refuses it, Dial returns no client and the server's response.
func Dial(t *testing.T, c *http.Client, endpoint string, header ...string) (*Client, *http.Response) {
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
	conn.SetReadLimit(1 << 20) // answers of the hostile tests
	ws := &Client{Conn: conn, messages: make(chan Message, 100), closed: make(chan websocket.StatusCode, 1)}
	ended, end := context.WithCancel(context.Background())
	t.Cleanup(func() { end(); conn.CloseNow() })
	go func() {
		for {
			if ws.stopped.Load() {
				<-ended.Done()
				return
			}
			_, b, err := conn.Read(context.Background())
			if err != nil {
				ws.closed <- websocket.CloseStatus(err)
				close(ws.messages)
				return
			}
			var m Message
			if err := json.Unmarshal(b, &m); err != nil {
				ws.closed <- -2
				close(ws.messages)
				return
			}
			if m.Type == "ping" {
				ws.Pings.Add(1)
				if !ws.Mute.Load() {
					ws.Send(t, Message{Type: "pong"})
				}
				continue
			}
			ws.messages <- m
		}
	}()
	return ws, resp
}

// Connect opens a WebSocket and initialises the protocol, failing the test
// if the server refuses either.
func Connect(t *testing.T, c *http.Client, endpoint string, header ...string) *Client {
	t.Helper()
	ws, resp := Dial(t, c, endpoint, header...)
	if ws == nil {
		t.Fatalf("the WebSocket was refused: %d", resp.StatusCode)
	}
	ws.Init(t)
	return ws
}

// Init sends connection_init and waits for connection_ack.
func (ws *Client) Init(t *testing.T) {
	t.Helper()
	ws.Send(t, Message{Type: "connection_init"})
	if m := ws.Next(t); m.Type != "connection_ack" {
		t.Fatalf("got %+v, want connection_ack", m)
	}
}

// Send sends a message; a failure is logged, not fatal, since tests send
// to connections the server may be closing.
func (ws *Client) Send(t *testing.T, m Message) {
	b, _ := json.Marshal(m)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ws.Conn.Write(ctx, websocket.MessageText, b); err != nil {
		t.Logf("sending %.100s: %v", b, err)
	}
}

// Subscribe sends a subscribe message for query under id.
func (ws *Client) Subscribe(t *testing.T, id, query string) {
	t.Helper()
	payload, _ := json.Marshal(map[string]any{"query": query})
	ws.Send(t, Message{Type: "subscribe", ID: id, Payload: payload})
}

// Next returns the next message but pings; it fails the test if none
// comes within 10 s, or the connection closes first.
func (ws *Client) Next(t *testing.T) Message {
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
	return Message{}
}

// Closed returns the close status if the connection has closed, and
// whether it has.
func (ws *Client) Closed() (websocket.StatusCode, bool) {
	select {
	case code := <-ws.closed:
		ws.closed <- code // for CloseStatus
		return code, true
	default:
		return 0, false
	}
}

// CloseStatus waits for the connection to close and returns its status; a
// message before the close fails the test.
func (ws *Client) CloseStatus(t *testing.T) websocket.StatusCode {
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
