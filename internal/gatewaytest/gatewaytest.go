// Package gatewaytest starts a gateway for a test, from one Options: in
// this process (gateway.Run's own path, on a real listener on
// 127.0.0.1:0) or as the built binary. Every test that starts a gateway
// starts it here, so that a change to how the gateway starts is made once.
package gatewaytest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gateway"
	"github.com/catalogue-gateway/gateway/internal/telemetry"
)

// Options say which gateway to start and how.
type Options struct {
	// Args are the gateway's flags, as on its command line. Unless they
	// name -addr, the gateway listens on a free loopback port.
	Args []string
	// Env is the gateway's environment: the getenv config.Parse reads in
	// process, the whole environment of the binary (none of the test's,
	// so that no setting of the machine leaks in).
	Env map[string]string
	// Binary, when set, is the built gateway (see Build) to run as a
	// process; empty runs the gateway in this process.
	Binary string
	// Configure, in process only, changes the configuration Args and Env
	// gave before the gateway is built: for what a test sets that no flag
	// says, or a whole configuration made by a helper.
	Configure func(*config.Config)
	// Listener, in process only, is the listener to serve on, for a test
	// that wraps or holds one; nil listens on 127.0.0.1:0.
	Listener net.Listener
	// Logger, in process only, receives the gateway's log; nil logs JSON
	// lines to the test's output.
	Logger *slog.Logger
	// TracerProvider, in process only, traces the gateway's requests and
	// its upstream's (gateway.TraceWith); nil traces as the configuration
	// says.
	TracerProvider *sdktrace.TracerProvider
	// Cold skips the wait for /healthz: a binary is then awaited until it
	// logs its address, a gateway in process not at all.
	Cold bool
}

// Gateway is a gateway started for a test. It is stopped when the test
// ends, if the test has not stopped it.
type Gateway struct {
	// Addr is where it listens, host:port; URL is http://Addr.
	Addr, URL string

	// In process: the configuration it runs.
	Config config.Config

	// As a binary: the process, its log (stderr), when it was started,
	// and Exited closed once it has exited, WaitErr then saying how.
	Cmd     *exec.Cmd
	Logs    *LogWatcher
	Started time.Time
	Exited  chan struct{}
	WaitErr error

	// In process: cancel ends Serve's context; served is closed once
	// Serve has returned serveErr.
	cancel   context.CancelFunc
	served   chan struct{}
	serveErr error

	stop func()
}

// Cancel, in process, ends the context the gateway serves under, which
// starts its shutdown, and returns at once.
func (g *Gateway) Cancel() { g.cancel() }

// Served, in process, is closed once the gateway's Serve has returned;
// ServeErr is then what it returned.
func (g *Gateway) Served() <-chan struct{} { return g.served }

// ServeErr is what Serve returned, once Served is closed.
func (g *Gateway) ServeErr() error { return g.serveErr }

// Stop ends the gateway. In process it cancels gateway.Run's context and
// fails the test unless Run returns nil within 20 s; a binary is killed.
// It also runs when the test ends; running it again does nothing.
func (g *Gateway) Stop() { g.stop() }

// Start starts the gateway o describes and waits until it answers
// /healthz (or, with o.Cold, a binary until it logs its address).
func Start(t testing.TB, o Options) *Gateway {
	t.Helper()
	var g *Gateway
	if o.Binary != "" {
		g = startBinary(t, o)
	} else {
		g = startInProcess(t, o)
	}
	if !o.Cold {
		WaitAnswering(t, g.URL)
	}
	return g
}

// Parse is the configuration o's Args, Env and Configure make, as the
// gateway in process would run it. -addr is left as given.
func Parse(t testing.TB, o Options) config.Config {
	t.Helper()
	cfg, err := config.Parse(o.Args, envOf(o.Env), io.Discard)
	if err != nil {
		t.Fatalf("gatewaytest: the gateway's configuration: %v", err)
	}
	if o.Configure != nil {
		o.Configure(&cfg)
	}
	return cfg
}

// New builds the gateway o describes, in process, without serving it: for
// a test that serves its handler itself (an httptest.ResponseRecorder, a
// server with timeouts of its own).
func New(t testing.TB, o Options) *gateway.Gateway {
	t.Helper()
	g, err := gateway.New(Parse(t, o), loggerOf(t, o))
	if err != nil {
		t.Fatalf("gatewaytest: building the gateway: %v", err)
	}
	if o.TracerProvider != nil {
		g.TraceWith(o.TracerProvider)
	}
	return g
}

// Handler is New's handler.
func Handler(t testing.TB, o Options) http.Handler { return New(t, o).Handler() }

