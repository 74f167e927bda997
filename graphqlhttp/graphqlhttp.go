// Package graphqlhttp serves a gqlgen schema over HTTP for a public,
// unauthenticated endpoint: GraphQL over HTTP as the specification and
// common clients expect it (POST with JSON, GET for queries, automatic
// persisted queries), with every request bounded before it runs (body, URL,
// tokens, depth, fields, aliases, directives, complexity, time), errors
// shaped once so that no stack, path, host or Go type leaks, and a request
// id that ties a response to the log.
//
// It knows nothing of the catalogue; it wraps any executable schema.
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
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	gqltransport "github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/semaphore"

	"github.com/catalogue-gateway/gateway/contentcoding"
)

// Options configure the endpoint.
type Options struct {
	Limits Limits
	// RequestTimeout is each request's execution budget. Default 10s.
	RequestTimeout time.Duration
	// MaxErrors caps the errors of one response. Default 20.
	MaxErrors int
	// Introspection allows __schema and __type queries (the playground
	// needs them).
	Introspection bool
	// APQCacheSize is how many automatic persisted queries are kept.
	// Default 1000.
	APQCacheSize int
	Logger       *slog.Logger
	// Observer, if set, is told of every request.
	Observer Observer
	// Executor, if set, runs the operations it can faster than gqlgen's
	// generated executor; gqlgen runs the rest.
	Executor Executor

	// Lengths, if set, tells the cost limit how long the data's lists
	// are, for the request in ctx (see cost.go). Nil: every list that is
	// not a page costs UnknownListLength.
	Lengths func(ctx context.Context) Lengths

	// Cache, if set, keeps whole answers; see ResponseCache.
	Cache *ResponseCache
	// Version returns the version of the data the request reads, and
	// whether it is still the newest: answers are cached per version, and
	// only requests reading the newest version read or fill the cache. An
	// empty version caches nothing. Required with Cache.
	Version func(ctx context.Context) (version string, newest bool)
	// MaxAge is how long a browser or CDN may reuse a GET answer without
	// asking again (Cache-Control max-age): how long the data is expected
	// to stay as it is. 0 means no-cache: reuse only after a 304.
	MaxAge time.Duration

	// MaxStreams caps the event streams (subscriptions over Server-Sent
	// Events) open at once; beyond it a new one is refused with 503 and
	// TOO_MANY_SUBSCRIPTIONS. 0 refuses them all.
	MaxStreams int
	// MaxStreamsPerClient caps the event streams one client holds open at
	// once, so that one client cannot take every place of MaxStreams:
	// beyond it a new one is refused with 429 and
	// TOO_MANY_SUBSCRIPTIONS_FOR_CLIENT. A client is an IPv4 address or
	// an IPv6 /64 (see TrustedProxies). Default 10.
	MaxStreamsPerClient int
	// TrustedProxies are the proxies (load balancers, nginx) whose
	// X-Forwarded-For is believed: a stream through one of them counts
	// against the nearest hop that header names outside these prefixes.
	// Nil: a stream counts against its peer's address.
	TrustedProxies []netip.Prefix
	// KeepAlive is how often an idle stream gets a comment line, so that
	// proxies and browsers keep it open. Default 15s.
	KeepAlive time.Duration
	// Done, once closed, ends every open stream cleanly, with the
	// protocol's "complete" event: the server is shutting down. Nil: streams
	// end only when their clients leave or reach StreamMaxAge.
	Done <-chan struct{}
	// StreamMaxAge ends a stream open this long as Done does, with
	// "complete", so that its client subscribes again: no place is held
	// for good, and a client comes back to whichever replica the balancer
	// now picks. Each stream ends at a random time in the last tenth of
	// it. Default 30m.
	StreamMaxAge time.Duration

	// Tracer, if set, records each operation's phases as spans, children
	// of the span in the request's context: graphql.parse,
	// graphql.validate and graphql.execute (under which the loaders'
	// spans go), with graphql.operation.name and graphql.operation.type.
	// The request's span gets those attributes too, and
	// graphql.response_cache: hit, miss, shared or bypass. The document
	// is never recorded; event streams get no GraphQL spans. Nil records
	// nothing and costs nothing.
	Tracer trace.Tracer
}

