package telemetry

import (
	"fmt"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestChildrenResolvedOnce: a child got through children is the vector's
// own (what it counts, /metrics shows), is made on first use only, is got
// again with no allocation, and values added at once from many goroutines
// all land.
func TestChildrenResolvedOnce(t *testing.T) {
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "runs_total", Help: "h"}, []string{"executor"})
	reg := prometheus.NewRegistry()
	reg.MustRegister(vec)
	counted := func() map[string]float64 { // what /metrics would show, by executor
		t.Helper()
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, f := range families {
			for _, m := range f.GetMetric() {
				out[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
			}
		}
		return out
	}
	made := 0
	c := newChildren(func(v ...string) prometheus.Counter {
		made++
		return vec.WithLabelValues(v...)
	})
	if n := len(counted()); n != 0 {
		t.Fatalf("%d series before any use, want 0 (children are made on first use)", n)
	}
	c.get("engine").Inc()
	c.get("engine").Inc()
	c.get("gqlgen").Inc()
	if got := counted(); len(got) != 2 || got["engine"] != 2 || got["gqlgen"] != 1 {
		t.Errorf("counted %v, want engine 2 and gqlgen 1", got)
	}
	if made != 2 {
		t.Errorf("%d children made for two values, want 2", made)
	}
	if allocs := testing.AllocsPerRun(100, func() { c.get("engine").Inc() }); allocs != 0 {
		t.Errorf("a known value's child costs %v allocations, want 0", allocs)
	}

	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.get(fmt.Sprint("v", i%16)).Inc()
		}()
	}
	wg.Wait()
	got := counted()
	for i := range 16 {
		if v := fmt.Sprint("v", i); got[v] != 4 {
			t.Errorf("%s counted %v, want 4", v, got[v])
		}
	}
}
