// Package telemetry is what the gateway tells its operators: Prometheus
// metrics (its own registry), OpenTelemetry traces (configured by the
// standard OTEL_* variables) and log lines (text or JSON, written in
// batches). It knows the domain's types it reports on, never the wiring.
package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// Tracing is OpenTelemetry's, configured as every OpenTelemetry SDK is, by
// the standard OTEL_* variables, and off unless they ask for it: then
// nothing is wrapped and no request pays for it. Nothing is global: the
// provider is the gateway's, handed to otelhttp, graphqlhttp and the
// loaders, and the W3C trace context is read from the request's headers
// by a propagator handed to otelhttp likewise.

// defaultServiceName is service.name unless OTEL_SERVICE_NAME or
// OTEL_RESOURCE_ATTRIBUTES say otherwise.
const defaultServiceName = "catalogue-gateway"

// TracingWanted reports whether the environment asks for traces: an OTLP
// endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), and neither OTEL_SDK_DISABLED=true
// nor OTEL_TRACES_EXPORTER=none turns the SDK off. With an endpoint set,
// an endpoint that is not an http or https URL, or asking for what the
// gateway cannot do (another exporter, OTLP over gRPC or JSON), is an
// error rather than traces silently lost.
func TracingWanted(getenv func(string) string) (bool, error) {
	if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return false, nil
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false, nil
	}
	switch exporter := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); exporter {
	case "none":
		return false, nil
	case "", "otlp":
	default:
		return false, fmt.Errorf("invalid OTEL_TRACES_EXPORTER %q: the gateway exports traces by otlp only (or none)", exporter)
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		// The exporter would log a bad URL and send to localhost instead.
		if v := getenv(name); v != "" {
			if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return false, fmt.Errorf("invalid %s %q: want an http or https URL", name, v)
			}
		}
	}
	protocol, name := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	if protocol == "" {
		protocol, name = getenv("OTEL_EXPORTER_OTLP_PROTOCOL"), "OTEL_EXPORTER_OTLP_PROTOCOL"
	}
	if protocol != "" && protocol != "http/protobuf" {
		return false, fmt.Errorf("invalid %s %q: the gateway sends OTLP as http/protobuf only", name, protocol)
	}
	return true, nil
}

// NewTracerProvider returns the provider that batches spans and sends them
// to the OTLP/HTTP endpoint the environment names. The exporter reads the
// rest of its OTEL_EXPORTER_OTLP_* variables itself (headers, timeout,
// compression, certificates), the batcher its OTEL_BSP_* ones and the
// provider OTEL_TRACES_SAMPLER (default: parent-based, always on); the
// resource is service.name "catalogue-gateway", overridden by
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. All of these are read
// from the process's environment, whatever getenv run was given. Nothing
// is sent until the first batch is.
func NewTracerProvider(ctx context.Context, logger *slog.Logger) (*sdktrace.TracerProvider, error) {
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("starting the OTLP trace exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(semconv.ServiceName(defaultServiceName)),
		resource.WithFromEnv(), // last, so that it wins
	)
	if err != nil {
		return nil, fmt.Errorf("reading OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	logger.Info("tracing: exporting spans by OTLP over HTTP, as the OTEL_* variables say")
	return sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(loggedExporter{exp, logger}),
		sdktrace.WithResource(res),
	), nil
}

// loggedExporter logs the exports that fail, in the gateway's log: the
// SDK would hand them to OpenTelemetry's global error handler, which
// writes unstructured lines to stderr. The batcher has nothing to do with
// an error but drop the spans, which it does either way. The exporter
// retries for a while before it gives up, so a collector that is down
// costs a line per batch given up, not per request.
type loggedExporter struct {
	sdktrace.SpanExporter
	logger *slog.Logger
}

func (e loggedExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := e.SpanExporter.ExportSpans(ctx, spans); err != nil {
		e.logger.Warn("tracing: spans not exported", "spans", len(spans), "err", err)
	}
	return nil
}

// shutdownTimeoutTracing bounds the last export, at shutdown.
const shutdownTimeoutTracing = 5 * time.Second

// StopTracing sends the spans still buffered and stops tp; nil does
// nothing. It is called once the server has stopped, so that the last
// requests' spans are among them.
func StopTracing(ctx context.Context, tp *sdktrace.TracerProvider, logger *slog.Logger) {
	if tp == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeoutTracing)
	defer cancel()
	if err := tp.Shutdown(ctx); err != nil {
		logger.Warn("tracing: stopping", "err", err)
	}
}

