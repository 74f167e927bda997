package graphqlhttp_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/graphqlhttp/wstest"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/resolvers"
)

// recordingExecutor is the engine, noting each operation it is offered
// ("query ByPost", "subscription BySSE").
type recordingExecutor struct {
	execution.Executor
	mu      sync.Mutex
	offered []string
}

func (r *recordingExecutor) Execute(ctx context.Context, oc *graphql.OperationContext, memo *execution.Memo, maxBytes int) (execution.Answer, error) {
	r.mu.Lock()
	r.offered = append(r.offered, string(oc.Operation.Operation)+" "+oc.Operation.Name)
	r.mu.Unlock()
	return r.Executor.Execute(ctx, oc, memo, maxBytes)
}

// saw reports whether op was offered.
func (r *recordingExecutor) saw(op string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.offered, op)
}

// executorObserver notes which executor ran each operation, and why the
// engine declined those it declined.
type executorObserver struct {
	cacheObserver
	mu       sync.Mutex
	executed map[string]int
	declined map[string]int
}

func (o *executorObserver) Executed(executor string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.executed == nil {
		o.executed = map[string]int{}
	}
	o.executed[executor]++
}

func (o *executorObserver) Declined(reason string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.declined == nil {
		o.declined = map[string]int{}
	}
	o.declined[reason]++
}

func (o *executorObserver) counts() (executed, declined map[string]int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps(o.executed), maps(o.declined)
}

func maps(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestOneExecutorChoosesForEveryTransport: POST, GET, an event stream and
// a WebSocket all run their operations through the one place that
// chooses the executor: the Executor is offered each, and what it
// declines (the subscriptions) runs on gqlgen, counted as such.
func TestOneExecutorChoosesForEveryTransport(t *testing.T) {
	rec := &recordingExecutor{Executor: resolvers.NewEngine(nil)}
	obs := &executorObserver{}
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 5, Executor: rec, Observer: obs})
	const answer = `{"data":{"item":{"name":"Copper Ore"}}}`

	if a := postQuery(t, srv.URL, `query ByPost { item(id: 1) { name } }`, nil); a.status != http.StatusOK || string(a.body) != answer {
		t.Errorf("POST: status %d, body %s, want %s", a.status, a.body, answer)
	}
	req, err := http.NewRequest(http.MethodGet, srv.URL+"?"+url.Values{"query": {`query ByGet { item(id: 1) { name } }`}}.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a := send(t, client, req); a.status != http.StatusOK || string(a.body) != answer {
		t.Errorf("GET: status %d, body %s, want %s", a.status, a.body, answer)
	}

	s := openStream(t, srv.URL, `subscription BySSE { catalogueChanged { version collections } }`)
	if s.resp.StatusCode != http.StatusOK {
		t.Fatalf("SSE: status %d, want 200", s.resp.StatusCode)
	}
	// The stream's headers may come before its operation is dispatched.
	waitDeclines(t, obs, 1)
	s.close()

	ws := wstest.Connect(t, http.DefaultClient, srv.URL)
	payload, _ := json.Marshal(map[string]any{"query": `query ByWebSocket { item(id: 1) { name } }`})
	ws.Send(t, wstest.Message{Type: "subscribe", ID: "q", Payload: payload})
	if m := ws.Next(t); m.Type != "next" || string(m.Payload) != answer {
		t.Errorf("WebSocket: got %+v, want the answer", m)
	}
	if m := ws.Next(t); m.Type != "complete" {
		t.Errorf("WebSocket: got %+v, want complete", m)
	}
	ws.Subscribe(t, "s", `subscription ByWebSocketToo { catalogueChanged { version } }`)
	waitDeclines(t, obs, 2)
	ws.Conn.Close(1000, "")

	for _, op := range []string{"query ByPost", "query ByGet", "subscription BySSE", "query ByWebSocket", "subscription ByWebSocketToo"} {
		if !rec.saw(op) {
			t.Errorf("the executor was not offered %q; it saw %q", op, rec.offered)
		}
	}
	executed, declined := obs.counts()
	if want := map[string]int{"engine": 3, "gqlgen": 2}; !equalCounts(executed, want) {
		t.Errorf("executed %v, want %v", executed, want)
	}
	if want := map[string]int{execution.DeclineOperation: 2}; !equalCounts(declined, want) {
		t.Errorf("declined %v, want %v", declined, want)
	}
}

// waitDeclines waits, up to 10 s, for n declines to be counted.
func waitDeclines(t *testing.T, obs *executorObserver, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, declined := obs.counts()
		if declined[execution.DeclineOperation] >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d declines counted within 10 s, want %d", declined[execution.DeclineOperation], n)
		}
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// logRecorder keeps the records logged through it.
type logRecorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Clone())
	return nil
}

// matching returns the records whose message contains msg, each as its
// level and attributes.
func (l *logRecorder) matching(msg string) []loggedRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []loggedRecord
	for _, r := range l.records {
		if !strings.Contains(r.Message, msg) {
			continue
		}
		lr := loggedRecord{level: r.Level, attrs: map[string]string{}}
		r.Attrs(func(a slog.Attr) bool { lr.attrs[a.Key] = a.Value.String(); return true })
		out = append(out, lr)
	}
	return out
}

type loggedRecord struct {
	level slog.Level
	attrs map[string]string
}

// TestDeclinesCountedAndLoggedOncePerDocument: each decline is counted by
// its reason; it is logged at debug level once per document, however
// often the document is run.
func TestDeclinesCountedAndLoggedOncePerDocument(t *testing.T) {
	obs := &executorObserver{}
	logs := &logRecorder{}
	srv := newServer(t, graphqlhttp.Options{Executor: resolvers.NewEngine(nil), Observer: obs, Logger: slog.New(logs), Introspection: true})
	for range 3 {
		postQuery(t, srv.URL, `query Types { __type(name: "Item") { name } }`, nil)
	}
	postQuery(t, srv.URL, `query Schema { __schema { queryType { name } } }`, nil)
	postQuery(t, srv.URL, `{ item(id: 1) { name } }`, nil)

	executed, declined := obs.counts()
	if want := map[string]int{"engine": 1, "gqlgen": 4}; !equalCounts(executed, want) {
		t.Errorf("executed %v, want %v", executed, want)
	}
	if want := map[string]int{execution.DeclineIntrospection: 4}; !equalCounts(declined, want) {
		t.Errorf("declined %v, want %v", declined, want)
	}
	got := logs.matching("declined")
	if len(got) != 2 {
		t.Fatalf("%d decline log lines, want 2 (one per document): %+v", len(got), got)
	}
	for i, op := range []string{"Types", "Schema"} {
		if r := got[i]; r.level != slog.LevelDebug || r.attrs["operation"] != op || r.attrs["reason"] != execution.DeclineIntrospection ||
			!strings.HasPrefix(r.attrs["detail"], "Query.__") {
			t.Errorf("log line %d: %+v, want debug, operation %s, reason %s and the field", i, r, op, execution.DeclineIntrospection)
		}
	}
}

// TestNoneDeclinesNothing: with the engine off (execution.None), gqlgen
// runs everything and no decline is counted.
func TestNoneDeclinesNothing(t *testing.T) {
	obs := &executorObserver{}
	srv := newServer(t, graphqlhttp.Options{Executor: execution.None, Observer: obs})
	postQuery(t, srv.URL, `{ item(id: 1) { name } }`, nil)
	executed, declined := obs.counts()
	if want := map[string]int{"gqlgen": 1}; !equalCounts(executed, want) || len(declined) != 0 {
		t.Errorf("executed %v, declined %v; want %v and no declines", executed, declined, want)
	}
}
