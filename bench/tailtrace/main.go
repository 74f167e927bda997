// Command tailtrace reads a Go execution trace of a server under load and
// says where its longest waits to run went. A goroutine made runnable (a
// connection the network poller found readable, a new goroutine, one woken
// by another) waits until a P runs it; tailtrace prints how those waits
// are distributed, and for the longest, what the P that finally ran the
// goroutine ran in the meantime: how many goroutines, how many of them born
// during the wait (and in which function they start), and how often the
// older goroutines that ran most ran. bench/tail.sh runs it on a 1 s trace
// of the gateway under Q1; docs/speed.md ("Who ran instead") reads one.
//
//	curl -o q1.trace 'http://127.0.0.1:6060/debug/pprof/trace?seconds=1'   # under load, -pprof-addr
//	go run ./bench/tailtrace -longest 10 q1.trace
package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"golang.org/x/exp/trace"
)

func main() {
	longest := flag.Int("longest", 10, "how many of the longest waits to describe")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: tailtrace [-longest N] TRACE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tailtrace:", err)
		os.Exit(2)
	}
	defer f.Close()
	s, err := read(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tailtrace: reading the trace:", err)
		os.Exit(1)
	}
	if len(s.waits) == 0 {
		fmt.Fprintln(os.Stderr, "tailtrace: the trace holds no goroutine that waited to run")
		os.Exit(1)
	}
	s.report(os.Stdout, *longest)
}

// run is a goroutine starting to run on a P.
type run struct {
	at trace.Time
	g  trace.GoID
}

// wait is a goroutine's time from runnable to running.
type wait struct {
	from, to trace.Time
	g        trace.GoID
	proc     trace.ProcID
}

func (w wait) length() time.Duration { return time.Duration(w.to - w.from) }

// schedule is what the trace says of goroutines and Ps.
type schedule struct {
	runs    map[trace.ProcID][]run // in time order
	waits   []wait
	born    map[trace.GoID]trace.Time
	startIn map[trace.GoID]string // the function a goroutine born in the trace starts in
	created map[string]int        // goroutines born in the trace, by that function
	span    time.Duration
}

func read(r io.Reader) (*schedule, error) {
	tr, err := trace.NewReader(r)
	if err != nil {
		return nil, err
	}
	s := &schedule{runs: map[trace.ProcID][]run{}, born: map[trace.GoID]trace.Time{},
		startIn: map[trace.GoID]string{}, created: map[string]int{}}
	runnable := map[trace.GoID]trace.Time{}
	var first, last trace.Time
	for {
		ev, err := tr.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if first == 0 {
			first = ev.Time()
		}
		last = ev.Time()
		if ev.Kind() != trace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != trace.ResourceGoroutine {
			continue
		}
		g := st.Resource.Goroutine()
		from, to := st.Goroutine()
		switch {
		case from == trace.GoNotExist && to == trace.GoRunnable:
			s.born[g] = ev.Time()
			fn := "?"
			for frame := range st.Stack.Frames() {
				fn = frame.Func // the outermost frame: where it starts
			}
			s.startIn[g] = fn
			s.created[fn]++
		}
		if to == trace.GoRunnable {
			runnable[g] = ev.Time()
		}
		if from == trace.GoRunnable && to == trace.GoRunning {
			p := ev.Proc()
			s.runs[p] = append(s.runs[p], run{ev.Time(), g})
			if t, ok := runnable[g]; ok {
				s.waits = append(s.waits, wait{t, ev.Time(), g, p})
				delete(runnable, g)
			}
		}
	}
	s.span = time.Duration(last - first)
	slices.SortFunc(s.waits, func(a, b wait) int { return cmp.Compare(a.length(), b.length()) })
	return s, nil
}

func (s *schedule) report(w io.Writer, longest int) {
	n := len(s.waits)
	at := func(q float64) time.Duration { return s.waits[min(n-1, int(q*float64(n)))].length() }
	fmt.Fprintf(w, "%d waits to run in %s: p50 %s, p99 %s, p99.9 %s, longest %s\n",
		n, s.span.Round(time.Millisecond), round(at(0.5)), round(at(0.99)), round(at(0.999)), round(s.waits[n-1].length()))
	type count struct {
		name string
		n    int
	}
	var created []count
	for fn, c := range s.created {
		created = append(created, count{fn, c})
	}
	slices.SortFunc(created, func(a, b count) int { return cmp.Compare(b.n, a.n) })
	for _, c := range created[:min(3, len(created))] {
		fmt.Fprintf(w, "goroutines started in %s: %d\n", c.name, c.n)
	}
	fmt.Fprintf(w, "the %d longest waits, and what the P that ran the goroutine ran meanwhile:\n", min(longest, n))
	for _, wt := range slices.Backward(s.waits[max(0, n-longest):]) {
		runs := s.runs[wt.proc]
		i, _ := slices.BinarySearchFunc(runs, wt.from, func(r run, t trace.Time) int { return cmp.Compare(r.at, t) })
		j, _ := slices.BinarySearchFunc(runs, wt.to, func(r run, t trace.Time) int { return cmp.Compare(r.at, t) })
		meanwhile := runs[i:j]
		bornDuring := map[string]int{}
		older := map[trace.GoID]int{}
		for _, r := range meanwhile {
			if t, ok := s.born[r.g]; ok && t >= wt.from {
				bornDuring[s.startIn[r.g]]++
			} else {
				older[r.g]++
			}
		}
		var most []int
		for _, c := range older {
			most = append(most, c)
		}
		slices.SortFunc(most, func(a, b int) int { return cmp.Compare(b, a) })
		fmt.Fprintf(w, "  %s on P%d: %d runs; %d by %d older goroutines (the most run %v times)",
			round(wt.length()), wt.proc, len(meanwhile), len(meanwhile)-sum(bornDuring), len(older), most[:min(3, len(most))])
		for fn, c := range bornDuring {
			fmt.Fprintf(w, "; %d by goroutines born meanwhile in %s", c, fn)
		}
		fmt.Fprintln(w)
	}
}

// round keeps a duration's figures readable: microseconds below a
// millisecond, hundredths of one above.
func round(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(10 * time.Microsecond)
}

func sum(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}
