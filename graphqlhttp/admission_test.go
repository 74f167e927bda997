package graphqlhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogue-gateway/gateway/graphqlhttp/answers"
	"github.com/catalogue-gateway/gateway/graphqlhttp/wstest"
	"github.com/catalogue-gateway/gateway/internal/execution"
)

var (
	clientA = netip.MustParsePrefix("192.0.2.1/32")
	clientB = netip.MustParsePrefix("192.0.2.2/32")
)

// admitted is an operation admitted, with the ticket to release it with.
type admitted struct {
	name   string
	ticket admissionTicket
}

// queue has an operation of client wait for its turn in a, and returns
// once it waits; it goes to admitted when it is admitted.
func queue(t *testing.T, a *admission, client netip.Prefix, name string, to chan<- admitted) {
	t.Helper()
	before := a.waitingCount()
	go func() {
		if ticket, err := a.acquire(context.Background(), client); err == nil {
			to <- admitted{name, ticket}
		}
	}()
	waitFor(t, func() bool { return a.waitingCount() > before })
}

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
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

// TestAdmissionByTimeUsed: operations of equal cost are admitted one per
// client in turn, each client's in arrival order; a client that has used
// less goes first, so a light client's operation queued behind a heavy
// one's flood goes next.
func TestAdmissionByTimeUsed(t *testing.T) {
	t.Run("equal costs", func(t *testing.T) {
		clock := &fakeClock{}
		a := newAdmission(1)
		a.now = clock.Now
		if !a.tryAcquire() || a.tryAcquire() {
			t.Fatal("want one core, taken")
		}
		ch := make(chan admitted, 10)
		for _, name := range []string{"a1", "a2", "a3", "a4"} {
			queue(t, a, clientA, name, ch)
		}
		queue(t, a, clientB, "b1", ch)
		queue(t, a, clientA, "a5", ch)
		queue(t, a, clientB, "b2", ch)
		var order []string
		held := admissionTicket{}
		for range 7 {
			clock.advance(time.Millisecond) // each operation holds the core 1 ms
			a.release(held)
			next := <-ch
			order = append(order, next.name)
			held = next.ticket
		}
		if want := []string{"a1", "b1", "a2", "b2", "a3", "a4", "a5"}; !slices.Equal(order, want) {
			t.Errorf("admitted %q, want %q", order, want)
		}
		a.release(held)
		if !a.tryAcquire() {
			t.Error("the core was not given back")
		}
	})
	t.Run("a light client before a heavy one", func(t *testing.T) {
		clock := &fakeClock{}
		a := newAdmission(1)
		a.now = clock.Now
		ch := make(chan admitted, 10)
		ticket, _ := a.acquire(context.Background(), clientA)
		for _, name := range []string{"a1", "a2", "a3"} {
			queue(t, a, clientA, name, ch)
		}
		cost := map[netip.Prefix]time.Duration{clientA: 30 * time.Millisecond, clientB: time.Millisecond}
		held, holder := ticket, clientA
		var order []string
		for i := range 6 {
			if i == 1 || i == 2 {
				// b's operations arrive one at a time, as a caller's.
				queue(t, a, clientB, "b"+string(rune('0'+i)), ch)
			}
			clock.advance(cost[holder])
			a.release(held)
			next := <-ch
			order = append(order, next.name)
			held, holder = next.ticket, next.ticket.client.key
			if len(order) == 5 {
				break
			}
		}
		if want := []string{"a1", "b1", "b2", "a2", "a3"}; !slices.Equal(order, want) {
			t.Errorf("admitted %q, want %q", order, want)
		}
	})
}

