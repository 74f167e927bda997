package graphqlhttp_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/99designs/gqlgen/graphql"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/internal/execution"
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
	cancel context.CancelFunc
}

// close leaves the stream, as a client going away does.
func (s *sseStream) close() {
	s.cancel()
	s.resp.Body.Close()
}

// openStream POSTs query with Accept: text/event-stream and returns the
// response; for a 200, its events are read in the background until the
// stream ends or the test does.
func openStream(t *testing.T, url, query string) *sseStream {
	t.Helper()
	return openStreamWith(t, http.DefaultClient, url, map[string]any{"query": query})
}

// openStreamWith is openStream with a client of the test's, any request
// body, and headers given as name, value pairs (which may replace the
// Accept header).
func openStreamWith(t *testing.T, c *http.Client, url string, body map[string]any, header ...string) *sseStream {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return startStream(t, c, req, header...)
}

// openGetStream is openStreamWith by GET, as a browser's EventSource asks:
// body's entries go in the URL, objects as JSON.
func openGetStream(t *testing.T, c *http.Client, endpoint string, body map[string]any, header ...string) *sseStream {
	t.Helper()
	params := url.Values{}
	for k, v := range body {
		if s, ok := v.(string); ok {
			params.Set(k, s)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		params.Set(k, string(b))
	}
	req, err := http.NewRequest(http.MethodGet, endpoint+"?"+params.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return startStream(t, c, req, header...)
}

// startStream sends req with Accept: text/event-stream and returns the
// response; for a 200, its events are read in the background until the
// stream ends or the test does.
func startStream(t *testing.T, c *http.Client, req *http.Request, header ...string) *sseStream {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	req = req.WithContext(ctx)
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("opening a stream: %v", err)
	}
	s := &sseStream{resp: resp, events: make(chan sseEvent, 100), cancel: cancel}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// Not a stream (a refusal, or a query answered as JSON): the
		// caller reads the body itself.
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

// streamOpeners open an event stream each way a client asks for one: by
// POST (graphql-sse) and by GET (EventSource).
var streamOpeners = map[string]func(t *testing.T, c *http.Client, url string, body map[string]any, header ...string) *sseStream{
	"POST": openStreamWith,
	"GET":  openGetStream,
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
	srv, st, _ := countingStreamServer(t, opts)
	return srv, st
}

// countingStreamServer is streamServer, counting the loader batches that
// operations run: an operation that reads a record costs at least one.
func countingStreamServer(t *testing.T, opts graphqlhttp.Options) (*httptest.Server, *catalogue.Store, *atomic.Int64) {
	t.Helper()
	st := freshStore(t)
	batches := &atomic.Int64{}
	srv := httptest.NewUnstartedServer(resolvers.NewHandler(st,
		loader.Options{OnBatch: func(string, int) { batches.Add(1) }}, withEngine(opts)))
	srv.Config.ReadTimeout = 300 * time.Millisecond
	srv.Config.WriteTimeout = 300 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, st, batches
}

func TestSubscriptionOverSSE(t *testing.T) {
	for method, open := range streamOpeners {
		t.Run(method, func(t *testing.T) { testSubscriptionOverSSE(t, open) })
	}
}

func testSubscriptionOverSSE(t *testing.T, open func(t *testing.T, c *http.Client, url string, body map[string]any, header ...string) *sseStream) {
	done := make(chan struct{})
	obs := &streamObserver{}
	srv, st := streamServer(t, graphqlhttp.Options{MaxStreams: 1, KeepAlive: 50 * time.Millisecond, Done: done, Observer: obs})

	s := open(t, http.DefaultClient, srv.URL, map[string]any{"query": changesSubscription})
	if s.resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", s.resp.StatusCode)
	}
	if ct := s.resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q, want text/event-stream", ct)
	}
	if cc := s.resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store: a CDN must never keep a stream", cc)
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
		s2 := open(t, http.DefaultClient, srv.URL, map[string]any{"query": changesSubscription})
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
	// The stream's lifetime is reported apart from requests' latency;
	// the refused one was a request, answered at once.
	waitForStreamEnded(t, obs, 500*time.Millisecond) // 5 keep-alives 50ms apart, then 400ms
	if got := obs.requestOutcomes(); !slices.Equal(got, []string{"rejected"}) {
		t.Errorf("requests observed %q, want only the refused stream, rejected", got)
	}
}

