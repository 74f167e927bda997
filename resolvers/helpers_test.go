package resolvers_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/resolvers"
)

// fixture loads the small hand-written catalogue of package upstreamtest:
// a few records of every collection, with dangling references, numbers
// beyond 32 bits and float64, several envelopes and mixed EventChest
// itemIds.
func fixture(t testing.TB) *catalogue.Snapshot {
	t.Helper()
	var parts []*catalogue.Part
	for c, raw := range upstreamtest.FixtureBodies(t) {
		p, err := catalogue.Decode(c, raw)
		if err != nil {
			t.Fatalf("fixture %s: %v", c, err)
		}
		parts = append(parts, p)
	}
	return catalogue.NewSnapshot(parts...)
}

func embedded(t testing.TB) *catalogue.Snapshot {
	t.Helper()
	snap, err := catalogue.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func storeOf(snap *catalogue.Snapshot) *catalogue.Store {
	st := &catalogue.Store{}
	st.Publish(snap)
	return st
}

// serve starts the GraphQL endpoint on a loopback port for the test.
func serve(t testing.TB, src resolvers.Source, opts loader.Options) *httptest.Server {
	t.Helper()
	return serveWith(t, src, opts, graphqlhttp.Options{Introspection: true})
}

// serveWith is serve with the endpoint's options; with no Executor, the
// engine, as the gateway runs by default (execution.None: gqlgen
// alone).
func serveWith(t testing.TB, src resolvers.Source, opts loader.Options, httpOpts graphqlhttp.Options) *httptest.Server {
	t.Helper()
	if httpOpts.Executor == nil {
		httpOpts.Executor = resolvers.NewEngine(httpOpts.Memory)
	}
	srv := httptest.NewServer(resolvers.NewHandler(src, opts, httpOpts))
	t.Cleanup(srv.Close)
	return srv
}

type gqlError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

type gqlResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []gqlError      `json:"errors"`
	status int
	raw    []byte
}

// post sends one GraphQL request over HTTP and decodes the answer.
func post(t testing.TB, srv *httptest.Server, query string, vars map[string]any) gqlResponse {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Post(srv.URL, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	var out gqlResponse
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatalf("response is not JSON: %v\n%s", err, buf.Bytes())
	}
	out.status, out.raw = resp.StatusCode, buf.Bytes()
	return out
}

// data posts a query that must succeed and returns its data, decoded.
func data(t testing.TB, srv *httptest.Server, query string, vars map[string]any) map[string]any {
	t.Helper()
	r := post(t, srv, query, vars)
	if len(r.Errors) > 0 {
		t.Fatalf("query failed: %s", r.raw)
	}
	var d map[string]any
	dec := json.NewDecoder(bytes.NewReader(r.Data))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	return d
}

// jsonValue decodes a JSON literal written in a test, numbers kept exact.
func jsonValue(t testing.TB, s string) any {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("bad JSON in test: %v\n%s", err, s)
	}
	return v
}
