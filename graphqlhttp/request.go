package graphqlhttp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/catalogue-gateway/gateway/graphqlhttp/answers"
	"github.com/catalogue-gateway/gateway/graphqlhttp/documents"
)

type requestIDKey struct{}

// RequestID returns the id of the request ctx belongs to, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// newRequestID returns a client's own X-Request-ID if it is a short,
// plain token, else a fresh random one.
func newRequestID(given string) string {
	if n := len(given); n > 0 && n <= 64 && strings.Trim(given, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == "" {
		return given
	}
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// httpError is a request refused before GraphQL sees it.
type httpError struct {
	status int
	limitError
}

// request is what admit read of a GraphQL request: the cache key, and the
// parameters the endpoint checks and runs. It is read once, an event
// stream's too: gqlgen's SSE transport is handed the operation checked from
// it, with an empty request of its own (see stream).
type request struct {
	query, operationName string
	// variables is the variables' JSON object, decoded once with numbers
	// as json.Number, as gqlgen's transports decode them; nil when none.
	variables  map[string]any
	extensions map[string]any
	// delivery is how the client takes an answer in parts (Accept).
	delivery delivery
}

// admit checks what can be checked of a request before it is parsed: its
// method, size, media type and shape. A POST body is read here, within its
// bound, and handed on.
func (e *endpoint) admit(w http.ResponseWriter, r *http.Request) (*request, *httpError) {
	switch r.Method {
	case http.MethodGet:
		if len(r.URL.RequestURI()) > e.opts.Limits.MaxURLBytes {
			return nil, &httpError{http.StatusRequestURITooLong, limitError{CodeURLTooLong, "url",
				fmt.Sprintf("the URL is longer than %d bytes; send the query with POST", e.opts.Limits.MaxURLBytes)}}
		}
		// gqlgen answers these itself, but with no code, and the first
		// with the offending escape and as text/plain.
		query, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "url", "the URL's query string is malformed"}}
		}
		req := &request{query: query.Get("query"), operationName: query.Get("operationName")}
		if v := query.Get("variables"); v != "" {
			if req.variables, err = decodeObject([]byte(v)); err != nil {
				return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "json", "variables must be a JSON object"}}
			}
		}
		if req.extensions, err = decodeObject([]byte(query.Get("extensions"))); err != nil {
			return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "json", "extensions must be a JSON object"}}
		}
		if herr := e.documentID(req, query.Get("documentId")); herr != nil {
			return nil, herr
		}
		if req.query == "" && req.extensions["persistedQuery"] == nil {
			return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "no_query", "the request has no query"}}
		}
		return req, nil
	case http.MethodPost:
	default:
		w.Header().Set("Allow", "GET, POST")
		return nil, &httpError{http.StatusMethodNotAllowed, limitError{CodeMethodNotAllowed, "method", "use GET or POST"}}
	}
	// Only JSON bodies: form and multipart posts are what a browser sends
	// across origins without asking first, so refusing them closes the
	// door on cross-site request forgery.
	// (application/graphql-response+json names a response, in Accept; as a
	// request's type gqlgen has no transport for it.)
	if !isJSON(r.Header.Get("Content-Type")) {
		return nil, &httpError{http.StatusUnsupportedMediaType, limitError{CodeUnsupportedMedia, "media_type",
			"send the request as application/json"}}
	}
	if r.ContentLength > e.opts.Limits.MaxBodyBytes {
		return nil, tooLarge(e.opts.Limits.MaxBodyBytes)
	}
	buf := e.borrowBody()
	defer e.returnBody(buf)
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, e.opts.Limits.MaxBodyBytes))
	body := buf.Bytes()
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, tooLarge(e.opts.Limits.MaxBodyBytes)
		}
		return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "body", "the request body could not be read"}}
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		return nil, &httpError{http.StatusBadRequest, limitError{CodeBatching, "batching", "send one operation per request; batches are not supported"}}
	case len(trimmed) == 0 || trimmed[0] != '{':
		return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "json", "the request body must be a JSON object"}}
	}
	// The body is decoded here as gqlgen would decode it: gqlgen reports
	// a body it cannot decode with no code, so it would pass as an
	// internal error. A body without a query is a malformed request,
	// whatever the client accepts, unless it names a persisted query by
	// its hash.
	params, err := decodeBody(body)
	switch {
	case errors.Is(err, errNotRequest):
		return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "json", "the request body is not a GraphQL request"}}
	case err != nil:
		return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "json", "the request body is not valid JSON"}}
	}
	req := &request{query: params.query, operationName: params.operationName,
		variables: params.variables, extensions: params.extensions}
	if herr := e.documentID(req, params.documentID); herr != nil {
		return nil, herr
	}
	if req.query == "" && req.extensions["persistedQuery"] == nil {
		return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "no_query", "the request has no query"}}
	}
	return req, nil
}