// TestAdmissionCancelled: an operation whose time runs out while it waits
// leaves its line, and holds nothing.
func TestAdmissionCancelled(t *testing.T) {
	a := newAdmission(1)
	a.tryAcquire()
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() {
		_, err := a.acquire(ctx, clientA)
		errs <- err
	}()
	waitFor(t, func() bool { return a.waitingCount() == 1 })
	ch := make(chan admitted, 1)
	queue(t, a, clientB, "b1", ch)
	cancel()
	if err := <-errs; err != context.Canceled {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if n := a.waitingCount(); n != 1 {
		t.Fatalf("%d waiting, want 1", n)
	}
	a.release(admissionTicket{})
	got := <-ch
	if got.name != "b1" {
		t.Fatalf("admitted %s", got.name)
	}
	a.release(got.ticket)
	if !a.tryAcquire() || a.tryAcquire() {
		t.Error("want the one core free again")
	}
	if len(a.clients) != 0 {
		t.Errorf("%d clients still known, want none", len(a.clients))
	}
}

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
	for range e.running.size {
		if !e.running.tryAcquire() {
			t.Fatal("a core was taken")
		}
	}
	// Each connection's queries wait for a core as many at a time as it
	// may hold at once.
	perConn := max(1, e.running.size/2)
	const conns = 6
	for range conns {
		ws := wstest.Connect(t, http.DefaultClient, srv.URL) // from 127.0.0.1
		for i := range perConn {
			ws.Subscribe(t, fmt.Sprint(i), "query Flood { x }")
		}
	}
	flood := conns * perConn
	waitFor(t, func() bool { return e.running.waitingCount() == flood })
	answered := make(chan error, 1)
	postFrom(t, "127.0.0.2", srv.URL, "query Normal { x }", answered)
	waitFor(t, func() bool { return e.running.waitingCount() == flood+1 })
	// One core goes round, from each operation to the next: they run one
	// at a time, in the order they were admitted.
	e.running.release(admissionTicket{})
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(rec.ran()) == flood+1 })
	ran := rec.ran()
	if i := slices.Index(ran, "Normal"); i < 0 || i > 1 {
		t.Errorf("ran %q: the other client's query came %d of %d, want first or second", ran, i+1, len(ran))
	}
	for range e.running.size - 1 {
		e.running.release(admissionTicket{})
	}
}

// TestWebSocketCores: one connection's queries hold at most half the cores
// (at least one) at once; another client's query gets one meanwhile.
func TestWebSocketCores(t *testing.T) {
	rec := &recordingExecutor{hold: make(chan struct{})}
	e, srv := oneFieldServer(t, rec)
	if e.running.size < 2 {
		t.Skip("with one core, a connection may hold it")
	}
	perConn := max(1, e.running.size/2)
	ws := wstest.Connect(t, http.DefaultClient, srv.URL)
	for i := range 2 * e.running.size {
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
	for range 2 * 2 * e.running.size {
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
	for i := range 2 * e.running.size {
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

// BenchmarkAdmission measures the way in and out when a core is free, as
// every request takes it below saturation; with more goroutines than
// cores, the turns too.
//
//	go test -run '^$' -bench Admission ./graphqlhttp/
func BenchmarkAdmission(b *testing.B) {
	b.Run("free", func(b *testing.B) {
		a := newAdmission(runtime.GOMAXPROCS(0))
		for b.Loop() {
			if !a.tryAcquire() {
				b.Fatal("no core free")
			}
			a.release(admissionTicket{})
		}
	})
	b.Run("turns", func(b *testing.B) {
		a := newAdmission(runtime.GOMAXPROCS(0))
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			var client netip.Prefix
			for pb.Next() {
				if a.tryAcquire() {
					a.release(admissionTicket{})
				} else if t, err := a.acquire(context.Background(), client); err == nil {
					a.release(t)
				}
			}
		})
	})
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
	for range e.running.size {
		if !e.running.tryAcquire() {
			t.Fatal("a core was taken")
		}
	}
	answered := make(chan error, 1)
	go func() {
		_, err := post()
		answered <- err
	}()
	waitFor(t, func() bool { return e.running.waitingCount() == 1 })
	select {
	case err := <-answered:
		t.Fatalf("answered (%v) with no core free", err)
	default:
	}
	e.running.release(admissionTicket{})
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	// The dense variant is made: with every core taken again, it is
	// served at once.
	if !e.running.tryAcquire() {
		t.Fatal("a core was taken")
	}
	if enc, err := post(); err != nil || enc != "br" {
		t.Fatalf("the variant made: %q, %v", enc, err)
	}
	for range e.running.size {
		e.running.release(admissionTicket{})
	}
}
