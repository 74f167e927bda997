package graphqlhttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/resolvers"
)

const changesSubscription = `subscription { catalogueChanged { version collections } }`

// sseEvent is one Server-Sent Event: a comment (a keep-alive) or an event
// with its data.
type sseEvent struct {
	comment     bool
	event, data string
}

// sseStream is an open event stream, read one event at a time.
type sseStream struct {
	resp   *http.Response
	events chan sseEvent
}

// openStream POSTs query with Accept: text/event-stream and returns the
// response; for a 200, its events are read in the background until the
// stream ends or the test does.
func openStream(t *testing.T, url, query string) *sseStream {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	body, _ := json.Marshal(map[string]string{"query": query})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("opening a stream: %v", err)
	}
	s := &sseStream{resp: resp, events: make(chan sseEvent, 100)}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		close(s.events)
		return s
	}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev != (sseEvent{}) {
					s.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, ":"):
				ev.comment = true
			case strings.HasPrefix(line, "event: "):
				ev.event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return s
}

// next returns the stream's next event that is not a keep-alive, and
// false if the stream ended first; it fails the test after within.
func (s *sseStream) next(t *testing.T, within time.Duration) (sseEvent, bool) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return sseEvent{}, false
			}
			if ev.comment {
				continue
			}
			return ev, true
		case <-deadline:
			t.Fatalf("no event within %s", within)
			return sseEvent{}, false
		}
	}
}

// changedSnapshot is snap with the fixture's /items renamed: a new body.
func changedSnapshot(t *testing.T, snap *catalogue.Snapshot) *catalogue.Snapshot {
	t.Helper()
	raw := bytes.Replace(upstreamtest.FixtureBodies(t)[catalogue.Items], []byte("Copper Ore"), []byte("Copper Nugget"), 1)
	p, err := catalogue.Decode(catalogue.Items, raw)
	if err != nil {
		t.Fatal(err)
	}
	return snap.With(p)
}

// streamServer serves the endpoint on the fixture with streams allowed,
// behind a server whose read and write timeouts are far shorter than the
// test's streams last.
func streamServer(t *testing.T, opts graphqlhttp.Options) (*httptest.Server, *catalogue.Store) {
	t.Helper()
	st := freshStore(t)
	srv := httptest.NewUnstartedServer(resolvers.NewHandler(st, loader.Options{}, opts))
	srv.Config.ReadTimeout = 300 * time.Millisecond
	srv.Config.WriteTimeout = 300 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, st
}

func TestSubscriptionOverSSE(t *testing.T) {
	done := make(chan struct{})
	obs := &streamObserver{}
	srv, st := streamServer(t, graphqlhttp.Options{MaxStreams: 1, KeepAlive: 50 * time.Millisecond, Done: done, Observer: obs})

	s := openStream(t, srv.URL, changesSubscription)
	if s.resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", s.resp.StatusCode)
	}
	if ct := s.resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q, want text/event-stream", ct)
	}

	// Idle for longer than the server's timeouts: keep-alives flow, and
	// the stream stays open.
	keepAlives := 0
	for wait := time.After(time.Second); keepAlives < 5; {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatal("the stream ended while idle")
			}
			if !ev.comment {
				t.Fatalf("an event %+v before any change", ev)
			}
			keepAlives++
		case <-wait:
			t.Fatalf("%d keep-alives in 1s at a 50ms interval", keepAlives)
		}
	}
	time.Sleep(400 * time.Millisecond) // past the read and write timeouts

	t.Run("a second stream beyond the cap is refused", func(t *testing.T) {
		s2 := openStream(t, srv.URL, changesSubscription)
		if s2.resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("status %d, want 503", s2.resp.StatusCode)
		}
		var body gqlResponse
		if err := json.NewDecoder(s2.resp.Body).Decode(&body); err != nil || len(body.Errors) != 1 ||
			body.Errors[0].code() != graphqlhttp.CodeTooManyStreams {
			t.Errorf("body %+v (%v), want one %s error", body, err, graphqlhttp.CodeTooManyStreams)
		}
		if s2.resp.Header.Get("Retry-After") == "" {
			t.Error("no Retry-After")
		}
	})

	if n := obs.open.Load(); n != 1 {
		t.Errorf("the observer counts %d streams open, want 1", n)
	}

	next := changedSnapshot(t, st.Current())
	st.Publish(next)
	ev, ok := s.next(t, 5*time.Second)
	if !ok || ev.event != "next" {
		t.Fatalf("got %+v (open %v), want a next event", ev, ok)
	}
	var got struct {
		Data struct {
			CatalogueChanged struct {
				Version     string
				Collections []string
			}
		}
		Errors []gqlError
	}
	if err := json.Unmarshal([]byte(ev.data), &got); err != nil {
		t.Fatalf("event data %s: %v", ev.data, err)
	}
	if c := got.Data.CatalogueChanged; c.Version != next.Version() || len(c.Collections) != 1 || c.Collections[0] != "items" || got.Errors != nil {
		t.Errorf("event %s, want version %s and collections [items]", ev.data, next.Version())
	}

	// The same snapshot published again changes no body: no event.
	st.Publish(next)

	close(done) // the server shuts down
	ev, ok = s.next(t, 5*time.Second)
	if !ok || ev.event != "complete" {
		t.Fatalf("got %+v (open %v), want the complete event at shutdown", ev, ok)
	}
	if _, ok := s.next(t, 5*time.Second); ok {
		t.Error("the stream went on after complete")
	}
	for deadline := time.Now().Add(5 * time.Second); obs.open.Load() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the observer counts %d streams open after the stream ended", obs.open.Load())
		}
	}
}

