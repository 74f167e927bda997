package gateway_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
)

// refusedBefore asks h for query with the variables' JSON (vars, "" for
// none) by POST and by GET, and fails unless each answer has no data and
// the errors want, in order, each GRAPHQL_VALIDATION_FAILED.
func refusedBefore(t *testing.T, what string, h http.Handler, query, vars string, want ...string) {
	t.Helper()
	body := `{"query":` + jsonString(query)
	get := "/graphql?query=" + url.QueryEscape(query)
	if vars != "" {
		body += `,"variables":` + vars
		get += "&variables=" + url.QueryEscape(vars)
	}
	post := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body+"}"))
	post.Header.Set("Content-Type", "application/json")
	getReq := httptest.NewRequest(http.MethodGet, get, nil)
	getReq.Header.Set("Accept", "application/graphql-response+json")
	for _, req := range []*http.Request{post, getReq} {
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
			t.Fatalf("%s, %s: %d %s: %v", what, req.Method, rec.Code, rec.Body, err)
		}
		var got []string
		for _, e := range answer.Errors {
			got = append(got, e.Message)
			if e.Extensions.Code != "GRAPHQL_VALIDATION_FAILED" {
				t.Errorf("%s, %s: %q has code %q, want GRAPHQL_VALIDATION_FAILED", what, req.Method, e.Message, e.Extensions.Code)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") || len(answer.Data) != 0 && string(answer.Data) != "null" {
			t.Errorf("%s, %s: %d %s\nwant the errors\n%s\nand no data", what, req.Method, rec.Code, rec.Body, strings.Join(want, "\n"))
		}
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestMissingVariableNamesItAndItsType: a request leaving out a required
// variable is told which one and of what type, as graphql-js says it, on
// POST and GET and under either executor, and nothing is executed.
func TestMissingVariableNamesItAndItsType(t *testing.T) {
	const query = `query Feather($id: Int!) { item(id: $id) { name } }`
	for _, compiled := range []bool{true, false} {
		cfg := config.Default()
		cfg.Engine = compiled
		g := gatewaytest.New(t, gatewaytest.Options{Logger: slog.New(slog.DiscardHandler), Configure: func(c *config.Config) { *c = cfg }})
		refusedBefore(t, fmt.Sprintf("compiled plans %t", compiled), g.Handler(), query, "",
			`Variable "$id" of required type "Int!" was not provided.`)
	}
}

// TestEveryVariableErrorReported: a request whose variables fail in
// several places is told of each, in the order the operation defines
// them, and within an input object in the order its type defines its
// fields, then the fields it does not define, as graphql-js reports them,
// on POST and GET, and nothing runs. (Past 50: TestVariableErrorsStopAtFifty.)
func TestEveryVariableErrorReported(t *testing.T) {
	const query = `query Page($id: Int!, $first: Int = 10, $filter: ItemFilter, $name: String = "ore", $fine: Int) { item(id: $id) { name } items(first: $first, filter: $filter) { totalCount } search(text: $name, first: $fine) { __typename } }`
	g := gatewaytest.New(t, gatewaytest.Options{Logger: slog.New(slog.DiscardHandler)})
	refusedBefore(t, "bad variables", g.Handler(), query,
		`{"first":"ten","filter":{"tradable":"<yes>","colour":1,"nameContains":5},"name":5,"fine":3}`,
		`Variable "$id" of required type "Int!" was not provided.`,
		`Variable "$first" got invalid value "ten"; Int cannot represent non-integer value: "ten"`,
		`Variable "$filter" got invalid value 5 at "filter.nameContains"; String cannot represent a non string value: 5`,
		`Variable "$filter" got invalid value a string at "filter.tradable"; Boolean cannot represent a non boolean value: a string`,
		`Variable "$filter" got invalid value an object; A field is not defined by type "ItemFilter".`,
		`Variable "$name" got invalid value 5; String cannot represent a non string value: 5`)

}
