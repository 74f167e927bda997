package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestRunRefusesBadValues(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
	}{
		{name: "bad duration", args: []string{"-refresh", "soon"}},
		{name: "refresh below 1s", args: []string{"-refresh", "1ms"}},
		{name: "non-http URL", args: []string{"-base-url", "ftp://up.example"}},
		{name: "bad port", args: []string{"-addr", ":99999"}},
		{name: "unknown flag", args: []string{"-verbose"}},
		{name: "stray argument", args: []string{"now"}},
		{name: "bad env value", env: map[string]string{"CATALOGUE_REFRESH": "often"}},
		{name: "bad trusted proxy CIDR", env: map[string]string{"GATEWAY_TRUSTED_PROXIES": "10.0.0.0/8,192.168.0.0/99"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := run(t.Context(), tt.args, envOf(tt.env), io.Discard, &stderr); code != 2 {
				t.Errorf("exit status %d, want 2; stderr:\n%s", code, stderr.String())
			}
			out := stderr.String()
			if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") || len(strings.TrimSpace(out)) == 0 {
				t.Errorf("stderr = %q, want one line", out)
			}
		})
	}
}

func TestRunHelp(t *testing.T) {
	flags := map[string]string{
		"addr":          "ADDR",
		"base-url":      "CATALOGUE_BASE_URL",
		"worldboss-url": "CATALOGUE_WORLDBOSS_URL",
		"refresh":       "CATALOGUE_REFRESH",
		"cache-dir":     "CATALOGUE_CACHE_DIR",

		"upstream-timeout":   "CATALOGUE_UPSTREAM_TIMEOUT",
		"max-upstream-bytes": "CATALOGUE_MAX_UPSTREAM_BYTES",
		"cold-wait":          "CATALOGUE_COLD_WAIT",

		"response-cache-bytes": "GATEWAY_RESPONSE_CACHE_BYTES",
		"memory-budget":        "GATEWAY_MEMORY_BUDGET",
		"engine":               "GATEWAY_ENGINE",
		"compiled-plans":       "GATEWAY_COMPILED_PLANS",
		"max-subscriptions":    "GATEWAY_MAX_SUBSCRIPTIONS",
		"shutdown-delay":       "GATEWAY_SHUTDOWN_DELAY",
		"playground":           "GATEWAY_PLAYGROUND",
		"explorer":             "GATEWAY_EXPLORER",
		"max-body-bytes":       "GATEWAY_MAX_BODY_BYTES",
		"max-url-bytes":        "GATEWAY_MAX_URL_BYTES",
		"max-tokens":           "GATEWAY_MAX_TOKENS",
		"max-depth":            "GATEWAY_MAX_DEPTH",
		"max-fields":           "GATEWAY_MAX_FIELDS",
		"max-aliases":          "GATEWAY_MAX_ALIASES",
		"max-directives":       "GATEWAY_MAX_DIRECTIVES",
		"max-complexity":       "GATEWAY_MAX_COMPLEXITY",
		"max-response-bytes":   "GATEWAY_MAX_RESPONSE_BYTES",
		"request-timeout":      "GATEWAY_REQUEST_TIMEOUT",
		"introspection":        "GATEWAY_INTROSPECTION",
		"cors-origins":         "GATEWAY_CORS_ORIGINS",
		"access-log":           "GATEWAY_ACCESS_LOG",
		"log-format":           "GATEWAY_LOG_FORMAT",
		"log-level":            "GATEWAY_LOG_LEVEL",
		"pprof-addr":           "GATEWAY_PPROF_ADDR",
		"trust-traceparent":    "GATEWAY_TRUST_TRACEPARENT",

		"max-subscriptions-per-client":  "GATEWAY_MAX_SUBSCRIPTIONS_PER_CLIENT",
		"trusted-proxies":               "GATEWAY_TRUSTED_PROXIES",
		"subscription-max-age":          "GATEWAY_SUBSCRIPTION_MAX_AGE",
		"trusted-documents":             "GATEWAY_TRUSTED_DOCUMENTS",
		"trusted-documents-mode":        "GATEWAY_TRUSTED_DOCUMENTS_MODE",
		"trusted-documents-allow-empty": "GATEWAY_TRUSTED_DOCUMENTS_ALLOW_EMPTY",

		"images":               "GATEWAY_IMAGES",
		"images-allow-private": "GATEWAY_IMAGES_ALLOW_PRIVATE",
		"images-max-bytes":     "GATEWAY_IMAGES_MAX_BYTES",
		"images-timeout":       "GATEWAY_IMAGES_TIMEOUT",
		"images-client-rate":   "GATEWAY_IMAGES_CLIENT_RATE",
		"images-client-burst":  "GATEWAY_IMAGES_CLIENT_BURST",
		"images-disk-bytes":    "GATEWAY_IMAGES_DISK_BYTES",

		"purge-url":    "GATEWAY_PURGE_URL",
		"purge-header": "GATEWAY_PURGE_HEADER",
	}
	for _, arg := range []string{"-h", "-help", "--help"} {
		t.Run(arg, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := run(t.Context(), []string{arg}, envOf(nil), io.Discard, &stderr); code != 0 {
				t.Errorf("exit status %d, want 0", code)
			}
			// PrintDefaults starts each flag's entry with "  -name"; the
			// entry must name the flag's own environment variable.
			entries := map[string]string{}
			var current string
			for line := range strings.Lines(stderr.String()) {
				if rest, ok := strings.CutPrefix(line, "  -"); ok {
					current, _, _ = strings.Cut(strings.TrimSpace(rest), " ")
				}
				if current != "" {
					entries[current] += line
				}
			}
			for name, env := range flags {
				entry, ok := entries[name]
				if !ok {
					t.Errorf("usage does not list -%s:\n%s", name, stderr.String())
					continue
				}
				if !strings.Contains(entry, env) {
					t.Errorf("usage of -%s does not name %s:\n%s", name, env, entry)
				}
			}
			for _, command := range []string{"gateway healthcheck [flags]", "gateway -version"} {
				if !strings.Contains(stderr.String(), command) {
					t.Errorf("usage does not name %q:\n%s", command, stderr.String())
				}
			}
			if len(entries) != len(flags) {
				t.Errorf("usage lists %d flags, want %d:\n%s", len(entries), len(flags), stderr.String())
			}
		})
	}
}

