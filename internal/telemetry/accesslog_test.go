package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// slogLine is line as slog's JSON handler writes it, through the
// gateway's traceIDs wrapper: what the direct path must equal.
func slogLine(t testing.TB, ctx context.Context, now time.Time, line AccessLine) []byte {
	var buf bytes.Buffer
	h := traceIDs{Handler: slog.NewJSONHandler(&buf, nil)}
	rec := slog.NewRecord(now, slog.LevelInfo, "request", 0)
	rec.AddAttrs(line.attrs()...)
	if err := h.Handle(ctx, rec); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// directLine is line as the direct path writes it, and whether it did.
func directLine(ctx context.Context, now time.Time, line AccessLine) ([]byte, bool) {
	var traceID, spanID string
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		traceID, spanID = sc.TraceID().String(), sc.SpanID().String()
	}
	return appendAccessJSON(nil, now, line, traceID, spanID)
}

func tracedContext() context.Context {
	return trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
	}))
}

// TestAccessLineSameBytes: the access line written directly is the bytes
// slog's JSON handler writes for the same record, whatever the values;
// a string that needs escaping is left to slog.
func TestAccessLineSameBytes(t *testing.T) {
	base := AccessLine{Method: "POST", Path: "/graphql", Status: 200, Bytes: 57,
		Duration: 532 * time.Microsecond, RequestID: "2a60a65c1113bd1b", Remote: "127.0.0.1:50412"}
	with := func(f func(*AccessLine)) AccessLine { l := base; f(&l); return l }
	utc := time.Date(2026, 11, 26, 1, 47, 47, 707153683, time.UTC)
	for _, tt := range []struct {
		name   string
		ctx    context.Context
		now    time.Time
		line   AccessLine
		direct bool
	}{
		{"a GraphQL request", context.Background(), utc, base, true},
		{"traced", tracedContext(), utc, base, true},
		{"behind a proxy", context.Background(), utc, with(func(l *AccessLine) { l.Client = "203.0.113.7" }), true},
		{"zero duration", context.Background(), utc, with(func(l *AccessLine) { l.Duration = 0 }), true},
		{"sub-microsecond", context.Background(), utc, with(func(l *AccessLine) { l.Duration = 999 }), true},
		{"long", context.Background(), utc, with(func(l *AccessLine) { l.Duration = 29*time.Second + 999999*time.Microsecond }), true},
		{"whole milliseconds", context.Background(), utc, with(func(l *AccessLine) { l.Duration = 12 * time.Millisecond }), true},
		{"a timestamp on a whole second", context.Background(), time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), base, true},
		{"a local zone", context.Background(), time.Date(2026, 1, 2, 3, 4, 5, 120, time.FixedZone("x", 5*3600+1800)), base, true},
		{"a monotonic reading", context.Background(), time.Now(), base, true},
		{"status and bytes", context.Background(), utc, with(func(l *AccessLine) { l.Status = 413; l.Bytes = 0 }), true},
		{"IPv6 remote", context.Background(), utc, with(func(l *AccessLine) { l.Remote = "[::1]:8080" }), true},
		{"a quote in the path", context.Background(), utc, with(func(l *AccessLine) { l.Path = `/a"b` }), false},
		{"a backslash", context.Background(), utc, with(func(l *AccessLine) { l.Path = `/a\b` }), false},
		{"non-ASCII", context.Background(), utc, with(func(l *AccessLine) { l.Path = "/drag\u00f3n" }), false},
		{"a control byte", context.Background(), utc, with(func(l *AccessLine) { l.Method = "GE\x01T" }), false},
		{"HTML characters are not escaped", context.Background(), utc, with(func(l *AccessLine) { l.Path = "/<b>&" }), true},
		{"a year past 9999", context.Background(), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), base, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := directLine(tt.ctx, tt.now, tt.line)
			if ok != tt.direct {
				t.Fatalf("written directly: %v, want %v", ok, tt.direct)
			}
			if !ok {
				return
			}
			if want := slogLine(t, tt.ctx, tt.now, tt.line); !bytes.Equal(got, want) {
				t.Errorf("direct:\n%s\nslog:\n%s", got, want)
			}
		})
	}
}

// FuzzAccessLine: whatever the strings, numbers and time, a line written
// directly is slog's bytes.
func FuzzAccessLine(f *testing.F) {
	f.Add("POST", "/graphql", "abc", "127.0.0.1:1", "", 200, 57, int64(532000), int64(1764121667707153683), false)
	f.Add("GET", "/items", "x", "[::1]:2", "198.51.100.1", 304, 0, int64(0), int64(0), true)
	f.Fuzz(func(t *testing.T, method, path, id, remote, client string, status, n int, d, unixNano int64, traced bool) {
		ctx := context.Background()
		if traced {
			ctx = tracedContext()
		}
		now := time.Unix(0, unixNano).UTC()
		line := AccessLine{Method: method, Path: path, Status: status, Bytes: n, Duration: time.Duration(d),
			RequestID: id, Remote: remote, Client: client}
		got, ok := directLine(ctx, now, line)
		if !ok {
			return
		}
		if want := slogLine(t, ctx, now, line); !bytes.Equal(got, want) {
			t.Errorf("direct:\n%q\nslog:\n%q", got, want)
		}
	})
}

// TestLogAccessDirect: the gateway's JSON logger over a LogBuffer writes
// access lines directly, one whole line per request even when many write
// at once; a logger with attributes added, or writing text, goes through
// slog and writes the same fields.
func TestLogAccessDirect(t *testing.T) {
	line := AccessLine{Method: "GET", Path: "/items", Status: 200, Bytes: 10, Duration: time.Millisecond,
		RequestID: "r1", Remote: "127.0.0.1:9"}
	var out safeBuffer
	lb := NewLogBuffer(&out)
	logger := NewLogger(lb, "json", slog.LevelInfo)
	if h, _ := logger.Handler().(traceIDs); h.direct == nil {
		t.Fatal("the gateway's JSON logger over a LogBuffer has no direct path")
	}
	if h, _ := logger.With("k", "v").Handler().(traceIDs); h.direct != nil {
		t.Error("a logger with attributes kept the direct path, which would drop them")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				LogAccess(context.Background(), logger, line)
			}
		})
	}
	wg.Wait()
	LogAccess(context.Background(), logger.With("component", "x"), line)
	lb.Close()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 801 {
		t.Fatalf("%d lines, want 801", len(lines))
	}
	for i, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %d is not JSON: %v: %q", i, err, l)
		}
		if v["msg"] != "request" || v["path"] != "/items" || v["status"] != 200.0 || v["duration_ms"] != 1.0 || v["request_id"] != "r1" {
			t.Fatalf("line %d: %s", i, l)
		}
	}
	if !strings.Contains(lines[800], `"component":"x"`) {
		t.Errorf("the logger's own attribute is missing: %s", lines[800])
	}

	var text bytes.Buffer
	LogAccess(context.Background(), NewLogger(&text, "text", slog.LevelInfo), line)
	if !strings.Contains(text.String(), "msg=request method=GET path=/items status=200 bytes=10 duration_ms=1 request_id=r1") {
		t.Errorf("text line: %s", text.String())
	}
	text.Reset()
	LogAccess(context.Background(), NewLogger(&text, "json", slog.LevelWarn), line)
	if text.Len() != 0 {
		t.Errorf("logged under -log-level warn: %s", text.String())
	}
}

type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