func loggerOf(t testing.TB, o Options) *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.New(slog.NewJSONHandler(t.Output(), nil))
}

func startInProcess(t testing.TB, o Options) *Gateway {
	t.Helper()
	ln := o.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { ln.Close() }) // Run leaves ln open if it fails early
	cfg := Parse(t, o)
	cfg.Addr = ln.Addr().String()
	g := &Gateway{Addr: cfg.Addr, URL: "http://" + cfg.Addr, Config: cfg}
	logger := loggerOf(t, o)
	gw, err := gateway.New(cfg, logger)
	if err != nil {
		t.Fatalf("gatewaytest: building the gateway: %v", err)
	}
	tp := o.TracerProvider
	if tp == nil && cfg.Tracing { // as gateway.Run does
		if tp, err = telemetry.NewTracerProvider(t.Context(), logger); err != nil {
			t.Fatalf("gatewaytest: %v", err)
		}
	}
	if tp != nil {
		gw.TraceWith(tp)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	g.cancel, g.served = cancel, make(chan struct{})
	go func() { defer close(g.served); g.serveErr = gw.Serve(ctx, ln) }()
	var once sync.Once
	g.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-g.served:
				if g.serveErr != nil {
					t.Errorf("the gateway's Serve returned %v, want nil", g.serveErr)
				}
			case <-time.After(20 * time.Second):
				t.Errorf("the gateway's Serve did not return within 20s of cancelling its context")
			}
		})
	}
	t.Cleanup(g.stop)
	return g
}

func startBinary(t testing.TB, o Options) *Gateway {
	t.Helper()
	g := &Gateway{Logs: &LogWatcher{addr: make(chan string, 1)}, Exited: make(chan struct{})}
	args := o.Args
	if !namesAddr(args) {
		args = append([]string{"-addr", "127.0.0.1:0"}, args...)
	}
	g.Cmd = exec.Command(o.Binary, args...)
	g.Cmd.Env = []string{}
	for k, v := range o.Env {
		g.Cmd.Env = append(g.Cmd.Env, k+"="+v)
	}
	g.Cmd.Stderr = g.Logs
	g.Started = time.Now()
	if err := g.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { g.WaitErr = g.Cmd.Wait(); close(g.Exited) }()
	g.stop = func() {
		select {
		case <-g.Exited:
		default:
			g.Cmd.Process.Kill()
			<-g.Exited
		}
	}
	t.Cleanup(func() {
		g.stop()
		if t.Failed() {
			t.Logf("gateway log (last 4 KiB):\n%s", tail(g.Logs.String(), 4<<10))
		}
	})
	select {
	case g.Addr = <-g.Logs.addr:
	case <-g.Exited:
		t.Fatalf("the gateway exited before listening: %v", g.WaitErr)
	case <-time.After(20 * time.Second):
		t.Fatal("the gateway did not log its address within 20s")
	}
	g.URL = "http://" + g.Addr
	return g
}

func namesAddr(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "addr" {
			return true
		}
	}
	return false
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// Build builds the gateway, without the race detector whatever the test's
// flags, into a temporary directory, and returns its path. It skips the test
// where the binary cannot be built or run as the others expect (-short,
// Windows, no go command).
func Build(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGTERM")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build with")
	}
	bin := filepath.Join(t.TempDir(), "gateway")
	// The module's root: this package is internal/gatewaytest.
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	build := exec.CommandContext(t.Context(), goTool, "build", "-o", bin, ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// WaitAnswering waits, at most 20 s, until the gateway at base answers
// /healthz: a listener queues connections before the server accepts them.
func WaitAnswering(t testing.TB, base string) {
	t.Helper()
	client := &http.Client{Timeout: time.Second}
	defer client.CloseIdleConnections()
	deadline := time.After(20 * time.Second)
	for {
		resp, err := client.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			return
		}
		select {
		case <-deadline:
			t.Fatalf("the gateway did not answer within 20s: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// LogWatcher collects a process's JSON log and reports the address of its
// "listening" line.
type LogWatcher struct {
	mu      sync.Mutex
	all     bytes.Buffer
	partial []byte
	addr    chan string
	sent    bool
}

func (w *LogWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all.Write(p)
	w.partial = append(w.partial, p...)
	for {
		line, rest, ok := bytes.Cut(w.partial, []byte("\n"))
		if !ok {
			break
		}
		w.partial = rest
		var rec struct{ Msg, Addr string }
		if json.Unmarshal(line, &rec) == nil && rec.Msg == "listening" && !w.sent {
			w.sent = true
			w.addr <- rec.Addr
		}
	}
	return len(p), nil
}

// String is the whole log so far.
func (w *LogWatcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}
