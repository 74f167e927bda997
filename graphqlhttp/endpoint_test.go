package graphqlhttp_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/99designs/gqlgen/graphql"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/internal/logtest"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graph/model"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/resolvers"
)

func TestGetQuery(t *testing.T) {
	srv := newServer(t, graphqlhttp.Options{})
	for _, tt := range []struct {
		name, rawQuery, want string
	}{
		{"query", "query=" + url.QueryEscape("{ item(id: 1) { id name } }"), `{"data":{"item":{"id":1,"name":"Copper Ore"}}}`},
		{
			"variables and operation name",
			"query=" + url.QueryEscape("query A { __typename } query B($id: Int!) { item(id: $id) { id } }") +
				"&operationName=B&variables=" + url.QueryEscape(`{"id":2}`),
			`{"data":{"item":{"id":2}}}`,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := send(t, client, newRequest(t, http.MethodGet, srv.URL+"?"+tt.rawQuery, nil))
			if a.status != http.StatusOK || string(a.body) != tt.want {
				t.Errorf("got %d %s, want 200 %s", a.status, a.body, tt.want)
			}
			if ct := a.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
		})
	}
}

func TestGraphQLResponseMediaType(t *testing.T) {
	srv := newServer(t, graphqlhttp.Options{})
	const accept = "application/graphql-response+json"
	for _, tt := range []struct {
		name   string
		query  string
		status int
	}{
		{"data", "{ item(id: 1) { id } }", http.StatusOK},
		// The media type's rules: a request that is not executed is a 400.
		{"refused by a limit", tooDeep, http.StatusBadRequest},
		{"invalid", "{ nowhere }", http.StatusBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, req := range []*http.Request{
				post(tt.query)(t, srv.URL),
				getQuery(tt.query)(t, srv.URL),
			} {
				req.Header.Set("Accept", accept)
				a := send(t, client, req)
				if a.status != tt.status {
					t.Errorf("%s: status = %d, want %d; body %s", req.Method, a.status, tt.status, a.body)
				}
				if ct := a.header.Get("Content-Type"); ct != accept {
					t.Errorf("%s: Content-Type = %q, want %s", req.Method, ct, accept)
				}
				decode(t, a)
				// Nothing was executed: no data entry, not even null.
				var entries map[string]json.RawMessage
				json.Unmarshal(a.body, &entries)
				if _, has := entries["data"]; has == (tt.status != http.StatusOK) {
					t.Errorf("%s: data entry present = %v for status %d: %s", req.Method, has, a.status, a.body)
				}
			}
		})
	}
}

// TestJSONMediaTypeStatuses: under application/json, a request GraphQL
// reads but cannot run (it does not parse, does not validate, or its
// variables do not coerce) is answered 200, as GraphQL over HTTP asks of
// every well-formed request, with its errors and no data entry, not even
// null (nothing ran); a refusal by one of the endpoint's own limits stays
// a 422, with no data entry either.
func TestJSONMediaTypeStatuses(t *testing.T) {
	srv := newServer(t, graphqlhttp.Options{})
	for _, tt := range []struct {
		name   string
		req    func(testing.TB, string) *http.Request
		status int
		code   string
	}{
		{"does not parse", post("{ item(id: 1) { id }"), http.StatusOK, "GRAPHQL_PARSE_FAILED"},
		{"does not validate", post("{ nowhere }"), http.StatusOK, "GRAPHQL_VALIDATION_FAILED"},
		{"does not validate, GET", getQuery("{ nowhere }"), http.StatusOK, "GRAPHQL_VALIDATION_FAILED"},
		{"a variable that does not coerce", post("query($id: Int!) { item(id: $id) { id } }", map[string]any{"id": "one"}), http.StatusOK, "GRAPHQL_VALIDATION_FAILED"},
		{"refused by a limit", post(tooDeep), http.StatusUnprocessableEntity, admission.CodeTooDeep},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req(t, srv.URL)
			req.Header.Set("Accept", "application/json")
			a := send(t, client, req)
			if a.status != tt.status {
				t.Errorf("status = %d, want %d; body %s", a.status, tt.status, a.body)
			}
			r := decode(t, a)
			if len(r.Errors) == 0 || r.Errors[0].code() != tt.code {
				t.Errorf("errors %+v, want %s", r.Errors, tt.code)
			}
			var entries map[string]json.RawMessage
			json.Unmarshal(a.body, &entries)
			if _, has := entries["data"]; has {
				t.Errorf("a data entry, for a request that did not run: %s", a.body)
			}
		})
	}
}

