package graphqlhttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	gqltransport "github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/catalogue-gateway/gateway/contentcoding"
	"github.com/catalogue-gateway/gateway/internal/clientaddr"
)

// notSubscription says why req, asked for as an event stream, is not
// served as one, or returns nil for a subscription or a live query. Only
// an operation seen to be one of those is streamed: a document that does not parse,
// or does not name one of its operations, is refused rather than left
// for gqlgen to report, since the report would take a stream's place.
func (e *endpoint) notSubscription(ctx context.Context, req *request) *httpError {
	query := req.query
	if s := e.docs.Pinned(); s != nil {
		if td := s.ByID(persistedHash(req.extensions)); query == "" && td != nil {
			// A trusted document asked for by id: its kind is the
			// listed text's (the check that runs it finds the text
			// again).
			query = td.Text
		}
		if e.opts.TrustedDocuments.mode == TrustedEnforce && s.ByText(query) == nil {
			// Not listed: the check refuses it before anything parses
			// it, as it refuses a POST's.
			return nil
		}
	}
	if query == "" {
		// Its text is in gqlgen's persisted query cache, which only
		// gqlgen reads; its kind cannot be known before it runs.
		return &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "stream_operation",
			"send the subscription's query text to open a stream, not only its persisted query hash"}}
	}
	// A stream's document is parsed once, however often clients
	// reconnect with it.
	known := e.docs.Lookup(query)
	doc := known.Parsed
	if doc == nil && known.Parses {
		// Only a valid query keeps its parse: the kind of a refused or
		// invalid one is read again, within the token limit, and gqlgen
		// reports what is wrong with it as it does over POST.
		doc, _ = parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, e.opts.Limits.MaxTokens)
	}
	var op *ast.OperationDefinition
	if doc != nil {
		op = doc.Operations.ForName(req.operationName) // as gqlgen finds it
	}
	switch {
	case doc == nil:
		return &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "stream_operation",
			"the query does not parse; POST it as application/json to see why"}}
	case op == nil:
		return &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "stream_operation",
			"the query has no operation of that name, or several and no operationName"}}
	case op.Operation == ast.Query && op.Directives.ForName("live") != nil:
		// A live query: streamed too, even with if: false (then answered
		// once, and the stream completes).
	case op.Operation != ast.Subscription:
		return &httpError{http.StatusBadRequest, limitError{CodeBadRequest, "stream_operation",
			"only subscriptions are served as Server-Sent Events; ask for queries as application/json, or mark them @live"}}
	}
	return nil
}

// serveStream serves req, a request for an event stream begun at start,
// as one if it is a subscription, and reports whether it did; a request
// that is not one, from a client that takes JSON too, is left to be
// answered as any other request.
func (e *endpoint) serveStream(w http.ResponseWriter, r *http.Request, req *request, start time.Time) (served bool) {
	herr := e.notSubscription(r.Context(), req)
	switch {
	case herr == nil:
		e.observeStream(req.operationName, e.stream(w, r, req), start)
		return true
	case e.incrementalQuery(req):
		// A query with @defer or @stream: answered as any query, its
		// parts as the stream's events (writeIncremental).
		return false
	case !acceptsJSON(r.Header.Get("Accept")):
		e.refuse(w, r, herr, start)
		return true
	}
	return false
}

// incrementalQuery reports whether req is a valid query whose document
// carries @defer or @stream.
func (e *endpoint) incrementalQuery(req *request) bool {
	if req.query == "" {
		return false
	}
	doc := e.docs.Lookup(req.query)
	if doc.Parsed == nil || !doc.InParts {
		return false
	}
	op := doc.Parsed.Operations.ForName(req.operationName)
	return op != nil && op.Operation == ast.Query
}

