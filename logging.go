package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"go.opentelemetry.io/otel/trace"
)

// logFormat is how log lines are written: JSON (the default, for a log
// pipeline) or slog's key=value text (for a person at a terminal).
type logFormat string

func (f *logFormat) String() string { return string(*f) }

func (f *logFormat) Set(s string) error {
	switch s {
	case "json", "text":
		*f = logFormat(s)
		return nil
	}
	return fmt.Errorf("want json or text")
}

// logLevel is the least severe level logged: debug, info, warn or error.
type logLevel struct{ slog.Level }

func (l *logLevel) String() string { return strings.ToLower(l.Level.String()) }

func (l *logLevel) Set(s string) error {
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return fmt.Errorf("want debug, info, warn or error")
	}
	return nil
}

// newLogger builds the gateway's one logger.
func newLogger(w io.Writer, format logFormat, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewJSONHandler(w, opts)
	if format == "text" {
		h = slog.NewTextHandler(w, opts)
	}
	return slog.New(traceIDs{h})
}

// traceIDs adds the trace_id and span_id of the span in a record's
// context, when there is one (tracing on, a line logged with the
// request's context): a slow trace is then found from its log line, and
// the other way round.
type traceIDs struct{ slog.Handler }

func (t traceIDs) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return t.Handler.Handle(ctx, r)
}

func (t traceIDs) WithAttrs(attrs []slog.Attr) slog.Handler {
	return traceIDs{t.Handler.WithAttrs(attrs)}
}

func (t traceIDs) WithGroup(name string) slog.Handler { return traceIDs{t.Handler.WithGroup(name)} }
