// Package gateway is the wiring: it builds the service's parts for a
// configuration (the store, and the refresher or the embedded catalogue;
// the GraphQL and REST handlers; the browser apps; metrics, tracing and
// the access log), routes them, and runs the server with its ordered
// shutdown. It imports the concerns (config, telemetry, memlimit,
// buildinfo) and the domain; only the entry, package main, and the tests'
// harness import it.
package gateway

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"path"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/rs/cors"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/graphqlhttp/answers"
	"github.com/catalogue-gateway/gateway/internal/buildinfo"
	"github.com/catalogue-gateway/gateway/internal/clientaddr"
	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/internal/memory"
	"github.com/catalogue-gateway/gateway/internal/purge"
	"github.com/catalogue-gateway/gateway/internal/telemetry"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/pictures"
	"github.com/catalogue-gateway/gateway/resolvers"
	"github.com/catalogue-gateway/gateway/restcompat"
	"github.com/catalogue-gateway/gateway/web"
)

// Gateway holds the running service's parts.
type Gateway struct {
	cfg   config.Config
	store *catalogue.Store
	// refresher keeps the store up to date with the upstream; nil when
	// serving the embedded catalogue.
	refresher *catalogue.Refresher
	// upstreamClient makes the refresher's requests; nil when serving the
	// embedded catalogue.
	upstreamClient *http.Client
	// states reports each collection's freshness, for /readyz and
	// /metrics.
	states  func() [catalogue.NumCollections]catalogue.CollectionState
	metrics *telemetry.Metrics
	// memory is the budget of the stores that outlive a request.
	memory *memory.Budget
	// cache keeps whole GraphQL answers of the current snapshot; nil
	// when -response-cache-bytes is 0.
	cache  *answers.Cache
	logger *slog.Logger
	// playground and explorer are the browser apps; nil when turned off.
	playground, explorer *web.App
	// schema serves the schema's SDL; nil with introspection off.
	schema http.Handler
	// draining is set when the server starts to shut down: /readyz then
	// answers 503.
	draining atomic.Bool
	// tracerProvider records and exports spans; nil when tracing is off,
	// and then nothing is traced and nothing is wrapped.
	tracerProvider *sdktrace.TracerProvider
	// closeStreams ends the subscription streams open, at shutdown.
	closeStreams func()
	streamsDone  <-chan struct{}
	// websockets counts the WebSocket connections open, which the
	// server's Shutdown does not wait for.
	websockets sync.WaitGroup
	// trusted are the operations the apps ship (-trusted-documents),
	// reloaded on SIGHUP; nil when off.
	trusted *graphqlhttp.TrustedDocuments
	// pictures serves the records' pictures at /images/.
	pictures *pictures.Server
	// purger tells the caches in front of the gateway what each refresh
	// changed; nil without -purge-url.
	purger *purge.Purger
}