// Observer is told what the endpoint does, for metrics.
type Observer interface {
	// Cached reports a lookup in the response cache: a hit, or a miss
	// that ran the query.
	Cached(hit bool)
	// Request reports an answered request: its operation name ("" when
	// none), its outcome ("ok", "error", "rejected", "timeout"), how long
	// it took and how many bytes the response body had.
	Request(operation, outcome string, d time.Duration, bytes int)
	// Rejected reports a request refused by a limit, named as in the
	// limitError ("body", "depth", "complexity", …).
	Rejected(limit string)
	// Streams reports an event stream opened (+1) or ended (-1).
	Streams(delta int)
	// Executed reports an operation run, by what ran it: "engine" (the
	// Executor of Options) or "gqlgen" (gqlgen's generated executor).
	Executed(executor string)
}

// gqlgen keeps the table of which error codes are protocol errors (a 4xx
// rather than a 200) in one package-level map; registering codes is its
// documented way to extend it, and it is done once, here.
func init() {
	for _, code := range []string{CodeTooDeep, CodeTooManyFields, CodeTooManyAliases, CodeTooManyDirective,
		CodeFragmentCycle, CodeTooComplex, CodeBadRequest, CodeNoIntrospection} {
		errcode.RegisterErrorType(code, errcode.KindProtocol)
	}
}

// New returns the endpoint serving es.
func New(es graphql.ExecutableSchema, opts Options) http.Handler {
	opts.Limits = opts.Limits.withDefaults()
	opts.Limits.noIntrospection = !opts.Introspection
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 10 * time.Second
	}
	if opts.MaxErrors <= 0 {
		opts.MaxErrors = 20
	}
	if opts.APQCacheSize <= 0 {
		opts.APQCacheSize = 1000
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Observer == nil {
		opts.Observer = nopObserver{}
	}
	if opts.Version == nil {
		opts.Cache = nil
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = 15 * time.Second
	}
	if opts.MaxStreamsPerClient <= 0 {
		opts.MaxStreamsPerClient = 10
	}
	if opts.StreamMaxAge <= 0 {
		opts.StreamMaxAge = 30 * time.Minute
	}
	e := &endpoint{opts: opts, verdicts: lru.New[*limitError](1000), cacheControl: "no-cache",
		running: semaphore.NewWeighted(int64(runtime.GOMAXPROCS(0))), streams: semaphore.NewWeighted(int64(opts.MaxStreams))}
	e.operationKinds = lru.New[operationKinds](1000)
	e.clientStreams = newClientStreams(opts.MaxStreamsPerClient)
	if opts.MaxAge > 0 {
		e.cacheControl = "public, max-age=" + strconv.Itoa(int(opts.MaxAge.Seconds()))
	}

	srv := handler.New(es)
	// gqlgen picks the first transport that supports a request: the
	// subscriptions stream hands on, then everything admit let through.
	srv.AddTransport(sseTransport{gqltransport.SSE{KeepAlivePingInterval: opts.KeepAlive}})
	srv.AddTransport(transport{e})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.SetParserTokenLimit(opts.Limits.MaxTokens)
	// "Did you mean" suggestions would let anyone map the schema with
	// introspection off, and make error messages longer than they need be.
	srv.SetDisableSuggestion(true)
	if opts.Introspection {
		srv.Use(extension.Introspection{})
	}
	srv.Use(persistedQueries{extension.AutomaticPersistedQuery{Cache: lru.New[string](opts.APQCacheSize)}})
	srv.Use(guard{e})
	srv.Use(costLimit{e})
	// The time budget is the request context's deadline. No middleware
	// wraps every field to check it (that cost an eighth of a nested
	// query's time): every resolver that does work checks the context
	// before it starts, and presentError reports what it returns as a
	// timeout.
	srv.AroundOperations(answerTimeouts)
	srv.AroundResponses(e.capErrors)
	srv.SetErrorPresenter(e.presentError)
	srv.SetRecoverFunc(e.recoverPanic)
	e.gql = srv
	e.costs = newCoster(es.Schema())
	return e
}

type nopObserver struct{}

