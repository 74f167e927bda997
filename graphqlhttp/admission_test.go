package graphqlhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"
	"github.com/catalogue-gateway/gateway/graphqlhttp/answers"
	"github.com/catalogue-gateway/gateway/graphqlhttp/wstest"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// oneFieldSchema is an executable schema of one field, {x}: enough for the
// endpoint's admission, which knows nothing of the catalogue.
type oneFieldSchema struct{ schema *ast.Schema }

func (s oneFieldSchema) Schema() *ast.Schema { return s.schema }

func (oneFieldSchema) Complexity(context.Context, string, string, int, map[string]any) (int, bool) {
	return 0, false
}

func (oneFieldSchema) Exec(context.Context) graphql.ResponseHandler {
	return graphql.OneShot(&graphql.Response{Data: []byte(`{"x":1}`)})
}

// recordingExecutor answers {x} and records the name of each operation it
// runs, in the order they run; an operation named Slow waits until hold
// is closed.
type recordingExecutor struct {
	hold chan struct{}

	mu    sync.Mutex
	names []string
}

func (r *recordingExecutor) Execute(_ context.Context, oc *graphql.OperationContext, _ *execution.Memo, _ int) (execution.Answer, error) {
	r.mu.Lock()
	r.names = append(r.names, oc.Operation.Name)
	r.mu.Unlock()
	switch oc.Operation.Name {
	case "Slow":
		<-r.hold
	case "Large": // large enough to be compressed
		return execution.Answer{Body: []byte(`{"data":{"x":1}` + strings.Repeat(" ", 4<<10) + `}`)}, nil
	}
	return execution.Answer{Body: []byte(`{"data":{"x":1}}`)}, nil
}

func (r *recordingExecutor) ran() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.names)
}

// oneFieldServer serves oneFieldSchema with rec as the executor, the
// endpoint set up by setup (if not nil) before it serves.
func oneFieldServer(t *testing.T, rec *recordingExecutor, setup ...func(*endpoint)) (*endpoint, *httptest.Server) {
	t.Helper()
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: "type Query { x: Int } type Subscription { x: Int }"})
	e := New(oneFieldSchema{schema}, Options{MaxStreams: 20, MaxStreamsPerClient: 20, Executor: rec}).(*endpoint)
	for _, f := range setup {
		f(e)
	}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return e, srv
}

// waitFor waits, at most 10 s, until cond holds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not within 10 s")
		}
	}
}

// postFrom POSTs query to url from the loopback address ip, and sends the
// error, if any, to answered.
func postFrom(t *testing.T, ip, url, query string, answered chan<- error) {
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	body, _ := json.Marshal(map[string]string{"query": query})
	go func() {
		resp, err := (&http.Client{Transport: tr}).Post(url, "application/json", bytes.NewReader(body))
		if err == nil {
			resp.Body.Close()
		}
		answered <- err
	}()
}

// TestAdmissionFairOverTheEndpoint: with a client's flood of queries over
// WebSockets waiting for a core, a query another client POSTs afterwards
// runs next but one, not after the flood (7th of 7 with one FIFO).
func TestAdmissionFairOverTheEndpoint(t *testing.T) {
	rec := &recordingExecutor{}
	e, srv := oneFieldServer(t, rec)
	for range e.running.Size() {
		if !e.running.TryAcquire() {
			t.Fatal("a core was taken")
		}
	}
	// Each connection's queries wait for a core as many at a time as it
	// may hold at once.
	perConn := max(1, e.running.Size()/2)
	const conns = 6
	for range conns {
		ws := wstest.Connect(t, http.DefaultClient, srv.URL) // from 127.0.0.1
		for i := range perConn {
			ws.Subscribe(t, fmt.Sprint(i), "query Flood { x }")
		}
	}
	flood := conns * perConn
	waitFor(t, func() bool { return e.running.Waiting() == flood })
	answered := make(chan error, 1)
	postFrom(t, "127.0.0.2", srv.URL, "query Normal { x }", answered)
	waitFor(t, func() bool { return e.running.Waiting() == flood+1 })
	// One core goes round, from each operation to the next: they run one
	// at a time, in the order they were admitted.
	e.running.Release(admission.Ticket{})
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(rec.ran()) == flood+1 })
	ran := rec.ran()
	if i := slices.Index(ran, "Normal"); i < 0 || i > 1 {
		t.Errorf("ran %q: the other client's query came %d of %d, want first or second", ran, i+1, len(ran))
	}
	for range e.running.Size() - 1 {
		e.running.Release(admission.Ticket{})
	}
}

