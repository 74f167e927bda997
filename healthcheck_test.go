package main

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
)

// TestHealthCheck runs `gateway healthcheck` against a gateway that is
// serving, and against a port where none is.
func TestHealthCheck(t *testing.T) {
	g := gatewaytest.Start(t, gatewaytest.Options{Configure: func(c *config.Config) { *c = config.Config{Refresh: time.Minute} }})
	addr, stop := g.Addr, g.Stop
	env := envOf(nil)

	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"healthcheck", "-addr", addr}, env, io.Discard, &stderr); code != 0 {
		t.Errorf("healthcheck of a serving gateway: exit %d, %s", code, stderr.String())
	}
	// ADDR with no host, as the container sets it, means loopback.
	port := addr[strings.LastIndex(addr, ":"):]
	if code := run(t.Context(), []string{"healthcheck"}, envOf(map[string]string{"ADDR": port}), io.Discard, &stderr); code != 0 {
		t.Errorf("healthcheck with ADDR=%s: exit %d, %s", port, code, stderr.String())
	}

	stop()
	stderr.Reset()
	if code := run(t.Context(), []string{"healthcheck", "-addr", addr}, env, io.Discard, &stderr); code != 1 || stderr.Len() == 0 {
		t.Errorf("healthcheck of a stopped gateway: exit %d, %q; want 1 and a reason", code, stderr.String())
	}
	if code := run(t.Context(), []string{"healthcheck", "-addr", "nowhere"}, env, io.Discard, &stderr); code != 2 {
		t.Errorf("healthcheck with a bad -addr: exit %d, want 2", code)
	}
}

// TestShutdownDrains: told to stop, the gateway first answers /readyz with
// 503 "draining" for -shutdown-delay while it still serves everything else,
// then closes.
func TestShutdownDrains(t *testing.T) {
	g := gatewaytest.Start(t, gatewaytest.Options{Args: []string{"-access-log=false", "-shutdown-delay=1s"}})
	stop, base := g.Stop, g.URL
	client := gatewaytest.NewClient(t)
	if resp, body := gatewaytest.Get(t, client, base+"/readyz"); resp.StatusCode != http.StatusOK {
		t.Fatalf("/readyz %d before stopping: %s", resp.StatusCode, body)
	}

	stopped := make(chan struct{})
	go func() { defer close(stopped); stop() }()
	gatewaytest.WaitFor(t, 5*time.Second, "/readyz to say draining", func() (bool, string) {
		resp, body := gatewaytest.Get(t, client, base+"/readyz")
		return resp.StatusCode == http.StatusServiceUnavailable && bytes.Contains(body, []byte(`"draining"`)), string(body)
	})
	if resp, body := gatewaytest.Get(t, client, base+"/items"); resp.StatusCode != http.StatusOK {
		t.Errorf("/items while draining: %d %.100s, want 200", resp.StatusCode, body)
	}
	select {
	case <-stopped:
	case <-time.After(20 * time.Second):
		t.Fatal("the gateway did not stop after draining")
	}
}