// waitForStreamEnded waits until the observer is told of one stream
// ended, ok, after being open at least for open, and of no other.
func waitForStreamEnded(t *testing.T, obs *streamObserver, open time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); len(obs.streamsEnded()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the observer was not told the stream ended")
		}
	}
	if ended := obs.streamsEnded(); len(ended) != 1 || ended[0].outcome != "ok" || ended[0].open < open {
		t.Errorf("streams ended %+v, want one, ok, open at least %s", ended, open)
	}
}

// streamObserver counts the streams open and ever opened, and notes the
// limits that refused requests, the outcomes of requests and the streams
// that ended.
type streamObserver struct {
	cacheObserver
	open, opened atomic.Int64

	mu       sync.Mutex
	rejected []string
	requests []string
	ended    []endedStream
}

type endedStream struct {
	outcome string
	open    time.Duration
}

func (o *streamObserver) Request(_, outcome string, _ time.Duration, _ int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.requests = append(o.requests, outcome)
}

func (o *streamObserver) StreamEnded(_, outcome string, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ended = append(o.ended, endedStream{outcome, d})
}

func (o *streamObserver) requestOutcomes() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.requests)
}

func (o *streamObserver) streamsEnded() []endedStream {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.ended)
}

func (o *streamObserver) Streams(delta int) {
	o.open.Add(int64(delta))
	if delta > 0 {
		o.opened.Add(int64(delta))
	}
}

func (o *streamObserver) Rejected(limit string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.rejected = append(o.rejected, limit)
}

// rejections returns the limits noted so far and forgets them.
func (o *streamObserver) rejections() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	r := o.rejected
	o.rejected = nil
	return r
}

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
	t.Run("GET without an event stream", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"?query="+strings.ReplaceAll(changesSubscription, " ", "+"), nil)
		a := send(t, client, req)
		r := decode(t, a)
		if a.status != http.StatusNotAcceptable || len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "Accept: text/event-stream") {
			t.Errorf("status %d, body %s: want 406 saying how to subscribe", a.status, a.body)
		}
	})
}

