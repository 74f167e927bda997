package gateway

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// fakeTurns are turns on a clock the test moves, counting yields.
type fakeTurns struct {
	clock  time.Time
	yields int
}

func (f *fakeTurns) turns() turns {
	return turns{now: func() time.Time { return f.clock }, yield: func() { f.yields++ }}
}

// TestTurns: a connection yields once its back-to-back requests have
// worked a slice, and only then; cheap requests, requests after a gap,
// HTTP/2 requests and requests with no turn never make it yield.
func TestTurns(t *testing.T) {
	tests := []struct {
		name       string
		requests   int
		took, gap  time.Duration
		proto      int
		wantYields int
	}{
		// 60 µs each: 240 µs of work after the 4th, so the 5th and the
		// 9th yield.
		{"back-to-back nested pages", 10, 60 * time.Microsecond, 10 * time.Microsecond, 1, 2},
		{"back-to-back cheap requests", 100, cheapRequest, 10 * time.Microsecond, 1, 0},
		{"a client a network away", 100, 60 * time.Microsecond, 100 * time.Microsecond, 1, 0},
		{"HTTP/2", 10, 60 * time.Microsecond, 10 * time.Microsecond, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeTurns{clock: time.Unix(1, 0)}
			ts := f.turns()
			h := ts.wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { f.clock = f.clock.Add(tt.took) }))
			ctx := ts.connContext(context.Background(), nil)
			for range tt.requests {
				r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
				r.ProtoMajor = tt.proto
				h.ServeHTTP(httptest.NewRecorder(), r)
				f.clock = f.clock.Add(tt.gap)
			}
			if f.yields != tt.wantYields {
				t.Errorf("%d yields, want %d", f.yields, tt.wantYields)
			}
		})
	}

	t.Run("no turn", func(t *testing.T) {
		f := &fakeTurns{}
		served := false
		h := f.turns().wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served = true }))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
		if !served {
			t.Error("a request without a turn was not served")
		}
	})
}

// TestServerTakesTurns: the server Serve runs gives each connection its
// own turn. Over one kept-alive connection, back-to-back requests on a
// clock that moves 30 µs at each look yield; over a new connection each,
// none do.
func TestServerTakesTurns(t *testing.T) {
	for _, tt := range []struct {
		name      string
		keepAlive bool
		want      func(int64) bool
	}{
		{"one connection", true, func(n int64) bool { return n > 0 }},
		{"a connection each", false, func(n int64) bool { return n == 0 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ticks, yields atomic.Int64
			ts := turns{
				now:   func() time.Time { return time.Unix(0, ticks.Add(1)*int64(30*time.Microsecond)) },
				yield: func() { yields.Add(1) },
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := httpServer(context.Background(), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				io.WriteString(w, "ok")
			}), slog.New(slog.DiscardHandler), ts)
			go srv.Serve(ln)
			defer srv.Close()
			client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: !tt.keepAlive}}
			defer client.CloseIdleConnections()
			for range 30 {
				resp, err := client.Get("http://" + ln.Addr().String() + "/")
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			if n := yields.Load(); !tt.want(n) {
				t.Errorf("%d yields over 30 requests", n)
			}
		})
	}
}