func TestRequestID(t *testing.T) {
	srv := newServer(t, graphqlhttp.Options{})
	generated := regexp.MustCompile(`^[0-9a-f]{16}$`)
	for _, tt := range []struct {
		name, given string
		kept        bool
	}{
		{"none", "", false},
		{"sane", "abc-DEF_123.x", true},
		{"64 bytes", strings.Repeat("a", 64), true},
		{"65 bytes", strings.Repeat("a", 65), false},
		{"space", "a b", false},
		{"quote", `a"b`, false},
		{"slash", "a/b", false},
		{"non-ASCII", "é", false},
		{"HTML", "<script>", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// A refused request and an answered one both carry it.
			for _, req := range []*http.Request{
				post("{ __typename }")(t, srv.URL),
				post(tooDeep)(t, srv.URL),
				newRequest(t, http.MethodPut, srv.URL, nil),
			} {
				if tt.given != "" {
					req.Header.Set("X-Request-ID", tt.given)
				}
				a := send(t, client, req)
				got := a.header.Get("X-Request-ID")
				switch {
				case tt.kept && got != tt.given:
					t.Errorf("X-Request-ID = %q, want %q echoed", got, tt.given)
				case !tt.kept && !generated.MatchString(got):
					t.Errorf("X-Request-ID = %q, want a fresh id of 16 hex digits", got)
				}
				if a.status == http.StatusMethodNotAllowed {
					if r := decode(t, a); r.Errors[0].Extensions["requestId"] != got {
						t.Errorf("requestId %v, want the header's %q", r.Errors[0].Extensions["requestId"], got)
					}
				}
			}
		})
	}
	t.Run("fresh for each request", func(t *testing.T) {
		a, b := postQuery(t, srv.URL, "{ __typename }", nil), postQuery(t, srv.URL, "{ __typename }", nil)
		if a.header.Get("X-Request-ID") == b.header.Get("X-Request-ID") {
			t.Errorf("two requests got the same id %q", a.header.Get("X-Request-ID"))
		}
	})
}

func TestTimeBudget(t *testing.T) {
	t.Run("spent before execution", func(t *testing.T) {
		srv := newServer(t, graphqlhttp.Options{RequestTimeout: time.Nanosecond})
		for _, req := range []*http.Request{
			post("{ item(id: 1) { id } }")(t, srv.URL),
			getQuery("{ item(id: 1) { id } }")(t, srv.URL),
		} {
			start := time.Now()
			a := send(t, client, req)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%s: answered after %s", req.Method, d)
			}
			r := decode(t, a)
			if len(r.Errors) == 0 || r.Errors[0].code() != graphqlhttp.CodeTimeout {
				t.Errorf("%s: got %d %s, want an error with code %s", req.Method, a.status, a.body, graphqlhttp.CodeTimeout)
			}
			checkNoLeak(t, a.body)
		}
	})

	t.Run("spent during execution", func(t *testing.T) {
		// The root field's resolver outlasts the budget, then hands on to
		// the real one, which must stop rather than resolve.
		es := graph.NewExecutableSchema(graph.Config{Resolvers: faultyRoot{&resolvers.Resolver{}}})
		srv := httptest.NewServer(graphqlhttp.New(es, withLoaders(t, graphqlhttp.Options{RequestTimeout: 50 * time.Millisecond})))
		defer srv.Close()
		start := time.Now()
		a := postQuery(t, srv.URL, "{ items(first: 2) { totalCount nodes { id } } }", nil)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("answered after %s", d)
		}
		r := decode(t, a)
		if len(r.Errors) == 0 {
			t.Fatalf("got %d %s, want timeout errors", a.status, a.body)
		}
		for _, e := range r.Errors {
			if e.code() != graphqlhttp.CodeTimeout {
				t.Errorf("error %+v, want code %s", e, graphqlhttp.CodeTimeout)
			}
		}
		checkNoLeak(t, a.body)
	})
}

