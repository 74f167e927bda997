package gateway_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
)

// The W3C trace context a test request carries, as a caller would send it.
const (
	incomingTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	incomingSpanID  = "00f067aa0ba902b7"
	traceparent     = "00-" + incomingTraceID + "-" + incomingSpanID + "-01"
)

// TestTracingSpans serves a nested query, as a trusted caller in a trace
// sends it, by both executors, and checks the spans it leaves: a server
// span in the caller's trace, its parse, validate and execute spans, and the loaders'
// batches under the execute span. The same query again is answered by the
// response cache, with no GraphQL span.
func TestTracingSpans(t *testing.T) {
	const query = `{"query":"{ monsters(first: 5) { nodes { drops { item { name } } } } }"}`
	for _, mode := range []struct {
		name     string
		plans    bool
		executor string
	}{{"engine", true, "engine"}, {"gqlgen", false, "gqlgen"}} {
		t.Run(mode.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.AccessLog = false
			cfg.Engine = mode.plans
			// The caller's span is the parent only when trusted; see
			// TestTracingTraceparent for the default.
			cfg.TrustTraceparent = true
			srv, exp := tracedServer(t, cfg)

			status, body := post(t, srv.URL+"/graphql", query, traceparent)
			if status != http.StatusOK || !strings.HasPrefix(body, `{"data":{"monsters":{"nodes":[{"drops":[{"item":{"name":`) {
				t.Fatalf("status %d: %.300s", status, body)
			}
			spans := waitServerSpans(t, exp, 1)
			server := only(t, spans, "POST /graphql")
			if got := server.SpanContext.TraceID().String(); got != incomingTraceID {
				t.Errorf("server span's trace %s, want the caller's %s", got, incomingTraceID)
			}
			if got := server.Parent.SpanID().String(); got != incomingSpanID || !server.Parent.IsRemote() {
				t.Errorf("server span's parent %s (remote %v), want the caller's span %s", got, server.Parent.IsRemote(), incomingSpanID)
			}
			if server.SpanKind != trace.SpanKindServer {
				t.Errorf("server span's kind %v, want server", server.SpanKind)
			}
			wantAttrs(t, server, map[string]string{"http.route": "/graphql", "graphql.operation.type": "query", "graphql.response_cache": "miss"})

			for _, name := range []string{"graphql.parse", "graphql.validate", "graphql.execute"} {
				s := only(t, spans, name)
				if s.Parent.SpanID() != server.SpanContext.SpanID() {
					t.Errorf("%s's parent %s, want the server span %s", name, s.Parent.SpanID(), server.SpanContext.SpanID())
				}
				if s.StartTime.Before(server.StartTime) || s.EndTime.After(server.EndTime) || s.EndTime.Before(s.StartTime) {
					t.Errorf("%s from %v to %v, not within the server span's %v to %v", name, s.StartTime, s.EndTime, server.StartTime, server.EndTime)
				}
			}
			execute := only(t, spans, "graphql.execute")
			wantAttrs(t, execute, map[string]string{"graphql.executor": mode.executor, "graphql.operation.type": "query"})

			batches := named(spans, "loader.batch")
			if len(batches) == 0 {
				t.Fatalf("no loader.batch span among %v", spanNames(spans))
			}
			for _, b := range batches {
				if b.SpanContext.TraceID() != server.SpanContext.TraceID() {
					t.Errorf("loader.batch in trace %s, want the request's %s", b.SpanContext.TraceID(), server.SpanContext.TraceID())
				}
				if b.Parent.SpanID() != execute.SpanContext.SpanID() {
					t.Errorf("loader.batch's parent %s, want the execute span %s", b.Parent.SpanID(), execute.SpanContext.SpanID())
				}
				wantAttrs(t, b, map[string]string{"loader.kind": "item"})
				if keys := attr(b, "loader.keys"); keys.AsInt64() < 1 {
					t.Errorf("loader.batch with loader.keys %v, want at least 1", keys.String())
				}
			}
			for _, ro := range spans {
				s := toSpan(ro)
				if s.SpanContext.TraceID() != server.SpanContext.TraceID() {
					t.Errorf("span %s in trace %s, want all in %s", s.Name, s.SpanContext.TraceID(), server.SpanContext.TraceID())
				}
				if v, ok := lookup(s, "graphql.document"); ok {
					t.Errorf("span %s records the document: %s", s.Name, v.String())
				}
			}

			// The same query again, with no trace context: a new trace,
			// answered from the cache.
			exp.Reset()
			if status, body := post(t, srv.URL+"/graphql", query, ""); status != http.StatusOK {
				t.Fatalf("again: status %d: %.300s", status, body)
			}
			spans = waitServerSpans(t, exp, 1)
			server = only(t, spans, "POST /graphql")
			if server.Parent.IsValid() || server.SpanContext.TraceID().String() == incomingTraceID {
				t.Errorf("again: server span's parent %v in trace %s, want a new root", server.Parent.SpanID(), server.SpanContext.TraceID())
			}
			wantAttrs(t, server, map[string]string{"graphql.response_cache": "hit"})
			if len(spans) != 1 {
				t.Errorf("again: spans %v, want the server span alone", spanNames(spans))
			}
		})
	}
}

