// Package graphqlhttp serves a gqlgen schema over HTTP for a public,
// unauthenticated endpoint: GraphQL over HTTP as the specification and
// common clients expect it (POST with JSON, GET for queries, automatic
// persisted queries, and trusted documents: only the operations a
// manifest lists, asked by id or text), subscriptions as Server-Sent Events (POST and GET)
// and over WebSockets (graphql-transport-ws), live queries (@live) over
// both, the schema as SDL for code
// generators, with every request bounded before it runs (body, URL,
// tokens, depth, fields, aliases, directives, complexity, time), errors
// shaped once so that no stack, path, host or Go type leaks, and a request
// id that ties a response to the log.
//
// This package is the transports and their wiring: reading a request
// (request.go, body.go), answering it (response.go), event streams
// (streams.go), WebSockets (websocket.go), live queries (live.go), the executor and its
// extensions (executor.go, execute.go), errors and traces. What it asks
// is in packages of their own below it, which never import it:
// admission (the limits, the cost, the cores' turns), documents (each
// text parsed and validated once, trusted documents, persisted queries,
// input coercion) and answers (the response cache and its encodings).
//
// It knows nothing of the catalogue; it wraps any executable schema.
package graphqlhttp

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/executor"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/semaphore"

	"github.com/catalogue-gateway/gateway/contentcoding"
	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"
	"github.com/catalogue-gateway/gateway/graphqlhttp/answers"
	"github.com/catalogue-gateway/gateway/graphqlhttp/documents"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/internal/memory"
)