// TestRunServesUntilCancelled runs the whole of run, listening on a free
// port, with a context that is already done: it must start, shut down and
// report success, logging one JSON object per line.
func TestRunServesUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var stderr bytes.Buffer
	if code := run(ctx, []string{"-addr", "127.0.0.1:0"}, envOf(nil), io.Discard, &stderr); code != 0 {
		t.Fatalf("exit status %d, want 0; stderr:\n%s", code, stderr.String())
	}
	var listening bool
	for line := range strings.Lines(stderr.String()) {
		var rec struct{ Msg, Addr, Playground, Explorer, GraphQL string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("log line %q is not JSON: %v", line, err)
			continue
		}
		if rec.Msg == "listening" {
			listening = true
			_, port, err := net.SplitHostPort(rec.Addr)
			if err != nil {
				t.Errorf("listening addr %q: %v", rec.Addr, err)
			}
			// The line says where a person goes next.
			base := "http://127.0.0.1:" + port
			if rec.Playground != base+"/" || rec.Explorer != base+"/explorer" || rec.GraphQL != base+"/graphql" {
				t.Errorf("listening line names playground %q, explorer %q, graphql %q; want them under %s", rec.Playground, rec.Explorer, rec.GraphQL, base)
			}
		}
	}
	if !listening {
		t.Errorf("no \"listening\" log line in:\n%s", stderr.String())
	}
}

// TestRunCannotListen: an address in use is a configuration error, told
// as the others are (one "gateway:" line, exit 2), saying what to change.
func TestRunCannotListen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"-addr", ln.Addr().String()}, envOf(nil), io.Discard, &stderr); code != 2 {
		t.Errorf("exit status %d with the address taken, want 2; stderr:\n%s", code, stderr.String())
	}
	out := stderr.String()
	want := "gateway: cannot listen on " + ln.Addr().String() + ": address already in use; choose another address with -addr"
	if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, want) {
		t.Errorf("stderr = %q, want one line starting %q", out, want)
	}
}

