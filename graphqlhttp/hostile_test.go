package graphqlhttp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
)

// marker is planted in every hostile request; no answer may carry it back.
const marker = "Qx7hostileMARKER"

// hostileCase is one request the endpoint must refuse (or, for the few
// allowed ones, answer) without harm.
type hostileCase struct {
	name string
	// req builds the request against the endpoint's URL.
	req    func(t testing.TB, url string) *http.Request
	status int
	code   string // extensions.code of the first error; "" for an allowed request
}

// The hostile queries, shared by the table, the fuzz seeds and the
// end-to-end test of the binary (which has its own copy in package main).
var (
	// tooDeep nests 11 selections; the default limit is 10.
	tooDeep = "{ a { a { a { a { a { a { a { a { a { a { " + marker + " } } } } } } } } } } }"
	// tooWide selects 1001 fields.
	tooWide = "{ " + marker + " " + strings.Repeat("f ", 1000) + "}"
	// tooManyAliases has 31 aliased fields.
	tooManyAliases = "{ " + marker + ": __typename " + repeatf(30, "a%d: __typename ") + "}"
	// duplicated repeats one field 1001 times, with no alias.
	duplicated = "# " + marker + "\n{ " + strings.Repeat("__typename ", 1001) + "}"
	// costlyToValidate are 4 operations of 999 __typename (44 KB), each
	// within the field limit: validating it took 0.2 s of CPU.
	costlyToValidate = "# " + marker + "\n" + repeatf(4, "query Q%d { "+strings.Repeat("__typename ", 999)+"} ")
	// samePairs is one operation of 999 __typename, within the field
	// limit, whose 498,501 pairs validation compares.
	samePairs = "# " + marker + "\n{ " + strings.Repeat("__typename ", 999) + "}"
	// directiveFlood puts 21 directives on one field.
	directiveFlood = "{ __typename " + strings.Repeat("@"+marker+" ", 21) + "}"
	// variableDirectiveFlood puts them on a variable definition, which
	// the measure of fields does not see.
	variableDirectiveFlood = "query($v: Int " + strings.Repeat("@"+marker+" ", 21) + ") { __typename }"
	// introspectionTooDeep nests __schema 17 levels deep; the limit is 15.
	introspectionTooDeep = "{ " + marker + ": __schema { types { fields { type " + strings.Repeat("{ ofType ", 12) + "{ name }" + strings.Repeat(" }", 12) + " } } } }"
	// tooComplex asks for a thousand items of twenty monsters of twenty items.
	// Nine pages of a thousand records, each written twice: about
	// 108,000 values, over the default 100,000.
	tooComplex = "{ " + marker + ": items(first: 1000) { nodes { id name value type } edges { cursor node { id name value type } } } " +
		"b: items(first: 1000) { nodes { id name value type } edges { cursor node { id name value type } } } " +
		"c: items(first: 1000) { nodes { id name value type } edges { cursor node { id name value type } } } " +
		"d: items(first: 1000) { nodes { id name value type } edges { cursor node { id name value type } } } " +
		"e: items(first: 1000) { nodes { id name value type } edges { cursor node { id name value type } } } " +
		"f: items(first: 1000) { nodes { id name value type } edges { cursor node { id name value type } } } " +
		"g: items(first: 1000) { nodes { id name value type } edges { cursor node { id name value type } } } " +
		"h: items(first: 1000) { nodes { id name value type } edges { cursor node { id name value type } } } " +
		"i: items(first: 1000) { nodes { id name value type } edges { cursor node { id name value type } } } }"
)

// fragmentCycles are documents whose fragments spread themselves, in every
// shape the guard must see through. Validating them is what the guard
// protects gqlgen from.
var fragmentCycles = []struct{ name, query string }{
	{"direct self-spread", "fragment F" + marker + " on Item { ...F" + marker + " } { item(id: 1) { ...F" + marker + " } }"},
	{"nested self-spread", "fragment F" + marker + " on Item { crafting { materials { item { ...F" + marker + " } } } ...F" + marker + " } { item(id: 1) { ...F" + marker + " } }"},
	{"nested self-spread only", "fragment F" + marker + " on Item { crafting { materials { item { ...F" + marker + " } } } } { item(id: 1) { ...F" + marker + " } }"},
	{"A to B to A", "fragment A" + marker + " on Item { crafting { materials { item { ...B } } } } fragment B on Item { ...A" + marker + " } { item(id: 1) { ...A" + marker + " } }"},
	{"long chain", chain(200) + "{ item(id: 1) { ...C0 } }"},
	{"hidden in inline fragments", "fragment F" + marker + " on Item { ... on Item { ... @include(if: true) { crafting { materials { item { ... on Item { ...F" + marker + " } } } } } } } { item(id: 1) { ...F" + marker + " } }"},
	{"unused cycle", "fragment A" + marker + " on Item { ...B } fragment B on Item { ...A" + marker + " } { __typename }"},
	{"cycle on the query type", "fragment Q" + marker + " on Query { item(id: 1) { id } ...Q" + marker + " } { ...Q" + marker + " }"},
	{"cycle in introspection", "fragment T" + marker + " on __Type { ofType { ...T" + marker + " } } { __schema { types { ...T" + marker + " } } }"},
}