func TestMaxErrors(t *testing.T) {
	// Each aliased list with a bad cursor is one error.
	var q strings.Builder
	q.WriteString("{")
	for i := range 25 {
		fmt.Fprintf(&q, ` l%d: items(after: "bad") { totalCount }`, i)
	}
	q.WriteString(" }")
	for _, tt := range []struct {
		max, want int
	}{
		{0, 20},  // the default
		{5, 5},   // a smaller cap
		{30, 25}, // a cap above the count
	} {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			srv := newServer(t, graphqlhttp.Options{MaxErrors: tt.max})
			a := postQuery(t, srv.URL, q.String(), nil)
			r := decode(t, a)
			wantLen := tt.want
			if tt.want < 25 {
				wantLen++ // the note of how many were left out
			}
			if len(r.Errors) != wantLen {
				t.Fatalf("%d errors, want %d: %s", len(r.Errors), wantLen, a.body)
			}
			for _, e := range r.Errors[:tt.want] {
				if e.code() != "BAD_USER_INPUT" {
					t.Errorf("error %+v, want a BAD_USER_INPUT", e)
				}
			}
			if tt.want < 25 {
				last := r.Errors[len(r.Errors)-1]
				if want := fmt.Sprintf("%d more errors left out", 25-tt.want); last.Message != want {
					t.Errorf("last error %q, want %q", last.Message, want)
				}
			}
			checkNoLeak(t, a.body)
		})
	}
}

func TestPersistedQueries(t *testing.T) {
	srv := newServer(t, graphqlhttp.Options{})
	const query = "{ item(id: 1) { id name } }"
	sum := sha256.Sum256([]byte(query))
	hash := hex.EncodeToString(sum[:])
	ext := `{"persistedQuery":{"version":1,"sha256Hash":"` + hash + `"}}`
	const want = `{"data":{"item":{"id":1,"name":"Copper Ore"}}}`

	// Unknown hash: the client must send the query.
	r := decode(t, postJSON(t, srv.URL, `{"extensions":`+ext+`}`))
	if len(r.Errors) != 1 || r.Errors[0].Message != "PersistedQueryNotFound" || r.Errors[0].code() != "PERSISTED_QUERY_NOT_FOUND" {
		t.Errorf("hash alone, first time: %+v, want PersistedQueryNotFound", r)
	}
	getHash := newRequest(t, http.MethodGet, srv.URL+"?extensions="+url.QueryEscape(ext), nil)
	if r := decode(t, send(t, client, getHash)); len(r.Errors) != 1 || r.Errors[0].code() != "PERSISTED_QUERY_NOT_FOUND" {
		t.Errorf("hash alone over GET, first time: %+v, want PersistedQueryNotFound", r)
	}

	// Query and hash: answered, and kept.
	if a := postJSON(t, srv.URL, jsonBody(t, map[string]any{"query": query, "extensions": json.RawMessage(ext)})); a.status != 200 || string(a.body) != want {
		t.Errorf("query and hash: %d %s, want %s", a.status, a.body, want)
	}
	// Hash alone, over POST and GET: answered.
	if a := postJSON(t, srv.URL, `{"extensions":`+ext+`}`); a.status != 200 || string(a.body) != want {
		t.Errorf("hash alone: %d %s, want %s", a.status, a.body, want)
	}
	getHash = newRequest(t, http.MethodGet, srv.URL+"?extensions="+url.QueryEscape(ext), nil)
	if a := send(t, client, getHash); a.status != 200 || string(a.body) != want {
		t.Errorf("hash alone over GET: %d %s, want %s", a.status, a.body, want)
	}
}

// TestPersistedQueriesAreGuarded checks that a persisted query is measured
// when it is used by its hash, not only when it is first sent.
func TestPersistedQueriesAreGuarded(t *testing.T) {
	srv := newServer(t, graphqlhttp.Options{})
	sum := sha256.Sum256([]byte(tooDeep))
	ext := `{"persistedQuery":{"version":1,"sha256Hash":"` + hex.EncodeToString(sum[:]) + `"}}`
	for i := range 2 {
		body := `{"extensions":` + ext + `}`
		if i == 0 {
			body = jsonBody(t, map[string]any{"query": tooDeep, "extensions": json.RawMessage(ext)})
		}
		a := postJSON(t, srv.URL, body)
		if r := decode(t, a); a.status != 422 || len(r.Errors) != 1 || r.Errors[0].code() != admission.CodeTooDeep {
			t.Errorf("request %d: %d %s, want a 422 %s", i, a.status, a.body, admission.CodeTooDeep)
		}
	}
}

