package graphqlhttp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"
	"github.com/catalogue-gateway/gateway/graphqlhttp/wstest"
	"github.com/catalogue-gateway/gateway/internal/incrementaltest"
	"github.com/catalogue-gateway/gateway/resolvers"
)

// incrementalQuery defers and streams, nested: a labelled fragment on
// each listed item, a fragment deferred inside it, a streamed list, and a
// deferred spread of a fragment that streams in turn.
const incrementalQuery = `query Q($yes: Boolean!) {
	items(first: 5) {
		totalCount @include(if: $yes)
		nodes @stream(initialCount: 1, label: "nodes") {
			id name
			... @defer(label: "more") { rarity ... @defer(if: $yes) { type description } }
		}
	}
	item(id: 1) { id ...Uses @defer(label: "uses") }
}
fragment Uses on Item { name usedIn { cooking @stream { cookingId name } } }`

// directives are @defer and @stream, to write a query without them.
var directives = regexp.MustCompile(`\s*@(defer|stream)(\([^)]*\))?`)

// plainAnswer is what the server answers query without its directives,
// as JSON.
func plainAnswer(t *testing.T, base, query string, vars map[string]any) incrementaltest.Result {
	t.Helper()
	a := postQuery(t, base, directives.ReplaceAllString(query, ""), vars)
	if a.status != http.StatusOK {
		t.Fatalf("the plain query: status %d: %s", a.status, a.body)
	}
	r, err := incrementaltest.Decode(a.body)
	if err != nil {
		t.Fatalf("the plain query: %v", err)
	}
	return withoutLocations(r)
}

// withoutLocations drops the errors' locations, which differ between a
// query and the same without its directives.
func withoutLocations(r incrementaltest.Result) incrementaltest.Result {
	for _, e := range r.Errors {
		if m, ok := e.(map[string]any); ok {
			delete(m, "locations")
		}
	}
	return r
}