// Options configure the endpoint.
type Options struct {
	Limits admission.Limits
	// RequestTimeout is each request's execution budget. Default 10s.
	RequestTimeout time.Duration
	// MaxErrors caps the errors of one response. Default 20.
	MaxErrors int
	// Introspection allows __schema and __type queries (the playground
	// needs them).
	Introspection bool
	// Memory is the memory budget the endpoint's stores draw from: the
	// documents (parses, verdicts, the Executor's plans) and the automatic
	// persisted queries, each bounded by its share in bytes and reported
	// in memory.Budget.Stats. Nil: the shares of memory.DefaultBudget(0),
	// unreported. (The response cache is bounded where it is made:
	// answers.NewCache.)
	Memory *memory.Budget
	Logger *slog.Logger
	// Observer, if set, is told of every request.
	Observer Observer
	// Executor, if set, runs the operations it can faster than gqlgen's
	// generated executor; gqlgen runs the rest.
	Executor execution.Executor

	// Lengths, if set, tells the cost limit how long the data's lists
	// are, for the request in ctx (see admission.Coster). Nil: every list that is
	// not a page costs UnknownListLength.
	Lengths func(ctx context.Context) admission.Lengths

	// Cache, if set, keeps whole answers; see answers.Cache.
	Cache *answers.Cache
	// Version returns the version of the data the request reads, and
	// whether it is still the newest: answers are cached per version, and
	// only requests reading the newest version read or fill the cache. An
	// empty version caches nothing. Required with Cache.
	Version func(ctx context.Context) (version string, newest bool)
	// Keys, if set, returns the entity keys of what the request in ctx
	// read, once it has run: space-separated, distinct and bounded in
	// length, "" for none. A complete GET answer lists them in its
	// Surrogate-Key header and, comma-separated, in its Cache-Tag header,
	// for a cache in front of the gateway to purge it by; they are kept
	// with the answer in Cache, so that a hit lists them too.
	Keys func(ctx context.Context) string
	// Changes, if set, serves live queries (a query marked @live, asked
	// for as an event stream or over a WebSocket): it returns a channel on
	// which, for each change of the data after the call, it sends the
	// keys of what changed (as Keys names them: a changed record's and its
	// collection's), until ctx ends, then closes it. It lets go of
	// whatever PerRequest or PerOperation pinned in ctx, which the stream
	// outlives: each run of the query pins the data of its own time. A
	// live query is run again when a change names a key its last answer
	// read (Keys), and its answer sent when it differs from the last sent;
	// it holds a stream's places and ends at StreamMaxAge. Nil: a live
	// query is answered once.
	Changes func(ctx context.Context) <-chan []string
	// MaxAge is how long a browser or CDN may reuse a GET answer without
	// asking again (Cache-Control max-age): how long the data is expected
	// to stay as it is. The schema's @cacheControl hints may shorten it
	// for the answers that read what they mark (answers.HintOf). 0 means
	// no-cache: reuse only after a 304.
	MaxAge time.Duration
	// Modified, if set, returns when the data the request reads last
	// changed, as every replica sees it (zero: not known), and the same as
	// an HTTP date, made once per version of the data: a complete GET
	// answer's Last-Modified, against which If-Modified-Since is answered
	// 304.
	Modified func(ctx context.Context) (at time.Time, header string)
	// StaleWhileRevalidate and StaleIfError let a shared cache serve a
	// public GET answer past its max-age while it asks again, and while
	// the gateway fails (RFC 5861). 0 leaves each out.
	StaleWhileRevalidate, StaleIfError time.Duration

	// MaxStreams caps the subscriptions open at once: event streams
	// (Server-Sent Events) and WebSockets together, a WebSocket counting
	// as one from its start and one more for each subscription beyond its
	// first. Beyond it a new one is refused with 503 and
	// TOO_MANY_SUBSCRIPTIONS. 0 refuses them all, and every WebSocket.
	MaxStreams int
	// MaxStreamsPerClient caps the subscriptions one client holds open at
	// once, counted as for MaxStreams, so that one client cannot take every place of MaxStreams:
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
	// proxies and browsers keep it open, and how often a WebSocket is
	// pinged (a client that has not answered within two is dropped).
	// Default 15s.
	KeepAlive time.Duration
	// Done, once closed, ends every open stream and WebSocket cleanly,
	// with the protocols' "complete": the server is shutting down. Nil: streams
	// end only when their clients leave or reach StreamMaxAge.
	Done <-chan struct{}
	// StreamMaxAge ends a stream open this long as Done does, with
	// "complete", so that its client subscribes again: no place is held
	// for good, and a client comes back to whichever replica the balancer
	// now picks. Each stream ends at a random time in the last tenth of
	// it. Default 30m.
	StreamMaxAge time.Duration

	// MaxOperationsPerWebSocket caps the operations, queries and
	// subscriptions alike, under way at once over one WebSocket: one more
	// gets the protocol's error message, TOO_MANY_OPERATIONS. Default 16.
	MaxOperationsPerWebSocket int
	// WebSocketBufferBytes bounds what waits to be sent to one
	// WebSocket's client: an answer that finds that many bytes queued and
	// not written means the client is not reading fast enough, and it is
	// cut off (its TCP connection closed) and its places freed; the
	// connection's own small messages wait for room instead (as long as
	// WebSocketWriteTimeout). One answer may overshoot the bound: an
	// answer is bounded by MaxResponseBytes. A connection holds at most
	// about this plus MaxResponseBytes queued, and the message being
	// written. Default 1 MiB, or WebSocketBudgetBytes when that is less.
	WebSocketBufferBytes int
	// WebSocketBudgetBytes bounds what waits to be sent, or is being
	// written, to all WebSockets together: an answer that finds the total
	// at it cuts its client off, as a full queue does (the answers queued
	// at that moment may overshoot it). Without it, MaxStreams
	// connections could each hold WebSocketBufferBytes and two answers.
	// Default: the WebSockets' share of Memory (Shares.WebSocketBuffers).
	WebSocketBudgetBytes int
	// WebSocketWriteTimeout bounds the writing of each message to a
	// WebSocket: a client that does not take it in time is cut off.
	// Default 10s, as Cosmo's.
	WebSocketWriteTimeout time.Duration

	// Connections, if set, counts the WebSocket connections open: a
	// server's Shutdown does not wait for them, so a caller that closes
	// Done waits on it to let them complete their subscriptions and close.
	Connections *sync.WaitGroup

	// AllowedOrigins are the origins whose pages may open a WebSocket,
	// besides the endpoint's own: the CORS policy's, with its patterns
	// ("*" for any, "https://*.example.com"). Nil: the own origin only.
	AllowedOrigins []string
	// PerRequest, if set, is called once for each HTTP request other
	// than a WebSocket's, with the request's context, before anything
	// reads it, and returns the context the request is served in (the
	// loaders, pinned on the snapshot current when it arrives). It is an
	// option rather than a middleware so that a request's context is
	// made once: each http.Request.WithContext copies the request.
	PerRequest func(ctx context.Context) context.Context
	// PerOperation, if set, is called for each operation a WebSocket
	// carries, and returns what to add to the operation's contexts: a
	// connection is one HTTP request that runs many operations over its
	// life, each of which must see what a request of its own would have
	// been given by middleware (the loaders, on the snapshot current when
	// it starts). The result is applied to the context the operation is
	// checked in and to the one it runs in.
	PerOperation func(ctx context.Context) func(context.Context) context.Context

	// TrustedDocuments, if set and not off, holds every operation to a
	// manifest of the operations the apps ship (see TrustedDocuments):
	// in log mode it counts and logs what the manifest does not list, in
	// enforce mode it refuses it. Either way its documents may be asked
	// for by id: the automatic persisted queries' hash, or GraphQL over
	// HTTP's documentId. The documents are pinned in the documents'
	// store, charged to its share, and planned before any request.
	TrustedDocuments *TrustedDocuments

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
	// StreamEnded reports an event stream or a WebSocket that was open
	// and has ended: its operation name ("" for a WebSocket, which may
	// carry several), its outcome, as for Request, and how long it was
	// open. A stream lives as long as its client listens, up to
	// StreamMaxAge: reported as a request, it would make every latency
	// quantile minutes long. A stream refused a place is a Request,
	// rejected.
	StreamEnded(operation, outcome string, d time.Duration)
	// Rejected reports a request refused by a limit, named as in the
	// limitError ("body", "depth", "complexity", …).
	Rejected(limit string)
	// Streams reports an event stream opened (+1) or ended (-1).
	Streams(delta int)
	// Executed reports an operation run, by what ran it: "engine" (the
	// Executor of Options) or "gqlgen" (gqlgen's generated executor).
	Executed(executor string)
	// Declined reports an operation the Executor of Options left to
	// gqlgen, by why (one of DeclineReasons).
	Declined(reason string)
}