func (nopObserver) Request(string, string, time.Duration, int) {}
func (nopObserver) Rejected(string)                            {}
func (nopObserver) Streams(int)                                {}
func (nopObserver) Executed(string)                            {}
func (nopObserver) Cached(bool)                                {}

type endpoint struct {
	opts Options
	gql  *handler.Server
	// verdicts remembers checkQuery's answer per query, so a query asked
	// again is not parsed again (gqlgen keeps its own parse).
	verdicts *lru.LRU[*limitError]
	// cacheControl is the Cache-Control of a complete GET answer.
	cacheControl string
	// running admits as many operations at once as there are cores to
	// run them; the others wait their turn in arrival order, within their
	// time budget. Run all at once, they share the cores and the
	// scheduler, and the unlucky ones wait far longer: at 32 connections
	// this cut a nested query's p99 from about 120 ms to about 45 ms.
	running *semaphore.Weighted
	// streams holds a place for each open event stream.
	streams *semaphore.Weighted
	// costs measures operations against the schema (see cost.go).
	costs *coster
	// operationKinds remembers the operations of documents asked for as
	// streams, so that a stream's document is parsed once before gqlgen
	// sees it.
	operationKinds *lru.LRU[operationKinds]
	// clientStreams counts each client's open streams.
	clientStreams *clientStreams
}

type requestIDKey struct{}

// requestInfo is filled in as gqlgen handles the request, for the observer.
type requestInfo struct{ operation string }

type requestInfoKey struct{}

// answerTimeouts answers a request whose time ran out before its execution
// began: gqlgen then gives no response at all, which would be written as
// a bare "null". (The transport notes the operation's name.)
func answerTimeouts(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	responses := next(ctx)
	first := true
	return func(ctx context.Context) *graphql.Response {
		resp := responses(ctx)
		if resp == nil && first && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			resp = &graphql.Response{Errors: gqlerror.List{{Message: "the request ran out of time",
				Extensions: map[string]any{"code": CodeTimeout, "requestId": RequestID(ctx)}}}}
		}
		first = false
		return resp
	}
}

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

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := newRequestID(r.Header.Get("X-Request-ID"))
	w.Header().Set("X-Request-ID", id)
	info := &requestInfo{}
	r = r.WithContext(context.WithValue(context.WithValue(r.Context(), requestIDKey{}, id), requestInfoKey{}, info))

	req, herr := e.admit(w, r)
	if herr != nil {
		e.opts.Observer.Rejected(herr.limit)
		e.reject(w, r, herr)
		e.opts.Observer.Request("", "rejected", time.Since(start), 0)
		return
	}

	if isStream(r) {
		herr := e.notSubscription(r.Context(), req)
		switch {
		case herr == nil:
			n, outcome := e.stream(w, r)
			e.opts.Observer.Request(info.operation, outcome, time.Since(start), n)
			return
		case !acceptsJSON(r.Header.Get("Accept")):
			e.opts.Observer.Rejected(herr.limit)
			e.reject(w, r, herr)
			e.opts.Observer.Request("", "rejected", time.Since(start), 0)
			return
		}
		// Not a subscription, from a client that takes JSON too: it is
		// answered as any other request.
	}

	res, hit := e.resolve(r, req)
	if hit {
		info.operation = req.operationName
	}
	n := e.write(w, r, res)
	outcome := "ok"
	switch {
	case res.timedOut:
		outcome = "timeout"
	case res.status >= 400:
		outcome = "rejected"
	case res.answer == nil:
		outcome = "error"
	}
	e.opts.Observer.Request(info.operation, outcome, time.Since(start), n)
}

// isStream reports a request asking for an event stream: a POST of JSON
// whose Accept names text/event-stream.
func isStream(r *http.Request) bool { return gqltransport.SSE{}.Supports(r) }