// ask sends query as POST (or GET) with accept, and returns the response,
// read whole.
func ask(t *testing.T, method, base, query string, vars map[string]any, accept string) answer {
	t.Helper()
	varsJSON, _ := json.Marshal(vars)
	var req *http.Request
	var err error
	if method == http.MethodGet {
		req, err = http.NewRequest(method, base+"?"+url.Values{"query": {query}, "variables": {string(varsJSON)}}.Encode(), nil)
	} else {
		body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
		req, err = http.NewRequest(method, base, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
	}
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	return send(t, client, req)
}

// payloadsOf reads a response's parts, as its Content-Type says.
func payloadsOf(t *testing.T, a answer) [][]byte {
	t.Helper()
	ct := a.header.Get("Content-Type")
	var payloads [][]byte
	var err error
	if strings.HasPrefix(ct, "text/event-stream") {
		payloads, err = incrementaltest.Events(bytes.NewReader(a.body))
	} else {
		payloads, err = incrementaltest.Multipart(ct, bytes.NewReader(a.body))
	}
	if err != nil {
		t.Fatalf("reading the parts of %s: %v\n%s", ct, err, a.body)
	}
	return payloads
}

// TestIncrementalDelivery: each format over each transport delivers the
// query's parts, first what is not deferred (with each streamed list cut
// to its initialCount), and the parts merge into the answer the query
// gives without its directives; the parts are never cached.
func TestIncrementalDelivery(t *testing.T) {
	srv := newServer(t, graphqlhttp.Options{})
	vars := map[string]any{"yes": true}
	want := plainAnswer(t, srv.URL, incrementalQuery, vars)
	for _, tt := range []struct {
		name, method, accept, contentType string
	}{
		{"multipart, POST", http.MethodPost, "multipart/mixed", `multipart/mixed; boundary="-"; deferSpec=20220824`},
		{"multipart, GET", http.MethodGet, "multipart/mixed", `multipart/mixed; boundary="-"; deferSpec=20220824`},
		{"multipart as Apollo Client asks", http.MethodPost, "multipart/mixed;deferSpec=20220824,application/json", `multipart/mixed; boundary="-"; deferSpec=20220824`},
		{"multipart as urql asks", http.MethodPost, "application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed",
			`multipart/mixed; boundary="-"; deferSpec=20220824`},
		{"multipart, in capitals", http.MethodPost, "Multipart/Mixed", `multipart/mixed; boundary="-"; deferSpec=20220824`},
		{"multipart, incrementalSpec=v0.2", http.MethodPost, "multipart/mixed;incrementalSpec=v0.2", `multipart/mixed; boundary="-"; incrementalSpec=v0.2`},
		{"multipart, incrementalSpec=v0.2, GET", http.MethodGet, "multipart/mixed; incrementalSpec=v0.2, application/json", `multipart/mixed; boundary="-"; incrementalSpec=v0.2`},
		{"event stream, POST", http.MethodPost, "text/event-stream", "text/event-stream"},
		{"event stream, GET", http.MethodGet, "text/event-stream", "text/event-stream"},
		{"event stream, incrementalSpec=v0.2", http.MethodPost, "text/event-stream;incrementalSpec=v0.2", "text/event-stream"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := ask(t, tt.method, srv.URL, incrementalQuery, vars, tt.accept)
			if a.status != http.StatusOK || a.header.Get("Content-Type") != tt.contentType {
				t.Fatalf("status %d, Content-Type %q; want 200, %q\n%s", a.status, a.header.Get("Content-Type"), tt.contentType, a.body)
			}
			if cc := a.header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", cc)
			}
			payloads := payloadsOf(t, a)
			if len(payloads) < 5 {
				t.Fatalf("%d payloads, want one for the start, each deferred fragment and each stream", len(payloads))
			}
			var first struct {
				Data struct {
					Items struct {
						TotalCount int
						Nodes      []map[string]any
					}
					Item map[string]any
				}
			}
			if err := json.Unmarshal(payloads[0], &first); err != nil {
				t.Fatal(err)
			}
			if n := first.Data.Items.Nodes; len(n) != 1 || n[0]["rarity"] != nil || n[0]["name"] == nil {
				t.Errorf("the first payload's nodes %v; want one, with its name and without the deferred rarity", n)
			}
			if first.Data.Item["name"] != nil || first.Data.Item["id"] == nil {
				t.Errorf("the first payload's item %v; want its id, and its deferred name later", first.Data.Item)
			}
			got, err := incrementaltest.Merge(payloads)
			got = withoutLocations(got)
			if err != nil {
				t.Fatalf("merging: %v\n%s", err, bytes.Join(payloads, []byte("\n")))
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("merged parts differ from the plain answer:\n merged %v\n plain  %v", got, want)
			}
		})
	}

	t.Run("labels and paths, deferSpec=20220824", func(t *testing.T) {
		payloads := payloadsOf(t, ask(t, http.MethodPost, srv.URL, incrementalQuery, vars, "multipart/mixed"))
		all := string(bytes.Join(payloads, []byte("\n")))
		for _, w := range []string{
			`{"incremental":[{"data":{"rarity":"common"},"path":["items","nodes",0],"label":"more"}],"hasNext":true}`,
			`"path":["items","nodes",1],"label":"nodes"}]`,
			`"path":["item"],"label":"uses"}]`,
			`"path":["item","usedIn","cooking",0]}]`,
		} {
			if !strings.Contains(all, w) {
				t.Errorf("no part %s among\n%s", w, all)
			}
		}
	})

	t.Run("pending and completed, incrementalSpec=v0.2", func(t *testing.T) {
		payloads := payloadsOf(t, ask(t, http.MethodPost, srv.URL, incrementalQuery, vars, "multipart/mixed;incrementalSpec=v0.2"))
		if !bytes.Contains(payloads[0], []byte(`"pending":[{"id":"0","path":["items","nodes"],"label":"nodes"},{"id":"1","path":["items","nodes",0],"label":"more"},{"id":"2","path":["item"],"label":"uses"}]`)) {
			t.Errorf("the first payload's pending: %s", payloads[0])
		}
		if !bytes.Contains(payloads[1], []byte(`{"incremental":[{"id":"0","items":[`)) || !bytes.Contains(payloads[1], []byte(`"completed":[{"id":"0"}]`)) {
			t.Errorf("the second payload: %s", payloads[1])
		}
	})

	t.Run("if false: no parts", func(t *testing.T) {
		const q = `query Q($no: Boolean!) { item(id: 1) { id @skip(if: $no) ... @defer(if: $no) { name } } items(first: 2) { nodes @stream(if: false) { id } } }`
		a := ask(t, http.MethodPost, srv.URL, q, map[string]any{"no": false}, "multipart/mixed")
		if ct := a.header.Get("Content-Type"); a.status != http.StatusOK || !strings.HasPrefix(ct, "multipart/mixed") {
			t.Fatalf("status %d, Content-Type %q, want a multipart answer", a.status, ct)
		}
		payloads := payloadsOf(t, a)
		if len(payloads) != 1 || !bytes.Contains(payloads[0], []byte(`"hasNext":false`)) {
			t.Fatalf("%d payloads, want one, with hasNext false:\n%s", len(payloads), bytes.Join(payloads, []byte("\n")))
		}
		got, err := incrementaltest.Merge(payloads)
		if want := plainAnswer(t, srv.URL, q, map[string]any{"no": false}); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("got %v (%v), want %v", got, err, want)
		}
	})

	t.Run("a client that takes only JSON gets the whole answer", func(t *testing.T) {
		for _, accept := range []string{"", "application/json", "application/graphql-response+json"} {
			a := ask(t, http.MethodPost, srv.URL, incrementalQuery, vars, accept)
			plain := ask(t, http.MethodPost, srv.URL, directives.ReplaceAllString(incrementalQuery, ""), vars, accept)
			if a.status != http.StatusOK || !bytes.Equal(a.body, plain.body) || a.header.Get("Content-Type") != plain.header.Get("Content-Type") {
				t.Errorf("Accept %q: %d %s\n%s\nwant %s\n%s", accept, a.status, a.header.Get("Content-Type"), a.body, plain.header.Get("Content-Type"), plain.body)
			}
		}
	})

	t.Run("an error in a deferred fragment", func(t *testing.T) {
		// A non-null field that fails nulls the data, as without @defer:
		// the first payload says so, and nothing follows.
		const q = `{ item(id: 1) { id } ... @defer(label: "bad") { items(after: "nope") { totalCount } } }`
		payloads := payloadsOf(t, ask(t, http.MethodPost, srv.URL, q, nil, "multipart/mixed"))
		got, err := incrementaltest.Merge(payloads)
		got = withoutLocations(got)
		want := plainAnswer(t, srv.URL, q, nil)
		if err != nil || !reflect.DeepEqual(got, want) || len(got.Errors) != 1 {
			t.Errorf("got %v (%v), want %v with its one error", got, err, want)
		}
	})
}

