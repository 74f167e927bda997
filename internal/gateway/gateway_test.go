package gateway

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/internal/buildinfo"
	"github.com/catalogue-gateway/gateway/internal/config"
)

// TestUpstreamUntracedWhenTracingIsOff checks that without tracing the
// upstream client's transport is the one catalogue made, unwrapped.
func TestUpstreamUntracedWhenTracingIsOff(t *testing.T) {
	cfg := config.Default()
	// Never read: New only builds the refresher, which the test does not run.
	cfg.BaseURL, cfg.WorldBossURL = "http://127.0.0.1:9", "http://127.0.0.1:9"
	g, err := New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	before := g.upstreamClient.Transport
	g.traceUpstream()
	if g.upstreamClient.Transport != before {
		t.Error("traceUpstream wrapped the transport with tracing off")
	}
}

// TestStartupAttrs: the listening line's URLs name a host a browser can
// open, whatever the address listened on.
func TestStartupAttrs(t *testing.T) {
	for _, tt := range []struct {
		addr                     string
		playground, explorer     bool
		wantPlayground, wantBase string
	}{
		{addr: "[::]:8080", playground: true, explorer: true, wantBase: "http://localhost:8080"},
		{addr: "0.0.0.0:8080", playground: true, wantBase: "http://localhost:8080"},
		{addr: "127.0.0.1:9090", explorer: true, wantBase: "http://127.0.0.1:9090"},
		{addr: "[::1]:80", wantBase: "http://[::1]:80"},
	} {
		addr, err := net.ResolveTCPAddr("tcp", tt.addr)
		if err != nil {
			t.Fatal(err)
		}
		cfg := config.Default()
		cfg.Playground, cfg.Explorer = tt.playground, tt.explorer
		attrs := map[string]any{}
		list := startupAttrs(cfg, addr, buildinfo.Info{})
		for i := 0; i+1 < len(list); i += 2 {
			attrs[list[i].(string)] = list[i+1]
		}
		want := map[string]any{"addr": addr.String(), "version": "", "commit": "", "graphql": tt.wantBase + "/graphql"}
		if tt.playground {
			want["playground"] = tt.wantBase + "/"
		}
		if tt.explorer {
			want["explorer"] = tt.wantBase + "/explorer"
		}
		if diff := cmp.Diff(want, attrs); diff != "" {
			t.Errorf("startupAttrs(%s) mismatch (-want +got):\n%s", tt.addr, diff)
		}
	}
}

// TestPlaygroundRedirect: /playground (and /playground/) send a browser to
// the playground at / with a temporary redirect, keeping the query string,
// for GET and HEAD; other methods, and every path when the playground is
// off, get the JSON 404 as before.
func TestPlaygroundRedirect(t *testing.T) {
	handler := func(t *testing.T, playground bool) http.Handler {
		cfg := config.Default()
		cfg.Playground, cfg.Explorer = playground, false
		// Never read: Handler does not start the refresher.
		cfg.BaseURL, cfg.WorldBossURL = "http://127.0.0.1:9", "http://127.0.0.1:9"
		g, err := New(cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		return g.Handler()
	}
	on := handler(t, true)
	for _, tt := range []struct {
		method, target, location string
	}{
		{http.MethodGet, "/playground", "/"},
		{http.MethodHead, "/playground", "/"},
		{http.MethodGet, "/playground/", "/"},
		{http.MethodGet, "/playground?query=%7B+items+%7B+totalCount+%7D+%7D&x=1", "/?query=%7B+items+%7B+totalCount+%7D+%7D&x=1"},
		{http.MethodHead, "/playground/?a=b", "/?a=b"},
	} {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			rec := httptest.NewRecorder()
			on.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.target, nil))
			if rec.Code != http.StatusFound {
				t.Errorf("status %d, want %d", rec.Code, http.StatusFound)
			}
			if got := rec.Header().Get("Location"); got != tt.location {
				t.Errorf("Location %q, want %q", got, tt.location)
			}
			// And the target is the playground's page.
			page := httptest.NewRecorder()
			on.ServeHTTP(page, httptest.NewRequest(http.MethodGet, rec.Header().Get("Location"), nil))
			if page.Code != http.StatusOK || !strings.HasPrefix(page.Header().Get("Content-Type"), "text/html") {
				t.Errorf("GET %s: %d %q, want the playground's page", rec.Header().Get("Location"), page.Code, page.Header().Get("Content-Type"))
			}
		})
	}
	notFound := func(t *testing.T, h http.Handler, method, target string) {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
		if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), `"NOT_FOUND"`) {
			t.Errorf("%s %s: %d %.80s, want the JSON 404", method, target, rec.Code, rec.Body)
		}
	}
	for _, target := range []string{"/playground/x", "/playgroundx", "/playground/assets/"} {
		notFound(t, on, http.MethodGet, target)
	}
	notFound(t, on, http.MethodPost, "/playground")
	off := handler(t, false)
	for _, target := range []string{"/playground", "/playground/", "/"} {
		notFound(t, off, http.MethodGet, target)
	}
}

// TestRESTCacheControl: a REST body's Cache-Control is its record type's
// cache hint, else the refresh interval, with the stale-while-revalidate
// and stale-if-error of a public GET answer; the gateway serves it.
func TestRESTCacheControl(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: `
directive @record(collection: String!, name: String) on OBJECT
directive @cacheControl(maxAge: Int, scope: CacheControlScope) on OBJECT
enum CacheControlScope { PUBLIC PRIVATE }
type Query { x: Int }
type Item @record(collection: "items") { id: Int }
type WorldBoss @record(collection: "worldboss") @cacheControl(maxAge: 60) { id: Int }
`})
	got := restCacheControl(schema, 5*time.Minute)
	if want := "public, max-age=60, stale-while-revalidate=300, stale-if-error=86400"; got[catalogue.WorldBosses] != want {
		t.Errorf("a hinted type's collection: %q, want %q", got[catalogue.WorldBosses], want)
	}
	if want := "public, max-age=300, stale-while-revalidate=300, stale-if-error=86400"; got[catalogue.Items] != want {
		t.Errorf("an unhinted type's collection: %q, want %q", got[catalogue.Items], want)
	}

	g, err := New(config.Default(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	g.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/monsters", nil))
	if want := "public, max-age=300, stale-while-revalidate=300, stale-if-error=86400"; rec.Code != http.StatusOK || rec.Header().Get("Cache-Control") != want {
		t.Errorf("GET /monsters: %d, Cache-Control %q, want 200 and %q", rec.Code, rec.Header().Get("Cache-Control"), want)
	}
}