// stream serves a subscription as a stream of Server-Sent Events (the
// GraphQL over SSE protocol, "distinct connections" mode), by gqlgen's SSE
// transport. A stream lasts as long as its client listens, up to
// StreamMaxAge: it has no time budget, it does not queue for a core (it is
// idle between events), its answers are not cached, and the server's read
// and write timeouts are lifted for it. It holds one of MaxStreams places,
// and one of its client's MaxStreamsPerClient, while it is open, and ends
// when the client leaves, when Done closes or at its StreamMaxAge. It
// returns the bytes written and the outcome, for the observer.
func (e *endpoint) stream(w http.ResponseWriter, r *http.Request) (int, string) {
	if e.opts.MaxStreams == 0 {
		e.opts.Observer.Rejected("streams")
		e.reject(w, r, &httpError{http.StatusServiceUnavailable, limitError{CodeStreamsOff, "streams",
			"subscriptions are turned off on this server"}})
		return 0, "rejected"
	}
	// A client past its own cap is told so first: waiting for the
	// server to have room would not help it.
	client := clientKey(clientAddr(r, e.opts.TrustedProxies))
	if !e.clientStreams.acquire(client) {
		e.opts.Observer.Rejected("streams_per_client")
		w.Header().Set("Retry-After", "10")
		e.reject(w, r, &httpError{http.StatusTooManyRequests, limitError{CodeTooManyStreamsForClient, "streams_per_client",
			"this client has too many subscriptions open; close one first"}})
		return 0, "rejected"
	}
	defer e.clientStreams.release(client)
	if !e.streams.TryAcquire(1) {
		e.opts.Observer.Rejected("streams")
		w.Header().Set("Retry-After", "10")
		e.reject(w, r, &httpError{http.StatusServiceUnavailable, limitError{CodeTooManyStreams, "streams",
			"too many subscriptions are open; try again later"}})
		return 0, "rejected"
	}
	defer e.streams.Release(1)
	e.opts.Observer.Streams(1)
	defer e.opts.Observer.Streams(-1)
	// Proxies that buffer responses (nginx does by default) would hold
	// the events back.
	w.Header().Set("X-Accel-Buffering", "no")
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		age := time.NewTimer(streamAge(e.opts.StreamMaxAge))
		defer age.Stop()
		select {
		case <-e.opts.Done: // nil: never
		case <-age.C:
		case <-ctx.Done():
		}
		cancel()
	}()
	sw := &streamWriter{w: w, rc: rc}
	e.gql.ServeHTTP(sw, r.WithContext(context.WithValue(ctx, streamKey{}, struct{}{})))
	return sw.close(), "ok"
}

var errStreamEnded = errors.New("graphqlhttp: write after the stream ended")

// streamWriter is a stream's response writer. gqlgen's keep-alive
// goroutine may tick just as the stream ends; once the handler is done,
// writes are dropped rather than sent on a response that is over.
type streamWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController

	mu     sync.Mutex
	closed bool
	n      int
}

func (s *streamWriter) Header() http.Header { return s.w.Header() }

func (s *streamWriter) WriteHeader(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.w.WriteHeader(status)
	}
}

func (s *streamWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, errStreamEnded
	}
	n, err := s.w.Write(p)
	s.n += n
	return n, err
}

// Flush sends what was written at once: each event as it happens.
func (s *streamWriter) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.rc.Flush()
	}
}

// close ends the writes and returns the bytes written.
func (s *streamWriter) close() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return s.n
}

// result is a GraphQL response as gqlgen wrote it: a complete answer (no
// errors), or anything else, kept as written.
type result struct {
	status int
	header http.Header
	body   []byte
	// answer is set when the response is a complete answer.
	answer *answer
	// timedOut reports a run that used up its time budget.
	timedOut bool
}

// resolve answers req: from the cache if it holds the answer, else by
// running it, once for all identical requests that miss together. hit
// reports an answer from the cache.
func (e *endpoint) resolve(r *http.Request, req *request) (res *result, hit bool) {
	if e.opts.Cache == nil {
		return e.run(r, req, cacheKey{}, nil), false
	}
	key, keyed := req.cacheKey()
	version, newest := "", false
	if keyed {
		version, newest = e.opts.Version(r.Context())
	}
	if version == "" || !newest {
		e.noteCache(r.Context(), "bypass")
		return e.run(r, req, key, nil), false
	}
	if a := e.opts.Cache.get(version, key); a != nil {
		e.opts.Observer.Cached(true)
		e.noteCache(r.Context(), "hit")
		return &result{status: http.StatusOK, answer: a}, true
	}
	e.opts.Observer.Cached(false)
	e.noteCache(r.Context(), "miss")
	leader := false
	v, _, _ := e.opts.Cache.flight.Do(version+string(key[:]), func() (any, error) {
		leader = true
		res := e.run(r, req, key, e.opts.Cache)
		if res.answer != nil {
			e.opts.Cache.put(version, res.answer)
		}
		return res, nil
	})
	res = v.(*result)
	if !leader && res.answer == nil {
		// Another request's failure is its own: its errors carry its
		// request id. Run this one for itself.
		return e.run(r, req, key, nil), false
	}
	if !leader {
		e.noteCache(r.Context(), "shared")
	}
	return res, false
}

