package graphqlhttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogue-gateway/gateway/graphqlhttp/answers"
)

// hintedSchema has a field, a type and a scalar under a type hinted, and a
// private type.
const hintedSchema = `
directive @cacheControl(maxAge: Int, scope: CacheControlScope) on FIELD_DEFINITION | OBJECT | INTERFACE | UNION
enum CacheControlScope { PUBLIC PRIVATE }
type Query { x: Int short: Int @cacheControl(maxAge: 30) me: Me t: T u: U }
type Me @cacheControl(scope: PRIVATE) { name: String }
type T @cacheControl(maxAge: 60) { a: Int b: Int @cacheControl(maxAge: 10) }
type V { c: Int @cacheControl(maxAge: 5) }
union U = T | V
`

// TestCacheControlFromHints: a GET answer's Cache-Control is the least
// max-age among the hints of the fields it read (a field's own, else its
// type's, else the default for an object and its parent's for a scalar),
// private if any is, with the stale-while-revalidate and stale-if-error
// of a public one; an answer from the cache says the same; @skip with a
// variable is read per request.
func TestCacheControlFromHints(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: hintedSchema})
	e := New(oneFieldSchema{schema}, Options{Executor: &recordingExecutor{},
		MaxAge: 300 * time.Second, StaleWhileRevalidate: 300 * time.Second, StaleIfError: 24 * time.Hour,
		Cache: answers.NewCache(1 << 20), Version: func(context.Context) (string, bool) { return "v1", true }}).(*endpoint)
	hs := httptest.NewServer(e)
	t.Cleanup(hs.Close)
	srv := hs.URL
	const swr = ", stale-while-revalidate=300, stale-if-error=86400"
	for _, c := range []struct {
		query, vars, want string
	}{
		{`{ x }`, ``, "public, max-age=300" + swr},
		{`{ short }`, ``, "public, max-age=30" + swr},
		{`{ x short }`, ``, "public, max-age=30" + swr},
		{`{ t { a } }`, ``, "public, max-age=60" + swr},
		{`{ t { a b } }`, ``, "public, max-age=10" + swr},
		{`{ u { ... on T { a } } }`, ``, "public, max-age=300" + swr}, // a union is hinted by its own, not its members'
		{`{ u { ... on V { c } } }`, ``, "public, max-age=5" + swr},
		{`{ me { name } }`, ``, "private, max-age=300"},
		{`query($s: Boolean!) { x short @skip(if: $s) }`, `{"s":true}`, "public, max-age=300" + swr},
		{`query($s: Boolean!) { x short @skip(if: $s) }`, `{"s":false}`, "public, max-age=30" + swr},
	} {
		for _, round := range []string{"run", "cached"} {
			q := url.Values{"query": {c.query}}
			if c.vars != "" {
				q.Set("variables", c.vars)
			}
			resp, err := http.Get(srv + "/?" + q.Encode())
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("Cache-Control"); resp.StatusCode != 200 || got != c.want {
				t.Errorf("%s %s %s: status %d, Cache-Control %q, want %q", round, c.query, c.vars, resp.StatusCode, got, c.want)
			}
		}
	}
	if st := e.opts.Cache.Stats(); st.Entries == 0 {
		t.Error("no answer was cached: the second round did not test a hit")
	}
}

// TestNoHintsNoWalk: without a hint in the schema, every GET answer has
// the default Cache-Control, and no operation is walked for one.
func TestNoHintsNoWalk(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: "type Query { x: Int }"})
	e := New(oneFieldSchema{schema}, Options{Executor: &recordingExecutor{}, MaxAge: time.Minute}).(*endpoint)
	if e.hinted || e.cacheControl != "public, max-age=60" {
		t.Errorf("hinted %t, default %q; want false and public, max-age=60", e.hinted, e.cacheControl)
	}
}
