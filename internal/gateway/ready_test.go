package gateway_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
	"github.com/catalogue-gateway/gateway/internal/logtest"
)

// TestReadyzNamesNoUpstreamAddress starts a gateway whose upstream fails
// in each way, and checks that /readyz, which anyone may ask, says what
// went wrong for every collection without naming the upstream's address
// (nor that of anywhere it redirects), while the log keeps the full error.
func TestReadyzNamesNoUpstreamAddress(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		// setup breaks the upstream, or points cfg at a broken one, and
		// returns the URLs /readyz must not name beyond the stand-ins'.
		setup func(t *testing.T, up *upstreams, cfg *config.Config) []string
		// lastError begins every collection's lastError.
		lastError string
		// logsAddress: the full error, in the log, names the address
		// (Go's errors for a request do; a status or a body does not).
		logsAddress bool
	}{
		{
			name:      "503",
			setup:     fault(upstreamtest.Status503),
			lastError: "upstream answered 503 Service Unavailable",
		},
		{
			name:        "connection closed",
			setup:       fault(upstreamtest.Close),
			lastError:   "connection closed before an answer",
			logsAddress: true,
		},
		{
			name:      "malformed body",
			setup:     fault(upstreamtest.Malformed),
			lastError: "body rejected: body is not valid JSON: invalid character",
		},
		{
			name: "connection refused",
			setup: func(t *testing.T, _ *upstreams, cfg *config.Config) []string {
				ln := gatewaytest.Listen(t)
				closed := "http://" + ln.Addr().String()
				ln.Close() // its port now refuses connections
				cfg.BaseURL, cfg.WorldBossURL = closed, closed
				return []string{closed}
			},
			lastError:   "connection refused",
			logsAddress: true,
		},
		{
			name: "redirect to another host",
			setup: func(t *testing.T, up *upstreams, _ *config.Config) []string {
				elsewhere := upstreamtest.New(t, up.bodies)
				for c := range catalogue.NumCollections {
					up.Of(c).SetRedirect(c, elsewhere.URL+c.Path())
				}
				return []string{elsewhere.URL}
			},
			lastError:   "redirect refused: to another host",
			logsAddress: true,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			up := newUpstreams(t)
			cfg := up.config(time.Second, "")
			hidden := append([]string{up.Base.URL, up.Boss.URL}, tt.setup(t, up, &cfg)...)
			var log logtest.Buffer
			g := startGateway(t, cfg, slog.New(slog.NewJSONHandler(io.MultiWriter(t.Output(), &log), nil)))

			var rd readyzBody
			var raw []byte
			gatewaytest.WaitFor(t, 20*time.Second, "every collection's lastError", func() (bool, string) {
				_, rd, raw = g.readyz(t)
				for c := range catalogue.NumCollections {
					if got := rd.Collections[c.String()].LastError; !strings.HasPrefix(got, tt.lastError) {
						return false, fmt.Sprintf("%s: lastError %q, want it to begin %q; %s", c, got, tt.lastError, raw)
					}
				}
				return true, ""
			})
			if strings.Contains(string(raw), "127.0.0.1") {
				t.Errorf("/readyz names 127.0.0.1:\n%s", raw)
			}
			for _, h := range hidden {
				u, err := url.Parse(h)
				if err != nil {
					t.Fatal(err)
				}
				// A colon before it: the port's digits alone may turn up
				// in a timestamp's fraction.
				if strings.Contains(string(raw), ":"+u.Port()) {
					t.Errorf("/readyz names the port of %s:\n%s", h, raw)
				}
				for c, cr := range rd.Collections {
					if strings.Contains(cr.LastError, u.Port()) {
						t.Errorf("%s: lastError %q names the port of %s", c, cr.LastError, h)
					}
				}
			}
			// Those who run the gateway still see the full error: with no
			// body read yet, in the round's one line of what is missing.
			// The round logs it once its reads are all done, which may be
			// just after /readyz shows the first errors.
			var failures []string
			gatewaytest.WaitFor(t, 20*time.Second, "the log's line of the failed read", func() (bool, string) {
				failures = failures[:0]
				for line := range strings.Lines(log.String()) {
					if strings.Contains(line, "keeping the last good body") || strings.Contains(line, "no body read from the upstream yet") {
						failures = append(failures, line)
					}
				}
				return len(failures) > 0, "the log reports no failed read:\n" + log.String()
			})
			if tt.logsAddress && !strings.Contains(failures[0], "127.0.0.1:") {
				t.Errorf("the log's failure %s does not name the address", failures[0])
			}
			g.Stop()
		})
	}
}

// fault returns a TestReadyzNamesNoUpstreamAddress setup giving every path
// of both stand-ins the fault f.
func fault(f upstreamtest.Fault) func(*testing.T, *upstreams, *config.Config) []string {
	return func(_ *testing.T, up *upstreams, _ *config.Config) []string {
		up.setFaultAll(f)
		return nil
	}
}
