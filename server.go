// Command gateway serves a game's reference catalogue as GraphQL, and
// re-serves the upstream's REST collections byte for byte.
//
// Run it with no flags to serve the catalogue embedded in the binary:
//
//	go run .
//
// Every flag has an environment variable; the flag wins. See -h.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/99designs/gqlgen/graphql/playground"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/resolvers"
	"github.com/catalogue-gateway/gateway/restcompat"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stderr))
}

// run parses the configuration, serves until ctx ends and returns the exit
// status: 0 after a clean shutdown, 2 for a bad flag or environment value,
// 1 for anything else.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) int {
	cfg, err := parseConfig(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "gateway:", err)
		return 2
	}
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		logger.Error("cannot listen", "addr", cfg.addr, "err", err)
		return 1
	}
	if err := serve(ctx, cfg, ln, logger); err != nil {
		logger.Error("gateway stopped", "err", err)
		return 1
	}
	return 0
}

// config is the gateway's configuration, from flags and the environment.
type config struct {
	addr         string
	baseURL      string
	worldBossURL string
	refresh      time.Duration
	cacheDir     string
}

// parseConfig reads flags from args, falling back for each flag not given to
// its environment variable, and checks every value. -h prints the usage and
// returns flag.ErrHelp.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	cfg := config{addr: ":8080", refresh: 5 * time.Minute}
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	envOf := map[string]string{}
	def := func(name, env, usage string) {
		envOf[name] = env
		fs.Lookup(name).Usage = usage + " (env " + env + ")"
	}
	fs.StringVar(&cfg.addr, "addr", cfg.addr, "")
	def("addr", "ADDR", "listen `address`")
	fs.StringVar(&cfg.baseURL, "base-url", "", "")
	def("base-url", "CATALOGUE_BASE_URL", "upstream base `URL`; empty serves the embedded snapshot, with no network")
	fs.StringVar(&cfg.worldBossURL, "worldboss-url", "", "")
	def("worldboss-url", "CATALOGUE_WORLDBOSS_URL", "upstream `URL` serving /worldboss (default the base URL)")
	fs.DurationVar(&cfg.refresh, "refresh", cfg.refresh, "")
	def("refresh", "CATALOGUE_REFRESH", "how often the upstream is read again")
	fs.StringVar(&cfg.cacheDir, "cache-dir", "", "")
	def("cache-dir", "CATALOGUE_CACHE_DIR", "`directory` keeping the last good snapshot, so a restart while the upstream is down still serves")

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "Usage: gateway [flags]\n\nServes the game catalogue as GraphQL and as the upstream's REST paths.\nEvery flag has an environment variable; the flag wins.\n\nFlags:")
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return cfg, err
		}
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for name, env := range envOf {
		if v := getenv(env); v != "" && !given[name] {
			if err := fs.Set(name, v); err != nil {
				return cfg, fmt.Errorf("invalid value %q for %s: %v", v, env, err)
			}
		}
	}
	return cfg, cfg.check()
}

func (cfg *config) check() error {
	_, port, err := net.SplitHostPort(cfg.addr)
	if err != nil {
		return fmt.Errorf("invalid -addr %q: want host:port", cfg.addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("invalid -addr %q: want a port number from 0 to 65535", cfg.addr)
	}
	if cfg.baseURL != "" {
		if err := checkUpstreamURL(cfg.baseURL); err != nil {
			return fmt.Errorf("invalid -base-url %q: %v", cfg.baseURL, err)
		}
	}
	if cfg.worldBossURL != "" {
		if cfg.baseURL == "" {
			return errors.New("-worldboss-url needs -base-url")
		}
		if err := checkUpstreamURL(cfg.worldBossURL); err != nil {
			return fmt.Errorf("invalid -worldboss-url %q: %v", cfg.worldBossURL, err)
		}
	} else {
		cfg.worldBossURL = cfg.baseURL
	}
	if cfg.refresh < time.Second {
		return fmt.Errorf("invalid -refresh %s: must be at least 1s", cfg.refresh)
	}
	return nil
}

func checkUpstreamURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return errors.New("want an http or https URL")
	}
	if u.Host == "" {
		return errors.New("no host")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return errors.New("a base URL takes no query or fragment")
	}
	return nil
}

