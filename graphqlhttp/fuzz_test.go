package graphqlhttp_test

import (
	"encoding/json"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
)

// FuzzGraphQLHandler sends the body as a POST and the query string as a GET
// to the endpoint with its guard and default limits, on the fixture
// catalogue. Whatever they are, the endpoint must not panic, never answer
// with a 5xx, and always answer JSON.
//
// The seed corpus (testdata/fuzz/FuzzGraphQLHandler) holds the hostile
// requests of TestHostileRequests, except the oversized ones.
func FuzzGraphQLHandler(f *testing.F) {
	f.Add([]byte(`{"query":"{ item(id: 1) { id name } }"}`), "query=%7B+item%28id%3A+1%29+%7B+id+%7D+%7D")
	f.Add([]byte(`{"query":"query($f: ItemFilter) { items(first: 2, filter: $f) { nodes { id droppedByMonsters { id } } } }","variables":{"f":{"nameContains":"o"}}}`), "")
	h := newHandler(f, graphqlhttp.Options{Introspection: true})
	f.Fuzz(func(t *testing.T, body []byte, rawQuery string) {
		req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		checkFuzzAnswer(t, h, req)

		req = httptest.NewRequest(http.MethodGet, "/graphql", nil)
		req.URL.RawQuery = rawQuery
		req.RequestURI = "/graphql?" + rawQuery
		checkFuzzAnswer(t, h, req)
	})
}

func checkFuzzAnswer(t *testing.T, h http.Handler, req *http.Request) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code >= 500 {
		t.Errorf("%s: status %d: %.500s", req.Method, rec.Code, rec.Body)
	}
	if !json.Valid(rec.Body.Bytes()) {
		t.Errorf("%s: status %d, the body is not JSON: %.500q", req.Method, rec.Code, rec.Body)
	}
	if ct, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type")); ct != "application/json" && ct != "application/graphql-response+json" {
		t.Errorf("%s: status %d, Content-Type %q", req.Method, rec.Code, rec.Header().Get("Content-Type"))
	}
}