// run executes the request with gqlgen and keeps what it wrote. A complete
// answer is made ready for c (nil: not to be cached).
//
// The time budget starts here: an answer from the cache costs none.
func (e *endpoint) run(r *http.Request, req *request, key cacheKey, c *ResponseCache) *result {
	ctx, cancel := context.WithTimeout(context.WithValue(r.Context(), requestKey{}, req), e.opts.RequestTimeout)
	defer cancel()
	buf := &bufferedResponse{header: http.Header{}, status: http.StatusOK}
	// Past its time budget while waiting, the request still goes to
	// gqlgen, which answers it with the timeout error.
	if err := e.running.Acquire(ctx, 1); err == nil {
		defer e.running.Release(1)
	}
	e.gql.ServeHTTP(buf, r.WithContext(ctx))
	res := &result{status: buf.status, header: buf.header, body: buf.body.Bytes(),
		timedOut: errors.Is(ctx.Err(), context.DeadlineExceeded)}
	// gqlgen writes "errors" first when there are any.
	if res.status == http.StatusOK && bytes.HasPrefix(res.body, []byte(`{"data":`)) {
		res.answer = newAnswer(c, key, res.body)
		// Compressed here, in the operation's place among the cores,
		// so that compressing large answers has the same bound on
		// concurrency as making them. (A cached answer's variants are
		// made once per entry.)
		res.answer.in(contentcoding.Negotiate(r.Header.Get("Accept-Encoding")))
	}
	return res
}