// gqlgen keeps the table of which error codes are protocol errors (a 4xx
// rather than a 200) in one package-level map; registering codes is its
// documented way to extend it, and it is done once, here.
func init() {
	for _, code := range []string{admission.CodeTooDeep, admission.CodeTooManyFields, admission.CodeTooManyAliases, admission.CodeTooManyDirective,
		admission.CodeFragmentCycle, admission.CodeTooComplex, CodeBadRequest, admission.CodeNoIntrospection, CodeNotListed,
		// Refusals of a subscription over a WebSocket: the protocol's
		// error message, not a result.
		CodeTooManyStreams, CodeTooManyStreamsForClient, CodeStreamsOff} {
		errcode.RegisterErrorType(code, errcode.KindProtocol)
	}
}

// DefaultOptions are the endpoint's defaults, stated once: New gives each
// zero number or duration of Options its value here, and the gateway's
// flags default to them. Introspection and MaxStreams are what a public
// endpoint wants to start from, but a zero there means off, and New
// keeps it.
func DefaultOptions() Options {
	return Options{
		Limits:                    admission.DefaultLimits(),
		RequestTimeout:            10 * time.Second,
		MaxErrors:                 20,
		Introspection:             true,
		MaxStreams:                1000,
		MaxStreamsPerClient:       10, // a browser holds one per tab; people behind one NAT share an address
		KeepAlive:                 15 * time.Second,
		StreamMaxAge:              30 * time.Minute,
		MaxOperationsPerWebSocket: 16,
		WebSocketWriteTimeout:     10 * time.Second, // as Cosmo's
	}
}

// New returns the endpoint serving es.
func New(es graphql.ExecutableSchema, opts Options) http.Handler {
	opts = opts.withDefaults()
	shares := opts.Memory.Shares()
	e := &endpoint{opts: opts, docs: documents.NewStore(es.Schema(), opts.Limits, opts.Introspection, shares.Documents),
		running: admission.NewQueue(runtime.GOMAXPROCS(0)), streams: semaphore.NewWeighted(int64(opts.MaxStreams)),
		compressor: contentcoding.NewCompressor()}
	e.clientStreams = admission.NewClientStreams(opts.MaxStreamsPerClient)
	e.lives = &liveStore{share: shares.LiveQueries}
	e.wsInitWait = 10 * time.Second
	e.cacheControl = answers.Hint{MaxAge: opts.MaxAge}.CacheControl(opts.StaleWhileRevalidate, opts.StaleIfError)
	e.hinted = hasHints(es.Schema())
	e.exec = e.newExecutor(es, documents.NewPersistedQueries(shares.PersistedQueries))
	e.chooser = &chooser{Executor: e.exec, e: e}
	e.costs = admission.NewCoster(es.Schema())
	if opts.TrustedDocuments != nil {
		opts.TrustedDocuments.attach(e)
	}
	return e
}

