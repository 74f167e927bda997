package graphqlhttp

import (
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp/documents"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

func TestStreamAge(t *testing.T) {
	for _, maxAge := range []time.Duration{time.Nanosecond, 9 * time.Nanosecond, 200 * time.Millisecond, 30 * time.Minute} {
		t.Run(maxAge.String(), func(t *testing.T) {
			for range 100 {
				if age := streamAge(maxAge); age > maxAge || age < maxAge-maxAge/10 {
					t.Fatalf("streamAge(%s) = %s, want from %s to %[1]s", maxAge, age, maxAge-maxAge/10)
				}
			}
		})
	}
}

func TestAcceptsJSON(t *testing.T) {
	for _, tt := range []struct {
		accept string
		want   bool
	}{
		{"text/event-stream", false},
		{"text/event-stream, multipart/mixed", false},
		{"text/event-stream;charset=utf-8", false},
		{"application/json, text/event-stream", true},
		{"text/event-stream, application/graphql-response+json", true},
		{"application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed", true},
		{"text/event-stream, */*;q=0.1", true},
		{"text/event-stream, application/*", true},
		{"text/event-stream, application/json;;", false},
		{"", false},
	} {
		if got := acceptsJSON(tt.accept); got != tt.want {
			t.Errorf("acceptsJSON(%q) = %v, want %v", tt.accept, got, tt.want)
		}
	}
}

// TestOperationKinds: a stream's operation is found in the document as
// gqlgen finds it.
func TestOperationKinds(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: `type Query { a: Int } type Mutation { a: Int } type Subscription { a: Int }`})
	docs := documents.NewStore(schema, admission.Limits{MaxTokens: 12}.WithDefaults(), true, 1<<20)
	for _, tt := range []struct {
		name, query, operationName string
		want                       ast.Operation // "" when none is found
	}{
		{"an anonymous subscription", `subscription { a }`, "", ast.Subscription},
		{"an anonymous query named", `{ a }`, "Q", ""},
		{"a shorthand query", `{ a }`, "", ast.Query},
		{"a named mutation", `mutation M { a }`, "", ast.Mutation},
		{"by name", `query Q { a } subscription S { a }`, "S", ast.Subscription},
		{"by name, the query", `query Q { a } subscription S { a }`, "Q", ast.Query},
		{"several and no name", `query Q { a } subscription S { a }`, "", ""},
		{"an unknown name", `subscription S { a }`, "T", ""},
		{"fragments only", `fragment F on T { a }`, "", ""},
		{"does not parse", `subscription { a`, "", ""},
		{"over the token limit", `subscription { a b c d e f g h i j }`, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got ast.Operation
			if doc := docs.Lookup(tt.query).Parsed; doc != nil {
				if op := doc.Operations.ForName(tt.operationName); op != nil {
					got = op.Operation
				}
			}
			if got != tt.want {
				t.Errorf("the kind of %q in %q = %q, want %q", tt.operationName, tt.query, got, tt.want)
			}
		})
	}
}