// streamObserver counts the streams open.
type streamObserver struct {
	cacheObserver
	open atomic.Int64
}

func (o *streamObserver) Streams(delta int) { o.open.Add(int64(delta)) }

func TestSubscriptionsRefused(t *testing.T) {
	srv, _ := streamServer(t, graphqlhttp.Options{}) // MaxStreams 0: none

	t.Run("streams off", func(t *testing.T) {
		s := openStream(t, srv.URL, changesSubscription)
		var body gqlResponse
		if err := json.NewDecoder(s.resp.Body).Decode(&body); s.resp.StatusCode != http.StatusServiceUnavailable ||
			err != nil || len(body.Errors) != 1 || body.Errors[0].code() != graphqlhttp.CodeStreamsOff {
			t.Errorf("status %d, body %+v (%v): want 503 %s", s.resp.StatusCode, body, err, graphqlhttp.CodeStreamsOff)
		}
	})
	t.Run("POST without an event stream", func(t *testing.T) {
		a := postQuery(t, srv.URL, changesSubscription, nil)
		r := decode(t, a)
		if a.status != http.StatusBadRequest || len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "text/event-stream") {
			t.Errorf("status %d, body %s: want 400 saying how to subscribe", a.status, a.body)
		}
	})
	t.Run("GET", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"?query="+strings.ReplaceAll(changesSubscription, " ", "+"), nil)
		if a := send(t, client, req); a.status != http.StatusNotAcceptable {
			t.Errorf("status %d, body %s: want 406", a.status, a.body)
		}
	})
}

// TestQueryOverSSE: a query may be asked as a stream too; it is answered
// with one event, then complete.
func TestQueryOverSSE(t *testing.T) {
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 1})
	s := openStream(t, srv.URL, `{ item(id: 1) { name } }`)
	ev, ok := s.next(t, 5*time.Second)
	if !ok || ev.event != "next" || ev.data != `{"data":{"item":{"name":"Copper Ore"}}}` {
		t.Fatalf("got %+v, want the answer as a next event", ev)
	}
	if ev, ok := s.next(t, 5*time.Second); !ok || ev.event != "complete" {
		t.Fatalf("got %+v, want complete", ev)
	}
	// Its place is free again.
	waitStreamFree(t, srv.URL)
}

// waitStreamFree waits until a stream can be opened again.
func waitStreamFree(t *testing.T, url string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		s := openStream(t, url, `{ item(id: 1) { id } }`)
		if s.resp.StatusCode == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("status %d: the stream's place was not given back", s.resp.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