// New builds the gateway for cfg: on the embedded catalogue,
// loaded here, or on the upstream, with a refresher the caller runs.
func New(cfg config.Config, logger *slog.Logger) (*Gateway, error) {
	budget := cfg.MemoryBudget
	if budget == 0 {
		// The limit memlimit.Choose set, or GOMEMLIMIT's; MaxInt64 for none.
		budget = memory.DefaultBudget(debug.SetMemoryLimit(-1))
	}
	memory := memory.NewBudget(budget)
	g := &Gateway{cfg: cfg, store: &catalogue.Store{}, logger: logger, memory: memory,
		cache: answers.NewCache(memory.ResponseCacheBytes(cfg.ResponseCacheBytes))}
	memory.Register("response_cache", g.cache.Stats)
	shares := memory.Shares()
	logger.Info("memory budget", "budget_mib", budget>>20, "documents_mib", shares.Documents>>20,
		"renderings_mib", shares.Renderings>>20, "response_cache_mib", g.cache.Stats().Share>>20,
		"persisted_queries_mib", shares.PersistedQueries>>20, "websocket_buffers_mib", shares.WebSocketBuffers>>20,
		"pictures_mib", shares.Pictures>>20, "live_queries_mib", shares.LiveQueries>>20)
	done := make(chan struct{})
	g.streamsDone, g.closeStreams = done, sync.OnceFunc(func() { close(done) })
	if err := g.loadTrustedDocuments(); err != nil {
		return nil, err
	}
	var err error
	if cfg.Introspection {
		// Printed from the schema the server runs, descriptions and all:
		// what introspection would tell, as one document.
		if g.schema, err = graphqlhttp.SchemaHandler(graph.APISchema()); err != nil {
			return nil, err
		}
	}
	if cfg.Playground {
		if g.playground, err = web.Playground(); err != nil {
			return nil, err
		}
	}
	if cfg.Explorer {
		if g.explorer, err = web.Explorer(); err != nil {
			return nil, err
		}
	}
	if cfg.BaseURL == "" {
		start := time.Now()
		snap, err := catalogue.Embedded()
		if err != nil {
			return nil, err
		}
		g.store.Publish(snap)
		var states [catalogue.NumCollections]catalogue.CollectionState
		for c := range states {
			states[c] = catalogue.CollectionState{Source: "embedded"}
		}
		g.states = func() [catalogue.NumCollections]catalogue.CollectionState { return states }
		g.metrics = telemetry.NewMetrics(g.store, g.states, g.cache, g.memory, 0, cfg.MaxSubscriptions)
		logger.Info("serving the embedded catalogue", "version", snap.Version(),
			"took", time.Since(start).Round(time.Millisecond).String())
		// The embedded catalogue promises no network: its pictures are
		// their placeholders (and its addresses resolve nowhere).
		return g, g.newPictures(false)
	}
	var cache *catalogue.DiskCache
	if cfg.CacheDir != "" {
		cache = &catalogue.DiskCache{Dir: cfg.CacheDir}
	}
	g.states = func() [catalogue.NumCollections]catalogue.CollectionState { return g.refresher.States() }
	g.metrics = telemetry.NewMetrics(g.store, g.states, g.cache, g.memory, cfg.Refresh, cfg.MaxSubscriptions)
	g.upstreamClient = catalogue.NewUpstreamClient()
	g.refresher = catalogue.NewRefresher(g.store, catalogue.RefresherConfig{
		Upstream: &catalogue.Upstream{
			BaseURL:      cfg.BaseURL,
			WorldBossURL: cfg.WorldBossURL,
			Client:       g.upstreamClient,
			UserAgent:    buildinfo.Get().UserAgent(),
			Timeout:      cfg.UpstreamTimeout,
			MaxBodyBytes: cfg.MaxUpstreamBytes,
		},
		Cache:    cache,
		Interval: cfg.Refresh,
		Logger:   logger,
		Observer: g.metrics,
	})
	if len(cfg.PurgeURLs) > 0 {
		g.purger = purge.New(purge.Options{
			URLs:     cfg.PurgeURLs,
			Header:   cfg.PurgeHeaders,
			Client:   &http.Client{},
			Logger:   logger,
			Observer: g.metrics,
		})
	}
	logger.Info("reading the upstream", "base_url", cfg.BaseURL, "worldboss_url", cfg.WorldBossURL,
		"refresh", cfg.Refresh.String(), "cache_dir", cfg.CacheDir)
	return g, g.newPictures(cfg.Images)
}

// newPictures builds the pictures' server, fetching when fetch is set,
// its memory the pictures' share of the budget, its disk cache under
// -cache-dir when set.
func (g *Gateway) newPictures(fetch bool) error {
	cfg := g.cfg
	o := pictures.Options{
		Fetch:        fetch,
		AllowPrivate: cfg.ImagesAllowPrivate,
		MaxBytes:     cfg.ImagesMaxBytes,
		Timeout:      cfg.ImagesTimeout,
		ClientRate:   cfg.ImagesClientRate,
		ClientBurst:  cfg.ImagesClientBurst,
		MemoryBytes:  g.memory.Shares().Pictures,
		DiskBytes:    cfg.ImagesDiskBytes,
		ClientKey:    func(r *http.Request) netip.Prefix { return clientaddr.Key(r, cfg.TrustedProxies) },
		Error:        restcompat.WriteError,
		Observer:     g.metrics,
		Logger:       g.logger,
		UserAgent:    buildinfo.Get().UserAgent(),
	}
	if cfg.CacheDir != "" {
		o.DiskDir = filepath.Join(cfg.CacheDir, "pictures")
	}
	p, err := pictures.New(g.store, o)
	if err != nil {
		return err
	}
	g.pictures = p
	g.memory.Register("pictures", func() memory.StoreStats {
		st := p.Stats()
		return memory.StoreStats{Bytes: st.Bytes, Share: st.Share, Entries: st.Entries, Evictions: st.Evictions}
	})
	if fetch && o.DiskDir != "" {
		g.metrics.PictureDisk(p.DiskStats)
	}
	g.logger.Info("pictures", "fetch", fetch, "allow_private", cfg.ImagesAllowPrivate, "memory_mib", o.MemoryBytes>>20,
		"disk_dir", o.DiskDir)
	return nil
}