// TestTracingEngineStopped: an answer the engine stops (here, for
// outgrowing -max-response-bytes) is the engine's in the trace, not
// gqlgen's, and its execute span failed with the error's code.
func TestTracingEngineStopped(t *testing.T) {
	cfg := config.Default()
	cfg.AccessLog, cfg.ResponseCacheBytes, cfg.MaxResponseBytes = false, 0, 200
	srv, exp := tracedServer(t, cfg)
	status, body := post(t, srv.URL+"/graphql", `{"query":"{ items(first: 50) { nodes { name } } }"}`, "")
	if status != http.StatusOK || !strings.Contains(body, graphqlhttp.CodeResponseTooLarge) {
		t.Fatalf("status %d: %.300s, want %s", status, body, graphqlhttp.CodeResponseTooLarge)
	}
	execute := only(t, waitServerSpans(t, exp, 1), "graphql.execute")
	wantAttrs(t, execute, map[string]string{"graphql.executor": "engine"})
	if execute.Status.Code != codes.Error || execute.Status.Description != graphqlhttp.CodeResponseTooLarge {
		t.Errorf("execute span's status %v %q, want Error %q", execute.Status.Code, execute.Status.Description, graphqlhttp.CodeResponseTooLarge)
	}
}

// TestTracingTraceparent checks what a caller's traceparent does: by
// default the request starts a new trace, recorded even if the caller
// samples nothing, with a link to the caller's span; with
// -trust-traceparent the caller's span is the parent.
func TestTracingTraceparent(t *testing.T) {
	const unsampled = "00-" + incomingTraceID + "-" + incomingSpanID + "-00"
	for _, tt := range []struct {
		name        string
		trusted     bool
		traceparent string
		// child: the server span's parent is the caller's span;
		// otherwise it is a root linked to it.
		child bool
	}{
		{name: "default", traceparent: traceparent},
		{name: "default, not sampled", traceparent: unsampled},
		{name: "trusted", trusted: true, traceparent: traceparent, child: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.AccessLog = false
			cfg.TrustTraceparent = tt.trusted
			srv, exp := tracedServer(t, cfg)
			if status, body := post(t, srv.URL+"/graphql", `{"query":"{ item(id: 5) { name } }"}`, tt.traceparent); status != http.StatusOK {
				t.Fatalf("status %d: %.300s", status, body)
			}
			spans := waitServerSpans(t, exp, 1)
			server := only(t, spans, "POST /graphql")
			traceID := server.SpanContext.TraceID().String()
			if tt.child {
				if traceID != incomingTraceID || server.Parent.SpanID().String() != incomingSpanID {
					t.Errorf("server span in trace %s with parent %s, want the caller's %s and %s",
						traceID, server.Parent.SpanID(), incomingTraceID, incomingSpanID)
				}
				if len(server.Links) != 0 {
					t.Errorf("server span links %v, want none", server.Links)
				}
				return
			}
			if traceID == incomingTraceID || server.Parent.IsValid() {
				t.Errorf("server span in trace %s with parent %v, want a new root", traceID, server.Parent.SpanID())
			}
			if len(server.Links) != 1 {
				t.Fatalf("server span links %v, want one to the caller's span", server.Links)
			}
			if l := server.Links[0].SpanContext; l.TraceID().String() != incomingTraceID || l.SpanID().String() != incomingSpanID || !l.IsRemote() {
				t.Errorf("server span linked to %s/%s (remote %v), want the caller's %s/%s",
					l.TraceID(), l.SpanID(), l.IsRemote(), incomingTraceID, incomingSpanID)
			}
			// The request's other spans are in the new trace too.
			for _, s := range spans {
				if got := s.SpanContext().TraceID().String(); got != traceID {
					t.Errorf("span %s in trace %s, want the request's %s", s.Name(), got, traceID)
				}
			}
		})
	}
}

