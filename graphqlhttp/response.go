package graphqlhttp

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/catalogue-gateway/gateway/contentcoding"
	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"
	"github.com/catalogue-gateway/gateway/graphqlhttp/answers"
	"github.com/catalogue-gateway/gateway/internal/clientaddr"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// result is a GraphQL response: a complete answer (no errors), or
// anything else, as it is to be written.
type result struct {
	status      int
	contentType string
	body        []byte
	// complete reports an answer with no errors; answer is set for it.
	complete bool
	answer   *answers.Answer
	// effort is how hard answer is compressed for this request: Fast
	// for the request that ran it, Dense for one that found it made.
	effort contentcoding.Effort
	// timedOut reports a run that used up its time budget.
	timedOut bool
	// operation is the operation's name, once it is known.
	operation string
	// cacheControl is the Cache-Control of a complete answer to a GET.
	cacheControl string
	// payloads, when set, are the answer's parts, to be written as
	// delivery says (writeIncremental) instead of body; never cached.
	payloads [][]byte
	delivery delivery
}

// serveAnswer answers req, begun at start, as one JSON response: from
// the cache, or run.
func (e *endpoint) serveAnswer(w http.ResponseWriter, r *http.Request, req *request, start time.Time) {
	accept := contentcoding.ParseAccept(r.Header.Get("Accept-Encoding"))
	res, _ := e.resolve(r, req, accept)
	n := e.write(w, r, res, accept)
	outcome := "ok"
	switch {
	case res.timedOut:
		outcome = "timeout"
	case res.status >= 400:
		outcome = "rejected"
	case res.payloads != nil:
	case res.answer == nil:
		outcome = "error"
	}
	e.opts.Observer.Request(res.operation, outcome, time.Since(start), n)
}

// resolve answers req: from the cache if it holds the answer, else by
// running it, once for all identical requests that miss together. hit
// reports an answer from the cache.
//
// An answer run for this request is compressed fast for it, in the coding
// it accepts (run); one found made (a hit, or another request's run) has
// shown it is served more than once, and goes out compressed densely
// (write).
func (e *endpoint) resolve(r *http.Request, req *request, accept contentcoding.Accept) (res *result, hit bool) {
	if e.opts.Cache == nil || e.inParts(r, req) {
		// An answer in parts is never cached, nor looked for there.
		return e.run(r, req, accept, answers.Key{}, nil), false
	}
	listed := e.docs.Pinned() // once: the key and the version see one manifest
	key, keyed := req.cacheKey(listed)
	version, newest := "", false
	if keyed {
		version, newest = e.opts.Version(r.Context())
		if s := listed; s != nil && version != "" {
			// An answer kept under one manifest is not given under
			// another, which may not list its document.
			version += "\x00trusted " + s.Gen()
		}
	}
	if version == "" || !newest {
		e.noteCache(r.Context(), "bypass")
		return e.run(r, req, accept, key, nil), false
	}
	if a := e.opts.Cache.Get(version, key); a != nil {
		e.opts.Observer.Cached(true)
		e.noteCache(r.Context(), "hit")
		if listed != nil {
			// Counted as the check would have: an operator reading log
			// mode's counts before enforcing sees every request.
			e.trusted(r.Context(), outcome(listed, req))
		}
		return &result{status: http.StatusOK, complete: true, answer: a, operation: req.operationName,
			effort: contentcoding.Dense}, true
	}
	e.opts.Observer.Cached(false)
	e.noteCache(r.Context(), "miss")
	v, leader := e.opts.Cache.Once(version, key, func() any {
		res := e.run(r, req, accept, key, e.opts.Cache)
		if res.answer != nil {
			e.opts.Cache.Put(version, res.answer)
		}
		return res
	})
	res = v.(*result)
	if leader {
		return res, false
	}
	if res.answer == nil {
		// Another request's failure is its own: its errors carry its
		// request id. Run this one for itself.
		return e.run(r, req, accept, key, nil), false
	}
	e.noteCache(r.Context(), "shared")
	shared := *res // the leader's, which it writes meanwhile
	shared.effort = contentcoding.Dense
	return &shared, false
}

// attrResponseCache is the response cache's verdict on a request, on its
// span (see tracing.go).
const attrResponseCache = attribute.Key("graphql.response_cache")

// noteCache notes the cache's verdict on the request's span. It is small
// enough to be inlined: with tracing off it costs a nil check.
func (e *endpoint) noteCache(ctx context.Context, verdict string) {
	if e.opts.Tracer != nil {
		trace.SpanFromContext(ctx).SetAttributes(attrResponseCache.String(verdict))
	}
}

// dense makes a's dense variant in encoding e, unless it is made: in the
// request's place among the cores, like any other work, and once per
// answer (brotli at level 6 takes 0.2 ms for a 3 KB answer, 1 ms for
// 38 KB).
func (e *endpoint) dense(r *http.Request, a *answers.Answer, enc contentcoding.Encoding) {
	if a.Made(enc) {
		return
	}
	defer e.takeCore(r.Context(), r)()
	a.In(e.compressor, contentcoding.Dense, enc)
}

// takeCore takes a core for r's work, waiting for its client's turn (see
// admission), and returns the func that gives it back. Past ctx's end it
// takes none, and the work goes on: a run's then answers with the
// timeout error.
func (e *endpoint) takeCore(ctx context.Context, r *http.Request) (release func()) {
	if e.running.TryAcquire() {
		return func() { e.running.Release(admission.Ticket{}) }
	}
	// The client is named only when the request may have to wait its
	// turn.
	if t, err := e.running.Acquire(ctx, clientaddr.Key(r, e.opts.TrustedProxies)); err == nil {
		return func() { e.running.Release(t) }
	}
	return func() {}
}