// TestIncrementalOverWebSocket: a query with @defer and @stream over
// graphql-transport-ws is a next message per part, in the
// deferSpec=20220824 format, then complete.
func TestIncrementalOverWebSocket(t *testing.T) {
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 5})
	const q = `{ items(first: 3) { nodes @stream(initialCount: 1) { id ... @defer(label: "n") { name } } } }`
	want := plainAnswer(t, srv.URL, q, nil)
	ws := wstest.Connect(t, http.DefaultClient, srv.URL)
	ws.Subscribe(t, "1", q)
	var payloads [][]byte
	for range 20 { // bounded: 1 + 3 fragments + 1 stream
		m := ws.Next(t)
		if m.Type == "complete" {
			break
		}
		if m.Type != "next" {
			t.Fatalf("got %+v, want next or complete", m)
		}
		payloads = append(payloads, m.Payload)
	}
	if len(payloads) != 5 {
		t.Errorf("%d next messages, want 5:\n%s", len(payloads), bytes.Join(payloads, []byte("\n")))
	}
	got, err := incrementaltest.Merge(payloads)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("merged %v (%v)\nwant %v", got, err, want)
	}
}

// TestIncrementalDeclined: an operation the engine declines (here for the
// introspection in a deferred fragment) is answered whole by gqlgen, as
// one JSON answer with every deferred field, and the decline is counted by
// its reason.
func TestIncrementalDeclined(t *testing.T) {
	obs := &executorObserver{}
	srv := newServer(t, graphqlhttp.Options{Executor: resolvers.NewEngine(nil), Observer: obs, Introspection: true})
	const q = `{ item(id: 1) { id ... @defer { name } } ... @defer(label: "schema") { __type(name: "Item") { name } } }`
	a := ask(t, http.MethodPost, srv.URL, q, nil, "multipart/mixed;deferSpec=20220824,application/json")
	if ct := a.header.Get("Content-Type"); a.status != http.StatusOK || !strings.HasPrefix(ct, "application/") {
		t.Fatalf("status %d, Content-Type %q; want a JSON answer", a.status, ct)
	}
	const want = `{"data":{"item":{"id":1,"name":"Copper Ore"},"__type":{"name":"Item"}}}`
	if string(a.body) != want {
		t.Errorf("body %s\nwant %s", a.body, want)
	}
	executed, declined := obs.counts()
	if executed["gqlgen"] != 1 || declined["introspection"] != 1 {
		t.Errorf("executed %v, declined %v; want gqlgen's one run, declined for introspection", executed, declined)
	}
}