// TestTracingErrors checks that a GraphQL request that fails marks the
// span of the phase that failed, and that a document that does not parse
// is not run.
func TestTracingErrors(t *testing.T) {
	cfg := config.Default()
	cfg.AccessLog = false
	srv, exp := tracedServer(t, cfg)
	for _, tt := range []struct {
		name, body string
		failed     string // the span with status Error
		code       string
		absent     []string
	}{
		{"parse", `{"query":"{ item(id: 5 { name } }"}`, "graphql.parse", "GRAPHQL_PARSE_FAILED", []string{"graphql.validate", "graphql.execute"}},
		{"validate", `{"query":"query Bad { nosuch }"}`, "graphql.validate", "GRAPHQL_VALIDATION_FAILED", []string{"graphql.execute"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			exp.Reset()
			if status, body := post(t, srv.URL+"/graphql", tt.body, ""); !strings.Contains(body, tt.code) {
				t.Fatalf("status %d: %.300s, want the code %s", status, body, tt.code)
			}
			spans := waitServerSpans(t, exp, 1)
			s := only(t, spans, tt.failed)
			if s.Status.Code != codes.Error || s.Status.Description != tt.code {
				t.Errorf("%s's status %v %q, want Error %q", tt.failed, s.Status.Code, s.Status.Description, tt.code)
			}
			for _, name := range tt.absent {
				if got := named(spans, name); len(got) > 0 {
					t.Errorf("a %s span after the %s failed", name, tt.failed)
				}
			}
		})
	}
}

