package gateway_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graphqlhttp/wstest"
)

// sseStream is an event stream's events as they come.
type sseStream struct {
	resp   *http.Response
	events chan sseEvent
}

type sseEvent struct {
	name, data string
	at         time.Time
}

// openSSE POSTs query with Accept: text/event-stream and returns the
// stream, or the response when it is refused (not 200).
func openSSE(t *testing.T, g *testGateway, query string) (*sseStream, *http.Response) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"query": query})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, g.URL+"/graphql", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	// The gateway's client has a timeout that would cut a stream.
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		t.Fatalf("opening a stream for %s: %v", query, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, resp
	}
	s := &sseStream{resp: resp, events: make(chan sseEvent, 16)}
	t.Cleanup(func() { resp.Body.Close() })
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" {
					ev.at = time.Now()
					s.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return s, nil
}

// next returns the stream's next event, or fails the test when none
// comes within d.
func (s *sseStream) next(t *testing.T, d time.Duration) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(d):
		t.Fatalf("no event within %v", d)
	}
	return sseEvent{}
}

// quiet fails the test if the stream has sent an event not read.
func (s *sseStream) quiet(t *testing.T, what string) {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		if ok {
			t.Errorf("%s: event %s %s, want none", what, ev.name, ev.data)
		}
	default:
	}
}

// The live queries of TestLiveQueries: each reads item 2 (Bronze Bar)
// or not, and selects its value or not, so that one refresh changing
// that item's value tells them apart.
var liveCases = []struct {
	name, query string
	resent      bool
}{
	{"reads the changed field", `query @live { item(id: 2) { name value } }`, true},
	{"reads another record", `query @live { item(id: 1) { name value } }`, false},
	{"reads the record, not the changed field", `query @live { item(id: 2) { name } }`, false},
	{"lists the collection, not the changed field", `query @live { items(first: 5) { nodes { name } } }`, false},
}

// TestLiveQueries: over an event stream and over graphql-transport-ws, a
// live query is answered at once; after a refresh changes Bronze Bar's
// value, the query that reads it is answered again, with the new value,
// within 2 s of the new snapshot (as catalogueChanged tells it); the
// queries that read another record, or the record but not the value, or
// the list but not the value, get nothing; the query that read another
// record is not even run again.
func TestLiveQueries(t *testing.T) {
	up := newUpstreams(t)
	g := startGateway(t, up.config(time.Second, ""), nil)
	g.waitReady(t, readyWithin)

	changes, resp := openSSE(t, g, `subscription { catalogueChanged { version keys } }`)
	if changes == nil {
		t.Fatalf("catalogueChanged: status %d", resp.StatusCode)
	}
	streams := make([]*sseStream, len(liveCases))
	for i, tc := range liveCases {
		s, resp := openSSE(t, g, tc.query)
		if s == nil {
			t.Fatalf("%s: status %d, want a stream", tc.name, resp.StatusCode)
		}
		if ev := s.next(t, 10*time.Second); ev.name != "next" || !strings.Contains(ev.data, `"data":{`) {
			t.Fatalf("%s: first event %s %s, want the answer", tc.name, ev.name, ev.data)
		}
		streams[i] = s
	}
	ws := wstest.Connect(t, g.client, g.URL+"/graphql")
	for i, tc := range liveCases {
		ws.Subscribe(t, liveCases[i].name, tc.query)
	}
	firsts := map[string]bool{}
	for range liveCases {
		m := ws.Next(t)
		if m.Type != "next" || firsts[m.ID] {
			t.Fatalf("WebSocket: %s for %s, want each query's first answer", m.Type, m.ID)
		}
		firsts[m.ID] = true
	}

	runs := func() float64 {
		m := g.metrics(t)
		return m[`graphql_operations_total{executor="engine"}`] + m[`graphql_operations_total{executor="gqlgen"}`]
	}
	before := runs()
	up.Of(catalogue.Items).SetBody(catalogue.Items, repriced(t, up.bodies[catalogue.Items]))
	changed := changes.next(t, readyWithin)
	if !strings.Contains(changed.data, `"Item:2"`) {
		t.Fatalf("catalogueChanged %s, want Item:2", changed.data)
	}
	for i, tc := range liveCases {
		if !tc.resent {
			continue
		}
		ev := streams[i].next(t, 10*time.Second)
		if !strings.Contains(ev.data, `"value":13.5`) {
			t.Errorf("SSE %s: %s, want the new value", tc.name, ev.data)
		}
		if d := ev.at.Sub(changed.at); d > 2*time.Second {
			t.Errorf("SSE %s: sent again %v after the snapshot, want within 2 s", tc.name, d)
		}
	}
	if m := ws.Next(t); m.Type != "next" || m.ID != liveCases[0].name || !strings.Contains(string(m.Payload), `"value":13.5`) {
		t.Errorf("WebSocket: %s for %s %s, want %q's new value", m.Type, m.ID, m.Payload, liveCases[0].name)
	}
	// The others: nothing, for longer than a run after a change takes
	// (its wait below a second, and the run).
	time.Sleep(2500 * time.Millisecond)
	for i, tc := range liveCases {
		if !tc.resent {
			streams[i].quiet(t, "SSE "+tc.name)
		}
	}
	// Run again: only the queries that read Item:2 or the items, on
	// each transport; not the one that reads Item:1 alone.
	if got, want := runs()-before, float64(2*(len(liveCases)-1)); got != want {
		t.Errorf("%v runs after the change, want %v", got, want)
	}
	ws.Send(t, wstest.Message{Type: "ping"})
	if m := ws.Next(t); m.Type != "pong" {
		t.Errorf("WebSocket: %s %s after the change, want nothing but the pong", m.Type, m.Payload)
	}
}

