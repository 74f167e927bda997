package memlimit

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/internal/logtest"
)

func TestChooseGC(t *testing.T) {
	const mib = 1 << 20
	for _, tt := range []struct {
		name   string
		env    map[string]string
		cgroup int64
		want   Setting
	}{
		{"no limit anywhere: Go's defaults", nil, 0, Setting{}},
		{"cgroup limit: memory limit from it, high GOGC", nil, 1024 * mib,
			Setting{gcPercent: HighGCPercent, memoryLimit: 1024*mib - 1024*mib/10}},
		{"small cgroup limit keeps 64 MiB beside the heap", nil, 384 * mib,
			Setting{gcPercent: HighGCPercent, memoryLimit: 320 * mib}},
		{"tiny cgroup limit: half for the heap", nil, 100 * mib,
			Setting{gcPercent: HighGCPercent, memoryLimit: 50 * mib}},
		{"GOMEMLIMIT set: high GOGC, cgroup ignored", map[string]string{"GOMEMLIMIT": "300MiB"}, 1024 * mib,
			Setting{gcPercent: HighGCPercent}},
		{"GOMEMLIMIT set, no cgroup", map[string]string{"GOMEMLIMIT": "300MiB"}, 0,
			Setting{gcPercent: HighGCPercent}},
		{"GOMEMLIMIT=off wins over the cgroup", map[string]string{"GOMEMLIMIT": "off"}, 1024 * mib, Setting{}},
		{"GOGC set, no limit", map[string]string{"GOGC": "200"}, 0, Setting{}},
		{"GOGC set wins over the cgroup's high GOGC", map[string]string{"GOGC": "100"}, 1024 * mib,
			Setting{memoryLimit: 1024*mib - 1024*mib/10}},
		{"both set: nothing touched", map[string]string{"GOGC": "50", "GOMEMLIMIT": "1GiB"}, 1024 * mib, Setting{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Choose(envOf(tt.env), tt.cgroup); got != tt.want {
				t.Errorf("Choose = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCgroupMemoryLimit(t *testing.T) {
	for _, tt := range []struct {
		name    string
		files   map[string]string
		want    int64
		wantErr bool
	}{
		{"no cgroup files", nil, 0, false},
		{"v2 limit", map[string]string{cgroupV2MemoryMax: "402653184\n"}, 402653184, false},
		{"v2 unlimited", map[string]string{cgroupV2MemoryMax: "max\n"}, 0, false},
		{"v2 wins over v1", map[string]string{cgroupV2MemoryMax: "max\n", cgroupV1Limit: "1048576\n"}, 0, false},
		{"v1 limit", map[string]string{cgroupV1Limit: "536870912\n"}, 536870912, false},
		{"v1 unlimited", map[string]string{cgroupV1Limit: "9223372036854771712\n"}, 0, false},
		{"garbage", map[string]string{cgroupV2MemoryMax: "lots\n"}, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			read := func(path string) ([]byte, error) {
				if s, ok := tt.files[path]; ok {
					return []byte(s), nil
				}
				return nil, fs.ErrNotExist
			}
			got, err := CgroupLimit(read)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("limit = %d, want %d", got, tt.want)
			}
		})
	}
	t.Run("unreadable file is an error", func(t *testing.T) {
		_, err := CgroupLimit(func(string) ([]byte, error) { return nil, errors.New("permission denied") })
		if err == nil {
			t.Error("no error")
		}
	})
}

// TestFreeStartupGarbage checks that the start-up garbage is returned once
// the store holds every collection, not before (a part of the catalogue is
// not the end of start-up), and that the wait ends with its context.
func TestFreeStartupGarbage(t *testing.T) {
	full, err := catalogue.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	store := &catalogue.Store{}
	var logs logtest.Buffer
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); FreeStartupGarbage(ctx, store, slog.New(slog.NewTextHandler(&logs, nil))) }()

	store.Publish(catalogue.NewSnapshot(full.Part(catalogue.Items)))
	select {
	case <-done:
		t.Fatalf("returned with one collection of %d published; log: %s", catalogue.NumCollections, logs.String())
	case <-time.After(200 * time.Millisecond):
	}
	store.Publish(full)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("still waiting 30 s after the whole catalogue was published")
	}
	if n := strings.Count(logs.String(), "start-up garbage returned"); n != 1 {
		t.Errorf("logged the return %d times, want once; log: %s", n, logs.String())
	}

	t.Run("ends with its context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			FreeStartupGarbage(ctx, &catalogue.Store{}, slog.New(slog.DiscardHandler))
		}()
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("still waiting 10 s after its context ended")
		}
	})
}

// envOf is a getenv reading m; nil reads nothing.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}