// fanOut is acyclic but spreads each of 40 fragments twice into the next:
// 2^40 fields once expanded. Validating or planning it expanded takes
// forever; the guard must measure it without expanding it.
func fanOut(n int) string {
	var b strings.Builder
	b.WriteString("{ item(id: 1) { ...E0 } } ")
	for i := range n {
		fmt.Fprintf(&b, "fragment E%d on Item { ...E%d ...E%d } ", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "fragment E%d on Item { id } # %s", n, marker)
	return b.String()
}

// chain is n fragments, each spreading the next from inside a nested
// selection, the last spreading the first.
func chain(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "fragment C%d on Item { crafting { materials { item { ...C%d } } } } ", i, (i+1)%n)
	}
	return b.String() + "# " + marker + "\n"
}

func repeatf(n int, format string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

// nested returns n levels of open around inner, closed by close.
func nested(n int, open, inner, close string) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

func jsonBody(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func newRequest(t testing.TB, method, url string, body io.Reader, header ...string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return req
}

// postBody is a request posting body as application/json.
func postBody(body string) func(testing.TB, string) *http.Request {
	return func(t testing.TB, url string) *http.Request {
		return newRequest(t, http.MethodPost, url, strings.NewReader(body), "Content-Type", "application/json")
	}
}

// post is a request posting query, with variables if given.
func post(query string, vars ...map[string]any) func(testing.TB, string) *http.Request {
	return func(t testing.TB, url string) *http.Request {
		p := map[string]any{"query": query}
		if len(vars) > 0 {
			p["variables"] = vars[0]
		}
		return newRequest(t, http.MethodPost, url, strings.NewReader(jsonBody(t, p)), "Content-Type", "application/json")
	}
}

// streamed is req asking for an event stream, with Accept text/event-stream
// or the one given.
func streamed(req func(testing.TB, string) *http.Request, accept ...string) func(testing.TB, string) *http.Request {
	return func(t testing.TB, url string) *http.Request {
		r := req(t, url)
		r.Header.Set("Accept", "text/event-stream")
		if len(accept) > 0 {
			r.Header.Set("Accept", accept[0])
		}
		return r
	}
}

// get is a GET request with the given raw query string.
func get(rawQuery string) func(testing.TB, string) *http.Request {
	return func(t testing.TB, u string) *http.Request {
		return newRequest(t, http.MethodGet, u+"?"+rawQuery, nil)
	}
}

func getQuery(query string) func(testing.TB, string) *http.Request {
	return get("query=" + url.QueryEscape(query))
}

// withContentType posts a GraphQL body under another media type.
func withContentType(ct string) func(testing.TB, string) *http.Request {
	return func(t testing.TB, url string) *http.Request {
		body := `{"query":"{ ` + marker + ` }"}`
		req := newRequest(t, http.MethodPost, url, strings.NewReader(body))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		return req
	}
}

// chunked posts body with no Content-Length.
func chunked(body string) func(testing.TB, string) *http.Request {
	return func(t testing.TB, url string) *http.Request {
		req := newRequest(t, http.MethodPost, url, io.NopCloser(strings.NewReader(body)), "Content-Type", "application/json")
		req.ContentLength = -1
		return req
	}
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// hostileCases returns the table: one row per hostile request.
func hostileCases(t testing.TB) []hostileCase {
	oversized := `{"query":"{ __typename }","variables":{"x":"` + strings.Repeat(marker, 70<<10/len(marker)) + `"}}`
	fanOutFields := fanOut(40)
	return []hostileCase{
		{name: "depth", req: post(tooDeep), status: 422, code: admission.CodeTooDeep},
		{name: "depth over GET", req: getQuery(tooDeep), status: 422, code: admission.CodeTooDeep},
		{name: "width", req: post(tooWide), status: 422, code: admission.CodeTooManyFields},
		{name: "aliases", req: post(tooManyAliases), status: 422, code: admission.CodeTooManyAliases},
		{name: "duplicated fields", req: post(duplicated), status: 422, code: admission.CodeTooManyFields},
		{name: "4 operations × 999 __typename", req: post(costlyToValidate), status: 422, code: admission.CodeTooManyFields},
		{name: "999 __typename, same-named pairs", req: post(samePairs), status: 422, code: admission.CodeTooManyFields},
		{name: "300 __typename over GET", req: getQuery("# " + marker + "\n{ " + strings.Repeat("__typename ", 300) + "}"), status: 422, code: admission.CodeTooManyFields},
		{name: "999 __typename in an unused fragment", req: post("{ __typename } fragment F on Query { " + samePairs[strings.Index(samePairs, "{")+1:]), status: 422, code: admission.CodeTooManyFields},
		{name: "directive flood", req: post(directiveFlood), status: 422, code: admission.CodeTooManyDirective},
		{name: "directive flood on a variable", req: post(variableDirectiveFlood), status: 422, code: admission.CodeTooManyDirective},
		{name: "exponential fragment fan-out", req: post(fanOutFields), status: 422, code: admission.CodeTooManyFields},
		{name: "unknown fragment spread", req: post("{ " + marker + ": __typename ...Nowhere }"), status: 200, code: "GRAPHQL_VALIDATION_FAILED"},

		// Literals nest in the parser, not in the selection set: 5000
		// levels pass neither the token limit nor the parser's own bound,
		// 2400 stay under the token limit, 900 reach validation, whose
		// message quotes the literal.
		{name: "5000 nested lists", req: post("{ items(filter: " + nested(5000, "[", `"`+marker+`"`, "]") + ") { totalCount } }"), status: 200, code: "GRAPHQL_PARSE_FAILED"},
		{name: "5000 nested objects", req: post("{ items(filter: " + nested(5000, "{a: ", `"`+marker+`"`, "}") + ") { totalCount } }"), status: 200, code: "GRAPHQL_PARSE_FAILED"},
		{name: "2400 nested lists within the token limit", req: post("{ items(filter: " + nested(2400, "[", `"`+marker+`"`, "]") + ") { totalCount } }"), status: 200, code: "GRAPHQL_PARSE_FAILED"},
		{name: "900 nested lists reach validation", req: post("{ items(filter: " + nested(900, "[", `"`+marker+`"`, "]") + ") { totalCount } }"), status: 200, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "900 nested objects reach validation", req: post("{ items(filter: {nameContains: " + nested(900, "{a: ", `"`+marker+`"`, "}") + "}) { totalCount } }"), status: 200, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "900 nested lists in a variable", req: post("query($f: ItemFilter) { items(filter: $f) { totalCount } }", map[string]any{"f": json.RawMessage(nested(900, "[", `"`+marker+`"`, "]"))}), status: 200, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "a long unknown field", req: post("{ f" + strings.Repeat("x", 5000) + marker + " }"), status: 200, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "a long operation name", req: postBody(`{"query":"{ __typename }","operationName":"` + strings.Repeat("x", 5000) + marker + `"}`), status: 200, code: "GRAPHQL_VALIDATION_FAILED"},

		{name: "oversized body with Content-Length", req: postBody(oversized), status: 413, code: graphqlhttp.CodeBodyTooLarge},
		{name: "oversized body chunked", req: chunked(oversized), status: 413, code: graphqlhttp.CodeBodyTooLarge},
		{name: "long URL", req: get("query=" + url.QueryEscape("{ __typename }") + "&x=" + strings.Repeat(marker, 9<<10/len(marker))), status: 414, code: graphqlhttp.CodeURLTooLong},

		{name: "array batch", req: postBody(`[{"query":"{ ` + marker + ` }"},{"query":"{ __typename }"}]`), status: 400, code: graphqlhttp.CodeBatching},
		{name: "array batch after blanks", req: postBody(" \r\n\t[{\"query\":\"{ " + marker + " }\"}]"), status: 400, code: graphqlhttp.CodeBatching},
		{name: "form-urlencoded", req: withContentType("application/x-www-form-urlencoded"), status: 415, code: graphqlhttp.CodeUnsupportedMedia},
		{name: "multipart", req: withContentType("multipart/form-data; boundary=x"), status: 415, code: graphqlhttp.CodeUnsupportedMedia},
		{name: "text/plain", req: withContentType("text/plain"), status: 415, code: graphqlhttp.CodeUnsupportedMedia},
		{name: "no content type", req: withContentType(""), status: 415, code: graphqlhttp.CodeUnsupportedMedia},
		{name: "a response media type as the request's", req: withContentType("application/graphql-response+json"), status: 415, code: graphqlhttp.CodeUnsupportedMedia},

		{name: "mutation over GET", req: getQuery("mutation { " + marker + " }"), status: 200, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "mutation over POST", req: post("mutation { " + marker + " }"), status: 200, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "subscription without an event stream", req: post("subscription " + marker + " { catalogueChanged { version } }"), status: 400, code: graphqlhttp.CodeBadRequest},

		// Asked for as event streams: only subscriptions are streamed,
		// and the limits hold for the rest whichever way they come.
		{name: "query as a stream", req: streamed(postBody(`{"query":"{ ` + marker + `: item(id: 1) { id } }"}`)), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "deep query as a stream", req: streamed(post(tooDeep)), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "mutation as a stream", req: streamed(post("mutation { " + marker + " }")), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "unparsable document as a stream", req: streamed(post("subscription { " + marker)), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "persisted query hash as a stream", req: streamed(postBody(`{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"` + marker + `"}}}`)), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "deep query as a stream or JSON", req: streamed(post(tooDeep), "application/json, text/event-stream"), status: 422, code: admission.CodeTooDeep},
		{name: "aliases as a stream or JSON", req: streamed(post(tooManyAliases), "application/graphql-response+json, text/event-stream"), status: 400, code: admission.CodeTooManyAliases},
		// A subscription refused before it runs is answered before it
		// would take a place (there is none here), with no data entry.
		{name: "invalid subscription as a stream or JSON", req: streamed(post("subscription "+marker+" { catalogueChanged { nowhere } }"), "application/json, text/event-stream"), status: 400, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "subscription variable that does not coerce, as a stream or JSON", req: streamed(post("subscription "+marker+"($b: Boolean!) { catalogueChanged @include(if: $b) { version } }", map[string]any{"b": "true"}), "application/json, text/event-stream"), status: 400, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "subscription with too many aliases, as a stream or JSON", req: streamed(post("subscription "+marker+" { catalogueChanged {"+strings.Repeat(" v: version", 31)+" } }"), "application/json, text/event-stream"), status: 422, code: admission.CodeTooManyAliases},
		{name: "invalid subscription as a stream or JSON, as graphql-response+json", req: streamed(post("subscription "+marker+" { catalogueChanged { nowhere } }"), "application/graphql-response+json, text/event-stream"), status: 400, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "subscription as a stream, with subscriptions off", req: streamed(post("subscription " + marker + " { catalogueChanged { version } }")), status: 503, code: graphqlhttp.CodeStreamsOff},

		{name: "malformed JSON", req: postBody(`{"query":"{ ` + marker + ` }"`), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "JSON not an object", req: postBody(`"{ ` + marker + ` }"`), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "query not a string", req: postBody(`{"query":["{ ` + marker + ` }"]}`), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "variables not an object", req: postBody(`{"query":"{ __typename }","variables":"` + marker + `"}`), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "operationName not a string", req: postBody(`{"query":"{ __typename }","operationName":["` + marker + `"]}`), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "extensions not an object", req: postBody(`{"query":"{ __typename }","extensions":"` + marker + `"}`), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "query of another type beside a persisted query", req: postBody(`{"query":5,"extensions":{"persistedQuery":{"version":1,"sha256Hash":"` + marker + `"}}}`), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "malformed URL escape on GET", req: get("query=%zz" + marker), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "variables not JSON on GET", req: get("query=" + url.QueryEscape("{ __typename }") + "&variables=" + marker), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "extensions not JSON on GET", req: get("query=" + url.QueryEscape("{ __typename }") + "&extensions=" + marker), status: 400, code: graphqlhttp.CodeBadRequest},

		// A short plain word is named in the error, as graphql-js names
		// it ("abc"); markup, or a long string, is named by its kind.
		{name: "wrong variable type, markup", req: post("query($id: Int!) { item(id: $id) { id } }", map[string]any{"id": "<b>" + marker}), status: 200, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "wrong variable type, long", req: post("query($id: Int!) { item(id: $id) { id } }", map[string]any{"id": strings.Repeat("x", 30) + marker}), status: 200, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "wrong variable shape", req: post("query($f: ItemFilter) { items(filter: $f) { totalCount } }", map[string]any{"f": map[string]any{"nameContains": map[string]any{marker: 1}}}), status: 200, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "missing variable", req: post("query($id: Int!) { " + marker + ": item(id: $id) { id } }"), status: 200, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "wrong literal type", req: post("{ item(id: \"" + strings.Repeat("x", 300) + marker + "\") { id } }"), status: 200, code: "GRAPHQL_VALIDATION_FAILED"},

		{name: "complexity", req: post(tooComplex), status: 422, code: admission.CodeTooComplex},
		// A live query is a stream: checked as a POST is before it takes
		// a place, and refused as JSON to a client that takes JSON.
		{name: "depth of a live query streamed", req: liveStream("query @live " + tooDeep), status: 422, code: admission.CodeTooDeep},
		{name: "complexity of a live query streamed", req: liveStream("query @live " + tooComplex), status: 422, code: admission.CodeTooComplex},
		// Asked for in parts: the cost limit holds for the whole
		// operation, before any part is sent.
		{name: "complexity, deferred, as multipart", req: streamed(post("{ ... @defer "+tooComplex+" }"), "multipart/mixed"), status: 400, code: admission.CodeTooComplex},
		{name: "complexity, streamed, as multipart or JSON", req: streamed(post(strings.Replace(tooComplex, "nodes {", "nodes @stream {", 1)), "multipart/mixed, application/json"), status: 422, code: admission.CodeTooComplex},
		{name: "complexity, deferred, as a stream", req: streamed(post("{ ... @defer " + tooComplex + " }")), status: 400, code: admission.CodeTooComplex},
		{name: "missing query", req: postBody(`{"operationName":"` + marker + `"}`), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "empty query", req: postBody(`{"query":"","variables":{"x":"` + marker + `"}}`), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "empty body", req: postBody(""), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "missing query on GET", req: get("variables=" + url.QueryEscape(`{"x":"`+marker+`"}`)), status: 400, code: graphqlhttp.CodeBadRequest},
		{name: "PUT", req: func(t testing.TB, u string) *http.Request {
			return newRequest(t, http.MethodPut, u, strings.NewReader(`{"query":"{ `+marker+` }"}`), "Content-Type", "application/json")
		}, status: 405, code: graphqlhttp.CodeMethodNotAllowed},
		{name: "DELETE", req: func(t testing.TB, u string) *http.Request {
			return newRequest(t, http.MethodDelete, u+"?query="+marker, nil)
		}, status: 405, code: graphqlhttp.CodeMethodNotAllowed},
		{name: "introspection too deep", req: post(introspectionTooDeep), status: 422, code: admission.CodeTooDeep},
		{name: "APQ hash that does not match", req: postBody(`{"query":"{ __typename }","extensions":{"persistedQuery":{"version":1,"sha256Hash":"` + marker + `"}}}`), status: 422, code: graphqlhttp.CodeBadRequest},
		{name: "APQ of an unknown version", req: postBody(`{"extensions":{"persistedQuery":{"version":2,"sha256Hash":"` + marker + `"}}}`), status: 422, code: graphqlhttp.CodeBadRequest},
		{name: "APQ extension not an object", req: postBody(`{"extensions":{"persistedQuery":"` + marker + `"}}`), status: 422, code: graphqlhttp.CodeBadRequest},

		// Offers to upgrade the connection (curl --http2 makes one, for
		// h2c) are declined, not refused.
		{name: "GET offering an upgrade", req: func(t testing.TB, u string) *http.Request {
			return newRequest(t, http.MethodGet, u+"?query="+url.QueryEscape("{ item(id: 1) { id } }"), nil, "Upgrade", "h2c", "Connection", "Upgrade, HTTP2-Settings", "HTTP2-Settings", "AAMAAABkAAQCAAAAAAIAAAAA")
		}, status: 200},
		{name: "POST offering an upgrade", req: func(t testing.TB, u string) *http.Request {
			r := post("{ item(id: 1) { id } }")(t, u)
			r.Header.Set("Upgrade", "websocket")
			r.Header.Set("Connection", "Upgrade")
			return r
		}, status: 200},

		{name: "GraphiQL introspection", req: post(readTestdata(t, "introspection.graphql")), status: 200},
		{name: "GraphiQL introspection with deprecated input values", req: post(readTestdata(t, "introspection_input_deprecation.graphql")), status: 200},
		{name: "GraphiQL introspection over GET", req: getQuery(readTestdata(t, "introspection.graphql")), status: 200},
	}
}

// liveStream is a POST of query asking for an event stream, from a client
// that takes JSON too (as graphql-sse's reference client does not, but
// urql does).
func liveStream(query string) func(testing.TB, string) *http.Request {
	return func(t testing.TB, u string) *http.Request {
		r := post(query)(t, u)
		r.Header.Set("Accept", "application/json, text/event-stream")
		return r
	}
}

// TestHostileRequests sends each hostile request to the endpoint with its
// default limits and checks that it is refused with a small answer that
// names the limit and carries nothing of the request, and that the
// endpoint answers a normal query afterwards.
func TestHostileRequests(t *testing.T) {
	// seen notes how the last request arrived, to check the chunked one.
	var (
		mu   sync.Mutex
		seen *http.Request
	)
	h := newHandler(t, graphqlhttp.Options{Introspection: true})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = r
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	cases := hostileCases(t)
	for _, c := range fragmentCycles {
		cases = append(cases, hostileCase{name: "fragment cycle: " + c.name, req: post(c.query), status: 422, code: admission.CodeFragmentCycle})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req(t, srv.URL)
			a := send(t, client, req)
			if req.ContentLength < 0 {
				mu.Lock()
				if seen.ContentLength != -1 || len(seen.TransferEncoding) != 1 || seen.TransferEncoding[0] != "chunked" {
					t.Errorf("the request arrived with Content-Length %d and Transfer-Encoding %q, want it chunked", seen.ContentLength, seen.TransferEncoding)
				}
				mu.Unlock()
			}
			checkAnswer(t, tc, a)
			checkStillAnswers(t, srv.URL)
		})
	}
}

// checkAnswer checks one answer to a hostile request.
func checkAnswer(t *testing.T, tc hostileCase, a answer) {
	t.Helper()
	if a.status != tc.status {
		t.Errorf("status = %d, want %d; body %.300s", a.status, tc.status, a.body)
	}
	if ct, _, _ := mime.ParseMediaType(a.header.Get("Content-Type")); ct != "application/json" && ct != "application/graphql-response+json" {
		t.Errorf("Content-Type = %q, want JSON", a.header.Get("Content-Type"))
	}
	r := decode(t, a)
	if tc.code == "" {
		if len(r.Errors) != 0 {
			t.Errorf("errors %+v, want none", r.Errors)
		}
		if len(r.Data) == 0 || string(r.Data) == "null" {
			t.Errorf("no data in %.300s", a.body)
		}
		return
	}
	if len(r.Errors) == 0 {
		t.Fatalf("no errors in %.300s", a.body)
	}
	if got := r.Errors[0].code(); got != tc.code {
		t.Errorf("extensions.code = %q, want %q; body %.300s", got, tc.code, a.body)
	}
	if len(r.Data) != 0 && string(r.Data) != "null" {
		t.Errorf("a refused request has data: %.300s", r.Data)
	}
	if len(a.body) >= 1024 {
		t.Errorf("the answer has %d bytes, want under 1 KiB: %.300s…", len(a.body), a.body)
	}
	if strings.Contains(string(a.body), marker) {
		t.Errorf("the answer echoes the request: %.500s", a.body)
	}
	checkNoLeak(t, a.body)
}

// checkStillAnswers checks that the endpoint answers a normal query.
func checkStillAnswers(t *testing.T, url string) {
	t.Helper()
	a := postQuery(t, url, "{ item(id: 1) { id name } }", nil)
	if a.status != http.StatusOK || string(a.body) != `{"data":{"item":{"id":1,"name":"Copper Ore"}}}` {
		t.Errorf("a normal query afterwards got %d %.300s", a.status, a.body)
	}
}

// leaks are what no error may show: source paths, hosts, stacks and Go
// names.
var leaks = []string{".go", "/root", "/work", "/home", "/tmp", "goroutine", "runtime.", "main.", "*catalogue.", "catalogue.", "graphqlhttp.", "resolvers.", "loader.", "gqlgen", "gqlparser", "http://", "https://", "127.0.0.1", "localhost", "panic", "map[", "interface {}", "struct {"}

// checkNoLeak checks the errors of a response body for leaks.
func checkNoLeak(t *testing.T, body []byte) {
	t.Helper()
	var r struct {
		Errors json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Errorf("body is not JSON: %v", err)
		return
	}
	for _, l := range leaks {
		if strings.Contains(string(r.Errors), l) {
			t.Errorf("the errors show %q: %.500s", l, r.Errors)
		}
	}
}