// TestOnlySubscriptionsAreStreamed: a query asked for as an event stream
// would run under no time budget and outside the queue for a core, so
// anything but a subscription is refused before gqlgen sees it.
func TestOnlySubscriptionsAreStreamed(t *testing.T) {
	obs := &streamObserver{}
	srv, _, batches := countingStreamServer(t, graphqlhttp.Options{MaxStreams: 10, Observer: obs})
	const twoOperations = `query Q { item(id: 1) { name } } subscription S { catalogueChanged { version } }`
	hash := sha256.Sum256([]byte(changesSubscription))
	for _, tt := range []struct {
		name    string
		body    map[string]any
		message string // part of the one error's message
	}{
		{name: "query", body: map[string]any{"query": `{ item(id: 1) { name } }`},
			message: "only subscriptions are served as Server-Sent Events; ask for queries as application/json"},
		{name: "mutation", body: map[string]any{"query": `mutation { item(id: 1) { name } }`},
			message: "only subscriptions are served as Server-Sent Events"},
		{name: "the query of a document holding a subscription too", body: map[string]any{"query": twoOperations, "operationName": "Q"},
			message: "only subscriptions are served as Server-Sent Events"},
		{name: "a document that does not parse", body: map[string]any{"query": `subscription { catalogueChanged { version }`},
			message: "does not parse"},
		{name: "no operation of that name", body: map[string]any{"query": twoOperations, "operationName": "T"},
			message: "no operation of that name"},
		{name: "several operations and no name", body: map[string]any{"query": twoOperations},
			message: "no operationName"},
		{name: "a persisted query by its hash alone",
			body:    map[string]any{"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(hash[:])}}},
			message: "query text"},
	} {
		for method, open := range streamOpeners {
			t.Run(tt.name+"/"+method, func(t *testing.T) {
				s := open(t, http.DefaultClient, srv.URL, tt.body)
				if s.resp.StatusCode != http.StatusBadRequest {
					t.Fatalf("status %d, want 400", s.resp.StatusCode)
				}
				if ct := s.resp.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q, want application/json", ct)
				}
				var body gqlResponse
				if err := json.NewDecoder(s.resp.Body).Decode(&body); err != nil || len(body.Errors) != 1 {
					t.Fatalf("body %+v (%v), want one error", body, err)
				}
				e := body.Errors[0]
				if e.code() != graphqlhttp.CodeBadRequest || !strings.Contains(e.Message, tt.message) ||
					e.Extensions["requestId"] != s.resp.Header.Get("X-Request-ID") {
					t.Errorf("error %+v, want %s saying %q, with the request id", e, graphqlhttp.CodeBadRequest, tt.message)
				}
				if got := obs.rejections(); len(got) != 1 || got[0] != "stream_operation" {
					t.Errorf("the observer was told of rejections %q, want [stream_operation]", got)
				}
			})
		}
	}
	// None of them ran, nor took a stream's place.
	if n := batches.Load(); n != 0 {
		t.Errorf("%d loader batches ran, want none", n)
	}
	if n := obs.opened.Load(); n != 0 {
		t.Errorf("%d streams were opened, want none", n)
	}

	t.Run("the subscription of a document holding a query too", func(t *testing.T) {
		s := openStreamWith(t, http.DefaultClient, srv.URL, map[string]any{"query": twoOperations, "operationName": "S"})
		if s.resp.StatusCode != http.StatusOK || s.resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Errorf("status %d, Content-Type %q: want a stream", s.resp.StatusCode, s.resp.Header.Get("Content-Type"))
		}
	})
}

// countingExecutor counts the operations offered to the endpoint's
// executor, which only the endpoint's own path (with its time budget and
// queue for a core) offers.
type countingExecutor struct {
	execution.Executor
	offered atomic.Int64
}

func (c *countingExecutor) Execute(ctx context.Context, oc *graphql.OperationContext, memo *execution.Memo, maxBytes int) (execution.Answer, error) {
	c.offered.Add(1)
	return c.Executor.Execute(ctx, oc, memo, maxBytes)
}

// TestQueryAcceptingJSONAndStreams: a client that takes JSON as well as an
// event stream (urql asks every operation so) has its query answered as
// any other, as JSON, by the endpoint's own path.
func TestQueryAcceptingJSONAndStreams(t *testing.T) {
	exec := &countingExecutor{Executor: resolvers.NewEngine(nil)}
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 10, Executor: exec})
	const urqlAccept = "application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed"
	s := openStreamWith(t, http.DefaultClient, srv.URL, map[string]any{"query": `{ item(id: 1) { name } }`}, "Accept", urqlAccept)
	body, err := io.ReadAll(s.resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if s.resp.StatusCode != http.StatusOK || string(body) != `{"data":{"item":{"name":"Copper Ore"}}}` {
		t.Errorf("status %d, body %s: want the answer", s.resp.StatusCode, body)
	}
	if ct := s.resp.Header.Get("Content-Type"); ct != "application/graphql-response+json" {
		t.Errorf("Content-Type %q, want application/graphql-response+json", ct)
	}
	if n := exec.offered.Load(); n != 1 {
		t.Errorf("the executor was offered %d operations, want 1", n)
	}
}

