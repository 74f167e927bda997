package main

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
)

// TestMissingVariableNamesItAndItsType: a request leaving out a required
// variable is told which one and of what type, as graphql-js says it, on
// POST and GET and under either executor, and nothing is executed.
func TestMissingVariableNamesItAndItsType(t *testing.T) {
	const query = `query Feather($id: Int!) { item(id: $id) { name } }`
	const want = `Variable "$id" of required type "Int!" was not provided.`
	for _, compiled := range []bool{true, false} {
		cfg := config.Default()
		cfg.Engine = compiled
		g := gatewaytest.New(t, gatewaytest.Options{Logger: slog.New(slog.DiscardHandler), Configure: func(c *config.Config) { *c = cfg }})
		h := g.Handler()
		body, _ := json.Marshal(map[string]any{"query": query})
		post := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(string(body)))
		post.Header.Set("Content-Type", "application/json")
		get := httptest.NewRequest(http.MethodGet, "/graphql?query="+url.QueryEscape(query), nil)
		get.Header.Set("Accept", "application/graphql-response+json")
		for _, req := range []*http.Request{post, get} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			var answer struct {
				Data   json.RawMessage
				Errors []struct{ Message string }
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
				t.Fatalf("%s (compiled plans %t): %d %s: %v", req.Method, compiled, rec.Code, rec.Body, err)
			}
			if len(answer.Errors) != 1 || answer.Errors[0].Message != want || len(answer.Data) != 0 && string(answer.Data) != "null" {
				t.Errorf("%s (compiled plans %t): %d %s\nwant one error %q and no data", req.Method, compiled, rec.Code, rec.Body, want)
			}
		}
	}
}
