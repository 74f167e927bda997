package gateway

import (
	"log/slog"
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"

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
