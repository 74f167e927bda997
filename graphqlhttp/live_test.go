package graphqlhttp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/internal/memory"
)

// TestLiveQueryEitherExecutor: a live query is answered, then answered
// again when a new snapshot changes what it read, whichever executor
// runs it (gqlgen's when the engine is not asked) and whichever way the
// stream was asked for (POST, or GET as an EventSource does).
func TestLiveQueryEitherExecutor(t *testing.T) {
	for _, ex := range []struct {
		name string
		exec execution.Executor
	}{{"engine", nil}, {"gqlgen", execution.None}} {
		for how, open := range streamOpeners {
			t.Run(ex.name+"/"+how, func(t *testing.T) {
				srv, st := streamServer(t, graphqlhttp.Options{MaxStreams: 10, Executor: ex.exec})
				s := open(t, http.DefaultClient, srv.URL, map[string]any{"query": `query Name @live { item(id: 1) { name } }`})
				if s.resp.StatusCode != http.StatusOK {
					t.Fatalf("status %d, want a stream", s.resp.StatusCode)
				}
				if ev, ok := s.next(t, 10*time.Second); !ok || ev.event != "next" || ev.data != `{"data":{"item":{"name":"Copper Ore"}}}` {
					t.Fatalf("first event %+v, want the answer", ev)
				}
				st.Publish(changedSnapshot(t, st.Current()))
				if ev, ok := s.next(t, 10*time.Second); !ok || ev.event != "next" || ev.data != `{"data":{"item":{"name":"Copper Nugget"}}}` {
					t.Fatalf("after the change %+v, want the new answer", ev)
				}
			})
		}
	}
}

// TestLiveQueryIfFalse: @live(if: false) asked as a stream is answered
// once, and the stream completes.
func TestLiveQueryIfFalse(t *testing.T) {
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 10})
	s := openStreamWith(t, http.DefaultClient, srv.URL, map[string]any{
		"query": `query Name($on: Boolean!) @live(if: $on) { item(id: 1) { name } }`, "variables": map[string]any{"on": false}})
	if ev, ok := s.next(t, 10*time.Second); !ok || ev.event != "next" {
		t.Fatalf("first event %+v, want the answer", ev)
	}
	if ev, ok := s.next(t, 10*time.Second); !ok || ev.event != "complete" {
		t.Fatalf("then %+v, want complete", ev)
	}
}

// TestLiveQueriesShare: what an open live query keeps is charged to the
// live queries' share of the memory budget, and given back when it
// ends; a live query that finds the share full is refused, 503, before
// it runs.
func TestLiveQueriesShare(t *testing.T) {
	// A share of 11 000 bytes: room for two live queries (their keys'
	// 4 KiB, 1 KiB of state and their text each), not three.
	budget := memory.NewBudget(550_000)
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 10, Memory: budget})
	live := func() memory.StoreStats {
		for _, s := range budget.Stats() {
			if s.Store == "live_queries" {
				return s
			}
		}
		t.Fatal("no live_queries store")
		return memory.StoreStats{}
	}
	const query = `query @live { item(id: 1) { name } }`
	open := func() *sseStream { return openStream(t, srv.URL, query) }
	a, b := open(), open()
	for _, s := range []*sseStream{a, b} {
		if ev, ok := s.next(t, 10*time.Second); !ok || ev.event != "next" {
			t.Fatalf("first event %+v, want the answer", ev)
		}
	}
	if st := live(); st.Entries != 2 || st.Bytes < 2*(4<<10) || st.Bytes > st.Share {
		t.Errorf("live_queries %+v with two open, want two entries of over 4 KiB each, within the share", st)
	}
	c := open()
	if c.resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a third live query: status %d, want 503", c.resp.StatusCode)
	}
	body, _ := io.ReadAll(c.resp.Body)
	var refusal struct {
		Errors []struct{ Extensions struct{ Code string } }
	}
	if json.Unmarshal(body, &refusal) != nil || len(refusal.Errors) != 1 || refusal.Errors[0].Extensions.Code != graphqlhttp.CodeTooManyStreams {
		t.Errorf("refusal %s, want %s", body, graphqlhttp.CodeTooManyStreams)
	}
	a.close()
	deadline := time.Now().Add(10 * time.Second)
	for live().Entries != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("live_queries %+v after one closed, want one entry", live())
		}
		time.Sleep(10 * time.Millisecond)
	}
	d := open()
	if ev, ok := d.next(t, 10*time.Second); !ok || ev.event != "next" {
		t.Fatalf("a live query once there is room: %+v, want the answer", ev)
	}
	b.close()
	d.close()
	for live().Bytes != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("live_queries %+v after all closed, want nothing charged", live())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLiveQueryKeys: the search of a live query's kept keys finds each