// TestIncrementalBounds: the response bound holds for an answer in parts,
// and a client that asked for parts gets the refusal, no part of the
// data. (The engine's tests hold the bound to the parts together.)
func TestIncrementalBounds(t *testing.T) {
	srv := newServer(t, graphqlhttp.Options{})
	whole := postQuery(t, srv.URL, directives.ReplaceAllString(incrementalQuery, ""), map[string]any{"yes": true})
	bounded := newServer(t, graphqlhttp.Options{Limits: admission.Limits{MaxResponseBytes: len(whole.body) / 2}})
	a := ask(t, http.MethodPost, bounded.URL, incrementalQuery, map[string]any{"yes": true}, "multipart/mixed, application/json")
	r := decode(t, a)
	if len(r.Errors) != 1 || r.Errors[0].code() != graphqlhttp.CodeResponseTooLarge || string(r.Data) != "null" && r.Data != nil {
		t.Errorf("status %d %s: want RESPONSE_TOO_LARGE and no data", a.status, a.body)
	}
}

// requestObserver reports each answered request's bytes written.
type requestObserver struct {
	cacheObserver
	written chan int
}

func (o *requestObserver) Request(_, _ string, _ time.Duration, bytes int) { o.written <- bytes }

// TestIncrementalSlowReaderCutOff: a client that asks for parts and stops
// reading is cut off once a part waits past the write timeout: the
// request ends with the parts not written.
func TestIncrementalSlowReaderCutOff(t *testing.T) {
	obs := &requestObserver{written: make(chan int, 4)}
	srv, _ := stallingServer(t, graphqlhttp.Options{Observer: obs, WebSocketWriteTimeout: 100 * time.Millisecond,
		Limits: admission.Limits{MaxAliases: 1000, MaxFields: 100_000, MaxComplexity: 1 << 30, MaxTokens: 1 << 20, MaxBodyBytes: 1 << 20, MaxDirectives: 1000}})

	// 600 aliases of every item with its description, each deferred:
	// some 2,400 parts, far more than the buffers hold.
	var q strings.Builder
	q.WriteString("{")
	for i := range 600 {
		fmt.Fprintf(&q, ` a%d: items(first: 5) { nodes { id ... @defer { name description usedIn { cooking { name } } } } }`, i)
	}
	q.WriteString(" }")
	body, _ := json.Marshal(map[string]any{"query": q.String()})
	// Answered whole, to a client that reads it, it is some 280 KB; in
	// parts, twice that.
	whole := postQuery(t, srv.URL, q.String(), nil)
	if whole.status != http.StatusOK || len(whole.body) < 200<<10 {
		t.Fatalf("asked as JSON: %d, %d bytes: %.300s", whole.status, len(whole.body), whole.body)
	}
	<-obs.written
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(smallBuffers)
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nAccept: multipart/mixed\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	// Not a byte read: the server's writes stop, and the part waiting
	// past the write timeout ends the request.
	select {
	case n := <-obs.written:
		t.Logf("%d of %d bytes written", n, len(whole.body))
		// The buffers hold some tens of KB.
		if n < 1<<10 || n > len(whole.body) {
			t.Errorf("%d bytes written to a client that read none; want some parts written, then the writes cut off", n)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the request to a client that does not read did not end within 20 s")
	}
}

// TestIncrementalNeverCached: with the response cache on, a query asked
// for in parts, by GET, runs each time and is never looked for nor kept
// there; a client that takes only parts gets them even for a query a JSON
// client's request has cached.
func TestIncrementalNeverCached(t *testing.T) {
	srv := newCachedServer(t, freshStore(t), 1<<20)
	const deferred = `{ item(id: 1) { id ... @defer { name } } }`
	for i := range 2 {
		a := ask(t, http.MethodGet, srv.URL, deferred, nil, "multipart/mixed, application/json")
		if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "multipart/mixed") || a.header.Get("Cache-Control") != "no-store" || a.header.Get("ETag") != "" {
			t.Errorf("GET %d: Content-Type %q, Cache-Control %q, ETag %q; want parts, no-store, no tag", i, ct, a.header.Get("Cache-Control"), a.header.Get("ETag"))
		}
	}
	const plain = `{ item(id: 1) { id name } }`
	if a := ask(t, http.MethodGet, srv.URL, plain, nil, "application/json"); a.status != http.StatusOK {
		t.Fatalf("JSON: %d %s", a.status, a.body)
	}
	a := ask(t, http.MethodGet, srv.URL, plain, nil, "multipart/mixed")
	if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "multipart/mixed") {
		t.Errorf("a client that takes only parts, after a JSON client's request was cached: Content-Type %q", ct)
	}
	if hits := srv.obs.hits.Load(); hits != 0 {
		t.Errorf("%d cache hits; want none: parts are never looked for in the cache", hits)
	}
	if misses := srv.obs.misses.Load(); misses != 1 {
		t.Errorf("%d cache misses; want the JSON client's one", misses)
	}
}
