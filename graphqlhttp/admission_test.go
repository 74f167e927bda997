package graphqlhttp

import (
	"context"
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

	"github.com/catalogue-gateway/gateway/graphqlhttp/wstest"
)

var (
	clientA = netip.MustParsePrefix("192.0.2.1/32")
	clientB = netip.MustParsePrefix("192.0.2.2/32")
)

// queue has an operation of client wait for its turn in a, and returns
// once it waits; its name goes to admitted when it is admitted.
func queue(t *testing.T, a *admission, client netip.Prefix, name string, admitted chan<- string) {
	t.Helper()
	before := a.waiting()
	go func() {
		if err := a.acquire(context.Background(), client); err == nil {
			admitted <- name
		}
	}()
	waitFor(t, func() bool { return a.waiting() > before })
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

// TestAdmissionRoundRobin: the operations waiting are admitted one per
// client in turn, each client's in arrival order, so that another
// client's operation queued behind a flood goes next but one.
func TestAdmissionRoundRobin(t *testing.T) {
	a := newAdmission(1)
	if !a.tryAcquire() || a.tryAcquire() {
		t.Fatal("want one core, taken")
	}
	admitted := make(chan string, 10)
	for _, name := range []string{"a1", "a2", "a3", "a4"} {
		queue(t, a, clientA, name, admitted)
	}
	queue(t, a, clientB, "b1", admitted)
	queue(t, a, clientA, "a5", admitted)
	queue(t, a, clientB, "b2", admitted)
	var order []string
	for range 7 {
		a.release() // the operation that holds the core ends
		order = append(order, <-admitted)
	}
	if want := []string{"a1", "b1", "a2", "b2", "a3", "a4", "a5"}; !slices.Equal(order, want) {
		t.Errorf("admitted %q, want %q", order, want)
	}
	a.release()
	if !a.tryAcquire() {
		t.Error("the core was not given back")
	}
}

// TestAdmissionCancelled: an operation whose time runs out while it waits
// leaves its line, and holds nothing.
func TestAdmissionCancelled(t *testing.T) {
	a := newAdmission(1)
	a.tryAcquire()
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() { errs <- a.acquire(ctx, clientA) }()
	waitFor(t, func() bool { return a.waiting() == 1 })
	admitted := make(chan string, 1)
	queue(t, a, clientB, "b1", admitted)
	cancel()
	if err := <-errs; err != context.Canceled {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if n := a.waiting(); n != 1 {
		t.Fatalf("%d waiting, want 1", n)
	}
	a.release()
	if got := <-admitted; got != "b1" {
		t.Fatalf("admitted %s", got)
	}
	a.release()
	if !a.tryAcquire() || a.tryAcquire() {
		t.Error("want the one core free again")
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
// runs, in the order they run.
type recordingExecutor struct {
	mu    sync.Mutex
	names []string
}

func (r *recordingExecutor) Execute(_ context.Context, oc *graphql.OperationContext, _ int) (Answer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names = append(r.names, oc.Operation.Name)
	return Answer{Body: []byte(`{"data":{"x":1}}`)}, nil
}

func (r *recordingExecutor) ran() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.names)
}

// TestAdmissionFairOverTheEndpoint: with one WebSocket's flood of queries
// waiting for a core, a query another client POSTs afterwards runs next
// but one, not after the flood.
func TestAdmissionFairOverTheEndpoint(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: "type Query { x: Int } type Subscription { x: Int }"})
	rec := &recordingExecutor{}
	e := New(oneFieldSchema{schema}, Options{MaxStreams: 5, Executor: rec}).(*endpoint)
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	cores := runtime.GOMAXPROCS(0)
	for range cores {
		if !e.running.tryAcquire() {
			t.Fatal("a core was taken")
		}
	}
	const flood = 12
	ws := wstest.Connect(t, http.DefaultClient, srv.URL) // from 127.0.0.1
	for i := range flood {
		ws.Subscribe(t, string(rune('a'+i)), "query Flood { x }")
	}
	waitFor(t, func() bool { return e.running.waiting() == flood })
	other := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}).DialContext}
	t.Cleanup(other.CloseIdleConnections)
	answered := make(chan error, 1)
	go func() {
		resp, err := (&http.Client{Transport: other}).Post(srv.URL, "application/json", strings.NewReader(`{"query":"query Normal { x }"}`))
		if err == nil {
			resp.Body.Close()
		}
		answered <- err
	}()
	waitFor(t, func() bool { return e.running.waiting() == flood+1 })
	// One core goes round, from each operation to the next: they run one
	// at a time, in the order they were admitted.
	e.running.release()
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(rec.ran()) == flood+1 })
	ran := rec.ran()
	if i := slices.Index(ran, "Normal"); i < 0 || i > 1 {
		t.Errorf("ran %q: the other client's query came %d of %d, want first or second", ran, i+1, len(ran))
	}
	for range cores - 1 {
		e.running.release()
	}
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
			a.release()
		}
	})
	b.Run("turns", func(b *testing.B) {
		a := newAdmission(runtime.GOMAXPROCS(0))
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			var client netip.Prefix
			for pb.Next() {
				if a.tryAcquire() || a.acquire(context.Background(), client) == nil {
					a.release()
				}
			}
		})
	})
}