// clientFrom is an HTTP client whose connections come from the loopback
// address ip, a second client on the same machine.
func clientFrom(t *testing.T, ip string) *http.Client {
	t.Helper()
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// checkRefusedForClient checks a stream refused by the per-client cap.
func checkRefusedForClient(t *testing.T, s *sseStream) {
	t.Helper()
	if s.resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429", s.resp.StatusCode)
	}
	if s.resp.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	var body gqlResponse
	if err := json.NewDecoder(s.resp.Body).Decode(&body); err != nil || len(body.Errors) != 1 ||
		body.Errors[0].code() != graphqlhttp.CodeTooManyStreamsForClient {
		t.Errorf("body %+v (%v), want one %s error", body, err, graphqlhttp.CodeTooManyStreamsForClient)
	}
}

// openWithin opens a stream from c until one is let through; the place it
// waits for is given back once the server sees its stream's client leave.
func openWithin(t *testing.T, c *http.Client, url string, within time.Duration, header ...string) *sseStream {
	t.Helper()
	for deadline := time.Now().Add(within); ; {
		s := openStreamWith(t, c, url, map[string]any{"query": changesSubscription}, header...)
		if s.resp.StatusCode == http.StatusOK {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("status %d after %s: the stream's place was not given back", s.resp.StatusCode, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStreamsPerClient: one client cannot take every stream's place.
func TestStreamsPerClient(t *testing.T) {
	const perClient = 3
	obs := &streamObserver{}
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 10, MaxStreamsPerClient: perClient, Observer: obs})
	first := clientFrom(t, "127.0.0.1")

	// Streams by POST and by GET count together.
	var open []*sseStream
	for i := range perClient {
		openOne := openStreamWith
		if i%2 == 1 {
			openOne = openGetStream
		}
		s := openOne(t, first, srv.URL, map[string]any{"query": changesSubscription})
		if s.resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: status %d, want 200", i, s.resp.StatusCode)
		}
		open = append(open, s)
	}
	checkRefusedForClient(t, openStreamWith(t, first, srv.URL, map[string]any{"query": changesSubscription}))
	checkRefusedForClient(t, openGetStream(t, first, srv.URL, map[string]any{"query": changesSubscription}))
	if got := obs.rejections(); !slices.Equal(got, []string{"streams_per_client", "streams_per_client"}) {
		t.Errorf("the observer was told of rejections %q, want [streams_per_client streams_per_client]", got)
	}

	t.Run("another client", func(t *testing.T) {
		s := openStreamWith(t, clientFrom(t, "127.0.0.2"), srv.URL, map[string]any{"query": changesSubscription})
		if s.resp.StatusCode != http.StatusOK {
			t.Errorf("status %d from 127.0.0.2, want 200", s.resp.StatusCode)
		}
	})

	t.Run("a stream closed frees a place", func(t *testing.T) {
		open[0].close()
		openWithin(t, first, srv.URL, 10*time.Second)
		checkRefusedForClient(t, openStreamWith(t, first, srv.URL, map[string]any{"query": changesSubscription}))
	})
}

// TestStreamsPerClientBehindProxy: behind a trusted proxy, the client is
// the nearest hop of X-Forwarded-For the proxies did not write, whatever
// the client wrote there itself.
func TestStreamsPerClientBehindProxy(t *testing.T) {
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 10, MaxStreamsPerClient: 1,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	open := func(xff string) *sseStream {
		return openStreamWith(t, http.DefaultClient, srv.URL, map[string]any{"query": changesSubscription}, "X-Forwarded-For", xff)
	}
	if s := open("198.51.100.1"); s.resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d for the first client, want 200", s.resp.StatusCode)
	}
	if s := open("198.51.100.2"); s.resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d for a second client, want 200", s.resp.StatusCode)
	}
	checkRefusedForClient(t, open("198.51.100.1"))
	// A client cannot pass for another by writing a hop of its own.
	checkRefusedForClient(t, open("203.0.113.99, 198.51.100.1"))
	// Nor by going around the proxy: from an untrusted peer the header
	// is not read, and the peer is the client.
	s := openStreamWith(t, clientFrom(t, "127.0.0.2"), srv.URL, map[string]any{"query": changesSubscription}, "X-Forwarded-For", "203.0.113.7")
	if s.resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d from 127.0.0.2, want 200", s.resp.StatusCode)
	}
	checkRefusedForClient(t, openStreamWith(t, clientFrom(t, "127.0.0.2"), srv.URL, map[string]any{"query": changesSubscription}, "X-Forwarded-For", "203.0.113.8"))
}