// TestUnknownFlagPointsAtHelp: a flag from another server's habits
// (-port) is refused with where to look instead.
func TestUnknownFlagPointsAtHelp(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{args: []string{"-port", "9090"}, want: []string{"-port", "-addr", "-h lists every flag"}},
		{args: []string{"--listen=:9090"}, want: []string{"-listen", "-addr", "-h lists every flag"}},
		{args: []string{"-verbose"}, want: []string{"-verbose", "-h lists every flag"}},
	} {
		var stderr bytes.Buffer
		if code := run(t.Context(), tt.args, envOf(nil), io.Discard, &stderr); code != 2 {
			t.Errorf("run(%q) = %d, want 2", tt.args, code)
		}
		out := stderr.String()
		for _, w := range tt.want {
			if !strings.Contains(out, w) || strings.Count(out, "\n") != 1 {
				t.Errorf("run(%q): stderr %q, want one line naming %q", tt.args, out, w)
			}
		}
	}
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewJSONHandler(t.Output(), nil))
}

func TestServeEndToEnd(t *testing.T) {
	g := gatewaytest.Start(t, gatewaytest.Options{Configure: func(c *config.Config) { *c = config.Config{Refresh: time.Minute} }})
	stop, base := g.Stop, g.URL
	client := gatewaytest.NewClient(t)

	t.Run("healthz", func(t *testing.T) {
		resp, body := gatewaytest.Get(t, client, base+"/healthz")
		if resp.StatusCode != http.StatusOK {
			t.Errorf("status = %d, want 200; body %s", resp.StatusCode, body)
		}
	})

	var ready struct {
		Status      string
		Missing     []string
		Collections map[string]struct {
			Ready bool
			ETag  string
		}
	}
	t.Run("readyz", func(t *testing.T) {
		resp, body := gatewaytest.Get(t, client, base+"/readyz")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status = %d, want 200; body %s", resp.StatusCode, body)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q, want application/json", ct)
		}
		if err := json.Unmarshal(body, &ready); err != nil {
			t.Fatalf("body %s: %v", body, err)
		}
		if ready.Status != "ready" || len(ready.Missing) != 0 {
			t.Errorf("status %q, missing %q; want ready, none missing", ready.Status, ready.Missing)
		}
		for c := range catalogue.NumCollections {
			if cr := ready.Collections[c.String()]; !cr.Ready || cr.ETag == "" {
				t.Errorf("collection %s: %+v, want ready with an ETag", c, cr)
			}
		}
		if len(ready.Collections) != int(catalogue.NumCollections) {
			t.Errorf("%d collections listed, want %d", len(ready.Collections), catalogue.NumCollections)
		}
	})

	for c := range catalogue.NumCollections {
		t.Run("rest"+c.Path(), func(t *testing.T) {
			resp, body := gatewaytest.Get(t, client, base+c.Path())
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status = %d, want 200; body %.200s", resp.StatusCode, body)
			}
			want, err := os.ReadFile(filepath.Join("catalogue", "embedded", c.String()+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, want) {
				t.Errorf("body differs from catalogue/embedded/%s.json (%d bytes, want %d)", c, len(body), len(want))
			}
			if etag, readyETag := resp.Header.Get("ETag"), ready.Collections[c.String()].ETag; etag != readyETag {
				t.Errorf("ETag = %s, /readyz says %s", etag, readyETag)
			}
		})
	}

	// Paths are answered, never redirected: the standard mux would send
	// an unclean path to its cleaned form with a 307.
	noRedirects := &http.Client{Timeout: client.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, path := range []string{"/nope", "/items/", "/Items", "/items/1", "/healthz/x", "/worldbosses",
		"/items/../../etc/passwd", "/./items", "//items", "/items/.", "/graphql/../items", "/x/../graphql"} {
		t.Run("404"+path, func(t *testing.T) {
			resp, body := gatewaytest.Get(t, noRedirects, base+path)
			if loc := resp.Header.Get("Location"); loc != "" {
				t.Errorf("Location = %q, want none", loc)
			}
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("status = %d, want 404", resp.StatusCode)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
			var e struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal(body, &e); err != nil || e.Error.Code == "" {
				t.Errorf("body %q is not a JSON error (%v)", body, err)
			}
		})
	}

	stop() // serve must return nil
}