// observeStream reports a stream begun at start: ended, or refused.
func (e *endpoint) observeStream(operation, outcome string, start time.Time) {
	if outcome == "rejected" {
		e.opts.Observer.Request(operation, outcome, time.Since(start), 0)
		return
	}
	e.opts.Observer.StreamEnded(operation, outcome, time.Since(start))
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

// isStream reports a request asking for an event stream: a POST of JSON
// whose Accept names text/event-stream, as graphql-sse sends it, or a GET
// whose Accept names it, as a browser's EventSource sends it (the
// protocol's "distinct connections" mode, with the operation in the URL).
func isStream(r *http.Request) bool {
	if r.Method == http.MethodGet {
		return strings.Contains(r.Header.Get("Accept"), "text/event-stream")
	}
	return gqltransport.SSE{}.Supports(r)
}

// takePlace takes one of the server's MaxStreams places and one of
// client's MaxStreamsPerClient for a subscription (an event stream, or one
// carried by a WebSocket), or says why there is none. A client past its
// own cap is told so first: waiting for the server to have room would not
// help it.
func (e *endpoint) takePlace(client netip.Prefix) *httpError {
	if e.opts.MaxStreams == 0 {
		e.opts.Observer.Rejected("streams")
		return &httpError{http.StatusServiceUnavailable, limitError{CodeStreamsOff, "streams",
			"subscriptions are turned off on this server"}}
	}
	if !e.clientStreams.Acquire(client) {
		e.opts.Observer.Rejected("streams_per_client")
		return &httpError{http.StatusTooManyRequests, limitError{CodeTooManyStreamsForClient, "streams_per_client",
			"this client has too many subscriptions open; close one first"}}
	}
	if !e.streams.TryAcquire(1) {
		e.clientStreams.Release(client)
		e.opts.Observer.Rejected("streams")
		return &httpError{http.StatusServiceUnavailable, limitError{CodeTooManyStreams, "streams",
			"too many subscriptions are open; try again later"}}
	}
	e.opts.Observer.Streams(1)
	return nil
}

// releasePlace gives back the places takePlace took.
func (e *endpoint) releasePlace(client netip.Prefix) {
	e.opts.Observer.Streams(-1)
	e.streams.Release(1)
	e.clientStreams.Release(client)
}

// refusePlace answers a stream refused by takePlace; a refusal that may
// pass later says when to try again.
func (e *endpoint) refusePlace(w http.ResponseWriter, r *http.Request, herr *httpError) {
	if herr.code != CodeStreamsOff {
		w.Header().Set("Retry-After", "10")
	}
	e.reject(w, r, herr)
}

// stream serves a subscription as a stream of Server-Sent Events (the
// GraphQL over SSE protocol, "distinct connections" mode), by gqlgen's SSE
// transport. A stream lasts as long as its client listens, up to
// StreamMaxAge: it has no time budget, it does not queue for a core (it is
// idle between events), its answers are not cached, and the server's read
// and write timeouts are lifted for it. It holds one of MaxStreams places,
// and one of its client's MaxStreamsPerClient, while it is open, and ends
// when the client leaves, when Done closes or at its StreamMaxAge. An
// operation refused before it runs takes no place: it is answered at once
// (refuseOperation). It returns the outcome, for the observer.
func (e *endpoint) stream(w http.ResponseWriter, r *http.Request, req *request) string {
	ctx := graphql.StartOperationTrace(r.Context())
	defer func() {
		if p := recover(); p != nil {
			// A panic outside any resolver: logged, and the stream ends
			// (or is never opened).
			e.exec.PresentRecoveredError(ctx, p)
		}
	}()
	// The operation is checked before it may take a place, as a POST's
	// is before it runs.
	oc, errs := e.check(ctx, r, req)
	if errs != nil {
		e.refuseOperation(w, r, e.exec.DispatchError(graphql.WithOperationContext(ctx, oc), errs))
		return "rejected"
	}
	client := clientaddr.Key(r, e.opts.TrustedProxies)
	if herr := e.takePlace(client); herr != nil {
		e.refusePlace(w, r, herr)
		return "rejected"
	}
	defer e.releasePlace(client)
	var exec graphql.GraphExecutor = checkedOperation{e.chooser, oc}
	if oc.Operation.Operation == ast.Query {
		// Live: its runs pin the data of their time, and it keeps what
		// it needs between them, charged to its share.
		pin := func(ctx context.Context) context.Context { return ctx }
		if e.opts.PerRequest != nil {
			pin = e.opts.PerRequest
		}
		q := e.startLive(ctx, oc, client, liveOf(oc), pin)
		if q == nil {
			e.opts.Observer.Rejected("live_queries")
			e.refusePlace(w, r, liveRefusal())
			return "rejected"
		}
		exec = liveOperation{checkedOperation{e.chooser, oc}, q}
	}
	// Proxies that buffer responses (nginx does by default) would hold
	// the events back.
	w.Header().Set("X-Accel-Buffering", "no")
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})

	ctx, cancel := context.WithCancel(ctx)
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
	// gqlgen's SSE transport reads a request of its own and asks the
	// executor for its operation: it is given an empty one, and the
	// operation checked above.
	r = r.Clone(ctx)
	r.Method = http.MethodPost
	r.Header.Set("Content-Type", typeJSON)
	r.Body = io.NopCloser(strings.NewReader("{}"))
	gqltransport.SSE{KeepAlivePingInterval: e.opts.KeepAlive}.Do(sw, r, exec)
	sw.close()
	return "ok"
}