// write sends res and returns the bytes of body written. A complete answer
// goes out in the encoding the client prefers, and a GET answer with
// validators, so that browsers and CDNs can keep it; anything else goes
// out as gqlgen wrote it, marked not to be kept.
func (e *endpoint) write(w http.ResponseWriter, r *http.Request, res *result) int {
	h := w.Header()
	// A shared cache must key a GET answer on everything it varies by:
	// the encoding, the media type (Accept), and Origin, which the CORS
	// layer has added already, so Vary is added to, never set.
	h.Add("Vary", "Accept, Accept-Encoding")
	a := res.answer
	if a == nil {
		for k, v := range res.header {
			if k != "Vary" {
				h[k] = v
			}
		}
		if r.Method == http.MethodGet {
			h.Set("Cache-Control", "no-store")
		}
		w.WriteHeader(res.status)
		n, _ := w.Write(res.body)
		return n
	}
	contentType := responseType(r.Header.Get("Accept"))
	h.Set("Content-Type", contentType)
	enc, body := a.in(contentcoding.Negotiate(r.Header.Get("Accept-Encoding")))
	if r.Method == http.MethodGet {
		// The same bytes under another media type are another
		// representation, with a tag of its own.
		base := a.etagBase()
		if contentType == typeGraphQLResponse {
			base += "-graphql"
		}
		etag := contentcoding.ETag(base, enc)
		h.Set("ETag", etag)
		h.Set("Cache-Control", e.cacheControl)
		if inm := r.Header.Get("If-None-Match"); inm != "" && contentcoding.NoneMatch(inm, etag) {
			w.WriteHeader(http.StatusNotModified)
			return 0
		}
	}
	if enc != contentcoding.Identity {
		h.Set("Content-Encoding", enc.Token())
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	n, _ := w.Write(body)
	return n
}

// The media types of a response.
const (
	typeJSON            = "application/json"
	typeGraphQLResponse = "application/graphql-response+json"
)

// responseType is the media type of an answer for an Accept header,
// chosen as gqlgen's transports choose it, so that an answer from the
// cache is labelled as the same answer run again would be.
func responseType(accept string) string {
	const plain, graphql = typeJSON, typeGraphQLResponse
	if accept == "" {
		return plain
	}
	for part := range strings.SplitSeq(accept, ",") {
		mediaType, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mediaType {
		case "*/*", "application/*", plain:
			return plain
		case graphql:
			return graphql
		}
	}
	return graphql
}

// bufferedResponse keeps what gqlgen writes, to be sent, cached or both.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header         { return b.header }
func (b *bufferedResponse) WriteHeader(status int)      { b.status = status }
func (b *bufferedResponse) Write(p []byte) (int, error) { return b.body.Write(p) }

// httpError is a request refused before GraphQL sees it.
type httpError struct {
	status int
	limitError
}

// request is what admit read of a GraphQL request, for the cache key; gqlgen
// reads the request again for itself.
type request struct {
	query, operationName string
	// variables is the variables' JSON object, as sent; nil when none.
	variables  json.RawMessage
	extensions map[string]any
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
			req.variables = json.RawMessage(v)
		}
		var vars map[string]any
		if req.variables != nil && json.Unmarshal(req.variables, &vars) != nil {
			return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "json", "variables must be a JSON object"}}
		}
		if v := query.Get("extensions"); v != "" && decodeObject(json.RawMessage(v), &req.extensions) != nil {
			return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "json", "extensions must be a JSON object"}}
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
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	// (application/graphql-response+json names a response, in Accept; as a
	// request's type gqlgen has no transport for it.)
	if err != nil || mediaType != "application/json" {
		return nil, &httpError{http.StatusUnsupportedMediaType, limitError{CodeUnsupportedMedia, "media_type",
			"send the request as application/json"}}
	}
	if r.ContentLength > e.opts.Limits.MaxBodyBytes {
		return nil, tooLarge(e.opts.Limits.MaxBodyBytes)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, e.opts.Limits.MaxBodyBytes))
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
	// The body is decoded here as gqlgen will decode it: gqlgen reports a
	// body it cannot decode with no code, so it would pass as an internal
	// error. A body without a query is a malformed request, whatever the
	// client accepts, unless it names a persisted query by its hash.
	var params struct {
		Query         string          `json:"query"`
		OperationName string          `json:"operationName"`
		Variables     json.RawMessage `json:"variables"`
		Extensions    json.RawMessage `json:"extensions"`
	}
	if err := json.Unmarshal(body, &params); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "json", "the request body is not valid JSON"}}
		}
		return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "json", "the request body is not a GraphQL request"}}
	}
	if v := bytes.TrimSpace(params.Variables); len(v) > 0 && v[0] != '{' && !bytes.Equal(v, []byte("null")) {
		return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "json", "the request body is not a GraphQL request"}}
	}
	var extensions map[string]any
	if v := bytes.TrimSpace(params.Extensions); len(v) > 0 && (v[0] != '{' && !bytes.Equal(v, []byte("null")) || decodeObject(v, &extensions) != nil) {
		return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "json", "the request body is not a GraphQL request"}}
	}
	if params.Query == "" && extensions["persistedQuery"] == nil {
		return nil, &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "no_query", "the request has no query"}}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return &request{query: params.Query, operationName: params.OperationName,
		variables: params.Variables, extensions: extensions}, nil
}

// cacheKey names the answer to req within one version of the data: the
// document's SHA-256 (sent as the query, or as the hash of a persisted
// one), the operation name and the variables in canonical form. ok is
// false for a request the cache must not answer.
func (req *request) cacheKey() (key cacheKey, ok bool) {
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
	default:
		return key, false
	}
	vars, ok := canonicalJSON(req.variables)
	if !ok {
		return key, false
	}
	h := sha256.New()
	h.Write(doc[:])
	h.Write([]byte(req.operationName))
	h.Write([]byte{0})
	h.Write(vars)
	h.Sum(key[:0])
	return key, true
}