// Handler routes the gateway's endpoints.
func (g *Gateway) Handler() http.Handler {
	var awaitCold func(context.Context, catalogue.Collection)
	if g.refresher != nil {
		awaitCold = g.refresher.AwaitFlight
	}
	mux := http.NewServeMux()
	restcompat.Register(mux, g.store, restcompat.Options{AwaitCold: awaitCold, ColdWait: g.cfg.ColdWait,
		CacheControl: restCacheControl(graph.ServedSchema(), g.cfg.Refresh)})
	var tracer trace.Tracer // nil: no spans
	if g.tracerProvider != nil {
		tracer = g.tracerProvider.Tracer(telemetry.TracerName)
	}
	limits := endpointLimits(g.cfg)
	// The engine runs what it can (-engine), gqlgen's executor the rest;
	// off, gqlgen runs everything.
	executor := execution.None
	if g.cfg.Engine {
		executor = resolvers.NewEngine(g.memory)
	}
	var playgroundPage http.Handler // for a browser opening /graphql
	if g.playground != nil {
		playgroundPage = g.playground.Index()
	}
	mux.Handle("/graphql", pageForBrowsers(playgroundPage, resolvers.NewHandler(g.store,
		loader.Options{AwaitCold: awaitCold, ColdWait: g.cfg.ColdWait, OnBatch: g.metrics.LoaderBatch, Tracer: tracer},
		graphqlhttp.Options{
			Limits:         limits,
			RequestTimeout: g.cfg.RequestTimeout,
			Introspection:  g.cfg.Introspection,
			Logger:         g.logger,
			Observer:       g.metrics,
			Cache:          g.cache,
			Memory:         g.memory,
			MaxAge:         g.cfg.Refresh,
			Executor:       executor,

			StaleWhileRevalidate: g.cfg.Refresh,
			StaleIfError:         staleIfError(g.cfg.Refresh),
			MaxStreams:           g.cfg.MaxSubscriptions,
			Done:                 g.streamsDone,
			Tracer:               tracer,

			MaxStreamsPerClient: g.cfg.MaxSubscriptionsPerClient,
			TrustedProxies:      g.cfg.TrustedProxies,
			StreamMaxAge:        g.cfg.SubscriptionMaxAge,
			AllowedOrigins:      g.corsOrigins(),
			Connections:         &g.websockets,
			TrustedDocuments:    g.trusted,
		})))
	if g.schema != nil {
		mux.Handle("GET /schema.graphql", g.schema)
	}
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		restcompat.WriteError(w, http.StatusNotFound, "NOT_FOUND", "no such path")
	})
	if g.playground != nil {
		mux.Handle("GET /{$}", g.playground.Index())
		mux.Handle("GET /playground/assets/{name...}", g.playground.Assets(notFound))
		mux.HandleFunc("GET /playground", toPlayground)
		mux.HandleFunc("GET /playground/{$}", toPlayground)
	}
	if g.explorer != nil {
		// The explorer's own routes (/explorer/items/7, …) are all its
		// page, so that they can be bookmarked and reloaded.
		mux.Handle("GET /explorer", g.explorer.Index())
		mux.Handle("GET /explorer/{route...}", g.explorer.Index())
		mux.Handle("GET /explorer/assets/{name...}", g.explorer.Assets(notFound))
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"ok"}`+"\n")
	})
	mux.Handle(catalogue.PicturesPath+"{kind}/{id}", g.pictures)
	mux.Handle("GET /readyz", readyHandler(g.store, g.states, g.draining.Load))
	mux.Handle("GET /metrics", g.metrics.Handler())
	mux.Handle("/", notFound)

	var h http.Handler = answerUncleanPaths(mux)
	if g.cfg.AccessLog {
		h = accessLog(g.logger, g.cfg.TrustedProxies, h)
	}
	if g.cfg.CORSOrigins != "" {
		h = cors.New(cors.Options{
			AllowedOrigins: g.corsOrigins(),
			AllowedMethods: []string{http.MethodGet, http.MethodHead, http.MethodPost},
			AllowedHeaders: []string{"Content-Type", "Accept", "X-Request-ID", "If-None-Match"},
			ExposedHeaders: []string{"ETag", "X-Request-ID"},
			MaxAge:         600,
		}).Handler(h)
	}
	if g.tracerProvider != nil {
		h = telemetry.TraceRequests(h, g.tracerProvider, g.cfg.TrustTraceparent)
	}
	return h
}

// endpointLimits are the /graphql endpoint's limits for cfg.
func endpointLimits(cfg config.Config) admission.Limits {
	limits := cfg.Limits
	limits.MaxResponseBytes = int(cfg.MaxResponseBytes)
	return limits
}

// corsOrigins are the origins whose pages may call the gateway (CORS) and
// open a WebSocket to it, besides its own; none when -cors-origins is
// empty.
func (g *Gateway) corsOrigins() []string {
	if g.cfg.CORSOrigins == "" {
		return nil
	}
	return strings.Split(g.cfg.CORSOrigins, ",")
}

// toPlayground sends a browser that looks for the playground at
// /playground to /, where it is served, keeping the query string. The
// redirect is a 302, not a permanent one: /playground is a convenience,
// and a browser that cached a permanent /playground → / would loop if
// the playground ever moved to /playground. For GET and HEAD, the only
// methods routed here, 302 and 307 mean the same.
func toPlayground(w http.ResponseWriter, r *http.Request) {
	target := "/"
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, target, http.StatusFound)
}

// pageForBrowsers answers a browser opening /graphql (a GET with no query
// string whose Accept asks for HTML) with the playground, as GraphQL Yoga
// and Apollo Server do, rather than with a JSON error; every GraphQL
// client's request goes to next. A nil page (the playground off) sends
// everything to next.
func pageForBrowsers(page, next http.Handler) http.Handler {
	if page == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.RawQuery == "" && acceptsHTML(r.Header.Get("Accept")) {
			w.Header().Add("Vary", "Accept")
			page.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// acceptsHTML reports whether an Accept header names text/html (with a
// quality above 0), as a browser's navigation does.
func acceptsHTML(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		media, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(media), "text/html") {
			continue
		}
		for _, p := range strings.Split(params, ";") {
			if k, v, _ := strings.Cut(strings.TrimSpace(p), "="); strings.EqualFold(k, "q") {
				q, err := strconv.ParseFloat(v, 64)
				return err == nil && q > 0
			}
		}
		return true
	}
	return false
}

// answerUncleanPaths answers a path that is not in its clean form (with
// "..", ".", or a doubled slash; a trailing slash is let through) with the
// 404 every unknown path gets. The
// standard mux would answer it with a redirect to the cleaned path, which
// tells a REST caller that /items/../../etc/passwd is somewhere.
func answerUncleanPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p != "" && path.Clean(p) != p && path.Clean(p)+"/" != p {
			restcompat.WriteError(w, http.StatusNotFound, "NOT_FOUND", "no such path")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// accessLog logs one line per request, after it is answered. Behind
// trusted proxies the line names the client as X-Forwarded-For gives it,
// beside the peer.
//
// The record goes to the logger's handler directly, with no caller's pc:
// Logger.LogAttrs would walk the stack for one (runtime.Callers) on every
// request, for a source the handler is never asked to print.
func accessLog(logger *slog.Logger, trusted []netip.Prefix, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		line := telemetry.AccessLine{
			Method:    r.Method,
			Path:      r.URL.Path,
			Status:    rec.status,
			Bytes:     rec.bytes,
			Duration:  time.Since(start),
			RequestID: w.Header().Get("X-Request-ID"),
			Remote:    r.RemoteAddr,
		}
		if len(trusted) > 0 {
			line.Client = clientaddr.Of(r, trusted).String()
		}
		telemetry.LogAccess(r.Context(), logger, line)
	})
}

// statusRecorder notes a response's status and size for the access log.
type statusRecorder struct {
	http.ResponseWriter
	status, bytes int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// Unwrap lets http.ResponseController reach the connection's writer, to
// flush a stream's events and lift its deadlines.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *statusRecorder) Write(b []byte) (int, error) {
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

// traceUpstream makes each request to the upstream a client span (see
// telemetry.TraceUpstream). Call it before the refresher runs.
func (g *Gateway) traceUpstream() { telemetry.TraceUpstream(g.upstreamClient, g.tracerProvider) }

// restCacheControl is each collection's REST Cache-Control: the cache hint
// of its record type (the type whose @record names the collection), else
// the default, the refresh interval, as a GET answer reading only that
// type would have.
func restCacheControl(schema *ast.Schema, refresh time.Duration) [catalogue.NumCollections]string {
	var out [catalogue.NumCollections]string
	for c := range catalogue.NumCollections {
		hint := answers.Hint{MaxAge: refresh}
		for _, def := range schema.Types {
			if d := def.Directives.ForName("record"); d != nil {
				if a := d.Arguments.ForName("collection"); a != nil && a.Value != nil && a.Value.Raw == c.String() {
					hint = answers.HintOfType(def, refresh)
				}
			}
		}
		out[c] = hint.CacheControl(refresh, staleIfError(refresh))
	}
	return out
}

// staleIfError is how long a shared cache may serve an answer past its
// max-age while the gateway fails (RFC 5861's stale-if-error): a day, or
// a dozen refreshes if that is longer. The catalogue is read-only and
// changes only when the upstream does, so yesterday's answer serves a
// player better than an error while the gateway is down; and a gateway
// whose upstream fails serves its last good snapshot anyway, whatever its
// age. A purge on refresh still ends it at once.
func staleIfError(refresh time.Duration) time.Duration {
	return max(24*time.Hour, 12*refresh)
}
