package graphqlhttp

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"
)

// TestRequestBodies: a POST body is read with its variables, and refused
// as json.Unmarshal classifies it: a body that is not one JSON value is
// "not valid JSON" whatever it held, one of the wrong shape "not a
// GraphQL request"; variables keep their numbers as written, and a second
// "variables" replaces the first.
func TestRequestBodies(t *testing.T) {
	rec := &recordingExecutor{}
	_, srv := oneFieldServer(t, rec)
	const notJSON, notGraphQL = "the request body is not valid JSON", "the request body is not a GraphQL request"
	for _, tt := range []struct {
		name, body string
		refusal    string // "" for a request that runs
	}{
		{"plain", `{"query":"{ x }"}`, ""},
		{"variables", `{"query":"query($a: Int) { x }","variables":{"a":1}}`, ""},
		{"null variables", `{"query":"{ x }","variables":null}`, ""},
		{"blanks after", "{\"query\":\"{ x }\"} \r\n\t", ""},
		{"keys in another case", `{"QUERY":"{ x }"}`, ""},
		{"a second value after", `{"query":"{ x }"} {}`, notJSON},
		{"garbage after", `{"query":"{ x }"} x`, notJSON},
		{"a bracket after", `{"query":"{ x }"}]`, notJSON},
		{"cut short", `{"query":"{ x }"`, notJSON},
		{"broken inside the variables", `{"query":"{ x }","variables":{"a":}}`, notJSON},
		{"variables a list, and garbage after", `{"query":"{ x }","variables":[1]} x`, notJSON},
		{"variables a list", `{"query":"{ x }","variables":[1]}`, notGraphQL},
		{"variables a string", `{"query":"{ x }","variables":"a=1"}`, notGraphQL},
		{"variables a number", `{"query":"{ x }","variables":5}`, notGraphQL},
		{"query a number", `{"query":5}`, notGraphQL},
		{"extensions a list", `{"query":"{ x }","extensions":[]}`, notGraphQL},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Post(srv.URL, "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if tt.refusal == "" {
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("%d %s, want it run", resp.StatusCode, body)
				}
				return
			}
			var got struct {
				Errors []struct {
					Message    string         `json:"message"`
					Extensions map[string]any `json:"extensions"`
				} `json:"errors"`
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
			}
			if resp.StatusCode != http.StatusBadRequest || len(got.Errors) != 1 || got.Errors[0].Message != tt.refusal ||
				got.Errors[0].Extensions["code"] != CodeBadRequest {
				t.Errorf("%d %s, want 400 %s %q", resp.StatusCode, body, CodeBadRequest, tt.refusal)
			}
		})
	}

	t.Run("numbers as written", func(t *testing.T) {
		e := &endpoint{opts: Options{Limits: admission.Limits{MaxBodyBytes: 1 << 20}}}
		r, _ := http.NewRequest(http.MethodPost, "/", strings.NewReader(`{"query":"q","variables":{"a":1.50,"b":[12345678901234567890],"c":{"d":null}}}`))
		r.Header.Set("Content-Type", "application/json")
		req, herr := e.admit(nil, r)
		if herr != nil {
			t.Fatal(herr.message)
		}
		want := map[string]any{"a": json.Number("1.50"), "b": []any{json.Number("12345678901234567890")}, "c": map[string]any{"d": nil}}
		if !reflect.DeepEqual(req.variables, want) {
			t.Errorf("variables %#v, want %#v", req.variables, want)
		}
	})

	t.Run("a second variables replaces the first", func(t *testing.T) {
		e := &endpoint{opts: Options{Limits: admission.Limits{MaxBodyBytes: 1 << 20}}}
		r, _ := http.NewRequest(http.MethodPost, "/", strings.NewReader(`{"query":"q","variables":{"a":1},"variables":{"b":2}}`))
		r.Header.Set("Content-Type", "application/json")
		req, herr := e.admit(nil, r)
		if herr != nil {
			t.Fatal(herr.message)
		}
		if want := map[string]any{"b": json.Number("2")}; !reflect.DeepEqual(req.variables, want) {
			t.Errorf("variables %#v, want %#v", req.variables, want)
		}
	})
}

// TestIsJSON: the bare media type is matched without parsing, and every
// other spelling still goes through mime.ParseMediaType, so parameters
// and case are accepted as before and look-alikes are not.
func TestIsJSON(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/json":                  true,
		"application/json; charset=utf-8":   true,
		"Application/JSON":                  true,
		" application/json ":                true,
		"application/jsonx":                 false,
		"application/json-patch+json":       false,
		"application/graphql-response+json": false,
		"text/plain":                        false,
		"":                                  false,
		"application/json; charset":         false,
	} {
		if got := isJSON(ct); got != want {
			t.Errorf("isJSON(%q) = %v, want %v", ct, got, want)
		}
	}
}