// gatedListener holds every write of the connections it accepts until gate
// is closed, so a test can keep a response in flight for as long as it
// likes, whatever handler produces it. It also reports what the server has
// done, so a test can order its steps without sleeps.
type gatedListener struct {
	net.Listener
	gate    chan struct{}
	writing chan struct{} // closed at the first write
	closed  chan struct{} // closed once the server has closed the listener
	// drained is closed when a connection that has read sent bytes asks
	// for more: the server has parsed everything sent so far and waits.
	drained   chan struct{}
	sent      int
	writeOnce sync.Once
	drainOnce sync.Once
	closeOnce sync.Once
}

func newGatedListener(ln net.Listener, sent int) *gatedListener {
	return &gatedListener{
		Listener: ln,
		gate:     make(chan struct{}),
		writing:  make(chan struct{}),
		closed:   make(chan struct{}),
		drained:  make(chan struct{}),
		sent:     sent,
	}
}

func (l *gatedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &gatedConn{Conn: c, l: l}, nil
}

func (l *gatedListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.closed) })
	return err
}

type gatedConn struct {
	net.Conn
	l    *gatedListener
	read atomic.Int64
}

func (c *gatedConn) Read(p []byte) (int, error) {
	if c.l.sent > 0 && c.read.Load() >= int64(c.l.sent) {
		c.l.drainOnce.Do(func() { close(c.l.drained) })
	}
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

func (c *gatedConn) Write(p []byte) (int, error) {
	c.l.writeOnce.Do(func() { close(c.l.writing) })
	<-c.l.gate
	return c.Conn.Write(p)
}

// serveOn starts the gateway on ln, with the embedded catalogue and no
// other setting, without waiting for it to answer. cancel starts its
// shutdown; served then receives what its Serve returned.
func serveOn(t *testing.T, ln net.Listener) (served <-chan error, cancel func()) {
	t.Helper()
	g := gatewaytest.Start(t, gatewaytest.Options{Listener: ln, Logger: testLogger(t), Cold: true,
		Configure: func(c *config.Config) { *c = config.Config{Refresh: time.Minute} }})
	ch := make(chan error, 1)
	go func() { <-g.Served(); ch <- g.ServeErr() }()
	return ch, g.Cancel
}

// TestGracefulShutdown cancels the gateway's context while a response is being
// written, and checks that the response still arrives whole, that no new
// that Serve returns nil once the response is done.
func TestGracefulShutdown(t *testing.T) {
	ln := newGatedListener(gatewaytest.Listen(t), 0)
	defer ln.Close()
	addr := ln.Addr().String()
	served, cancel := serveOn(t, ln)

	type result struct {
		status int
		body   []byte
		err    error
	}
	got := make(chan result, 1)
	client := gatewaytest.NewClient(t)
	go func() {
		resp, err := client.Get("http://" + addr + "/items")
		if err != nil {
			got <- result{err: err}
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		got <- result{status: resp.StatusCode, body: body, err: err}
	}()

	const bound = 20 * time.Second
	await := func(ch <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case err := <-served:
			close(ln.gate)
			t.Fatalf("Serve returned (%v) before %s", err, what)
		case <-time.After(bound):
			close(ln.gate)
			t.Fatalf("%s did not happen within %s", what, bound)
		}
	}
	await(ln.writing, "the response starting")
	cancel()
	await(ln.closed, "the server closing its listener")

	// Shutdown has begun and the response is still held back.
	select {
	case err := <-served:
		t.Errorf("Serve returned (%v) while a response was still being written", err)
	default:
	}

	close(ln.gate)
	select {
	case r := <-got:
		if r.err != nil {
			t.Fatalf("the request in flight failed: %v", r.err)
		}
		if r.status != http.StatusOK {
			t.Errorf("status = %d, want 200", r.status)
		}
		want, err := os.ReadFile(filepath.Join("catalogue", "embedded", "items.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(r.body, want) {
			t.Errorf("the response in flight came back with %d bytes, want the %d of items.json", len(r.body), len(want))
		}
	case <-time.After(bound):
		t.Fatalf("the request in flight did not complete within %s", bound)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve returned %v, want nil", err)
		}
	case <-time.After(bound):
		t.Fatalf("serve did not return within %s of the response completing", bound)
	}
}

// TestShutdownLetsGraphQLFinish starts a GraphQL request, holds back the last
// byte of its body until shutdown has begun, and checks that the query is
// still answered in full: shutting down must not cancel the contexts of
// requests it is waiting for.
func TestShutdownLetsGraphQLFinish(t *testing.T) {
	ln0 := gatewaytest.Listen(t)
	query := `{"query":"{ quests(first: 5) { totalCount nodes { id prerequisite { id } } } }"}`
	req, err := http.NewRequest(http.MethodPost, "http://"+ln0.Addr().String()+"/graphql", strings.NewReader(query))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	var wire bytes.Buffer
	if err := req.Write(&wire); err != nil {
		t.Fatal(err)
	}
	head, last := wire.Bytes()[:wire.Len()-1], wire.Bytes()[wire.Len()-1:]

	// net/http drops a request whose header it finishes reading after
	// shutdown began, so wait until the server has taken in all of head and
	// asks for more: by then the handler is running, reading the body.
	ln := newGatedListener(ln0, len(head))
	defer ln.Close()
	close(ln.gate)
	served, cancel := serveOn(t, ln)

	const bound = 20 * time.Second
	await := func(ch <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case err := <-served:
			t.Fatalf("Serve returned (%v) before %s", err, what)
		case <-time.After(bound):
			t.Fatalf("%s did not happen within %s", what, bound)
		}
	}

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(bound))
	if _, err := conn.Write(head); err != nil {
		t.Fatal(err)
	}
	await(ln.drained, "the server waiting for the rest of the body")
	cancel()
	await(ln.closed, "the server closing its listener")
	if _, err := conn.Write(last); err != nil {
		t.Fatal(err)
	}

	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status = %d, want 200", resp.StatusCode)
	}
	var got struct {
		Data struct {
			Quests *struct {
				TotalCount int
				Nodes      []struct{ ID int }
			}
		}
		Errors []json.RawMessage
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	if got.Data.Quests == nil || len(got.Data.Quests.Nodes) == 0 || len(got.Errors) != 0 {
		t.Errorf("a query in flight at shutdown got %s, want its quests and no errors", body)
	}

	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve returned %v, want nil", err)
		}
	case <-time.After(bound):
		t.Fatalf("serve did not return within %s of the answer", bound)
	}
}

