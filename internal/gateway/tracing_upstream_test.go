package gateway_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
)

// TestTracingUpstreamRequests runs a refresh round of a traced gateway
// against the stand-in upstreams and checks that every request is a client
// span named by its method and path, with the HTTP semantic conventions'
// attributes, and that a 503 marks its span failed.
func TestTracingUpstreamRequests(t *testing.T) {
	u := newUpstreams(t)
	u.Base.SetFault(catalogue.FarmingSeeds, upstreamtest.Status503)
	cfg := u.config(time.Hour, "")
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	gatewaytest.Start(t, gatewaytest.Options{Logger: slog.New(slog.DiscardHandler), TracerProvider: tp,
		Configure: func(c *config.Config) { *c = cfg }})

	// The first round of reads starts with the gateway; farming's three
	// tries (1 + 2 retries) end it.
	gatewaytest.WaitFor(t, readyWithin, "the first round's spans", func() (bool, string) {
		spans := exp.GetSpans().Snapshots()
		for c := range catalogue.NumCollections {
			if len(named(spans, "GET "+c.Path())) == 0 {
				return false, fmt.Sprint(spanNames(spans))
			}
		}
		return len(named(spans, "GET "+catalogue.FarmingSeeds.Path())) >= 3, fmt.Sprint(spanNames(spans))
	})
	spans := exp.GetSpans().Snapshots()
	for c := range catalogue.NumCollections {
		name := "GET " + c.Path()
		got := named(spans, name)
		if len(got) == 0 {
			t.Errorf("no span %q among %v", name, spanNames(spans))
			continue
		}
		// The last try: under load an earlier one may have timed out
		// and been tried again.
		s := got[len(got)-1]
		if s.SpanKind != trace.SpanKindClient {
			t.Errorf("%s: kind %v, want client", name, s.SpanKind)
		}
		if s.Parent.IsValid() {
			t.Errorf("%s: parent %v, want a root: a refresh is part of no request", name, s.Parent.SpanID())
		}
		status, server := "200", u.Of(c)
		if c == catalogue.FarmingSeeds {
			status = "503"
		}
		wantAttrs(t, s, map[string]string{
			"http.request.method":       "GET",
			"http.response.status_code": status,
			"server.address":            "127.0.0.1",
		})
		if full := attr(s, "url.full").String(); !strings.HasPrefix(full, server.URL) || !strings.HasSuffix(full, c.Path()) {
			t.Errorf("%s: url.full %q, want %s%s", name, full, server.URL, c.Path())
		}
		if wantErr := c == catalogue.FarmingSeeds; (s.Status.Code == codes.Error) != wantErr {
			t.Errorf("%s: status %v, want an error %v", name, s.Status, wantErr)
		}
	}
	if n := len(named(spans, "GET "+catalogue.FarmingSeeds.Path())); n != 3 {
		t.Errorf("%d spans for farming's 503s, want 3 (1 + 2 retries)", n)
	}
}