// TestTracingRouteNames checks that server spans are named by route,
// never by the path asked for, and that probes get no span.
func TestTracingRouteNames(t *testing.T) {
	cfg := config.Default()
	cfg.AccessLog = false
	srv, exp := tracedServer(t, cfg)
	for _, tt := range []struct {
		path, want string // want "": no span
	}{
		{"/items", "GET /items"},
		{"/no/such/path/12345", "GET /"},
		{"/items/../../etc/passwd", "GET"},
		{"/healthz", ""},
		{"/readyz", ""},
		{"/metrics", ""},
	} {
		t.Run(tt.path, func(t *testing.T) {
			exp.Reset()
			req, err := http.NewRequest(http.MethodGet, srv.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.URL.Opaque = tt.path // as sent, uncleaned
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if tt.want == "" {
				// A request with a span would have had it ended by now
				// or soon: give it a moment to show up, then look.
				time.Sleep(50 * time.Millisecond)
				if spans := exp.GetSpans(); len(spans) > 0 {
					t.Errorf("spans %v, want none", spanNames(spans.Snapshots()))
				}
				return
			}
			spans := waitServerSpans(t, exp, 1)
			if len(spans) != 1 || spans[0].Name() != tt.want {
				t.Errorf("spans %v, want one named %q", spanNames(spans), tt.want)
			}
		})
	}
}

// TestTracingKeepsStreamsOpen checks that a subscription stream still
// reaches its connection through otelhttp's response writer: its deadlines
// are lifted, so it outlives the server's write timeout and gets its
// complete event at shutdown.
func TestTracingKeepsStreamsOpen(t *testing.T) {
	cfg := config.Default()
	cfg.AccessLog = false
	exp := tracetest.NewInMemoryExporter()
	g := gatewaytest.New(t, gatewaytest.Options{Logger: slog.New(slog.DiscardHandler), Configure: func(c *config.Config) { *c = cfg },
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))})
	// A server of the test's own, with timeouts far shorter than the
	// gateway's: the stream must outlive them.
	srv := httptest.NewUnstartedServer(g.Handler())
	srv.Config.ReadTimeout = 200 * time.Millisecond
	srv.Config.WriteTimeout = 200 * time.Millisecond
	srv.Start()
	defer srv.Close()

	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/graphql",
		strings.NewReader(`{"query":"subscription { catalogueChanged { version } }"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", resp.StatusCode)
	}
	time.Sleep(500 * time.Millisecond) // past the write timeout
	g.CloseStreams()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the stream: %v", err)
	}
	if !strings.Contains(string(body), "event: complete") {
		t.Errorf("stream %q, want the complete event", body)
	}
	server := only(t, waitServerSpans(t, exp, 1), "POST /graphql")
	if d := server.EndTime.Sub(server.StartTime); d < 500*time.Millisecond {
		t.Errorf("the stream's span lasted %v, want as long as the stream", d)
	}
}

// TestTracingExportsOverOTLP runs the gateway as main does, with the
// environment pointing the exporter at a local OTLP receiver, and checks
// that the spans of a request reach it by the time serve has returned;
// and that with the SDK turned off by the environment, nothing does.
func TestTracingExportsOverOTLP(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"on", nil, true},
		{"OTEL_SDK_DISABLED", map[string]string{"OTEL_SDK_DISABLED": "true"}, false},
		{"OTEL_TRACES_EXPORTER=none", map[string]string{"OTEL_TRACES_EXPORTER": "none"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recv := &otlpReceiver{}
			collector := httptest.NewServer(recv)
			defer collector.Close()
			for k, v := range map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL,
				"OTEL_EXPORTER_OTLP_TIMEOUT":  "5000",
				"OTEL_RESOURCE_ATTRIBUTES":    "deployment.environment.name=test",
				"OTEL_SDK_DISABLED":           "",
				"OTEL_TRACES_EXPORTER":        "",
				"OTEL_SERVICE_NAME":           "",
			} {
				t.Setenv(k, v)
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			// The OTEL_* variables are read from the process's environment,
			// by config.Parse (here, through Env) and by the SDK itself.
			env := map[string]string{}
			for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
				"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
				env[k] = os.Getenv(k)
			}
			g := gatewaytest.Start(t, gatewaytest.Options{Args: []string{"-access-log=false"}, Env: env})
			stop, base := g.Stop, g.URL
			if status, body := post(t, base+"/graphql", `{"query":"{ item(id: 5) { name } }"}`, traceparent); status != http.StatusOK {
				t.Fatalf("status %d: %.300s", status, body)
			}
			stop() // flushes the spans, if any

			posts, spans, services := recv.result()
			if !tt.want {
				if posts > 0 {
					t.Errorf("the receiver got %d posts, want none", posts)
				}
				return
			}
			if posts == 0 {
				t.Fatal("the receiver got no post to /v1/traces")
			}
			for _, want := range []string{"POST /graphql", "graphql.parse", "graphql.validate", "graphql.execute"} {
				if !spans[want] {
					t.Errorf("no %s span among those received: %v", want, spans)
				}
			}
			if want := "catalogue-gateway/test"; !services[want] {
				t.Errorf("resources %v, want %s (service.name/deployment.environment.name)", services, want)
			}
		})
	}
}

// otlpReceiver stands for an OpenTelemetry collector: it takes OTLP/HTTP
// trace exports and notes what they hold.
type otlpReceiver struct {
	mu       sync.Mutex
	posts    int
	spans    map[string]bool // by name
	services map[string]bool // service.name/deployment.environment.name
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "not an OTLP/HTTP trace export", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 16<<20))
	var req collectortrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.spans == nil {
		o.spans, o.services = map[string]bool{}, map[string]bool{}
	}
	o.posts++
	for _, rs := range req.ResourceSpans {
		attrs := map[string]string{}
		for _, kv := range rs.GetResource().GetAttributes() {
			attrs[kv.Key] = kv.GetValue().GetStringValue()
		}
		o.services[attrs["service.name"]+"/"+attrs["deployment.environment.name"]] = true
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				o.spans[s.Name] = true
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	b, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Write(b)
}

func (o *otlpReceiver) result() (posts int, spans, services map[string]bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.posts, o.spans, o.services
}

// tracedServer serves the gateway for cfg on a loopback port, recording
// its spans in memory.
func tracedServer(t *testing.T, cfg config.Config) (*gatewaytest.Gateway, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	g := gatewaytest.Start(t, gatewaytest.Options{Logger: slog.New(slog.DiscardHandler), TracerProvider: tp,
		Configure: func(c *config.Config) { *c = cfg }})
	return g, exp
}

// post sends a GraphQL request body, with a traceparent header unless it is
// empty, and returns the status and the body.
func post(t *testing.T, url, body, traceparent string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if traceparent != "" {
		req.Header.Set("Traceparent", traceparent)
	}
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// waitServerSpans waits, at most 10 s, for n server spans to have ended,
// and returns every span ended by then. The client may read the answer
// before the server has ended its span.
func waitServerSpans(t *testing.T, exp *tracetest.InMemoryExporter, n int) []sdktrace.ReadOnlySpan {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		spans := exp.GetSpans().Snapshots()
		servers := 0
		for _, s := range spans {
			if s.SpanKind() == trace.SpanKindServer {
				servers++
			}
		}
		if servers >= n {
			return spans
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d server spans after 10s, want %d; spans: %v", servers, n, spanNames(spans))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// span is what a test reads of an ended span.
type span struct {
	Name                string
	SpanContext, Parent trace.SpanContext
	SpanKind            trace.SpanKind
	StartTime, EndTime  time.Time
	Status              sdktrace.Status
	Attributes          []attribute.KeyValue
	Links               []sdktrace.Link
}

func toSpan(s sdktrace.ReadOnlySpan) span {
	return span{s.Name(), s.SpanContext(), s.Parent(), s.SpanKind(), s.StartTime(), s.EndTime(), s.Status(), s.Attributes(), s.Links()}
}

func named(spans []sdktrace.ReadOnlySpan, name string) []span {
	var out []span
	for _, s := range spans {
		if s.Name() == name {
			out = append(out, toSpan(s))
		}
	}
	return out
}

// only returns the one span named name, failing the test if there is not
// exactly one.
func only(t *testing.T, spans []sdktrace.ReadOnlySpan, name string) span {
	t.Helper()
	got := named(spans, name)
	if len(got) != 1 {
		t.Fatalf("%d spans named %q, want 1; spans: %v", len(got), name, spanNames(spans))
	}
	return got[0]
}

func spanNames(spans []sdktrace.ReadOnlySpan) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name()
	}
	return out
}

func lookup(s span, key string) (attribute.Value, bool) {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func attr(s span, key string) attribute.Value {
	v, _ := lookup(s, key)
	return v
}

// wantAttrs checks s's string attributes.
func wantAttrs(t *testing.T, s span, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got, ok := lookup(s, k); !ok || got.String() != v {
			t.Errorf("%s: attribute %s = %q (set %v), want %q", s.Name, k, got.String(), ok, v)
		}
	}
}
