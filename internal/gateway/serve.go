package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/catalogue-gateway/gateway/internal/buildinfo"
	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/memlimit"
	"github.com/catalogue-gateway/gateway/internal/telemetry"
)

// Run builds the gateway for cfg and serves it on ln until ctx ends, then
// shuts down gracefully, letting requests in flight finish. It closes ln.
// Traces are exported as the OTEL_* variables say when cfg.Tracing is on.
func Run(ctx context.Context, cfg config.Config, ln net.Listener, logger *slog.Logger) error {
	g, err := New(cfg, logger)
	if err == nil && cfg.Tracing {
		var tp *sdktrace.TracerProvider
		if tp, err = telemetry.NewTracerProvider(ctx, logger); err == nil {
			g.TraceWith(tp)
		}
	}
	if err != nil {
		ln.Close()
		return err
	}
	return g.Serve(ctx, ln)
}

// TraceWith makes the gateway trace its requests and its upstream's with
// tp, which Serve shuts down when it returns. Call it before Handler and
// Serve.
func (g *Gateway) TraceWith(tp *sdktrace.TracerProvider) {
	g.tracerProvider = tp
	g.traceUpstream()
}

// Serve runs the gateway on ln until ctx ends, then shuts down gracefully,
// letting requests in flight finish. It closes ln.
func (g *Gateway) Serve(ctx context.Context, ln net.Listener) error {
	cfg, logger := g.cfg, g.logger
	// Deferred first, so run last: the spans still buffered are sent once
	// the server has shut down and its last requests have ended.
	defer telemetry.StopTracing(ctx, g.tracerProvider, logger)
	// Purges stop after the refresher (deferred first, so run last): the
	// refresher's last change is still queued, if not sent.
	purgeCtx, stopPurges := context.WithCancel(context.WithoutCancel(ctx))
	var purgesDone <-chan struct{} = closed
	if g.purger != nil {
		purgesDone = g.purger.Start(purgeCtx, g.store)
	}
	defer func() { stopPurges(); <-purgesDone }()
	// The refresher stops with the server, after the requests in flight.
	refreshCtx, stopRefresh := context.WithCancel(context.WithoutCancel(ctx))
	refreshDone := make(chan struct{})
	if g.refresher != nil {
		go func() { defer close(refreshDone); g.refresher.Run(refreshCtx) }()
	} else {
		close(refreshDone)
	}
	defer func() { stopRefresh(); <-refreshDone }()
	// Start-up's garbage is freed while the server runs, never once it
	// stops: a signal during start-up ends the wait (below, before
	// anything says the server is going), so the log never tells of
	// start-up after it told of shutting down.
	freeCtx, stopFreeing := context.WithCancel(ctx)
	freed := make(chan struct{})
	go func() { defer close(freed); memlimit.FreeStartupGarbage(freeCtx, g.store, logger) }()
	defer func() { stopFreeing(); <-freed }()

	if cfg.PprofAddr != "" {
		stopPprof, err := servePprof(cfg.PprofAddr, logger)
		if err != nil {
			ln.Close()
			return err
		}
		defer stopPprof()
	}

	srv := httpServer(ctx, g.Handler(), logger, newTurns())
	// Shutdown waits for requests in flight; an open subscription stream
	// would hold it until its client left, so streams are ended first.
	srv.RegisterOnShutdown(g.closeStreams)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	defer g.reloadOnHangup(ctx)()
	b := buildinfo.Get()
	logger.Info("listening", startupAttrs(cfg, ln.Addr(), b)...)

	select {
	case err := <-errc:
		return fmt.Errorf("serving HTTP: %w", err)
	case <-ctx.Done():
	}
	stopFreeing()
	<-freed
	// Draining: /readyz says 503 while everything else is still served, so
	// that a load balancer stops sending requests here before the
	// listener closes.
	g.draining.Store(true)
	if cfg.ShutdownDelay > 0 {
		logger.Info("draining", "for", cfg.ShutdownDelay.String())
		time.Sleep(cfg.ShutdownDelay)
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	// WebSockets are not requests Shutdown waits for: they were told to
	// end (closeStreams), and are given the rest of the time to send
	// their last messages and close.
	websocketsClosed := make(chan struct{})
	go func() { g.websockets.Wait(); close(websocketsClosed) }()
	select {
	case <-websocketsClosed:
	case <-shutdownCtx.Done():
		logger.Warn("WebSockets still open at the end of the shutdown")
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving HTTP: %w", err)
	}
	return nil
}

// httpServer is the server Serve runs h on: bounded in time and header
// size, its connections taking turns (turns.go), and its requests keeping
// ctx's values but not its cancellation: ending ctx starts the shutdown,
// which waits for requests in flight, and they must not see their
// contexts cancelled meanwhile.
func httpServer(ctx context.Context, h http.Handler, logger *slog.Logger, ts turns) *http.Server {
	return &http.Server{
		Handler:           ts.wrap(h),
		ConnContext:       ts.connContext,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
}

// startupAttrs are the attributes of the "listening" line: the address,
// the build, and the URLs a person opens next (the playground, the
// explorer, the endpoint), so that a first run says where to go.
func startupAttrs(cfg config.Config, addr net.Addr, b buildinfo.Info) []any {
	attrs := []any{"addr", addr.String(), "version", b.Version, "commit", b.Commit}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return attrs
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost" // every interface, loopback among them
	}
	base := "http://" + net.JoinHostPort(host, port)
	if cfg.Playground {
		attrs = append(attrs, "playground", base+"/")
	}
	if cfg.Explorer {
		attrs = append(attrs, "explorer", base+"/explorer")
	}
	return append(attrs, "graphql", base+"/graphql")
}

// shutdownTimeout bounds the wait for requests in flight at shutdown. The
// Kubernetes manifests' terminationGracePeriodSeconds covers it, plus the
// shutdown delay.
const shutdownTimeout = 15 * time.Second

// servePprof serves net/http/pprof on a listener of its own, never on the
// public one, and returns the function that stops it.
func servePprof(addr string, logger *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening for pprof on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	logger.Info("serving pprof", "addr", ln.Addr().String())
	return func() { srv.Close() }, nil
}

// CloseStreams ends the subscription streams open, as the shutdown does
// first: for a test that serves Handler itself.
func (g *Gateway) CloseStreams() { g.closeStreams() }

// closed is a channel closed from the start: the "done" of work not started.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()