// run executes the request. A complete answer is made ready for c (nil:
// not to be cached), compressed fast in the coding accept prefers.
//
// The time budget starts here: an answer from the cache costs none.
func (e *endpoint) run(r *http.Request, req *request, accept contentcoding.Accept, key answers.Key, c *answers.Cache) (res *result) {
	ctx, cancel := context.WithTimeout(graphql.StartOperationTrace(r.Context()), e.opts.RequestTimeout)
	defer cancel()
	// Past its time budget while waiting, the request still goes to
	// gqlgen, which answers it with the timeout error.
	defer e.takeCore(ctx, r)()
	defer func() {
		// A panic outside any resolver (which gqlgen recovers itself):
		// an internal error, as gqlgen's handler would answer it.
		if p := recover(); p != nil {
			err := e.exec.PresentRecoveredError(ctx, p)
			gerr, _ := err.(*gqlerror.Error)
			res = &result{status: http.StatusInternalServerError, contentType: typeJSON,
				body: marshal(&graphql.Response{Errors: gqlerror.List{gerr}})}
		}
	}()
	res = e.execute(ctx, r, req)
	res.timedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
	if res.status == http.StatusOK && res.complete && res.payloads == nil {
		// Only a GET answer lists its keys, and any answer the cache
		// keeps may serve a GET.
		keys := ""
		if e.opts.Keys != nil && (r.Method == http.MethodGet || c != nil) {
			keys = e.opts.Keys(ctx)
		}
		res.answer = answers.New(c, key, res.body, res.cacheControl, keys)
		// Compressed here, in the operation's place among the cores,
		// so that compressing answers has the same bound on
		// concurrency as making them.
		res.effort = contentcoding.Fast
		res.answer.CompressFast(e.compressor, accept.Best(contentcoding.Fast))
	}
	return res
}

// write sends res and returns the bytes of body written. A complete answer
// goes out in the encoding the client prefers, at res's effort, and a GET
// answer with validators, so that browsers and CDNs can keep it; anything
// else goes out as gqlgen wrote it, marked not to be kept.
func (e *endpoint) write(w http.ResponseWriter, r *http.Request, res *result, accept contentcoding.Accept) int {
	if res.payloads != nil {
		return e.writeIncremental(w, r, res.payloads, res.delivery)
	}
	h := w.Header()
	// A shared cache must key a GET answer on everything it varies by:
	// the encoding, the media type (Accept), and Origin, which the CORS
	// layer has added already, so Vary is added to, never set.
	h.Add("Vary", "Accept, Accept-Encoding")
	a := res.answer
	if a == nil {
		h.Set("Content-Type", res.contentType)
		if r.Method == http.MethodGet {
			h.Set("Cache-Control", "no-store")
		}
		w.WriteHeader(res.status)
		n, _ := w.Write(res.body)
		return n
	}
	contentType := responseType(r.Header.Get("Accept"))
	h.Set("Content-Type", contentType)
	var base string
	if r.Method == http.MethodGet {
		// The same bytes under another media type are another
		// representation, with a tag of its own.
		base = a.ETagBase()
		if contentType == typeGraphQLResponse {
			base += "-graphql"
		}
		h.Set("Cache-Control", a.CacheControl())
		if keys, tags := a.Keys(); keys != nil {
			// Set on a 304 too: a cache revalidating its copy
			// updates its headers from it. The answer's own values,
			// which net/http only reads: a hit allocates nothing.
			h["Surrogate-Key"] = keys
			h["Cache-Tag"] = tags
		}
		// Checked before any variant is made: a revalidation costs no
		// compressing. A client holding the variant of either effort
		// holds this answer: a replica that has not served it before
		// gives the fast variant, one that has, the dense one.
		var modified time.Time
		if e.opts.Modified != nil {
			var lm string
			if modified, lm = e.opts.Modified(r.Context()); lm != "" {
				h["Last-Modified"] = []string{lm}
			}
		}
		if r.Header.Get("If-None-Match") == "" && contentcoding.NotModified(r.Header, "", modified) {
			// If-Modified-Since, only without If-None-Match (RFC 9110
			// 13.2.2): the data is no newer than the client's copy.
			h.Set("ETag", contentcoding.ETag(base, a.Coding(accept.Best(res.effort)), res.effort))
			w.WriteHeader(http.StatusNotModified)
			return 0
		}
		if inm := r.Header.Get("If-None-Match"); inm != "" {
			other := contentcoding.Dense
			if res.effort == contentcoding.Dense {
				other = contentcoding.Fast
			}
			for _, effort := range []contentcoding.Effort{res.effort, other} {
				tag := contentcoding.ETag(base, a.Coding(accept.Best(effort)), effort)
				if contentcoding.NoneMatch(inm, tag) {
					h.Set("ETag", tag)
					w.WriteHeader(http.StatusNotModified)
					return 0
				}
			}
		}
	}
	want := accept.Best(res.effort)
	if res.effort == contentcoding.Dense {
		e.dense(r, a, want)
	}
	enc, body := a.In(e.compressor, res.effort, want)
	if r.Method == http.MethodGet {
		h.Set("ETag", contentcoding.ETag(base, enc, res.effort))
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