// TracerName is the instrumentation scope of the gateway's own spans.
const TracerName = "github.com/catalogue-gateway/gateway"

// TraceRequests gives every request a server span. The span is named by
// the method and the route the mux matched ("POST /graphql", "GET
// /items/{id}"), never by the path, which would make a name of every URL
// anyone sends; a request no route took (an unclean path) is named by its
// method alone. A 5xx answer marks the span failed.
//
// A request's traceparent header is a link from a new trace, not its
// parent, unless trusted says the callers are the operator's own: on a
// public endpoint anyone can send one, and as the parent it would file
// the gateway's spans under a stranger's trace id (in a trace of someone
// else's, or a flood of them in one) and its sampled flag would decide
// what the gateway records. The link keeps the caller's trace one click
// away for those who do own it.
//
// Probes and scrapes (/healthz, /readyz, /metrics) get no span: they come
// every few seconds and would drown the traces worth reading.
func TraceRequests(h http.Handler, tp trace.TracerProvider, trusted bool) http.Handler {
	return otelhttp.NewHandler(routeAttribute(h), "gateway",
		otelhttp.WithTracerProvider(tp),
		otelhttp.WithPropagators(propagation.TraceContext{}),
		otelhttp.WithPublicEndpointFn(func(*http.Request) bool { return !trusted }),
		// The gateway's metrics are Prometheus's (metrics.go); without
		// this, otelhttp would ask the global meter provider.
		otelhttp.WithMeterProvider(noop.NewMeterProvider()),
		otelhttp.WithFilter(func(r *http.Request) bool {
			switch r.URL.Path {
			case "/healthz", "/readyz", "/metrics":
				return false
			}
			return true
		}),
	)
}

// TraceUpstream makes each request to the upstream a client span of the
// gateway's tracer provider, with the HTTP semantic conventions'
// attributes otelhttp sets (http.request.method, url.full,
// server.address, server.port, http.response.status_code, error.type);
// a failed request, or an answer of 4xx or 5xx, has status Error. Each is
// named by method and path ("GET /items"): one of the 13 the gateway
// asks for, or a redirect within the upstream's host. A refresh has no
// request to be part of, so each is the root of its own trace; the W3C
// trace context goes with it, for an upstream that traces. Nothing is
// wrapped while tracing is off (tp nil), or when there is no upstream
// (client nil). Call it before the refresher runs.
func TraceUpstream(client *http.Client, tp *sdktrace.TracerProvider) {
	if tp == nil || client == nil {
		return
	}
	client.Transport = otelhttp.NewTransport(client.Transport,
		otelhttp.WithTracerProvider(tp),
		otelhttp.WithPropagators(propagation.TraceContext{}),
		otelhttp.WithMeterProvider(noop.NewMeterProvider()),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method + " " + r.URL.Path }),
	)
}

// routeAttribute sets http.route on the request's span once the mux has
// matched the request. otelhttp names the span by the route then, but sets
// the attribute only from what it knows when the request arrives, before
// routing.
func routeAttribute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		if route := routeOf(r.Pattern); route != "" {
			trace.SpanFromContext(r.Context()).SetAttributes(semconv.HTTPRoute(route))
		}
	})
}

// routeOf is the path part of a ServeMux pattern, "[METHOD ][HOST]/PATH".
func routeOf(pattern string) string {
	if i := strings.IndexByte(pattern, '/'); i >= 0 {
		return pattern[i:]
	}
	return ""
}
