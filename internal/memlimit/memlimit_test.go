package memlimit

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"runtime/debug"
	rtmetrics "runtime/metrics"
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
		{"no limit anywhere: GOGC follows the live heap", nil, 0, Setting{floor: true}},
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
		{"GOMEMLIMIT=off wins over the cgroup", map[string]string{"GOMEMLIMIT": "off"}, 1024 * mib, Setting{floor: true}},
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

	// A server told to stop as its catalogue arrives (a SIGINT right
	// after start) says nothing more of start-up once it said it is
	// shutting down.
	t.Run("nothing once its context ended", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		store := &catalogue.Store{}
		store.Publish(full)
		var logs logtest.Buffer
		FreeStartupGarbage(ctx, store, slog.New(slog.NewTextHandler(&logs, nil)))
		if logs.String() != "" {
			t.Errorf("logged after its context ended: %s", logs.String())
		}
	})
}

// TestPercentFor: with no memory limit, the heap grows by at least
// HeadroomFloor between collections while what is live is small, by Go's
// default proportion once it is not, and never by more than HighGCPercent.
func TestPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, tt := range []struct {
		live uint64
		want int
	}{
		{0, HighGCPercent},
		{7 * mib, HighGCPercent},                   // 64/7 would be 914 %: capped
		{16 * mib, HighGCPercent},                  // exactly 400 %
		{22 * mib, 291},                            // the embedded catalogue with stores warm
		{32 * mib, 200},                            // grows by the floor, 64 MiB
		{64 * mib, 100},                            // the floor is Go's default here
		{250 * mib, 100},                           // the 10x catalogue: Go's default
		{4 << 30, 100},                             // never below the default
		{HeadroomFloor / 3 * 2, 151},               // rounded up: never under the floor
		{HeadroomFloor*100/401 + 1, HighGCPercent}, // just over the cap's edge
	} {
		got := percentFor(tt.live)
		if got != tt.want {
			t.Errorf("percentFor(%d MiB) = %d, want %d", tt.live/mib, got, tt.want)
		}
		if grows := tt.live * uint64(got) / 100; tt.live > 0 && got < HighGCPercent && grows < HeadroomFloor && tt.live < HeadroomFloor {
			t.Errorf("percentFor(%d MiB) = %d lets the heap grow by %d MiB, under the floor", tt.live/mib, got, grows/mib)
		}
	}
}

// TestKeepHeadroom: GOGC is set from the live heap at once, and the loop
// ends with its context. (It sets the process's GOGC: restored after.)
func TestKeepHeadroom(t *testing.T) {
	before := debug.SetGCPercent(50) // a value KeepHeadroom never sets
	t.Cleanup(func() { debug.SetGCPercent(before) })
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); KeepHeadroom(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		sample := []rtmetrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/heap/live:bytes"}}
		rtmetrics.Read(sample)
		got, live := int(sample[0].Value.Uint64()), sample[1].Value.Uint64()
		if got == percentFor(live) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GOGC %d after 10 s over a %d-byte live heap, want %d", got, live, percentFor(live))
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10 s after its context ended")
	}
}

// envOf is a getenv reading m; nil reads nothing.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}