// refuseOperation answers a stream whose operation gqlgen's executor
// refused before running it (resp holds the errors): no stream is kept
// open for it, and no place taken. As graphql-sse's reference handler
// does, a client that takes JSON gets the errors as a JSON answer, with a
// 4xx; one that takes only an event stream (graphql-sse's client, a
// browser's EventSource, which cannot read a 4xx's body) gets them as the
// stream's one next event, then complete, as the GraphQL over SSE
// protocol requires of errors found before execution. Either way the
// errors have no data entry beside them: nothing ran.
func (e *endpoint) refuseOperation(w http.ResponseWriter, r *http.Request, resp *graphql.Response) {
	res := &result{body: marshalWithoutData(resp)}
	if accept := r.Header.Get("Accept"); acceptsJSON(accept) {
		res.contentType = responseType(accept)
		// What GraphQL itself refuses is a 400, as graphql-sse's handler
		// answers it and as application/graphql-response+json does; the
		// gateway's own limits keep the status they have over POST.
		res.status = requestErrorStatus(resp.Errors, res.contentType)
		if res.status == http.StatusOK {
			res.status = http.StatusBadRequest
		}
		e.write(w, r, res, contentcoding.Accept{}) // not an answer: never compressed
		return
	}
	h := w.Header()
	h.Add("Vary", "Accept")
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store") // a stream, however short: never cached
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "event: next\ndata: %s\n\nevent: complete\n\n", res.body)
}

// checkedOperation is the endpoint's executor (its chooser) with one
// operation already checked: asked for an operation, it gives that one,
// so that a stream's document is not checked a second time by gqlgen's
// SSE transport.
type checkedOperation struct {
	*chooser
	oc *graphql.OperationContext
}

func (c checkedOperation) CreateOperationContext(context.Context, *graphql.RawParams) (*graphql.OperationContext, gqlerror.List) {
	return c.oc, nil
}

var errStreamEnded = errors.New("graphqlhttp: write after the stream ended")

// streamWriter is a stream's response writer. gqlgen's keep-alive
// goroutine may tick just as the stream ends; once the handler is done,
// writes are dropped rather than sent on a response that is over.
type streamWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController

	mu      sync.Mutex
	closed  bool
	started bool // the header is sent
}

func (s *streamWriter) Header() http.Header { return s.w.Header() }

func (s *streamWriter) WriteHeader(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.start()
		s.w.WriteHeader(status)
	}
}

func (s *streamWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, errStreamEnded
	}
	s.start()
	return s.w.Write(p)
}

// start readies the header to be sent: a stream is never stored by a
// cache (gqlgen's transport says only no-cache, which lets a CDN keep
// it), and no cache between may hold it. s.mu is held.
func (s *streamWriter) start() {
	if !s.started {
		s.started = true
		s.w.Header().Set("Cache-Control", "no-store")
	}
}

// Flush sends what was written at once: each event as it happens.
func (s *streamWriter) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.rc.Flush()
	}
}

// close ends the writes: any later one is dropped.
func (s *streamWriter) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
}