// A POST body is read into a buffer lent for the request: decodeBody
// copies out what it keeps (strings, raw messages), so the bytes are free
// once admit returns. Lending saves Q1 a twentieth of what it allocates,
// and so of the collections that make its tail (docs/speed.md). Buffers
// grown past pooledBodyBytes are dropped rather than kept; the pool holds
// at most one per request reading its body at once, and the collector
// empties it (docs/public-endpoint.md, What the gateway keeps).
const pooledBodyBytes = 64 << 10

func (e *endpoint) borrowBody() *bytes.Buffer {
	if b, ok := e.bodies.Get().(*bytes.Buffer); ok {
		return b
	}
	return new(bytes.Buffer)
}

func (e *endpoint) returnBody(b *bytes.Buffer) {
	if b.Cap() > pooledBodyBytes {
		return
	}
	b.Reset()
	e.bodies.Put(b)
}

// documentID reads a persisted document request's documentId (GraphQL
// over HTTP's appendix), when the endpoint has trusted documents to find
// it among: as the persisted query extension naming it, which the trusted
// documents resolve. Without them, documentId is ignored, as it was
// before.
func (e *endpoint) documentID(req *request, id string) *httpError {
	if id == "" || e.opts.TrustedDocuments == nil {
		return nil
	}
	if req.query != "" || req.extensions["persistedQuery"] != nil {
		return &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "document_id",
			"send a query, or the documentId of a trusted document, not both"}}
	}
	req.extensions = documentIDExtension(req.extensions, id)
	return nil
}

// cacheKey names the answer to req within one version of the data: the
// document's SHA-256 (sent as the query, as the hash of a persisted one,
// or, for a trusted document asked by another id its manifest gives it,
// found in listed), the operation name and the variables in canonical
// form. ok is false for a request the cache must not answer.
func (req *request) cacheKey(listed *documents.Pinned) (key answers.Key, ok bool) {
	var doc [sha256.Size]byte
	pq, _ := req.extensions["persistedQuery"].(map[string]any)
	hash, _ := pq["sha256Hash"].(string)
	switch {
	case req.query != "":
		doc = sha256.Sum256([]byte(req.query))
		if hash != "" && hash != hex.EncodeToString(doc[:]) {
			return key, false // gqlgen refuses a hash that does not match
		}
	case len(hash) == 2*sha256.Size && strings.ToLower(hash) == hash:
		if _, err := hex.Decode(doc[:], []byte(hash)); err != nil {
			return key, false
		}
	case listed != nil && listed.ByID(hash) != nil:
		doc = listed.ByID(hash).Sum
	default:
		return key, false
	}
	// Keys sorted, no white space, numbers as written: equal variables
	// are equal bytes.
	var vars []byte
	if req.variables != nil {
		var err error
		if vars, err = json.Marshal(req.variables); err != nil {
			return key, false
		}
	}
	h := sha256.New()
	h.Write(doc[:])
	h.Write([]byte(req.operationName))
	h.Write([]byte{0})
	h.Write(vars)
	h.Sum(key[:0])
	return key, true
}

func tooLarge(limit int64) *httpError {
	return &httpError{http.StatusRequestEntityTooLarge, limitError{CodeBodyTooLarge, "body",
		fmt.Sprintf("the request body is larger than %d bytes", limit)}}
}

// reject answers a request refused before GraphQL: a small GraphQL error
// body with the code and the request id, and nothing of the request.
func (e *endpoint) reject(w http.ResponseWriter, r *http.Request, err *httpError) {
	body, _ := json.Marshal(map[string]any{"errors": []map[string]any{{
		"message":    err.message,
		"extensions": map[string]any{"code": err.code, "requestId": RequestID(r.Context())},
	}}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(err.status)
	w.Write(body)
}

// isJSON reports whether a request's Content-Type is application/json,
// with or without parameters. The bare type, what nearly every client
// sends, is matched without mime.ParseMediaType, which allocates the
// parameters' map on every call.
func isJSON(contentType string) bool {
	if contentType == "application/json" {
		return true
	}
	mediaType, _, err := mime.ParseMediaType(contentType)
	return err == nil && mediaType == "application/json"
}
