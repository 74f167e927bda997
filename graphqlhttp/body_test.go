package graphqlhttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// referenceBody is how a POST body was read before decodeBody, and how
// gqlgen's own transport reads one: encoding/json's Unmarshal into a
// struct, the variables with numbers as json.Number.
func referenceBody(body []byte) (postBody, error) {
	var params struct {
		Query         string          `json:"query"`
		OperationName string          `json:"operationName"`
		Variables     json.RawMessage `json:"variables"`
		Extensions    json.RawMessage `json:"extensions"`
		DocumentID    string          `json:"documentId"`
	}
	if err := json.Unmarshal(body, &params); err != nil {
		return postBody{}, err
	}
	b := postBody{query: params.Query, operationName: params.OperationName, documentID: params.DocumentID}
	for _, m := range []struct {
		raw  json.RawMessage
		into *map[string]any
	}{{params.Variables, &b.variables}, {params.Extensions, &b.extensions}} {
		if len(m.raw) == 0 || string(m.raw) == "null" {
			continue
		}
		if m.raw[0] != '{' {
			return postBody{}, errNotRequest
		}
		dec := json.NewDecoder(bytes.NewReader(m.raw))
		dec.UseNumber()
		if err := dec.Decode(m.into); err != nil {
			return postBody{}, err
		}
	}
	return b, nil
}

// verdict sorts a decoding's error as the endpoint answers it.
func verdict(err error) string {
	var syntax *json.SyntaxError
	var syntactic *jsontext.SyntacticError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &syntax) || errors.As(err, &syntactic) || errors.Is(err, io.ErrUnexpectedEOF):
		return "not JSON"
	}
	return "not a request"
}

var bodySeeds = []string{
	`{"query":"{ item(id: 1) { id } }"}`,
	`{"query":"query($t: String!) { items(filter: {nameContains: $t}) { nodes { id } } }","variables":{"t":"ab","o":{"direction":"DESC","field":"ID"}}}`,
	`{"query":"q","operationName":"A","variables":null,"extensions":{"persistedQuery":{"version":1,"sha256Hash":"00"}}}`,
	`{"QUERY":"upper","OperationName":"x","Variables":{"n":1.50e3,"big":123456789012345678901234567890,"neg":-0}}`,
	`{"query":"a","query":"b","variables":{"a":1},"variables":{"b":[1,"x",true,false,null,{},[]]}}`,
	`{"query":null,"operationName":null,"documentId":"abc","extensions":null}`,
	`{"query":5}`,
	`{"query":"x","variables":[1]}`,
	`{"query":"x","variables":"{}"}`,
	`{"query":"x","extensions":[1, 2]}`,
	`{"query":"x"} {}`,
	`{"query":"x"}  `,
	`{"query":"x",}`,
	`{"query":5,`,
	`{"query":"\ud800 \u00e9 \"q\" \\ \/","variables":{"\u0041":"\udc00x"}}`,
	"{\"query\":\"\xff\xfe\",\"variables\":{\"k\xff\":\"v\xc3\"}}",
	`{"other":{"deep":[[[{"a":1}]]]},"query":"x"}`,
	`{"querY":"folded","ſ":1,"documentıd":"dotless"}`,
	`{"query":"x","variables":{"a":1}}x`,
	`{"query":true,"variables":{"a":}}`,
}

func TestDecodeBodyReadsAsEncodingJSON(t *testing.T) {
	for _, body := range bodySeeds {
		checkDecodeBody(t, []byte(body))
	}
}

func FuzzDecodeBody(f *testing.F) {
	for _, body := range bodySeeds {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) == 0 || body[0] != '{' {
			return // the endpoint refuses these before decoding
		}
		checkDecodeBody(t, body)
	})
}

func checkDecodeBody(t *testing.T, body []byte) {
	t.Helper()
	want, wantErr := referenceBody(body)
	got, err := decodeBody(body)
	if verdict(err) != verdict(wantErr) {
		t.Fatalf("%q: decodeBody says %s (%v), encoding/json %s (%v)", body, verdict(err), err, verdict(wantErr), wantErr)
	}
	if err != nil {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%q:\ndecodeBody    %#v\nencoding/json %#v", body, got, want)
	}
}

// BenchmarkDecodeBody reads a filtered page's body, as bench/mix sends
// it, both ways.
func BenchmarkDecodeBody(b *testing.B) {
	body := []byte(`{"query":"query Items($term: String!, $order: ItemOrder!) { items(first: 50, filter: {nameContains: $term}, orderBy: $order) { nodes { id name value monsterDrops { monsterId monster { id name } } } } }","variables":{"order":{"direction":"DESC","field":"ID"},"term":"yt"}}`)
	b.Run("decodeBody", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeBody(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := referenceBody(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestDecodeObject: a GET request's variables and extensions are read as
// a POST body's: an object with numbers as written, nothing or null as
// none, and anything else, or anything after the object, refused.
func TestDecodeObject(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want map[string]any
		ok   bool
	}{
		{``, nil, true},
		{` null `, nil, true},
		{`{"n":1.50,"s":"x","l":[true,null]}`, map[string]any{"n": json.Number("1.50"), "s": "x", "l": []any{true, nil}}, true},
		{`[1]`, nil, false},
		{`"{}"`, nil, false},
		{`{"a":1} {}`, nil, false},
		{`{"a":1}x`, nil, false},
		{`{"a":`, nil, false},
	} {
		got, err := decodeObject([]byte(tt.raw))
		if (err == nil) != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("decodeObject(%q) = %#v, %v; want %#v, ok %v", tt.raw, got, err, tt.want, tt.ok)
		}
	}
}
