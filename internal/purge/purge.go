// Package purge tells the caches in front of the gateway what a refresh
// changed: for each snapshot the store swaps in, it sends the keys of the
// records and collections that changed (catalogue.Snapshot.ChangeSince) to
// every purge endpoint as HTTP PURGE requests naming them in a
// Surrogate-Key header. It imports the catalogue only; the wiring
// (internal/gateway) runs it and telemetry counts what it does.
//
// Purges never hold up a refresh or a request: each endpoint has a queue
// of its own, drained by a goroutine of its own, so one that is down or
// slow delays nothing but its own purges. Purges are idempotent: purging a
// key twice, or purging a key another replica already purged, leaves the
// cache as one purge would, so every replica may purge what it read.
package purge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// Observer is told what the purger does, for metrics. Its methods are
// called concurrently.
type Observer interface {
	// PurgeRequest reports one PURGE request carrying keys, by outcome:
	// "sent" (the endpoint answered 2xx) or "failed" (given up after its
	// tries, or refused with a status not worth trying again).
	PurgeRequest(outcome string, keys int)
	// PurgeDropped reports record keys left out because an endpoint's
	// queue was full: their collections' keys are still sent.
	PurgeDropped(keys int)
}

// Defaults of Options.
const (
	// DefaultMaxHeaderBytes keeps a Surrogate-Key header line, name
	// included, within Varnish's default limit on one header (8 KB).
	DefaultMaxHeaderBytes = 8 << 10
	// DefaultMaxPending bounds the keys waiting for one endpoint: ten times
	// the embedded catalogue's records, so that only an endpoint down
	// through many whole-catalogue changes ever fills it.
	DefaultMaxPending = 100_000
	DefaultTries      = 6
	DefaultRetryBase  = 250 * time.Millisecond
	DefaultGiveUp     = time.Minute
	DefaultTimeout    = 10 * time.Second
)

// Options configure a Purger. URLs are required; the rest have defaults.
type Options struct {
	// URLs are the purge endpoints, each sent every purge.
	URLs []string
	// Header is added to every purge (a token the cache asks for).
	Header http.Header
	// Client sends the purges; http.DefaultClient's transport when nil,
	// with Timeout bounding each try.
	Client  *http.Client
	Timeout time.Duration
	// MaxHeaderBytes bounds one Surrogate-Key header line, name, colon
	// and space included: as many requests are sent as the keys need.
	MaxHeaderBytes int
	// MaxPending bounds the keys queued for one endpoint. When a change
	// would pass it, its record keys are dropped (and counted) and only
	// its collections' keys are queued: every list and REST body of the
	// collection is still purged, and the collection keys are at most one
	// per collection.
	MaxPending int
	// Tries bounds the tries of one request, RetryBase is the first wait
	// between them (doubling, with jitter), and GiveUp bounds the time
	// spent on one request, waits included.
	Tries     int
	RetryBase time.Duration
	GiveUp    time.Duration
	Logger    *slog.Logger
	Observer  Observer
}

// Purger sends the keys of each change to every endpoint.
type Purger struct {
	o         Options
	endpoints []*endpoint
}

// New returns a purger for o; Run starts it.
func New(o Options) *Purger {
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if o.MaxPending <= 0 {
		o.MaxPending = DefaultMaxPending
	}
	if o.Tries <= 0 {
		o.Tries = DefaultTries
	}
	if o.RetryBase <= 0 {
		o.RetryBase = DefaultRetryBase
	}
	if o.GiveUp <= 0 {
		o.GiveUp = DefaultGiveUp
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Observer == nil {
		o.Observer = nopObserver{}
	}
	p := &Purger{o: o}
	for _, u := range o.URLs {
		p.endpoints = append(p.endpoints, &endpoint{url: u, wake: make(chan struct{}, 1), queued: map[string]bool{}})
	}
	return p
}

type nopObserver struct{}

func (nopObserver) PurgeRequest(string, int) {}
func (nopObserver) PurgeDropped(int)         {}

// Start purges the changes of every snapshot store swaps in from this
// call on, until ctx ends: the store is watched before Start returns, so
// no change published after it is missed. The channel it returns closes
// once every endpoint's sender has stopped. Keys still queued then are
// not sent (the log says how many): the next replica to refresh, or the
// keys' max-age, covers them.
func (p *Purger) Start(ctx context.Context, store *catalogue.Store) <-chan struct{} {
	snap, replaced := store.Watch()
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		for _, e := range p.endpoints {
			wg.Go(func() { p.send(ctx, e) })
		}
		p.watch(ctx, store, snap, replaced)
		wg.Wait()
	}()
	return done
}

// watch queues the keys of each change the store tells of after snap.
func (p *Purger) watch(ctx context.Context, store *catalogue.Store, snap *catalogue.Snapshot, replaced <-chan struct{}) {
	var version string
	var tags [catalogue.NumCollections]string
	if snap != nil {
		version, tags = snap.Version(), snap.BodyETags()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-replaced:
		}
		snap, replaced = store.Watch()
		if snap == nil {
			continue
		}
		if version == "" {
			// The first snapshot this replica serves (start-up, the
			// disk cache): nothing a cache holds came from it, so it
			// purges nothing, and what comes after is told against it.
			version, tags = snap.Version(), snap.BodyETags()
			continue
		}
		ch, ok := snap.ChangeSince(version, tags)
		if !ok {
			p.o.Logger.Warn("purging whole collections: the snapshot does not remember what changed since the last purge",
				"from", version, "to", snap.Version())
		}
		version, tags = snap.Version(), snap.BodyETags()
		if len(ch.Keys) > 0 {
			p.Purge(ch.Keys)
		}
	}
}

