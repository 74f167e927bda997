package admission

import (
	"net/netip"
	"sync"
)

// ClientStreams counts each client's open streams. A client's entry goes
// when its count returns to zero, so the map holds only the clients with
// a stream open or being opened.
type ClientStreams struct {
	max int

	mu   sync.Mutex
	open map[netip.Prefix]int
}

// NewClientStreams returns counts of at most max streams a client.
func NewClientStreams(max int) *ClientStreams {
	return &ClientStreams{max: max, open: map[netip.Prefix]int{}}
}

// Acquire takes one of client's places, or reports that it has none left.
func (c *ClientStreams) Acquire(client netip.Prefix) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[client] >= c.max {
		return false
	}
	c.open[client]++
	return true
}

// Release gives back a place Acquire took.
func (c *ClientStreams) Release(client netip.Prefix) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := c.open[client]; n > 1 {
		c.open[client] = n - 1
	} else {
		delete(c.open, client)
	}
}