// TestBinary builds the real binary, starts it on a free port with the
// embedded catalogue, waits until it is ready and stops it with SIGTERM, as
// an orchestrator would.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	g := gatewaytest.Start(t, gatewaytest.Options{Binary: gatewaytest.Build(t), Cold: true})
	const bound = 10 * time.Second
	deadline := time.After(bound)
	cmd, exited, addr, start := g.Cmd, g.Exited, g.Addr, g.Started

	client := gatewaytest.NewClient(t)
	client.Timeout = time.Second
	var lastErr error
	for {
		resp, err := client.Get("http://" + addr + "/readyz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
			err = errors.New(resp.Status)
		}
		lastErr = err
		select {
		case <-exited:
			t.Fatalf("the gateway exited before it was ready: %v", g.WaitErr)
		case <-deadline:
			t.Fatalf("the gateway was not ready within %s (last answer: %v)", bound, lastErr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Logf("ready %s after start", time.Since(start).Round(time.Millisecond))
	client.CloseIdleConnections()

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		var exitErr *exec.ExitError
		switch {
		case errors.As(g.WaitErr, &exitErr):
			t.Errorf("after SIGTERM the gateway exited with %s, want status 0", exitErr)
		case g.WaitErr != nil:
			t.Errorf("waiting for the gateway: %v", g.WaitErr)
		}
	case <-time.After(bound):
		t.Fatalf("the gateway did not exit within %s of SIGTERM", bound)
	}
}

// TestBrowserAppsRouted: the playground at / (and /playground redirected
// there), the explorer at /explorer and at every route of its own (so a
// bookmarked page reloads), their assets, and both gone when turned off.
func TestBrowserAppsRouted(t *testing.T) {
	isPage := func(resp *http.Response, body []byte) bool {
		return resp.StatusCode == http.StatusOK && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") &&
			bytes.Contains(body, []byte("<script"))
	}
	isNotFound := func(resp *http.Response, body []byte) bool {
		return resp.StatusCode == http.StatusNotFound && bytes.Contains(body, []byte(`"NOT_FOUND"`))
	}
	for _, tt := range []struct {
		name                 string
		playground, explorer bool
	}{{"on", true, true}, {"off", false, false}} {
		t.Run(tt.name, func(t *testing.T) {
			base := gatewaytest.Start(t, gatewaytest.Options{Args: []string{"-access-log=false",
				"-playground=" + strconv.FormatBool(tt.playground), "-explorer=" + strconv.FormatBool(tt.explorer)}}).URL
			client := gatewaytest.NewClient(t)

			want := isNotFound
			if tt.playground {
				want = isPage
			}
			// /playground redirects to / (followed here).
			for _, path := range []string{"/", "/playground", "/explorer", "/explorer/", "/explorer/items/3", "/explorer/search?q=ore"} {
				if path == "/explorer" {
					want = isNotFound
					if tt.explorer {
						want = isPage
					}
				}
				if resp, body := gatewaytest.Get(t, client, base+path); !want(resp, body) {
					t.Errorf("GET %s: %d %q, %.80s", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
				}
			}
			// A browser opening /graphql gets the playground (when it is
			// on); a GraphQL client's GET with no query, its 400.
			browser := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
			for _, tc := range []struct {
				accept string
				page   bool
			}{{browser, tt.playground}, {"application/json", false}, {"text/html;q=0, application/json", false}, {"", false}} {
				req, _ := http.NewRequest(http.MethodGet, base+"/graphql", nil)
				req.Header.Set("Accept", tc.accept)
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if got := isPage(resp, body); got != tc.page || !got && resp.StatusCode != http.StatusBadRequest {
					t.Errorf("GET /graphql, Accept %q: %d %q, %.80s; want the playground: %t, else a 400", tc.accept,
						resp.StatusCode, resp.Header.Get("Content-Type"), body, tc.page)
				}
			}
			for _, path := range []string{"/explorer/assets/no-such.js", "/playground/assets/no-such.js", "/explorer/items/../../etc/passwd"} {
				if resp, body := gatewaytest.Get(t, client, base+path); !isNotFound(resp, body) {
					t.Errorf("GET %s: %d, %.80s; want the JSON 404", path, resp.StatusCode, body)
				}
			}
		})
	}
}

// TestAccessLogNamesTheClient: behind trusted proxies the access log names
// the client X-Forwarded-For gives, as the per-client caps read it; with
// none trusted, the header is not believed.
func TestAccessLogNamesTheClient(t *testing.T) {
	for _, tt := range []struct {
		name, trusted, want string
	}{
		{"behind a trusted proxy", "10.0.0.0/8", `"client":"203.0.113.9"`},
		{"no proxy trusted", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			g := gatewaytest.New(t, gatewaytest.Options{Args: []string{"-trusted-proxies=" + tt.trusted},
				Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
			req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
			req.RemoteAddr = "10.1.2.3:4567"
			req.Header.Set("X-Forwarded-For", "198.51.100.1, 203.0.113.9")
			g.Handler().ServeHTTP(httptest.NewRecorder(), req)
			line := logs.String()
			if !strings.Contains(line, `"remote":"10.1.2.3:4567"`) {
				t.Errorf("the log does not name the peer: %s", line)
			}
			if tt.want != "" && !strings.Contains(line, tt.want) {
				t.Errorf("the log does not name the client %s: %s", tt.want, line)
			}
			if tt.want == "" && strings.Contains(line, `"client"`) {
				t.Errorf("the log believes X-Forwarded-For from an untrusted peer: %s", line)
			}
		})
	}
}
