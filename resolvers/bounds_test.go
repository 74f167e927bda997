package resolvers_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/loader"
)

// A request is bounded on every path by which it can arrive (POST, GET, a
// persisted query by its hash) and under both executors: the answer's
// bytes, and its time.

// paths sends one query each way a client can: POST, GET, and as an
// automatic persisted query (registered by POST, then asked by GET with
// its hash alone).
var paths = []struct {
	name     string
	requests int // how many requests send makes
	send     func(t *testing.T, url, query string) gqlResponse
}{
	{"POST", 1, func(t *testing.T, u, q string) gqlResponse { return request(t, http.MethodPost, u, q, false) }},
	{"GET", 1, func(t *testing.T, u, q string) gqlResponse { return request(t, http.MethodGet, u, q, false) }},
	// A client that takes an event stream as well as JSON (urql asks so
	// for every operation): a query is answered as JSON, by the same path.
	{"POST accepting a stream", 1, func(t *testing.T, u, q string) gqlResponse {
		return request(t, http.MethodPost, u, q, false, "Accept", "application/json, text/event-stream")
	}},
	{"APQ", 2, func(t *testing.T, u, q string) gqlResponse {
		request(t, http.MethodPost, u, q, true) // registers it, whatever its answer
		return request(t, http.MethodGet, u, q, true)
	}},
}

// request sends query by method; withHash adds the persisted-query
// extension, and on GET sends the hash alone.
func request(t *testing.T, method, u, query string, withHash bool, header ...string) gqlResponse {
	t.Helper()
	sum := sha256.Sum256([]byte(query))
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(sum[:])}}
	var req *http.Request
	var err error
	if method == http.MethodPost {
		body := map[string]any{"query": query}
		if withHash {
			body["extensions"] = ext
		}
		b, _ := json.Marshal(body)
		req, err = http.NewRequest(method, u, bytes.NewReader(b))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
		}
	} else {
		v := url.Values{}
		if withHash {
			e, _ := json.Marshal(ext)
			v.Set("extensions", string(e))
		} else {
			v.Set("query", query)
		}
		req, err = http.NewRequest(method, u+"?"+v.Encode(), nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	var out gqlResponse
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatalf("response is not JSON: %v\n%.300s", err, buf.Bytes())
	}
	out.status, out.raw = resp.StatusCode, buf.Bytes()
	return out
}

// stoppedWith checks that r is an answer stopped with code: one error with
// that code, and no data, not even a part.
func stoppedWith(t *testing.T, r gqlResponse, code string) {
	t.Helper()
	if len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != code {
		t.Fatalf("want one %s error, got %d: %.400s", code, r.status, r.raw)
	}
	if d := strings.TrimSpace(string(r.Data)); d != "" && d != "null" {
		t.Errorf("data sent with %s: %.200s", code, d)
	}
}

func TestResponseBytesBound(t *testing.T) {
	snap := embedded(t)
	const bound = 4 << 10
	// About 13 KB: two hundred items with their names and droppers.
	big := `{ items(first: 200) { nodes { id name monsterDrops { monster { name } } } } }`
	small := `{ items(first: 5) { nodes { id name } } }`
	for _, plans := range []bool{true, false} {
		opts := graphqlhttp.Options{Limits: admission.Limits{MaxResponseBytes: bound}}
		if !plans {
			opts.Executor = execution.None
		}
		srv := serveWith(t, storeOf(snap), loader.Options{}, opts)
		for _, p := range paths {
			t.Run(fmt.Sprintf("plans=%v/%s", plans, p.name), func(t *testing.T) {
				r := p.send(t, srv.URL, big)
				stoppedWith(t, r, graphqlhttp.CodeResponseTooLarge)
				if len(r.raw) > 1024 {
					t.Errorf("the refusal is %d bytes", len(r.raw))
				}
				if ok := p.send(t, srv.URL, small); len(ok.Errors) > 0 || ok.Data == nil {
					t.Errorf("a small answer within the bound: %.300s", ok.raw)
				}
			})
		}
	}
}

// TestTimeBudgetStopsExecution runs a query whose batches of references
// each outlast the budget: the run must stop after the first, answer
// REQUEST_TIMEOUT (with no data, from a plan), and resolve no further
// level.
func TestTimeBudgetStopsExecution(t *testing.T) {
	snap := embedded(t)
	// Three levels of references: monsters, then their drops' items,
	// then those items' droppers.
	query := `{ items(first: 300) { nodes { monsterDrops { monster { drops { item { monsterDrops { monster { name } } } } } } } } }`
	const budget = 100 * time.Millisecond
	for _, plans := range []bool{true, false} {
		for _, p := range paths {
			t.Run(fmt.Sprintf("plans=%v/%s", plans, p.name), func(t *testing.T) {
				var deeper atomic.Int64
				opts := graphqlhttp.Options{RequestTimeout: budget,
					Limits: admission.Limits{MaxComplexity: 1 << 30, MaxResponseBytes: 1 << 30}}
				if !plans {
					opts.Executor = execution.None
				}
				srv := serveWith(t, storeOf(snap), loader.Options{OnBatch: func(kind string, _ int) {
					if kind != "monster" { // the first level's kind
						deeper.Add(1)
					}
					time.Sleep(2 * budget)
				}}, opts)
				r := p.send(t, srv.URL, query)
				if plans {
					stoppedWith(t, r, graphqlhttp.CodeTimeout)
				} else if len(r.Errors) == 0 || r.Errors[0].Extensions["code"] != graphqlhttp.CodeTimeout {
					// gqlgen's executor answers the fields it reached,
					// with an error for each it did not.
					t.Fatalf("want REQUEST_TIMEOUT errors: %.400s", r.raw)
				}
				if n := deeper.Load(); n > 0 {
					t.Errorf("%d batches of the next levels ran: the run went on past its budget", n)
				}
			})
		}
	}
}
