package logtest_test

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/catalogue-gateway/gateway/internal/logtest"
)

// TestBufferKeepsConcurrentWrites: lines written from many goroutines
// all arrive whole, and can be read while they are written (go test
// -race checks the reads).
func TestBufferKeepsConcurrentWrites(t *testing.T) {
	var logs logtest.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				logger.Info("line", "writer", i, "n", j)
				_ = logs.String()
			}
		})
	}
	wg.Wait()
	got := logs.String()
	if n := strings.Count(got, "\n"); n != 8*50 {
		t.Fatalf("got %d lines, want %d", n, 8*50)
	}
	for i := range 8 {
		if !strings.Contains(got, fmt.Sprintf("writer=%d n=49", i)) {
			t.Errorf("writer %d's last line is missing", i)
		}
	}
}