// withDefaults fills what opts leaves unset from DefaultOptions and the
// memory budget's shares, and drops what would do nothing (an executor
// that declines everything, a cache with no version to key it by,
// trusted documents off).
func (opts Options) withDefaults() Options {
	def := DefaultOptions()
	opts.Limits = opts.Limits.WithDefaults()
	orDefault(&opts.RequestTimeout, def.RequestTimeout)
	orDefault(&opts.KeepAlive, def.KeepAlive)
	orDefault(&opts.StreamMaxAge, def.StreamMaxAge)
	orDefault(&opts.WebSocketWriteTimeout, def.WebSocketWriteTimeout)
	orDefault(&opts.MaxErrors, def.MaxErrors)
	orDefault(&opts.MaxStreamsPerClient, def.MaxStreamsPerClient)
	orDefault(&opts.MaxOperationsPerWebSocket, def.MaxOperationsPerWebSocket)
	// What all WebSockets may queue is their share of the memory budget;
	// one connection, at most a MiB of it.
	orDefault(&opts.WebSocketBudgetBytes, int(opts.Memory.Shares().WebSocketBuffers))
	orDefault(&opts.WebSocketBufferBytes, min(1<<20, opts.WebSocketBudgetBytes))
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Observer == nil {
		opts.Observer = nopObserver{}
	}
	if opts.Executor == execution.None {
		opts.Executor = nil // nothing to ask, nor declines to count
	}
	if opts.Version == nil {
		opts.Cache = nil
	}
	if opts.TrustedDocuments != nil && opts.TrustedDocuments.mode == TrustedOff {
		opts.TrustedDocuments = nil
	}
	return opts
}

// orDefault sets *v to d when *v is not above zero: an option left unset.
func orDefault[T int | int64 | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

type nopObserver struct{}

func (nopObserver) Request(string, string, time.Duration, int) {}
func (nopObserver) StreamEnded(string, string, time.Duration)  {}
func (nopObserver) Rejected(string)                            {}
func (nopObserver) Streams(int)                                {}
func (nopObserver) Executed(string)                            {}
func (nopObserver) Declined(string)                            {}
func (nopObserver) Cached(bool)                                {}

type endpoint struct {
	opts Options
	exec *executor.Executor
	// chooser runs each operation on the Executor or on exec.
	chooser *chooser
	// docs are the queries seen, parsed, measured and validated once.
	docs *documents.Store
	// cacheControl is the Cache-Control of a complete GET answer that
	// reads no field the schema hints (@cacheControl); hinted, whether
	// any field or type has a hint.
	cacheControl string
	hinted       bool
	// running admits as many operations at once as there are cores to
	// run them, the others in turns fair between clients, by the time
	// each has used (see admission).
	running *admission.Queue
	// streams holds a place for each open event stream.
	streams *semaphore.Weighted
	// costs measures operations against the schema.
	costs *admission.Coster
	// clientStreams counts each client's open streams.
	clientStreams *admission.ClientStreams
	// lives charges what the open live queries keep between their runs.
	lives *liveStore
	// wsBytes is what waits to be sent, or is being written, to all
	// WebSockets (Options.WebSocketBudgetBytes).
	wsBytes atomic.Int64
	// wsCuts counts the WebSockets cut off, their queues dropped;
	// wsOpen, those open (see websocketStats).
	wsCuts atomic.Uint64
	wsOpen atomic.Int64
	// wsInitWait is how long a WebSocket's client has to send
	// connection_init: 10 s, as graphql-ws's server waits by default.
	wsInitWait time.Duration
	// compressor compresses answers, at the effort each has earned (see
	// resolve).
	compressor *contentcoding.Compressor
	// bodies lends POST bodies their buffers (see borrowBody).
	bodies sync.Pool // *bytes.Buffer
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := newRequestID(r.Header.Get("X-Request-ID"))
	w.Header().Set("X-Request-ID", id)
	ctx := context.WithValue(r.Context(), requestIDKey{}, id)

	if isWebSocket(r) {
		e.observeStream("", e.websocket(w, r.WithContext(ctx)), start)
		return
	}
	if e.opts.PerRequest != nil {
		ctx = e.opts.PerRequest(ctx)
	}
	r = r.WithContext(ctx)
	req, herr := e.admit(w, r)
	if herr != nil {
		e.refuse(w, r, herr, start)
		return
	}
	req.delivery = deliveryOf(r.Header.Get("Accept"))
	if isStream(r) && e.serveStream(w, r, req, start) {
		return
	}
	e.serveAnswer(w, r, req, start)
}

// refuse answers a request refused before it ran, begun at start.
func (e *endpoint) refuse(w http.ResponseWriter, r *http.Request, herr *httpError, start time.Time) {
	e.opts.Observer.Rejected(herr.limit)
	e.reject(w, r, herr)
	e.opts.Observer.Request("", "rejected", time.Since(start), 0)
}
