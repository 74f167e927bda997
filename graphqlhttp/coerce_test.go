package graphqlhttp_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/graphqlhttp/wstest"
	"github.com/catalogue-gateway/gateway/internal/execution"
)

// coercionCases are the inputs whose coercion is easy to get wrong, with
// the verdict the GraphQL specification (and graphql-js, its reference
// implementation) gives: run, or refused before running. e2e/coercion
// checks many more, generated from the schema, against graphql-js itself;
// this table lets `go test` alone catch a regression.
var coercionCases = []struct {
	name, query, variables string
	runs                   bool
}{
	// Int: an integer literal, in 32 bits.
	{"Int literal", `{ item(id: 1) { id } }`, ``, true},
	{"Int literal, largest", `{ item(id: 2147483647) { id } }`, ``, true},
	{"Int literal, smallest", `{ item(id: -2147483648) { id } }`, ``, true},
	{"Int literal past 32 bits", `{ item(id: 2147483648) { id } }`, ``, false},
	{"Int literal below 32 bits", `{ item(id: -2147483649) { id } }`, ``, false},
	{"Int literal past 64 bits", `{ item(id: 99999999999999999999) { id } }`, ``, false},
	{"Float literal for Int", `{ item(id: 1.0) { id } }`, ``, false},
	{"exponent literal for Int", `{ items(first: 1e3) { totalCount } }`, ``, false},
	{"string literal for Int", `{ item(id: "1") { id } }`, ``, false},
	{"null literal for Int!", `{ item(id: null) { id } }`, ``, false},
	{"list literal for Int", `{ items(first: [1]) { totalCount } }`, ``, false},
	{"enum literal for Int", `{ items(first: TEN) { totalCount } }`, ``, false},
	// String: a string literal only.
	{"Int literal for String", `{ items(after: 5) { totalCount } }`, ``, false},
	{"Boolean literal for String", `{ items(after: true) { totalCount } }`, ``, false},
	{"block string for String", `{ items(filter: {nameContains: """ore"""}) { totalCount } }`, ``, true},
	// Float: integer and float literals, finite.
	{"Int literal for Float", `{ monsters(filter: {combatLevelMin: 5}) { totalCount } }`, ``, true},
	{"Float literal", `{ monsters(filter: {combatLevelMin: 5.5e1}) { totalCount } }`, ``, true},
	{"Int literal past 64 bits for Float", `{ monsters(filter: {combatLevelMin: 99999999999999999999}) { totalCount } }`, ``, true},
	{"string literal for Float", `{ monsters(filter: {combatLevelMin: "5"}) { totalCount } }`, ``, false},
	// The specification refuses a Float no finite float64 holds;
	// graphql-js 16 lets this literal through as Infinity.
	{"Float literal past float64", `{ monsters(filter: {combatLevelMin: 1e400}) { totalCount } }`, ``, false},
	// Boolean.
	{"string literal for Boolean", `{ items(filter: {tradable: "true"}) { totalCount } }`, ``, false},
	{"Int literal for Boolean!", `{ __typename @include(if: 1) }`, ``, false},
	// Enums: a value's name, bare and exact.
	{"enum literal", `{ items(orderBy: {field: NAME, direction: DESC}) { totalCount } }`, ``, true},
	{"string literal for an enum", `{ items(orderBy: {field: "NAME"}) { totalCount } }`, ``, false},
	{"enum literal in lower case", `{ items(orderBy: {field: name}) { totalCount } }`, ``, false},
	{"unknown enum literal", `{ items(orderBy: {field: SIZE}) { totalCount } }`, ``, false},
	// Input objects: their fields, the required ones given, no others.
	{"input object without its required field", `{ items(orderBy: {direction: DESC}) { totalCount } }`, ``, false},
	{"input object with an unknown field", `{ items(orderBy: {field: NAME, by: 1}) { totalCount } }`, ``, false},
	{"input object, null for a defaulted field", `{ items(orderBy: {field: NAME, direction: null}) { totalCount } }`, ``, true},
	{"input object, null for its required field", `{ items(orderBy: {field: null}) { totalCount } }`, ``, false},
	{"list literal for an input object", `{ items(filter: [{tradable: true}]) { totalCount } }`, ``, false},
	{"scalar literal for an input object", `{ items(filter: true) { totalCount } }`, ``, false},
	{"default out of range", `query($n: Int = 2147483648) { items(first: $n) { totalCount } }`, ``, false},

	// Variables of type Int: a JSON number that is an integer, in 32
	// bits, however it is spelled.
	{"Int variable", `query($id: Int!) { item(id: $id) { id } }`, `{"id":1}`, true},
	{"Int variable 1.0", `query($id: Int!) { item(id: $id) { id } }`, `{"id":1.0}`, true},
	{"Int variable 1e0", `query($id: Int!) { item(id: $id) { id } }`, `{"id":1e0}`, true},
	{"Int variable -0", `query($id: Int!) { item(id: $id) { id } }`, `{"id":-0}`, true},
	{"Int variable as a string", `query($id: Int!) { item(id: $id) { id } }`, `{"id":"1"}`, false},
	{"Int variable past 32 bits", `query($id: Int!) { item(id: $id) { id } }`, `{"id":2147483648}`, false},
	{"Int variable 1.5", `query($id: Int!) { item(id: $id) { id } }`, `{"id":1.5}`, false},
	{"Int variable past float64", `query($id: Int!) { item(id: $id) { id } }`, `{"id":1e400}`, false},
	{"Int variable true", `query($id: Int!) { item(id: $id) { id } }`, `{"id":true}`, false},
	{"Int variable as a list", `query($id: Int!) { item(id: $id) { id } }`, `{"id":[1]}`, false},
	{"Int! variable null", `query($id: Int!) { item(id: $id) { id } }`, `{"id":null}`, false},
	{"Int! variable not given", `query($id: Int!) { item(id: $id) { id } }`, `{}`, false},
	{"nullable variable with a default, for Int!", `query($id: Int = 1) { item(id: $id) { id } }`, `{}`, true},
	{"variable of another type", `query($id: String!) { item(id: $id) { id } }`, `{"id":"1"}`, false},
	// String variables.
	{"String variable as a number", `query($a: String) { items(after: $a) { totalCount } }`, `{"a":5}`, false},
	{"String variable null", `query($a: String) { items(after: $a) { totalCount } }`, `{"a":null}`, true},
	// Float and Boolean variables.
	{"Float variable 5", `query($m: Float) { monsters(filter: {combatLevelMin: $m}) { totalCount } }`, `{"m":5}`, true},
	{"Float variable as a string", `query($m: Float) { monsters(filter: {combatLevelMin: $m}) { totalCount } }`, `{"m":"5"}`, false},
	{"Boolean variable as a string", `query($b: Boolean!) { __typename @include(if: $b) }`, `{"b":"true"}`, false},
	{"Boolean variable as a number", `query($b: Boolean!) { __typename @include(if: $b) }`, `{"b":1}`, false},
	// Input object and enum variables.
	{"input object variable", `query($o: ItemOrder) { items(orderBy: $o) { totalCount } }`, `{"o":{"field":"NAME"}}`, true},
	{"enum variable in lower case", `query($o: ItemOrder) { items(orderBy: $o) { totalCount } }`, `{"o":{"field":"name"}}`, false},
	{"enum variable as a number", `query($o: ItemOrder) { items(orderBy: $o) { totalCount } }`, `{"o":{"field":1}}`, false},
	{"input object variable, unknown field", `query($o: ItemOrder) { items(orderBy: $o) { totalCount } }`, `{"o":{"field":"NAME","by":1}}`, false},
	{"input object variable, __typename", `query($o: ItemOrder) { items(orderBy: $o) { totalCount } }`, `{"o":{"field":"NAME","__typename":"ItemOrder"}}`, false},
	{"input object variable, required field missing", `query($o: ItemOrder) { items(orderBy: $o) { totalCount } }`, `{"o":{"direction":"ASC"}}`, false},
	{"input object variable, null for a defaulted field", `query($o: ItemOrder) { items(orderBy: $o) { totalCount } }`, `{"o":{"field":"NAME","direction":null}}`, true},
	{"input object variable as a string", `query($o: ItemOrder) { items(orderBy: $o) { totalCount } }`, `{"o":"NAME"}`, false},
	{"input object variable as a list", `query($o: ItemOrder) { items(orderBy: $o) { totalCount } }`, `{"o":[{"field":"NAME"}]}`, false},
	{"String field of an input object variable as a number", `query($f: ItemFilter) { items(filter: $f) { totalCount } }`, `{"f":{"nameContains":5}}`, false},
	{"a variable the operation does not define", `{ __typename }`, `{"x":"y"}`, true},
}