// canonicalJSON rewrites a JSON value so that equal values are equal
// bytes: object keys sorted, no white space, numbers kept as written.
func canonicalJSON(raw json.RawMessage) ([]byte, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if v == nil {
		return nil, true
	}
	out, err := json.Marshal(v)
	return out, err == nil
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

// persistedQueries is gqlgen's automatic persisted queries, with a code on
// the errors it reports without one (a bad hash, version or extension):
// they are the caller's mistakes, not internal errors.
type persistedQueries struct {
	extension.AutomaticPersistedQuery
}

func (p persistedQueries) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	err := p.AutomaticPersistedQuery.MutateOperationParameters(ctx, params)
	if err != nil && err.Extensions["code"] == nil {
		errcode.Set(err, CodeBadRequest)
	}
	return err
}

// guard is the gqlgen extension that measures a query before gqlgen parses
// and validates it (see checkQuery).
type guard struct{ e *endpoint }

func (guard) ExtensionName() string                   { return "QueryGuard" }
func (guard) Validate(graphql.ExecutableSchema) error { return nil }

func (g guard) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	// Keyed by a digest, so a thousand remembered 64 KiB queries do not
	// cost 64 MiB.
	sum := sha256.Sum256([]byte(p.Query))
	key := string(sum[:])
	err, seen := g.e.verdicts.Get(ctx, key)
	if !seen {
		err = checkQuery(p.Query, g.e.opts.Limits)
		g.e.verdicts.Add(ctx, key, err)
	}
	if err != nil {
		g.e.opts.Observer.Rejected(err.limit)
		gerr := &gqlerror.Error{Message: err.message}
		errcode.Set(gerr, err.code)
		return gerr
	}
	return nil
}

// capErrors keeps a response's errors to MaxErrors.
func (e *endpoint) capErrors(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp != nil && len(resp.Errors) > e.opts.MaxErrors {
		more := len(resp.Errors) - e.opts.MaxErrors
		resp.Errors = append(resp.Errors[:e.opts.MaxErrors:e.opts.MaxErrors], &gqlerror.Error{
			Message:    fmt.Sprintf("%d more errors left out", more),
			Extensions: map[string]any{"code": CodeTooManyErrors},
		})
	}
	return resp
}

// presentError shapes every error a response carries. Errors with a code
// were made to be read by the caller and pass as they are. Anything else is
// an internal failure: the caller sees a generic message, the code and the
// request id; the detail goes to the log.
func (e *endpoint) presentError(ctx context.Context, err error) *gqlerror.Error {
	if ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
		// A resolver stopped because the request's own budget ran out.
		// (An error that merely wraps DeadlineExceeded while the budget
		// remains, say from an upstream call, is an internal one.)
		return &gqlerror.Error{Message: "the request ran out of time", Path: pathOf(ctx),
			Extensions: map[string]any{"code": CodeTimeout}}
	}
	var gerr *gqlerror.Error
	if errors.As(err, &gerr) && gerr.Extensions["code"] != nil {
		gerr = graphql.DefaultErrorPresenter(ctx, gerr)
		if len(gerr.Message) > maxMessageBytes {
			// Validation messages quote the query's names and values,
			// which may be as long as the body.
			short := *gerr
			short.Message = strings.ToValidUTF8(gerr.Message[:maxMessageBytes], "") + "…"
			gerr = &short
		}
		return gerr
	}
	id := RequestID(ctx)
	e.opts.Logger.Error("graphql: internal error", "request_id", id, "path", pathOf(ctx), "err", err)
	return &gqlerror.Error{
		Message:    "internal error",
		Path:       pathOf(ctx),
		Extensions: map[string]any{"code": CodeInternal, "requestId": id},
	}
}

// maxMessageBytes bounds an error message.
const maxMessageBytes = 200

func pathOf(ctx context.Context) ast.Path {
	if graphql.GetFieldContext(ctx) == nil {
		return nil
	}
	return graphql.GetPath(ctx)
}

// recoverPanic turns a resolver's panic into an internal error; the stack
// goes to the log, never to the caller.
func (e *endpoint) recoverPanic(ctx context.Context, p any) error {
	e.opts.Logger.Error("graphql: panic", "request_id", RequestID(ctx), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	return errors.New("panic in a resolver")
}
