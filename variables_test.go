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

// TestEveryVariableErrorReported: a request whose variables fail in
// several places is told of each, in the order the operation defines
// them, as graphql-js reports them, on POST and GET, and nothing runs.
func TestEveryVariableErrorReported(t *testing.T) {
	const query = `query Page($id: Int!, $first: Int = 10, $name: String = "ore", $fine: Int) { item(id: $id) { name } items(first: $first) { totalCount } search(text: $name, first: $fine) { __typename } }`
	vars := `{"first":"ten","name":5,"fine":3}`
	want := []string{
		`Variable "$id" of required type "Int!" was not provided.`,
		`Variable "$first" got invalid value a string; Int cannot represent non-integer value: a string`,
		`Variable "$name" got invalid value 5; String cannot represent a non string value: 5`,
	}
	g := gatewaytest.New(t, gatewaytest.Options{Logger: slog.New(slog.DiscardHandler)})
	h := g.Handler()
	post := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(`{"query":`+strconvQuote(query)+`,"variables":`+vars+`}`))
	post.Header.Set("Content-Type", "application/json")
	get := httptest.NewRequest(http.MethodGet, "/graphql?query="+url.QueryEscape(query)+"&variables="+url.QueryEscape(vars), nil)
	get.Header.Set("Accept", "application/graphql-response+json")
	for _, req := range []*http.Request{post, get} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var answer struct {
			Data   json.RawMessage
			Errors []struct {
				Message    string
				Extensions struct{ Code string }
			}
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
			t.Fatalf("%s: %d %s: %v", req.Method, rec.Code, rec.Body, err)
		}
		var got []string
		for _, e := range answer.Errors {
			got = append(got, e.Message)
			if e.Extensions.Code != "GRAPHQL_VALIDATION_FAILED" {
				t.Errorf("%s: %q has code %q, want GRAPHQL_VALIDATION_FAILED", req.Method, e.Message, e.Extensions.Code)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") || len(answer.Data) != 0 && string(answer.Data) != "null" {
			t.Errorf("%s: %d %s\nwant the errors\n%s\nand no data", req.Method, rec.Code, rec.Body, strings.Join(want, "\n"))
		}
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
