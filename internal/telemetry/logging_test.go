package telemetry

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

// TestLogLinesJoinTraces: a line logged with a context holding a span
// names its trace and span, in either format; one without names none;
// the level drops what is less severe.
func TestLogLinesJoinTraces(t *testing.T) {
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
	})
	traced := trace.ContextWithSpanContext(context.Background(), sc)
	for _, tt := range []struct {
		format          LogFormat
		traceID, spanID string
	}{
		{"json", `"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"`, `"span_id":"00f067aa0ba902b7"`},
		{"text", `trace_id=4bf92f3577b34da6a3ce929d0e0e4736`, `span_id=00f067aa0ba902b7`},
	} {
		var buf bytes.Buffer
		logger := NewLogger(&buf, tt.format, slog.LevelInfo).With("component", "test")
		logger.InfoContext(traced, "request", "status", 200)
		line := buf.String()
		if !strings.Contains(line, tt.traceID) || !strings.Contains(line, tt.spanID) {
			t.Errorf("%s: %s lacks the trace and span ids", tt.format, line)
		}
		buf.Reset()
		logger.InfoContext(context.Background(), "request")
		logger.DebugContext(traced, "detail")
		if strings.Contains(buf.String(), "trace_id") || strings.Contains(buf.String(), "detail") {
			t.Errorf("%s: %s: want one line, with no trace id", tt.format, buf.String())
		}
	}
}
