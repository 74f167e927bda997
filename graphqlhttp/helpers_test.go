package graphqlhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/resolvers"
)

// fixtureStore holds the small hand-written catalogue of package
// upstreamtest, decoded once for the test binary: snapshots are immutable,
// and decoding compresses every body, which is too slow to repeat.
var fixtureStore = sync.OnceValues(func() (*catalogue.Store, error) {
	var parts []*catalogue.Part
	for c, raw := range upstreamtest.FixtureBodies(nopTB{}) {
		p, err := catalogue.Decode(c, raw)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	st := &catalogue.Store{}
	st.Publish(catalogue.NewSnapshot(parts...))
	return st, nil
})

// nopTB lets FixtureBodies run outside a test; it reads embedded files
// and never fails.
type nopTB struct{ testing.TB }

func (nopTB) Helper()                   {}
func (nopTB) Fatal(args ...any)         { panic(args) }
func (nopTB) Fatalf(f string, a ...any) { panic(f) }

func store(tb testing.TB) *catalogue.Store {
	tb.Helper()
	st, err := fixtureStore()
	if err != nil {
		tb.Fatalf("decoding the fixture: %v", err)
	}
	return st
}

// withLoaders returns opts with every request given loaders on the fixture
// catalogue, for a test that builds the endpoint on a schema of its own.
func withLoaders(tb testing.TB, opts graphqlhttp.Options) graphqlhttp.Options {
	tb.Helper()
	st := store(tb)
	opts.PerRequest = func(ctx context.Context) context.Context {
		return loader.NewContext(ctx, loader.Pin(ctx, st, loader.Options{}))
	}
	return opts
}

// newHandler is the /graphql endpoint on the fixture catalogue, served as
// the gateway serves it.
func newHandler(tb testing.TB, opts graphqlhttp.Options) http.Handler {
	tb.Helper()
	return resolvers.NewHandler(store(tb), loader.Options{}, withEngine(opts))
}

// withEngine is opts with the engine as its Executor, as the gateway runs
// by default, unless the test chose one (execution.None: gqlgen
// alone).
func withEngine(opts graphqlhttp.Options) graphqlhttp.Options {
	if opts.Executor == nil {
		opts.Executor = resolvers.NewEngine(opts.Memory)
	}
	return opts
}

// newServer serves newHandler on a loopback port for the test.
func newServer(t *testing.T, opts graphqlhttp.Options) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(newHandler(t, opts))
	t.Cleanup(srv.Close)
	return srv
}

// answer is one HTTP response, read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// gqlResponse is a GraphQL response body.
type gqlResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []gqlError      `json:"errors"`
}

type gqlError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

func (e gqlError) code() string {
	c, _ := e.Extensions["code"].(string)
	return c
}

func send(t testing.TB, client *http.Client, req *http.Request) answer {
	t.Helper()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %.100s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %.100s: reading the body: %v", req.Method, req.URL, err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: body}
}

// postJSON posts body as application/json to url, with the headers named
// and valued in pairs.
func postJSON(t testing.TB, url, body string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return send(t, client, req)
}

// postQuery posts one GraphQL request made of query and variables.
func postQuery(t testing.TB, url, query string, vars map[string]any) answer {
	t.Helper()
	b, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		t.Fatal(err)
	}
	return postJSON(t, url, string(b))
}

var client = &http.Client{Timeout: 20 * time.Second}

// decode reads a GraphQL response body, failing the test if it is not one.
func decode(t testing.TB, a answer) gqlResponse {
	t.Helper()
	var r gqlResponse
	dec := json.NewDecoder(bytes.NewReader(a.body))
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("status %d: the body is not a GraphQL response (%v): %.300s", a.status, err, a.body)
	}
	return r
}
