package telemetry

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"go.opentelemetry.io/otel/trace"
	"golang.org/x/term"
)

// LogFormat is how log lines are written: JSON (for a log pipeline) or
// slog's key=value text (for a person at a terminal); auto, the default,
// picks text when stderr is a terminal and JSON otherwise, so that `go run
// .` reads well and a container's logs still parse.
type LogFormat string

func (f *LogFormat) String() string { return string(*f) }

func (f *LogFormat) Set(s string) error {
	switch s {
	case "auto", "json", "text":
		*f = LogFormat(s)
		return nil
	}
	return fmt.Errorf("want auto, json or text")
}

// Resolve is the format lines written to w take: f, or for auto text when
// w is a terminal and JSON otherwise.
func (f LogFormat) Resolve(w io.Writer) LogFormat {
	if f != "auto" {
		return f
	}
	if isTerminal(w) {
		return "text"
	}
	return "json"
}

// isTerminal reports whether w is a file open on a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// LogLevel is the least severe level logged: debug, info, warn or error.
type LogLevel struct{ slog.Level }

func (l *LogLevel) String() string { return strings.ToLower(l.Level.String()) }

func (l *LogLevel) Set(s string) error {
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return fmt.Errorf("want debug, info, warn or error")
	}
	return nil
}

// NewLogger builds the gateway's one logger.
func NewLogger(w io.Writer, format LogFormat, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "text" {
		return slog.New(traceIDs{Handler: slog.NewTextHandler(w, opts)})
	}
	t := traceIDs{Handler: slog.NewJSONHandler(w, opts)}
	if lb, ok := w.(*LogBuffer); ok {
		t.direct = &jsonLines{w: lb}
	}
	return slog.New(t)
}

// traceIDs adds the trace_id and span_id of the span in a record's
// context, when there is one (tracing on, a line logged with the
// request's context): a slow trace is then found from its log line, and
// the other way round.
type traceIDs struct {
	slog.Handler
	// direct writes access lines without slog's general path (see
	// LogAccess); nil for a logger with attributes or groups added, or
	// one not writing JSON to a LogBuffer.
	direct *jsonLines
}

func (t traceIDs) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return t.Handler.Handle(ctx, r)
}

func (t traceIDs) WithAttrs(attrs []slog.Attr) slog.Handler {
	return traceIDs{Handler: t.Handler.WithAttrs(attrs)}
}

func (t traceIDs) WithGroup(name string) slog.Handler {
	return traceIDs{Handler: t.Handler.WithGroup(name)}
}
