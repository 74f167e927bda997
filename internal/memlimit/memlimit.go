// Package memlimit sets the garbage collector for the memory the process
// may use: a cgroup's limit becomes the heap's, and GOGC is raised under
// such a limit; with none, GOGC keeps the heap's growth between
// collections at least HeadroomFloor, however small the live heap. It also
// returns the start-up garbage once the first snapshot is whole.
package memlimit

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"math"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// HighGCPercent is the gateway's GOGC when the heap has a memory limit to
// stay under. A GraphQL answer allocates many short-lived objects and the
// snapshot, the live heap, is small and long-lived: collecting when the
// heap has grown by 400% instead of 100% gave nested queries 30–50% more
// throughput (README, Speed). Without a limit it would let the heap grow
// to five times the snapshot (on the 10x catalogue, 26x the raw JSON
// resident), so then Go's default, 100, stays.
const HighGCPercent = 400

// HeadroomFloor is, with no memory limit, the least the heap may grow by
// between two collections. Go's GOGC=100 lets it grow by what is live: over
// the embedded catalogue's few MiB a stream of small queries ran 20–50
// collections a second, each scanning the snapshot again and stopping
// every P, descheduled ones included (docs/speed.md, Q1's fixed cost and
// the tail). A floor in bytes bounds what that saves: the heap grows by at
// most this much more than GOGC=100 would let it, and a live heap larger
// than the floor is collected at Go's default.
const HeadroomFloor = 64 << 20

// Setting is how the garbage collector is set at start-up. Zero fields
// leave the runtime's own setting (from GOGC and GOMEMLIMIT, or its
// defaults) as it is.
type Setting struct {
	gcPercent   int
	memoryLimit int64
	// floor asks for GOGC to follow the live heap (see KeepHeadroom): no
	// memory limit bounds the heap, and GOGC is the gateway's to set.
	floor bool
}

// Choose decides the collector's setting from the environment and the
// memory limit of the process's cgroup (0 for none). An explicit GOGC or
// GOMEMLIMIT always wins. Otherwise a cgroup limit becomes the memory
// limit, less room for what is not heap; GOGC is raised to HighGCPercent
// when some memory limit bounds the heap, and with none it follows the
// live heap, between 100 and HighGCPercent (see KeepHeadroom).
func Choose(getenv func(string) string, cgroupLimit int64) Setting {
	var s Setting
	limited := false
	switch env := strings.TrimSpace(getenv("GOMEMLIMIT")); {
	case env == "off":
	case env != "":
		limited = true
	case cgroupLimit > 0:
		s.memoryLimit = heapLimit(cgroupLimit)
		limited = true
	}
	if getenv("GOGC") == "" {
		if limited {
			s.gcPercent = HighGCPercent
		} else {
			s.floor = true
		}
	}
	return s
}

// KeepsHeadroom reports whether GOGC is to follow the live heap: start
// KeepHeadroom beside the server when it does.
func (s Setting) KeepsHeadroom() bool { return s.floor }

// percentFor is the GOGC that lets a heap with live bytes grow by at least
// HeadroomFloor before the next collection, between Go's default and
// HighGCPercent.
func percentFor(live uint64) int {
	if live == 0 {
		return HighGCPercent
	}
	p := (HeadroomFloor*100 + live - 1) / live // rounded up: at least the floor
	return int(min(max(p, 100), HighGCPercent))
}

// headroomEvery is how often KeepHeadroom reads the live heap: it changes
// with a new snapshot and as the stores fill, over seconds, not per
// request.
const headroomEvery = time.Second