// TestIntrospectionDisabled checks the answer to an introspection query
// when introspection is off: a refusal the caller can read, not an internal
// error logged as one.
func TestIntrospectionDisabled(t *testing.T) {
	var logs logtest.Buffer
	srv := newServer(t, graphqlhttp.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	for _, query := range []string{"{ __schema { types { name } } }", `{ __type(name: "Item") { name } }`} {
		r := decode(t, postQuery(t, srv.URL, query, nil))
		if len(r.Errors) != 1 || r.Errors[0].code() == graphqlhttp.CodeInternal || r.Errors[0].code() == "" {
			t.Errorf("%s: errors %+v, want one with a code other than %s", query, r.Errors, graphqlhttp.CodeInternal)
		}
	}
	if logs.String() != "" {
		t.Errorf("logged:\n%s", logs.String())
	}
	// __typename is not introspection.
	if a := postQuery(t, srv.URL, "{ __typename }", nil); string(a.body) != `{"data":{"__typename":"Query"}}` {
		t.Errorf("__typename: %s", a.body)
	}
}

// faultyRoot is the real resolvers with faults planted in Query: item
// panics, monster fails with a plain Go error, and items outlasts its
// request's time. Their messages carry what an answer must never show.
type faultyRoot struct{ *resolvers.Resolver }

func (r faultyRoot) Query() graph.QueryResolver { return faultyQuery{r.Resolver.Query()} }

type faultyQuery struct{ graph.QueryResolver }

const secret = "/work/main/catalogue/snapshot.go:42 *catalogue.Item runtime.gopanic goroutine 7 https://upstream.example:8443/items main.run"

func (faultyQuery) Item(context.Context, int) (*catalogue.Item, error) {
	panic(secret)
}

func (faultyQuery) Monster(context.Context, int) (*catalogue.Monster, error) {
	return nil, fmt.Errorf("reading %s: %w", secret, context.DeadlineExceeded)
}

func (q faultyQuery) Items(ctx context.Context, first *int, after *string, last *int, before *string, filter *model.ItemFilter, orderBy *model.ItemOrder) (*model.Connection[catalogue.Item], error) {
	<-ctx.Done()
	return q.QueryResolver.Items(ctx, first, after, last, before, filter, orderBy)
}

// TestInternalErrors provokes internal errors (a panic, a plain Go error,
// a wiring mistake) and checks that the caller sees only a generic message,
// the code and the request id, while the log has the detail.
func TestInternalErrors(t *testing.T) {
	var logs logtest.Buffer
	opts := graphqlhttp.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))}
	faulty := httptest.NewServer(graphqlhttp.New(graph.NewExecutableSchema(graph.Config{Resolvers: faultyRoot{&resolvers.Resolver{}}}), withLoaders(t, opts)))
	defer faulty.Close()
	// No loaders: every reference fails with loader.ErrNoLoaders.
	unwired := httptest.NewServer(graphqlhttp.New(graph.NewExecutableSchema(graph.Config{Resolvers: &resolvers.Resolver{}}), opts))
	defer unwired.Close()

	for _, tt := range []struct {
		name, url, query string
		path             string
		logged           string
	}{
		{"panic", faulty.URL, "{ item(id: 1) { id } }", "item", "snapshot.go:42"},
		{"Go error", faulty.URL, "{ monster(id: 1) { id } }", "monster", "snapshot.go:42"},
		{"no loaders", unwired.URL, "{ item(id: 1) { id } }", "item", "no loaders"},
		{"no loaders, aliased", unwired.URL, "{ alias: item(id: 1) { id } }", "alias", "no loaders"},
	} {
		for _, given := range []string{"", "trace-0123"} {
			t.Run(tt.name+"/"+cmpOr(given, "no id"), func(t *testing.T) {
				req := post(tt.query)(t, tt.url)
				if given != "" {
					req.Header.Set("X-Request-ID", given)
				}
				a := send(t, client, req)
				id := a.header.Get("X-Request-ID")
				if given != "" && id != given {
					t.Errorf("X-Request-ID = %q, want %q", id, given)
				}
				if a.status != http.StatusOK {
					t.Errorf("status = %d, want 200", a.status)
				}
				r := decode(t, a)
				if len(r.Errors) != 1 {
					t.Fatalf("errors %+v, want one", r.Errors)
				}
				e := r.Errors[0]
				if e.Message != "internal error" || e.code() != graphqlhttp.CodeInternal || e.Extensions["requestId"] != id {
					t.Errorf("error %+v, want \"internal error\", code %s and requestId %q", e, graphqlhttp.CodeInternal, id)
				}
				if len(e.Path) != 1 || e.Path[0] != tt.path {
					t.Errorf("path %v, want [%s]", e.Path, tt.path)
				}
				if len(e.Extensions) != 2 {
					t.Errorf("extensions %v, want only code and requestId", e.Extensions)
				}
				checkNoLeak(t, a.body)
				for _, part := range strings.Fields(secret) {
					if len(part) > 3 && strings.Contains(string(a.body), part) {
						t.Errorf("the answer shows %q: %s", part, a.body)
					}
				}
				// The detail is in the log, under the same id.
				var found bool
				for line := range strings.Lines(logs.String()) {
					if strings.Contains(line, `"request_id":"`+id+`"`) && strings.Contains(line, tt.logged) {
						found = true
					}
				}
				if !found {
					t.Errorf("no log line with request_id %s and %q in:\n%s", id, tt.logged, logs.String())
				}
			})
		}
	}
}

func cmpOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// slowExecutor answers every operation after a pause, noting how many it
// runs at once.
type slowExecutor struct {
	mu           sync.Mutex
	running, max int
}

func (s *slowExecutor) Execute(context.Context, *graphql.OperationContext, *execution.Memo, int) (execution.Answer, error) {
	s.mu.Lock()
	s.running++
	s.max = max(s.max, s.running)
	s.mu.Unlock()
	time.Sleep(20 * time.Millisecond)
	s.mu.Lock()
	s.running--
	s.mu.Unlock()
	return execution.Answer{Body: []byte(`{"data":{"__typename":"Query"}}`)}, nil
}

// TestOperationsRunAtMostOnePerCore: many requests at once are executed a
// core's worth at a time, the rest waiting their turn, and every one is
// answered.
func TestOperationsRunAtMostOnePerCore(t *testing.T) {
	exec := &slowExecutor{}
	srv := httptest.NewServer(graphqlhttp.New(graph.NewExecutableSchema(graph.Config{Resolvers: &resolvers.Resolver{}}),
		withLoaders(t, graphqlhttp.Options{Executor: exec})))
	defer srv.Close()
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			a := postQuery(t, srv.URL, fmt.Sprintf("{ __typename a%d: __typename }", i), nil)
			if a.status != http.StatusOK || string(a.body) != `{"data":{"__typename":"Query"}}` {
				t.Errorf("status %d: %s", a.status, a.body)
			}
		})
	}
	wg.Wait()
	if cores := runtime.GOMAXPROCS(0); exec.max > cores || exec.max < 1 {
		t.Errorf("%d operations ran at once, want between 1 and %d (GOMAXPROCS)", exec.max, cores)
	}
}

// TestBodiesLentPerRequest: a POST body is read into a buffer lent for
// its request, so each answer comes from its own body, with many requests
// at once and some large enough that their buffer is not lent again.
func TestBodiesLentPerRequest(t *testing.T) {
	srv := newServer(t, graphqlhttp.Options{Limits: admission.Limits{MaxBodyBytes: 256 << 10}})
	const n = 64
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			alias := fmt.Sprintf("a%d", i)
			pad := ""
			if i%4 == 0 {
				pad = strings.Repeat(" ", 100<<10) // past pooledBodyBytes
			}
			body := fmt.Sprintf(`{"query":"{ %s: __typename }"%s}`, alias, pad)
			resp, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if want := fmt.Sprintf(`{"data":{"%s":"Query"}}`, alias); string(got) != want {
				errs <- fmt.Errorf("request %d: got %.200s, want %s", i, got, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