// TestWebSocketCores: one connection's queries hold at most half the cores
// (at least one) at once; another client's query gets one meanwhile.
func TestWebSocketCores(t *testing.T) {
	rec := &recordingExecutor{hold: make(chan struct{})}
	e, srv := oneFieldServer(t, rec)
	if e.running.Size() < 2 {
		t.Skip("with one core, a connection may hold it")
	}
	perConn := max(1, e.running.Size()/2)
	ws := wstest.Connect(t, http.DefaultClient, srv.URL)
	for i := range 2 * e.running.Size() {
		ws.Subscribe(t, fmt.Sprint(i), "query Slow { x }")
	}
	waitFor(t, func() bool { return len(rec.ran()) == perConn })
	answered := make(chan error, 1)
	postFrom(t, "127.0.0.2", srv.URL, "query Normal { x }", answered)
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	if n := len(rec.ran()); n != perConn+1 {
		t.Errorf("%d operations ran, want the connection's %d and the other client's", n, perConn)
	}
	close(rec.hold)
	// Each operation answers, then completes; operations run at once, so
	// one's messages may come between another's.
	next, complete := map[string]int{}, map[string]int{}
	for range 2 * 2 * e.running.Size() {
		switch m := ws.Next(t); m.Type {
		case "next":
			if complete[m.ID] > 0 {
				t.Fatalf("operation %s answered after it completed", m.ID)
			}
			next[m.ID]++
		case "complete":
			complete[m.ID]++
		default:
			t.Fatalf("got %+v, want an answer or a completion", m)
		}
	}
	for i := range 2 * e.running.Size() {
		if id := fmt.Sprint(i); next[id] != 1 || complete[id] != 1 {
			t.Errorf("operation %s: %d answers and %d completions, want one each", id, next[id], complete[id])
		}
	}
}

// TestWebSocketInitTimeout: a connection whose client does not send
// connection_init in time is closed with 4408, and its place freed.
func TestWebSocketInitTimeout(t *testing.T) {
	e, srv := oneFieldServer(t, &recordingExecutor{}, func(e *endpoint) { e.wsInitWait = 100 * time.Millisecond })
	ws, resp := wstest.Dial(t, http.DefaultClient, srv.URL)
	if ws == nil {
		t.Fatalf("refused: %d", resp.StatusCode)
	}
	if status := ws.CloseStatus(t); status != 4408 {
		t.Errorf("closed with %d, want 4408", status)
	}
	waitFor(t, func() bool { return e.streams.TryAcquire(int64(e.opts.MaxStreams)) })
}

// TestDenseVariantTakesACore: compressing a cached answer densely, for the
// first request after the one that ran it, is work like running it, and
// waits for a core; a request that finds the variant made does not.
func TestDenseVariantTakesACore(t *testing.T) {
	e, srv := oneFieldServer(t, &recordingExecutor{}, func(e *endpoint) {
		e.opts.Cache = answers.NewCache(1 << 20)
		e.opts.Version = func(context.Context) (string, bool) { return "v1", true }
	})
	post := func() (encoding string, err error) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"query":"query Large { x }"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept-Encoding", "br")
		resp, err := srv.Client().Do(req)
		if err != nil {
			return "", err
		}
		resp.Body.Close()
		return resp.Header.Get("Content-Encoding"), nil
	}
	if enc, err := post(); err != nil || enc != "br" { // run, and kept
		t.Fatalf("the first request: %q, %v", enc, err)
	}
	for range e.running.Size() {
		if !e.running.TryAcquire() {
			t.Fatal("a core was taken")
		}
	}
	answered := make(chan error, 1)
	go func() {
		_, err := post()
		answered <- err
	}()
	waitFor(t, func() bool { return e.running.Waiting() == 1 })
	select {
	case err := <-answered:
		t.Fatalf("answered (%v) with no core free", err)
	default:
	}
	e.running.Release(admission.Ticket{})
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	// The dense variant is made: with every core taken again, it is
	// served at once.
	if !e.running.TryAcquire() {
		t.Fatal("a core was taken")
	}
	if enc, err := post(); err != nil || enc != "br" {
		t.Fatalf("the variant made: %q, %v", enc, err)
	}
	for range e.running.Size() {
		e.running.Release(admission.Ticket{})
	}
}