// TestInputCoercion: each input is run or refused as the specification
// says, by POST, GET and as a persisted query (WebSockets and event
// streams: TestInputCoercionOnStreams); a refused request has no data entry, carries
// GRAPHQL_VALIDATION_FAILED, and is answered 200 under application/json.
func TestInputCoercion(t *testing.T) {
	srv := newServer(t, graphqlhttp.Options{})
	for _, tc := range coercionCases {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"query":` + strconv.Quote(tc.query)
			if tc.variables != "" {
				body += `,"variables":` + tc.variables
			}
			body += "}"
			get := "?query=" + url.QueryEscape(tc.query)
			if tc.variables != "" {
				get += "&variables=" + url.QueryEscape(tc.variables)
			}
			sum := sha256.Sum256([]byte(tc.query))
			persisted := strings.TrimSuffix(body, "}") + `,"extensions":{"persistedQuery":{"version":1,"sha256Hash":"` + hex.EncodeToString(sum[:]) + `"}}}`
			for _, req := range []*http.Request{
				newRequest(t, http.MethodPost, srv.URL, strings.NewReader(body), "Content-Type", "application/json"),
				newRequest(t, http.MethodGet, srv.URL+get, nil),
				newRequest(t, http.MethodPost, srv.URL, strings.NewReader(persisted), "Content-Type", "application/json"),
			} {
				a := send(t, client, req)
				var entries map[string]json.RawMessage
				if err := json.Unmarshal(a.body, &entries); err != nil {
					t.Fatalf("%s: the answer is not a JSON object: %s", req.Method, a.body)
				}
				_, ran := entries["data"]
				if ran != tc.runs || a.status != http.StatusOK {
					t.Errorf("%s: status %d, ran %v, want 200 and ran %v: %s", req.Method, a.status, ran, tc.runs, a.body)
				}
				if r := decode(t, a); !ran && (len(r.Errors) == 0 || r.Errors[0].code() != "GRAPHQL_VALIDATION_FAILED") {
					t.Errorf("%s: refused with %s, want GRAPHQL_VALIDATION_FAILED", req.Method, a.body)
				}
				if strings.Contains(string(a.body), "internal error") {
					t.Errorf("%s: an internal error: %s", req.Method, a.body)
				}
			}
		})
	}
}

// TestVariableErrorsStopAtFifty: variables with more than 50 problems are
// told of the first 50, then that the limit was reached, in graphql-js's
// words (under a response's own cap on errors, 20 by default, raised
// here).
func TestVariableErrorsStopAtFifty(t *testing.T) {
	srv := newServer(t, graphqlhttp.Options{MaxErrors: 100})
	unknown := make([]string, 60)
	for i := range unknown {
		unknown[i] = fmt.Sprintf(`"u%d":1`, i)
	}
	body := `{"query":"query($id: Int!, $f: ItemFilter) { item(id: $id) { name } items(filter: $f) { totalCount } }","variables":{"f":{` +
		strings.Join(unknown, ",") + `}}}`
	r := decode(t, postJSON(t, srv.URL, body))
	if len(r.Errors) != 51 {
		t.Fatalf("%d errors, want 51: %+v", len(r.Errors), r.Errors)
	}
	for i, e := range r.Errors {
		want := `Variable "$f" got invalid value an object; A field is not defined by type "ItemFilter".`
		switch i {
		case 0:
			want = `Variable "$id" of required type "Int!" was not provided.`
		case 50:
			want = "Too many errors processing variables, error limit reached. Execution aborted."
		}
		if e.Message != want || e.code() != "GRAPHQL_VALIDATION_FAILED" {
			t.Errorf("error %d: %q (%s), want %q (GRAPHQL_VALIDATION_FAILED)", i, e.Message, e.code(), want)
		}
	}
}

// TestCostOfCoercedVariables: the cost limit prices an Int variable as it
// runs, whichever way it is spelled. Twenty pages of 1000 items with four
// fields each cost 100,040 values, over the default 100,000: refused
// however 1000 is written, and a string "1000" is no Int at all (it once
// passed, priced as the default page, and ran as 1000).
func TestCostOfCoercedVariables(t *testing.T) {
	srv := newServer(t, graphqlhttp.Options{})
	var q strings.Builder
	q.WriteString("query($n: Int) {")
	for i := range 20 {
		q.WriteString(" a" + strconv.Itoa(i) + ": items(first: $n) { nodes { id name value type } }")
	}
	q.WriteString(" }")
	for _, tt := range []struct {
		n    string
		code string
	}{
		{`1000`, admission.CodeTooComplex},
		{`1e3`, admission.CodeTooComplex},
		{`1000.0`, admission.CodeTooComplex},
		{`10000e-1`, admission.CodeTooComplex},
		{`"1000"`, "GRAPHQL_VALIDATION_FAILED"},
		{`"1e3"`, "GRAPHQL_VALIDATION_FAILED"},
		{`[1000]`, "GRAPHQL_VALIDATION_FAILED"},
		{`50`, ""},
	} {
		t.Run(tt.n, func(t *testing.T) {
			a := postJSON(t, srv.URL, `{"query":`+strconv.Quote(q.String())+`,"variables":{"n":`+tt.n+`}}`)
			r := decode(t, a)
			switch {
			case tt.code == "" && (len(r.Errors) > 0 || len(r.Data) < 1000):
				t.Errorf("want it run: %.300s", a.body)
			case tt.code != "" && (len(r.Errors) == 0 || r.Errors[0].code() != tt.code || r.Data != nil):
				t.Errorf("want it refused with %s and no data: %.300s", tt.code, a.body)
			}
		})
	}
}

// TestInputCoercionOnStreams: a WebSocket's operations and an event
// stream's subscription are coerced as any request: one that does not
// coerce is refused before it runs.
func TestInputCoercionOnStreams(t *testing.T) {
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 5})
	t.Run("WebSocket", func(t *testing.T) {
		ws := wstest.Connect(t, http.DefaultClient, srv.URL)
		for i, tt := range []struct {
			query, variables string
			runs             bool
		}{
			{`query($id: Int!) { item(id: $id) { id } }`, `{"id":1e0}`, true},
			{`query($id: Int!) { item(id: $id) { id } }`, `{"id":"1"}`, false},
			{`query($id: Int!) { item(id: $id) { id } }`, `{"id":2147483648}`, false},
			{`{ item(id: 2147483648) { id } }`, `{}`, false},
			{`subscription($b: Boolean!) { catalogueChanged @include(if: $b) { version } }`, `{"b":"true"}`, false},
		} {
			id := strconv.Itoa(i)
			ws.Send(t, wstest.Message{Type: "subscribe", ID: id,
				Payload: json.RawMessage(`{"query":` + strconv.Quote(tt.query) + `,"variables":` + tt.variables + `}`)})
			m := ws.Next(t)
			errs := errorsOf(t, m)
			switch {
			case tt.runs && (m.Type != "next" || len(errs) > 0):
				t.Errorf("%s %s: got %+v, want it run", tt.query, tt.variables, m)
			case !tt.runs && (m.Type != "error" || len(errs) != 1 || errs[0].code() != "GRAPHQL_VALIDATION_FAILED"):
				t.Errorf("%s %s: got %+v, want an error message, GRAPHQL_VALIDATION_FAILED", tt.query, tt.variables, m)
			}
			// An answer is followed by complete; an error ends the
			// operation by itself, as the protocol says.
			if m.Type == "next" {
				if c := ws.Next(t); c.Type != "complete" || c.ID != id {
					t.Errorf("got %+v after the answer, want complete", c)
				}
			}
		}
	})
	t.Run("event stream", func(t *testing.T) {
		s := openStreamWith(t, http.DefaultClient, srv.URL, map[string]any{
			"query":     `subscription($b: Boolean!) { catalogueChanged @include(if: $b) { version } }`,
			"variables": map[string]any{"b": "true"}})
		// Refused before it runs: the errors as the stream's one event,
		// with no data entry, then complete (the client takes only an
		// event stream; see TestStreamRefusedBeforeExecution).
		ev, ok := s.next(t, 5*time.Second)
		var r struct {
			Data   *json.RawMessage `json:"data"`
			Errors []gqlError       `json:"errors"`
		}
		json.Unmarshal([]byte(ev.data), &r)
		if !ok || ev.event != "next" || r.Data != nil || len(r.Errors) != 1 || r.Errors[0].code() != "GRAPHQL_VALIDATION_FAILED" {
			t.Errorf("got %+v, want a next event refusing the variable, with no data entry", ev)
		}
		if ev, ok := s.next(t, 5*time.Second); !ok || ev.event != "complete" {
			t.Errorf("got %+v (open %v), want complete", ev, ok)
		}
	})
}

// TestIntValue: an Int argument is read from each form gqlgen hands it
// over in, written as a whole number and within GraphQL's 32 bits, and
// nothing else is.
func TestIntValue(t *testing.T) {
	for _, tt := range []struct {
		v    any
		want int64
		ok   bool
	}{
		{int64(5), 5, true},
		{7, 7, true},
		{json.Number("42"), 42, true},
		{json.Number("-2147483648"), math.MinInt32, true},
		{int64(math.MaxInt32), math.MaxInt32, true},
		{int64(math.MaxInt32 + 1), 0, false},
		{int64(math.MinInt32 - 1), 0, false},
		{json.Number("3.0"), 0, false},
		{json.Number("1e3"), 0, false},
		{json.Number("99999999999999999999"), 0, false},
		{float64(5), 0, false},
		{"5", 0, false},
		{nil, 0, false},
	} {
		n, ok := execution.IntValue(tt.v)
		if ok != tt.ok || (ok && n != tt.want) {
			t.Errorf("IntValue(%#v) = %d, %t; want %d, %t", tt.v, n, ok, tt.want, tt.ok)
		}
	}
}