// serve runs the gateway on ln until ctx ends, then shuts down gracefully,
// letting requests in flight finish. It closes ln.
func serve(ctx context.Context, cfg config, ln net.Listener, logger *slog.Logger) error {
	g, err := newGateway(cfg, logger)
	if err != nil {
		ln.Close()
		return err
	}
	// The refresher stops with the server, after the requests in flight.
	refreshCtx, stopRefresh := context.WithCancel(context.WithoutCancel(ctx))
	refreshDone := make(chan struct{})
	if g.refresher != nil {
		go func() { defer close(refreshDone); g.refresher.Run(refreshCtx) }()
	} else {
		close(refreshDone)
	}
	defer func() { stopRefresh(); <-refreshDone }()

	srv := &http.Server{
		Handler:           g.handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		// Requests keep ctx's values but not its cancellation: ending ctx
		// starts the shutdown, which waits for requests in flight, and
		// they must not see their contexts cancelled meanwhile.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	logger.Info("listening", "addr", ln.Addr().String())

	select {
	case err := <-errc:
		return fmt.Errorf("serving HTTP: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving HTTP: %w", err)
	}
	return nil
}

// gateway holds the running service's parts.
type gateway struct {
	store *catalogue.Store
	// refresher keeps the store up to date with the upstream; nil when
	// serving the embedded catalogue.
	refresher *catalogue.Refresher
	// states reports each collection's freshness, for /readyz and
	// /metrics.
	states  func() [catalogue.NumCollections]catalogue.CollectionState
	metrics *metrics
	logger  *slog.Logger
}

// newGateway builds the gateway for cfg: on the embedded catalogue,
// loaded here, or on the upstream, with a refresher the caller runs.
func newGateway(cfg config, logger *slog.Logger) (*gateway, error) {
	g := &gateway{store: &catalogue.Store{}, logger: logger}
	if cfg.baseURL == "" {
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
		g.metrics = newMetrics(g.store, g.states)
		logger.Info("serving the embedded catalogue", "version", snap.Version(),
			"took", time.Since(start).Round(time.Millisecond).String())
		return g, nil
	}
	var cache *catalogue.DiskCache
	if cfg.cacheDir != "" {
		cache = &catalogue.DiskCache{Dir: cfg.cacheDir}
	}
	g.states = func() [catalogue.NumCollections]catalogue.CollectionState { return g.refresher.States() }
	g.metrics = newMetrics(g.store, g.states)
	g.refresher = catalogue.NewRefresher(g.store, catalogue.RefresherConfig{
		Upstream: &catalogue.Upstream{
			BaseURL:      cfg.baseURL,
			WorldBossURL: cfg.worldBossURL,
			Client:       catalogue.NewUpstreamClient(),
			UserAgent:    userAgent(),
		},
		Cache:    cache,
		Interval: cfg.refresh,
		Logger:   logger,
		Observer: g.metrics,
	})
	logger.Info("reading the upstream", "base_url", cfg.baseURL, "worldboss_url", cfg.worldBossURL,
		"refresh", cfg.refresh.String(), "cache_dir", cfg.cacheDir)
	return g, nil
}

// userAgent names the gateway and its version to the upstream.
func userAgent() string {
	version := "dev"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
	return "catalogue-gateway/" + version
}

// handler routes the gateway's endpoints.
func (g *gateway) handler() http.Handler {
	var awaitCold func(context.Context, catalogue.Collection)
	if g.refresher != nil {
		awaitCold = g.refresher.AwaitFlight
	}
	mux := http.NewServeMux()
	restcompat.Register(mux, g.store, restcompat.Options{AwaitCold: awaitCold})
	mux.Handle("/graphql", resolvers.NewHandler(g.store, loader.Options{AwaitCold: awaitCold}))
	mux.Handle("GET /{$}", playground.Handler("Game catalogue", "/graphql"))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"ok"}`+"\n")
	})
	mux.Handle("GET /readyz", readyHandler(g.store, g.states))
	mux.Handle("GET /metrics", g.metrics.handler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		restcompat.WriteError(w, http.StatusNotFound, "NOT_FOUND", "no such path")
	})
	return mux
}
