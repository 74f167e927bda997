package graphqlhttp

import (
	"context"
	"crypto/sha256"
	"math/rand/v2"
	"mime"
	"net/http"
	"strings"
	"time"

	gqltransport "github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// sseTransport is gqlgen's SSE transport, offered only the requests that
// stream hands it. Left to itself it takes any POST whose Accept names
// text/event-stream, and runs queries that way with no time budget, no
// place in the queue for a core and gqlgen's executor: a 121-byte nested
// query streamed 17 MB over 10 s. Which requests are streams is the
// endpoint's decision: subscriptions, and nothing else.
type sseTransport struct{ gqltransport.SSE }

type streamKey struct{}

func (sseTransport) Supports(r *http.Request) bool {
	_, ok := r.Context().Value(streamKey{}).(struct{})
	return ok
}

// operationKinds is what a stream needs to know of a document: whether it
// parsed, and the kind of each operation, by name.
type operationKinds struct {
	parsed bool
	ops    []namedOperation
}

type namedOperation struct {
	name string
	kind ast.Operation
}

// parseOperationKinds parses query within the token limit and lists its
// operations. Only the names are kept, copied, so that a remembered
// document does not keep its query (up to the body limit) in memory.
func parseOperationKinds(query string, maxTokens int) operationKinds {
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, maxTokens)
	if err != nil {
		return operationKinds{}
	}
	k := operationKinds{parsed: true, ops: make([]namedOperation, len(doc.Operations))}
	for i, op := range doc.Operations {
		k.ops[i] = namedOperation{strings.Clone(op.Name), op.Operation}
	}
	return k
}

// kindOf finds the operation a request names as gqlgen will find it: by
// name, or the only one when the request names none.
func (k operationKinds) kindOf(name string) (ast.Operation, bool) {
	if name == "" && len(k.ops) == 1 {
		return k.ops[0].kind, true
	}
	for _, op := range k.ops {
		if op.name == name {
			return op.kind, true
		}
	}
	return "", false
}

// notSubscription says why req, asked for as an event stream, is not
// served as one, or returns nil for a subscription. Only an operation
// seen to be a subscription is streamed: a document that does not parse,
// or does not name one of its operations, is refused rather than left
// for gqlgen to report, since the report would take a stream's place.
func (e *endpoint) notSubscription(ctx context.Context, req *request) *httpError {
	if req.query == "" {
		// Its text is in gqlgen's persisted query cache, which only
		// gqlgen reads; its kind cannot be known before it runs.
		return &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "stream_operation",
			"send the subscription's query text to open a stream, not only its persisted query hash"}}
	}
	// Keyed by a digest, as the verdicts are: a stream's document is
	// parsed once, however often clients reconnect with it.
	sum := sha256.Sum256([]byte(req.query))
	key := string(sum[:])
	kinds, seen := e.operationKinds.Get(ctx, key)
	if !seen {
		kinds = parseOperationKinds(req.query, e.opts.Limits.MaxTokens)
		e.operationKinds.Add(ctx, key, kinds)
	}
	kind, found := kinds.kindOf(req.operationName)
	switch {
	case !kinds.parsed:
		return &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "stream_operation",
			"the query does not parse; POST it as application/json to see why"}}
	case !found:
		return &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "stream_operation",
			"the query has no operation of that name, or several and no operationName"}}
	case kind != ast.Subscription:
		return &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "stream_operation",
			"only subscriptions are served as Server-Sent Events; POST queries as application/json"}}
	}
	return nil
}

// acceptsJSON reports whether an Accept header takes a JSON answer as
// well as an event stream. urql, for one, asks every operation with
// "application/graphql-response+json, application/graphql+json,
// application/json, text/event-stream, multipart/mixed": its queries are
// answered as JSON, as if no stream had been offered.
func acceptsJSON(accept string) bool {
	for part := range strings.SplitSeq(accept, ",") {
		mediaType, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mediaType {
		case "*/*", "application/*", typeJSON, typeGraphQLResponse:
			return true
		}
	}
	return false
}

// streamAge is how long one stream may stay open: maxAge less up to a
// tenth, at random. Streams opened together (after a deploy, or a
// network blip) would otherwise all end together, and their clients come
// back in one wave.
func streamAge(maxAge time.Duration) time.Duration {
	return maxAge - rand.N(maxAge/10+1)
}
