package graphqlhttp

import (
	"net/netip"
	"sync"
)

// CodeTooManyStreamsForClient refuses an event stream beyond
// Options.MaxStreamsPerClient: this client holds too many open, whatever
// the server's room (that is CodeTooManyStreams).
const CodeTooManyStreamsForClient = "TOO_MANY_SUBSCRIPTIONS_FOR_CLIENT"

// clientStreams counts each client's open streams. A client's entry goes
// when its count returns to zero, so the map holds only the clients with
// a stream open or being opened.
type clientStreams struct {
	max int

	mu   sync.Mutex
	open map[netip.Prefix]int
}

func newClientStreams(max int) *clientStreams {
	return &clientStreams{max: max, open: map[netip.Prefix]int{}}
}

// acquire takes one of client's places, or reports that it has none left.
func (c *clientStreams) acquire(client netip.Prefix) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[client] >= c.max {
		return false
	}
	c.open[client]++
	return true
}

// release gives back a place acquire took.
func (c *clientStreams) release(client netip.Prefix) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := c.open[client]; n > 1 {
		c.open[client] = n - 1
	} else {
		delete(c.open, client)
	}
}