// Purge queues keys for every endpoint, without waiting. Collection keys
// (those with no colon) are always queued; record keys as long as the
// endpoint's queue has room.
func (p *Purger) Purge(keys []string) {
	for _, e := range p.endpoints {
		if dropped := e.add(keys, p.o.MaxPending); dropped > 0 {
			p.o.Observer.PurgeDropped(dropped)
			p.o.Logger.Warn("purge queue full: purging whole collections for the records of this change",
				"endpoint", redact(e.url), "dropped_keys", dropped)
		}
	}
}

// endpoint is one purge endpoint and the keys waiting for it.
type endpoint struct {
	url  string
	wake chan struct{}

	mu      sync.Mutex
	pending []string
	queued  map[string]bool
}

// add queues keys not already queued and reports how many record keys
// found no room.
func (e *endpoint) add(keys []string, limit int) (dropped int) {
	e.mu.Lock()
	room := limit - len(e.pending)
	if room < len(keys) {
		// Room for the collections' keys first: they cover every record.
		var kept []string
		for _, k := range keys {
			if !strings.Contains(k, ":") {
				kept = append(kept, k)
			}
		}
		dropped = len(keys) - len(kept)
		keys = kept
	}
	for _, k := range keys {
		if !e.queued[k] {
			e.queued[k] = true
			e.pending = append(e.pending, k)
		}
	}
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
	return dropped
}

// take empties the queue.
func (e *endpoint) take() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	keys := e.pending
	e.pending, e.queued = nil, map[string]bool{}
	return keys
}

// send drains e's queue until ctx ends.
func (p *Purger) send(ctx context.Context, e *endpoint) {
	for {
		select {
		case <-ctx.Done():
			if n := len(e.take()); n > 0 {
				p.o.Logger.Info("stopping with purges unsent", "endpoint", redact(e.url), "keys", n)
			}
			return
		case <-e.wake:
		}
		for _, batch := range Split(e.take(), p.o.MaxHeaderBytes-len("Surrogate-Key: ")) {
			if ctx.Err() != nil {
				break // said above, on the way out
			}
			n := strings.Count(batch, " ") + 1
			if err := p.purge(ctx, e.url, batch); err != nil {
				p.o.Observer.PurgeRequest("failed", n)
				p.o.Logger.Warn("purge failed", "endpoint", redact(e.url), "keys", n, "err", err)
				continue
			}
			p.o.Observer.PurgeRequest("sent", n)
		}
	}
}

// Split joins keys with spaces into values of at most max bytes each, in
// order; a key longer than max alone is a value of its own.
func Split(keys []string, max int) []string {
	var out []string
	var b strings.Builder
	for _, k := range keys {
		if b.Len() > 0 && b.Len()+1+len(k) > max {
			out = append(out, b.String())
			b.Reset()
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// statusError is a purge endpoint's answer other than 2xx.
type statusError struct{ status int }

func (e statusError) Error() string { return fmt.Sprintf("status %d", e.status) }

// retried reports whether a try that failed with err is worth another: a
// network failure, a timeout, 408, 429 or a 5xx. Any other status (401,
// 405: a cache not set up for purges) will answer the same again.
func retried(err error) bool {
	var se statusError
	if !errors.As(err, &se) {
		return true
	}
	return se.status == http.StatusRequestTimeout || se.status == http.StatusTooManyRequests || se.status >= 500
}

// purge sends one PURGE of keys to url, trying again with back-off, at
// most o.Tries times within o.GiveUp.
func (p *Purger) purge(ctx context.Context, url, keys string) error {
	ctx, cancel := context.WithTimeout(ctx, p.o.GiveUp)
	defer cancel()
	var err error
	for try := 0; try < p.o.Tries; try++ {
		if try > 0 {
			wait := p.o.RetryBase << (try - 1)
			wait = time.Duration(float64(wait) * (0.75 + 0.5*rand.Float64()))
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("purging %d bytes of keys, given up: %w (last: %w)", len(keys), context.Cause(ctx), err)
			case <-t.C:
			}
		}
		if err = p.try(ctx, url, keys); err == nil || !retried(err) {
			return err
		}
	}
	return fmt.Errorf("purging %d bytes of keys, %d tries: %w", len(keys), p.o.Tries, err)
}

// try sends one PURGE request.
func (p *Purger) try(ctx context.Context, url, keys string) error {
	ctx, cancel := context.WithTimeout(ctx, p.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "PURGE", url, nil)
	if err != nil {
		return fmt.Errorf("making a purge request: %w", err)
	}
	for name, values := range p.o.Header {
		req.Header[name] = values
	}
	req.Header.Set("Surrogate-Key", keys)
	resp, err := p.o.Client.Do(req)
	if err != nil {
		return fmt.Errorf("sending a purge: %w", err)
	}
	// Drained a little, so that the connection is kept for the next.
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return statusError{resp.StatusCode}
	}
	return nil
}

// redact is url without its user and query, which may hold a secret, for
// the log.
func redact(url string) string {
	if i := strings.IndexAny(url, "?#"); i >= 0 {
		url = url[:i]
	}
	if i := strings.Index(url, "@"); i >= 0 {
		if j := strings.Index(url, "://"); j >= 0 && j < i {
			url = url[:j+3] + url[i+1:]
		}
	}
	return url
}