// TestLiveQueryCaps: a live query holds a stream's place: past the
// per-client cap it is refused, over an event stream with 429 and over a
// WebSocket with the protocol's error; asked as plain JSON it is
// answered once, holding none; it is charged to the live queries' share
// of the memory budget while it is open.
func TestLiveQueryCaps(t *testing.T) {
	up := newUpstreams(t)
	cfg := up.config(time.Hour, "")
	cfg.MaxSubscriptionsPerClient = 1
	g := startGateway(t, cfg, nil)
	g.waitReady(t, readyWithin)

	const query = `query @live { item(id: 2) { name } }`
	if a := g.graphQLOK(t, query); !strings.Contains(string(a.Data), "Bronze Bar") {
		t.Errorf("as JSON: %s, want the answer", a.Raw)
	}
	first, resp := openSSE(t, g, query)
	if first == nil {
		t.Fatalf("the first live query: status %d", resp.StatusCode)
	}
	first.next(t, 10*time.Second)
	if got := g.metrics(t)[`gateway_store_entries{store="live_queries"}`]; got != 1 {
		t.Errorf("live_queries entries %v with one open, want 1", got)
	}
	if got := g.metrics(t)[`gateway_store_bytes{store="live_queries"}`]; got < float64(len(query)) {
		t.Errorf("live_queries bytes %v with one open, want at least its text", got)
	}
	if s, resp := openSSE(t, g, query); s != nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a second live query over SSE: %v, want 429", resp)
	}
	ws, resp := wstest.Dial(t, g.client, g.URL+"/graphql")
	if ws != nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a WebSocket past the cap: %v, want 429", resp)
	}
	first.resp.Body.Close()
	gatewayWaitStore(t, g, 0)

	ws = wstest.Connect(t, g.client, g.URL+"/graphql")
	ws.Subscribe(t, "a", query)
	if m := ws.Next(t); m.Type != "next" {
		t.Fatalf("the WebSocket's first live query: %s %s", m.Type, m.Payload)
	}
	ws.Subscribe(t, "b", query)
	if m := ws.Next(t); m.Type != "error" || !strings.Contains(string(m.Payload), "TOO_MANY_SUBSCRIPTIONS_FOR_CLIENT") {
		t.Errorf("a second live query on the WebSocket: %s %s, want the cap's error", m.Type, m.Payload)
	}
}

// gatewayWaitStore waits for the live queries' store to hold n entries.
func gatewayWaitStore(t *testing.T, g *testGateway, n float64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		m := g.metrics(t)
		if m[`gateway_store_entries{store="live_queries"}`] == n {
			if n == 0 && m[`gateway_store_bytes{store="live_queries"}`] != 0 {
				t.Errorf("live_queries bytes %v with none open, want 0", m[`gateway_store_bytes{store="live_queries"}`])
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("live_queries entries %v, want %v", m[`gateway_store_entries{store="live_queries"}`], n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