// KeepHeadroom sets GOGC from the live heap (percentFor) at once and then
// every second, until ctx ends, so that the heap grows by at least
// HeadroomFloor between collections while what is live is small, and by
// Go's default proportion once it is not. Call it only for a Setting that
// KeepsHeadroom: an explicit GOGC, or a memory limit, is not overridden.
func KeepHeadroom(ctx context.Context) {
	sample := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	current := -1
	tick := time.NewTicker(headroomEvery)
	defer tick.Stop()
	for {
		rtmetrics.Read(sample)
		if sample[0].Value.Kind() == rtmetrics.KindUint64 {
			if p := percentFor(sample[0].Value.Uint64()); p != current {
				debug.SetGCPercent(p)
				current = p
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// heapLimit is the memory limit for the Go heap in a cgroup limited to
// limit bytes: 90%, as the automemlimit library does, but leaving at least
// 64 MiB for stacks, the binary and what the runtime keeps beside the heap
// (deploy/deploy_test.go asks the same of the manifests), and never less
// than half.
func heapLimit(limit int64) int64 {
	room := max(limit/10, 64<<20)
	return max(limit-room, limit/2)
}

// Apply sets the collector as s says.
func (s Setting) Apply() {
	if s.memoryLimit > 0 {
		debug.SetMemoryLimit(s.memoryLimit)
	}
	if s.gcPercent > 0 {
		debug.SetGCPercent(s.gcPercent)
	}
}

// The cgroup files holding the process's memory limit, as a container
// sees its own cgroup: version 2, then version 1.
const (
	cgroupV2MemoryMax = "/sys/fs/cgroup/memory.max"
	cgroupV1Limit     = "/sys/fs/cgroup/memory/memory.limit_in_bytes"
)

// CgroupLimit reads the memory limit of the process's cgroup with
// readFile (os.ReadFile, or a test's), or 0 when there is none: no cgroup
// file, "max", or version 1's "unlimited", a number near MaxInt64.
func CgroupLimit(readFile func(string) ([]byte, error)) (int64, error) {
	for _, path := range []string{cgroupV2MemoryMax, cgroupV1Limit} {
		b, err := readFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, err
		}
		v := strings.TrimSpace(string(b))
		if v == "max" {
			return 0, nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, errors.New(path + ": not a number of bytes: " + strconv.Quote(v))
		}
		if n <= 0 || n >= 1<<60 {
			return 0, nil
		}
		return n, nil
	}
	return 0, nil
}

// Log reports, once at start-up, the collector's setting as the runtime
// has it, and where its memory limit came from.
func Log(logger *slog.Logger, getenv func(string) string) {
	sample := []rtmetrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	rtmetrics.Read(sample)
	attrs := []any{}
	if sample[0].Value.Kind() == rtmetrics.KindUint64 {
		attrs = append(attrs, "gogc", sample[0].Value.Uint64())
	}
	limit := "none"
	from := "none"
	if sample[1].Value.Kind() == rtmetrics.KindUint64 {
		if n := sample[1].Value.Uint64(); n < math.MaxInt64 {
			limit = strconv.FormatUint(n>>20, 10) + "MiB"
			from = "cgroup"
			if getenv("GOMEMLIMIT") != "" {
				from = "GOMEMLIMIT"
			}
		}
	}
	if limit == "none" && getenv("GOGC") == "" {
		// GOGC follows the live heap (KeepHeadroom): what it is now says
		// little.
		attrs = []any{"gogc", "follows the live heap, 100 to " + strconv.Itoa(HighGCPercent),
			"headroom_floor_mib", HeadroomFloor >> 20}
	}
	logger.Info("garbage collector", append(attrs, "memory_limit", limit, "memory_limit_from", from)...)
}

// FreeStartupGarbage waits until the store holds every collection, then
// collects and returns the freed memory to the operating system, once. The
// first snapshot's decoding leaves several times the snapshot's size in
// garbage (the parsed JSON trees, the bodies as read); without this the
// process would hold on to it, resident, until the heap grew into it. Later
// refreshes leave less, one body at a time, and the runtime's scavenger
// returns it in the background. It returns when ctx ends.
func FreeStartupGarbage(ctx context.Context, store *catalogue.Store, logger *slog.Logger) {
	for {
		snap, replaced := store.Watch()
		if snap != nil && len(snap.Missing()) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-replaced:
		}
	}
	if ctx.Err() != nil {
		return // the snapshot came as the server was told to stop
	}
	start := time.Now()
	debug.FreeOSMemory()
	sample := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	rtmetrics.Read(sample)
	attrs := []any{"took", time.Since(start).Round(time.Millisecond).String()}
	if sample[0].Value.Kind() == rtmetrics.KindUint64 {
		attrs = append(attrs, "heap_live_mib", sample[0].Value.Uint64()>>20)
	}
	logger.Info("start-up garbage returned to the system", attrs...)
}
