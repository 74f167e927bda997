package telemetry

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// AccessLine is one request's line in the access log.
type AccessLine struct {
	Method, Path  string
	Status, Bytes int
	Duration      time.Duration
	RequestID     string
	Remote        string
	// Client is the client's address as the trusted proxies name it;
	// empty (and not written) when no proxy is trusted.
	Client string
}

// attrs are the line's attributes, in the order they are written.
func (l AccessLine) attrs() []slog.Attr {
	attrs := []slog.Attr{
		slog.String("method", l.Method),
		slog.String("path", l.Path),
		slog.Int("status", l.Status),
		slog.Int("bytes", l.Bytes),
		slog.Float64("duration_ms", durationMS(l.Duration)),
		slog.String("request_id", l.RequestID),
		slog.String("remote", l.Remote),
	}
	if l.Client != "" {
		attrs = append(attrs, slog.String("client", l.Client))
	}
	return attrs
}

// durationMS is d in milliseconds, to the microsecond.
func durationMS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// LogAccess writes line as an info record "request" through logger, with
// the trace ids of ctx's span. The gateway's own JSON logger (NewLogger
// over a LogBuffer) writes it directly, as the same bytes slog's JSON
// handler writes: a line per request through slog's general path (a
// pooled state, attribute by attribute, json.Marshal for the duration's
// float) was 6 % of a small query's CPU. Any other logger, or a line with
// a string that needs escaping, goes through slog.
func LogAccess(ctx context.Context, logger *slog.Logger, line AccessLine) {
	h := logger.Handler()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	now := time.Now()
	if t, ok := h.(traceIDs); ok && t.direct != nil && t.direct.write(ctx, now, line) {
		return
	}
	rec := slog.NewRecord(now, slog.LevelInfo, "request", 0)
	rec.AddAttrs(line.attrs()...)
	h.Handle(ctx, rec)
}

// jsonLines writes access lines to a LogBuffer, which takes each Write as
// whole lines and is safe for concurrent use, as slog's JSON handler over
// it would.
type jsonLines struct {
	w    *LogBuffer
	bufs sync.Pool // *[]byte
}

// write writes line as slog's JSON handler would, and reports whether it
// did: not when a string needs escaping, which slog's handler then does.
func (j *jsonLines) write(ctx context.Context, now time.Time, line AccessLine) bool {
	var traceID, spanID string
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		traceID, spanID = sc.TraceID().String(), sc.SpanID().String()
	}
	bp, _ := j.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	b, ok := appendAccessJSON((*bp)[:0], now, line, traceID, spanID)
	if ok {
		j.w.Write(b)
	}
	*bp = b
	j.bufs.Put(bp)
	return ok
}

// appendAccessJSON appends line as slog.JSONHandler writes a record at
// now, level INFO, message "request", with line's attributes and then
// the trace ids when set: the handler's exact bytes, newline included.
// ok is false when a string is not plain (see plainJSON): b is then of
// no use.
func appendAccessJSON(b []byte, now time.Time, line AccessLine, traceID, spanID string) (_ []byte, ok bool) {
	if y := now.Year(); y < 0 || y >= 10000 {
		return b, false // slog writes an error of its own
	}
	b = append(b, `{"time":"`...)
	b = now.Round(0).AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":"request","method":`...)
	strs := func(b []byte, key, v string) ([]byte, bool) {
		if key != "" {
			b = append(b, ',', '"')
			b = append(b, key...)
			b = append(b, '"', ':')
		}
		if !plainJSON(v) {
			return b, false
		}
		b = append(b, '"')
		b = append(b, v...)
		return append(b, '"'), true
	}
	if b, ok = strs(b, "", line.Method); !ok {
		return b, false
	}
	if b, ok = strs(b, "path", line.Path); !ok {
		return b, false
	}
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(line.Status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, int64(line.Bytes), 10)
	b = append(b, `,"duration_ms":`...)
	// encoding/json's form of a float, which slog's handler calls: the
	// 'f' format from 1e-6 to 1e21, and a duration in milliseconds to
	// the microsecond is 0 or at least 0.001.
	ms := durationMS(line.Duration)
	if ms != 0 && (ms < 1e-6 || ms >= 1e21) {
		return b, false
	}
	b = strconv.AppendFloat(b, ms, 'f', -1, 64)
	if b, ok = strs(b, "request_id", line.RequestID); !ok {
		return b, false
	}
	if b, ok = strs(b, "remote", line.Remote); !ok {
		return b, false
	}
	if line.Client != "" {
		if b, ok = strs(b, "client", line.Client); !ok {
			return b, false
		}
	}
	if traceID != "" {
		if b, ok = strs(b, "trace_id", traceID); !ok {
			return b, false
		}
		if b, ok = strs(b, "span_id", spanID); !ok {
			return b, false
		}
	}
	return append(b, '}', '\n'), true
}

// plainJSON reports whether s is written in a JSON string as it is:
// printable ASCII other than '"' and '\'. (slog's handler escapes the
// rest, as encoding/json does without HTML escaping.)
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
