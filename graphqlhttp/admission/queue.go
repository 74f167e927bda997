package admission

import (
	"container/list"
	"context"
	"net/netip"
	"sync"
	"time"
)

// Queue admits as many operations at once as there are cores to run
// them (its size); the others wait their turn, within their time budget.
// Run all at once, they share the cores and the scheduler, and the
// unlucky ones wait far longer: at 32 connections this cut a nested
// query's p99 from about 120 ms to about 45 ms.
//
// The turns are fair between clients (clientaddr.Key), by the time each has
// held a core, as Linux's CFS shares a CPU between tasks: a core that
// frees goes to the waiting client that has used the least, and within a
// client to its operations in arrival order (on a tie, to the operation
// that arrived first). One WebSocket sending 3,000 queries in 0.2 s once
// filled a single FIFO, and a caller's query arriving just after waited
// 10 s and timed out. Turns one operation each, round-robin, were not
// enough either: a flood of introspection queries (30 ms of a core each)
// against a caller of 0.2 ms queries still gave that caller a p99 of
// 300 ms, one of its turns per flood operation. By time used, a light
// caller goes first whenever a core frees (and with one connection's
// queries holding at most half the cores, see wsExecutor, its p99 was
// 36-78 ms during the flood, bench/websocket.sh).
//
// A client is known while it has operations waiting or admitted by
// Acquire, and then forgotten; a client new, or back, starts level with
// the client served last, less newClientCredit, so that it goes before
// clients busier than it, and cannot bank credit while away.
//
// The way in when a core is free and nobody waits (TryAcquire) costs one
// uncontended mutex, as golang.org/x/sync/semaphore's did: the client is
// not named, and not charged, as nobody waits for the core it takes.
type Queue struct {
	now func() time.Time
	// size is how many operations it admits at once.
	size int

	mu sync.Mutex
	// free counts the cores not taken.
	free int
	// waiting counts the operations waiting.
	waiting int
	// seq numbers the operations as they arrive.
	seq uint64
	// clients are the clients known, with their use.
	clients map[netip.Prefix]*queueClient
	// served is the use of the client served last, where new clients
	// start.
	served time.Duration
}

// newClientCredit is how much a client new or back may use before it is
// level with the client served last: about one heavy operation.
const newClientCredit = 50 * time.Millisecond

// queueClient is one client's use and its operations waiting.
type queueClient struct {
	key netip.Prefix
	// used is the time the client's operations held a core, from where
	// it started.
	used     time.Duration
	waiting  list.List // of *queueWaiter, in arrival order
	admitted int
}

type queueWaiter struct {
	seq    uint64
	ready  chan struct{} // closed when admitted, with ticket set
	ticket Ticket
	elem   *list.Element
}

// Ticket is a core held, to be given back by Release: the
// client it is charged to (nil: none, for TryAcquire) and since when.
type Ticket struct {
	client *queueClient
	start  time.Time
}

func NewQueue(size int) *Queue {
	return &Queue{now: time.Now, size: size, free: size, clients: map[netip.Prefix]*queueClient{}}
}

// TryAcquire takes a core if one is free and nobody waits for it; it is
// given back with Release(Ticket{}).
func (a *Queue) TryAcquire() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.free > 0 && a.waiting == 0 {
		a.free--
		return true
	}
	return false
}

// Acquire takes a core for an operation of client, waiting for its turn
// until ctx is done (then it returns ctx's error and holds nothing). The
// ticket goes to Release.
func (a *Queue) Acquire(ctx context.Context, key netip.Prefix) (Ticket, error) {
	a.mu.Lock()
	c := a.clients[key]
	if c == nil {
		c = &queueClient{key: key, used: a.served - newClientCredit}
		a.clients[key] = c
	}
	if a.free > 0 && a.waiting == 0 {
		a.free--
		c.admitted++
		t := Ticket{c, a.now()}
		a.mu.Unlock()
		return t, nil
	}
	a.seq++
	w := &queueWaiter{seq: a.seq, ready: make(chan struct{})}
	w.elem = c.waiting.PushBack(w)
	a.waiting++
	a.mu.Unlock()

	select {
	case <-w.ready:
		return w.ticket, nil
	case <-ctx.Done():
	}
	a.mu.Lock()
	select {
	case <-w.ready:
		// Admitted as the time ran out: the core goes to the next.
		a.mu.Unlock()
		a.Release(w.ticket)
	default:
		c.waiting.Remove(w.elem)
		a.waiting--
		a.forget(c)
		a.mu.Unlock()
	}
	return Ticket{}, ctx.Err()
}

// forget drops c once it has nothing waiting or admitted. a.mu is held.
func (a *Queue) forget(c *queueClient) {
	if c.waiting.Len() == 0 && c.admitted == 0 {
		delete(a.clients, c.key)
	}
}

// Release gives back the core t holds, charging its client the time it
// held it, to the first operation of the waiting client that has used the
// least, or to the free ones when nobody waits.
func (a *Queue) Release(t Ticket) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	if c := t.client; c != nil {
		c.used += max(now.Sub(t.start), 1)
		c.admitted--
		a.forget(c)
	}
	if a.waiting == 0 {
		a.free++
		return
	}
	// The clients waiting are few (each holds a connection), and this
	// runs once per operation that waited: a scan, not a heap.
	var next *queueClient
	var nextSeq uint64
	for _, c := range a.clients {
		front := c.waiting.Front()
		if front == nil {
			continue
		}
		seq := front.Value.(*queueWaiter).seq
		if next == nil || c.used < next.used || (c.used == next.used && seq < nextSeq) {
			next, nextSeq = c, seq
		}
	}
	w := next.waiting.Remove(next.waiting.Front()).(*queueWaiter)
	a.waiting--
	next.admitted++
	a.served = next.used
	w.ticket = Ticket{next, now}
	close(w.ready)
}

// Waiting counts the operations waiting for a core.
func (a *Queue) Waiting() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.waiting
}

// Size is how many operations the queue admits at once.
func (a *Queue) Size() int { return a.size }
