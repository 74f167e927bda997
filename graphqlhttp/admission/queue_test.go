package admission

import (
	"context"
	"net/netip"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

var (
	clientA = netip.MustParsePrefix("192.0.2.1/32")
	clientB = netip.MustParsePrefix("192.0.2.2/32")
)

// admitted is an operation admitted, with the ticket to release it with.
type admitted struct {
	name   string
	ticket Ticket
}

// queue has an operation of client wait for its turn in a, and returns
// once it waits; it goes to admitted when it is admitted.
func queue(t *testing.T, a *Queue, client netip.Prefix, name string, to chan<- admitted) {
	t.Helper()
	before := a.Waiting()
	go func() {
		if ticket, err := a.Acquire(context.Background(), client); err == nil {
			to <- admitted{name, ticket}
		}
	}()
	waitFor(t, func() bool { return a.Waiting() > before })
}

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// waitFor waits, at most 10 s, until cond holds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not within 10 s")
		}
	}
}

// TestAdmissionByTimeUsed: operations of equal cost are admitted one per
// client in turn, each client's in arrival order; a client that has used
// less goes first, so a light client's operation queued behind a heavy
// one's flood goes next.
func TestAdmissionByTimeUsed(t *testing.T) {
	t.Run("equal costs", func(t *testing.T) {
		clock := &fakeClock{}
		a := NewQueue(1)
		a.now = clock.Now
		if !a.TryAcquire() || a.TryAcquire() {
			t.Fatal("want one core, taken")
		}
		ch := make(chan admitted, 10)
		for _, name := range []string{"a1", "a2", "a3", "a4"} {
			queue(t, a, clientA, name, ch)
		}
		queue(t, a, clientB, "b1", ch)
		queue(t, a, clientA, "a5", ch)
		queue(t, a, clientB, "b2", ch)
		var order []string
		held := Ticket{}
		for range 7 {
			clock.advance(time.Millisecond) // each operation holds the core 1 ms
			a.Release(held)
			next := <-ch
			order = append(order, next.name)
			held = next.ticket
		}
		if want := []string{"a1", "b1", "a2", "b2", "a3", "a4", "a5"}; !slices.Equal(order, want) {
			t.Errorf("admitted %q, want %q", order, want)
		}
		a.Release(held)
		if !a.TryAcquire() {
			t.Error("the core was not given back")
		}
	})
	t.Run("a light client before a heavy one", func(t *testing.T) {
		clock := &fakeClock{}
		a := NewQueue(1)
		a.now = clock.Now
		ch := make(chan admitted, 10)
		ticket, _ := a.Acquire(context.Background(), clientA)
		for _, name := range []string{"a1", "a2", "a3"} {
			queue(t, a, clientA, name, ch)
		}
		cost := map[netip.Prefix]time.Duration{clientA: 30 * time.Millisecond, clientB: time.Millisecond}
		held, holder := ticket, clientA
		var order []string
		for i := range 6 {
			if i == 1 || i == 2 {
				// b's operations arrive one at a time, as a caller's.
				queue(t, a, clientB, "b"+string(rune('0'+i)), ch)
			}
			clock.advance(cost[holder])
			a.Release(held)
			next := <-ch
			order = append(order, next.name)
			held, holder = next.ticket, next.ticket.client.key
			if len(order) == 5 {
				break
			}
		}
		if want := []string{"a1", "b1", "b2", "a2", "a3"}; !slices.Equal(order, want) {
			t.Errorf("admitted %q, want %q", order, want)
		}
	})
}

// TestAdmissionCancelled: an operation whose time runs out while it waits
// leaves its line, and holds nothing.
func TestAdmissionCancelled(t *testing.T) {
	a := NewQueue(1)
	a.TryAcquire()
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() {
		_, err := a.Acquire(ctx, clientA)
		errs <- err
	}()
	waitFor(t, func() bool { return a.Waiting() == 1 })
	ch := make(chan admitted, 1)
	queue(t, a, clientB, "b1", ch)
	cancel()
	if err := <-errs; err != context.Canceled {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if n := a.Waiting(); n != 1 {
		t.Fatalf("%d waiting, want 1", n)
	}
	a.Release(Ticket{})
	got := <-ch
	if got.name != "b1" {
		t.Fatalf("admitted %s", got.name)
	}
	a.Release(got.ticket)
	if !a.TryAcquire() || a.TryAcquire() {
		t.Error("want the one core free again")
	}
	if len(a.clients) != 0 {
		t.Errorf("%d clients still known, want none", len(a.clients))
	}
}

// BenchmarkAdmission measures the way in and out when a core is free, as
// every request takes it below saturation; with more goroutines than
// cores, the turns too.
//
//	go test -run '^$' -bench Admission ./graphqlhttp/admission/
func BenchmarkAdmission(b *testing.B) {
	b.Run("free", func(b *testing.B) {
		a := NewQueue(runtime.GOMAXPROCS(0))
		for b.Loop() {
			if !a.TryAcquire() {
				b.Fatal("no core free")
			}
			a.Release(Ticket{})
		}
	})
	b.Run("turns", func(b *testing.B) {
		a := NewQueue(runtime.GOMAXPROCS(0))
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			var client netip.Prefix
			for pb.Next() {
				if a.TryAcquire() {
					a.Release(Ticket{})
				} else if t, err := a.Acquire(context.Background(), client); err == nil {
					a.Release(t)
				}
			}
		})
	})
}