// TestStreamMaxAge: a stream open for its maximum age ends with complete,
// as at shutdown, and gives its place back.
func TestStreamMaxAge(t *testing.T) {
	const maxAge = 200 * time.Millisecond
	obs := &streamObserver{}
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 1, StreamMaxAge: maxAge, KeepAlive: 50 * time.Millisecond, Observer: obs})
	start := time.Now()
	s := openStream(t, srv.URL, changesSubscription)
	if s.resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", s.resp.StatusCode)
	}
	ev, ok := s.next(t, 10*time.Second)
	if !ok || ev.event != "complete" {
		t.Fatalf("got %+v (open %v), want the complete event", ev, ok)
	}
	// Timers never fire early: this bound holds however loaded the
	// machine is.
	if lasted := time.Since(start); lasted < maxAge-maxAge/10 {
		t.Errorf("the stream ended after %s, before its maximum age of %s less a tenth", lasted, maxAge)
	}
	if _, ok := s.next(t, 10*time.Second); ok {
		t.Error("the stream went on after complete")
	}
	openWithin(t, http.DefaultClient, srv.URL, 10*time.Second)
}

// TestGetStreamOfQueryAcceptingJSON: a GET asking for a query with an
// Accept that takes JSON as well as a stream is answered as any GET.
func TestGetStreamOfQueryAcceptingJSON(t *testing.T) {
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 10})
	s := openGetStream(t, http.DefaultClient, srv.URL, map[string]any{"query": `{ item(id: 1) { name } }`},
		"Accept", "text/event-stream, application/json")
	body, err := io.ReadAll(s.resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if s.resp.StatusCode != http.StatusOK || string(body) != `{"data":{"item":{"name":"Copper Ore"}}}` || s.resp.Header.Get("ETag") == "" {
		t.Errorf("status %d, ETag %q, body %s: want the answer, with its ETag", s.resp.StatusCode, s.resp.Header.Get("ETag"), body)
	}
}