// of them and nothing else.
func TestLiveQueryKeys(t *testing.T) {
	keys := []string{"Item:1", "Item:10", "Item:2", "Monster:7", "items", "monsters", "quests"}
	joined := strings.Join(keys, " ")
	for _, k := range keys {
		if !graphqlhttp.HasKey(joined, k) {
			t.Errorf("%q not found in %q", k, joined)
		}
	}
	for _, k := range []string{"", "Item", "Item:", "Item:3", "Item:100", "A", "zzz", "item", "Monster:", "monster"} {
		if graphqlhttp.HasKey(joined, k) {
			t.Errorf("%q found in %q", k, joined)
		}
	}
	if graphqlhttp.HasKey("", "items") {
		t.Error("a key found in none")
	}
}

// TestLiveQueryThrottle: @live(throttle: N) sends no two answers within N
// milliseconds: a change just after the first answer is sent when they
// end, not at once.
func TestLiveQueryThrottle(t *testing.T) {
	srv, st := streamServer(t, graphqlhttp.Options{MaxStreams: 10})
	s := openStream(t, srv.URL, `query @live(throttle: 3000) { item(id: 1) { name } }`)
	if ev, ok := s.next(t, 10*time.Second); !ok || ev.event != "next" {
		t.Fatalf("first event %+v, want the answer", ev)
	}
	first := time.Now()
	st.Publish(changedSnapshot(t, st.Current()))
	ev, ok := s.next(t, 10*time.Second)
	if !ok || !strings.Contains(ev.data, "Copper Nugget") {
		t.Fatalf("after the change %+v, want the new answer", ev)
	}
	// The first answer was sent a run's time before it was read.
	if d := time.Since(first); d < 2500*time.Millisecond {
		t.Errorf("the second answer came %v after the first, want no sooner than the throttle's 3 s", d)
	}
}

// TestLiveQueryMaxAge: a live query's stream ends at StreamMaxAge, as a
// subscription's does, with complete, so that its client asks again.
func TestLiveQueryMaxAge(t *testing.T) {
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 10, StreamMaxAge: time.Second})
	s := openStream(t, srv.URL, `query @live { item(id: 1) { name } }`)
	if ev, ok := s.next(t, 10*time.Second); !ok || ev.event != "next" {
		t.Fatalf("first event %+v, want the answer", ev)
	}
	if ev, ok := s.next(t, 10*time.Second); !ok || ev.event != "complete" {
		t.Fatalf("then %+v, want complete at the stream's age", ev)
	}
}

// TestLiveQueryTotalCap: a live query holds one of MaxStreams places: one
// more than they allow is refused, 503, and a subscription too.
func TestLiveQueryTotalCap(t *testing.T) {
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 1})
	s := openStream(t, srv.URL, `query @live { item(id: 1) { name } }`)
	if ev, ok := s.next(t, 10*time.Second); !ok || ev.event != "next" {
		t.Fatalf("first event %+v, want the answer", ev)
	}
	for _, q := range []string{`query @live { item(id: 2) { name } }`, changesSubscription} {
		if c := openStream(t, srv.URL, q); c.resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("%s past the cap: status %d, want 503", q, c.resp.StatusCode)
		}
	}
}
