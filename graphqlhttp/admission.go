package graphqlhttp

import (
	"container/list"
	"context"
	"net/netip"
	"sync"
)

// admission admits as many operations at once as there are cores to run
// them (its size); the others wait their turn, within their time budget.
// Run all at once, they share the cores and the scheduler, and the
// unlucky ones wait far longer: at 32 connections this cut a nested
// query's p99 from about 120 ms to about 45 ms.
//
// The turns are fair between clients, not first come first served: each
// client (clientKey) waits in a line of its own, in arrival order, and
// the lines are served round-robin, one operation each. One WebSocket
// sending 3,000 queries in 0.2 s once filled a single queue, and a
// caller's query arriving just after waited 10 s and timed out; now it
// waits for at most one operation of each other client waiting.
//
// The way in when a core is free and nobody waits (tryAcquire) costs one
// uncontended mutex, as golang.org/x/sync/semaphore's did: the client is
// named only when its operation has to wait.
type admission struct {
	mu sync.Mutex
	// free counts the cores not taken.
	free int
	// turns are the lines with someone waiting, the one served next at
	// the front.
	turns list.List // of *admissionLine
	// lines are the same lines by client.
	lines map[netip.Prefix]*admissionLine
}

// admissionLine is one client's operations waiting, in arrival order.
type admissionLine struct {
	client  netip.Prefix
	waiting list.List // of *admissionWaiter
	turn    *list.Element
}

type admissionWaiter struct {
	ready chan struct{} // closed when admitted
	line  *admissionLine
	elem  *list.Element
}

func newAdmission(size int) *admission {
	return &admission{free: size, lines: map[netip.Prefix]*admissionLine{}}
}

// tryAcquire takes a core if one is free and nobody waits for it.
func (a *admission) tryAcquire() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.free > 0 && a.turns.Len() == 0 {
		a.free--
		return true
	}
	return false
}

// acquire takes a core for an operation of client, waiting for its turn
// until ctx is done (then it returns ctx's error and holds nothing).
func (a *admission) acquire(ctx context.Context, client netip.Prefix) error {
	a.mu.Lock()
	if a.free > 0 && a.turns.Len() == 0 {
		a.free--
		a.mu.Unlock()
		return nil
	}
	line := a.lines[client]
	if line == nil {
		line = &admissionLine{client: client}
		line.turn = a.turns.PushBack(line)
		a.lines[client] = line
	}
	w := &admissionWaiter{ready: make(chan struct{}), line: line}
	w.elem = line.waiting.PushBack(w)
	a.mu.Unlock()

	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	a.mu.Lock()
	select {
	case <-w.ready:
		// Admitted as the time ran out: the core goes to the next.
		a.mu.Unlock()
		a.release()
	default:
		a.leave(w)
		a.mu.Unlock()
	}
	return ctx.Err()
}

// leave takes w out of its line, and the line out of the turns once it
// is empty. a.mu is held.
func (a *admission) leave(w *admissionWaiter) {
	line := w.line
	line.waiting.Remove(w.elem)
	if line.waiting.Len() == 0 {
		a.turns.Remove(line.turn)
		delete(a.lines, line.client)
	}
}

// release gives back a core: to the first operation of the line whose
// turn it is, which then goes to the back of the turns, or to the free
// ones when nobody waits.
func (a *admission) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	front := a.turns.Front()
	if front == nil {
		a.free++
		return
	}
	line := front.Value.(*admissionLine)
	w := line.waiting.Front().Value.(*admissionWaiter)
	a.leave(w)
	if line.waiting.Len() > 0 {
		a.turns.MoveToBack(line.turn)
	}
	close(w.ready)
}

// waiting counts the operations waiting for a core.
func (a *admission) waiting() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for e := a.turns.Front(); e != nil; e = e.Next() {
		n += e.Value.(*admissionLine).waiting.Len()
	}
	return n
}