// TestStreamRefusedBeforeExecution: a subscription refused before it runs
// (a variable that does not coerce, a document that does not validate, a
// limit of the guard or the cost limit) opens no stream and takes no
// place: the only place is held throughout, and every refusal is answered
// all the same. A client that takes JSON gets a 4xx JSON answer; one that
// takes only an event stream gets the errors as one next event, then
// complete, as the GraphQL over SSE protocol asks. Neither has a data
// entry: nothing ran.
func TestStreamRefusedBeforeExecution(t *testing.T) {
	obs := &streamObserver{}
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 1, Observer: obs,
		Limits: admission.Limits{MaxComplexity: 10}})
	held := openStream(t, srv.URL, `subscription { catalogueChanged { version } }`)
	if held.resp.StatusCode != http.StatusOK {
		t.Fatalf("the stream holding the place: status %d", held.resp.StatusCode)
	}
	aliases := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(" a" + strconv.Itoa(i) + ": version")
		}
		return "subscription { catalogueChanged {" + b.String() + " } }"
	}
	cases := []struct {
		name      string
		body      map[string]any
		code      string
		jsonState int // the status under application/json
	}{
		{"variable that does not coerce", map[string]any{
			"query":     `subscription($b: Boolean!) { catalogueChanged @include(if: $b) { version } }`,
			"variables": map[string]any{"b": "true"}}, "GRAPHQL_VALIDATION_FAILED", 400},
		{"invalid document", map[string]any{"query": `subscription { catalogueChanged { nowhere } }`},
			"GRAPHQL_VALIDATION_FAILED", 400},
		{"too many aliases", map[string]any{"query": aliases(31)}, admission.CodeTooManyAliases, 422},
		{"too costly", map[string]any{"query": aliases(20)}, admission.CodeTooComplex, 422},
	}
	for _, tt := range cases {
		for method, open := range streamOpeners {
			t.Run(tt.name+"/"+method+"/stream only", func(t *testing.T) {
				s := open(t, http.DefaultClient, srv.URL, tt.body)
				if s.resp.StatusCode != http.StatusOK || s.resp.Header.Get("Content-Type") != "text/event-stream" ||
					s.resp.Header.Get("Cache-Control") != "no-store" {
					t.Fatalf("status %d, %s, Cache-Control %q: want 200 text/event-stream, no-store", s.resp.StatusCode,
						s.resp.Header.Get("Content-Type"), s.resp.Header.Get("Cache-Control"))
				}
				ev, ok := s.next(t, 5*time.Second)
				var r struct {
					Data   *json.RawMessage `json:"data"`
					Errors []gqlError       `json:"errors"`
				}
				if err := json.Unmarshal([]byte(ev.data), &r); !ok || ev.event != "next" || err != nil ||
					r.Data != nil || len(r.Errors) != 1 || r.Errors[0].code() != tt.code {
					t.Errorf("got %+v, want one next event with a %s error and no data entry", ev, tt.code)
				}
				if ev, ok := s.next(t, 5*time.Second); !ok || ev.event != "complete" {
					t.Errorf("got %+v (open %v), want complete", ev, ok)
				}
				if ev, ok := s.next(t, 5*time.Second); ok {
					t.Errorf("got %+v after complete, want the stream ended", ev)
				}
			})
			for _, accept := range []string{"application/json, text/event-stream", "application/graphql-response+json, text/event-stream"} {
				t.Run(tt.name+"/"+method+"/"+accept, func(t *testing.T) {
					s := open(t, http.DefaultClient, srv.URL, tt.body, "Accept", accept)
					want, ct := tt.jsonState, "application/json"
					if strings.HasPrefix(accept, "application/graphql-response+json") {
						want, ct = 400, "application/graphql-response+json"
					}
					body, _ := io.ReadAll(s.resp.Body)
					var r map[string]json.RawMessage
					json.Unmarshal(body, &r)
					var errs []gqlError
					json.Unmarshal(r["errors"], &errs)
					if s.resp.StatusCode != want || s.resp.Header.Get("Content-Type") != ct {
						t.Errorf("status %d, %s: want %d, %s", s.resp.StatusCode, s.resp.Header.Get("Content-Type"), want, ct)
					}
					if _, hasData := r["data"]; hasData || len(errs) != 1 || errs[0].code() != tt.code {
						t.Errorf("body %s: want one %s error and no data entry", body, tt.code)
					}
				})
			}
		}
	}
	if n, opened := obs.open.Load(), obs.opened.Load(); n != 1 || opened != 1 {
		t.Errorf("the observer counts %d streams open, %d ever, want the held one only", n, opened)
	}
	for _, outcome := range obs.requestOutcomes() {
		if outcome != "rejected" {
			t.Errorf("a refusal observed as %q, want rejected", outcome)
		}
	}
	if n := len(obs.requestOutcomes()); n != len(cases)*len(streamOpeners)*3 {
		t.Errorf("%d requests observed, want each refusal as one", n)
	}
}

// TestStreamStartsAtOnce: a stream's first bytes, sent on subscribing and
// before any event or keep-alive, are one empty comment, so that a client
// (and a proxy) sees the stream open; the docs say so.
func TestStreamStartsAtOnce(t *testing.T) {
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 1, KeepAlive: time.Hour})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"?query="+url.QueryEscape(changesSubscription), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first := make([]byte, 3)
	if _, err := io.ReadFull(resp.Body, first); err != nil || string(first) != ":\n\n" {
		t.Errorf("a stream starts with %q (%v), want %q", first, err, ":\n\n")
	}
}
