package catalogue

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Observer is told what the refresher does, for metrics. Its methods are
// called concurrently.
type Observer interface {
	// UpstreamRequest reports one upstream request of collection c, its
	// outcome ("200", "304", or a FetchError kind: "status_503",
	// "timeout", "connection", "read", "too_large", "redirect") and how
	// long it took, body included.
	UpstreamRequest(c Collection, outcome string, d time.Duration)
	// BodyRejected reports a body of c that failed validation.
	BodyRejected(c Collection)
	// RefreshDone reports a whole refresh round and how long it took.
	RefreshDone(d time.Duration)
}

// RefresherConfig configures a Refresher. Upstream and Interval are
// required; the rest have defaults.
type RefresherConfig struct {
	Upstream *Upstream
	// Cache, if set, keeps every good body on disk and is read at start.
	Cache *DiskCache
	// Interval is how often the upstream is read again, give or take a
	// tenth, so that replicas started together do not call together.
	Interval time.Duration
	// Retries is how many times a transient failure is tried again within
	// one round, with exponential backoff from RetryBase, or after the
	// wait a 429 or 503 asked for with Retry-After (see Refresher).
	// Defaults: 2, 250ms.
	Retries   int
	RetryBase time.Duration
	// ColdRetryBase is the first wait before trying again while a
	// collection has no good body at all; it doubles up to Interval.
	// Default 1s.
	ColdRetryBase time.Duration
	Logger        *slog.Logger
	Observer      Observer
}

// CollectionState is what the refresher knows of one collection, for
// /readyz.
type CollectionState struct {
	// Source is where the body being served came from: "upstream",
	// "cache" or "embedded"; empty while there is none.
	Source string `json:"source,omitempty"`
	// CheckedAt is when the upstream last gave or confirmed (304) the
	// body being served; zero for a body from the disk cache not yet
	// revalidated.
	CheckedAt time.Time `json:"checkedAt,omitzero"`
	// LastAttemptAt, LastOutcome and LastError describe the latest
	// refresh of the collection: outcome "200", "304", "unchanged",
	// "rejected" (a body that failed validation) or "error". LastError
	// is the failure as Describe puts it, with no upstream address: it
	// is shown to anyone who asks /readyz. The log has the full error.
	LastAttemptAt time.Time `json:"lastAttemptAt,omitzero"`
	LastOutcome   string    `json:"lastOutcome,omitempty"`
	LastError     string    `json:"lastError,omitempty"`

	validators Validators
}

// Refresher keeps a Store's snapshot up to date with the upstream: it
// reads every collection at start and every Interval, keeps each
// collection's last good body when a read fails, and publishes a new
// snapshot only when something changed.
//
// A 429 or 503 with Retry-After is obeyed: the next request for that
// collection, in the round or a later one, waits what the upstream asked
// instead of the refresher's own backoff, at most nine tenths of Interval
// (the soonest the next round can start, jittered), so that an upstream
// asking for more never delays a collection by more than a round. A round
// holds a collection for such a wait only up to the upstream Timeout (a
// try may take that long anyway); a longer one ends the collection's round
// and is waited out at the start of a later round, with no request
// before it.
type Refresher struct {
	cfg   RefresherConfig
	store *Store

	mu     sync.Mutex
	states [NumCollections]CollectionState
	// coldErrs holds the last error of each collection with no body yet,
	// in full, for the log (the states hold what may be shown to anyone).
	coldErrs [NumCollections]error
	// notBefore is, per collection, when the upstream's Retry-After lets
	// the next request go.
	notBefore [NumCollections]time.Time
	// flights are open while a collection is being read, and closed once
	// what came of it is published: requests for a cold collection wait
	// on its flight.
	flights [NumCollections]chan struct{}

	// publishing serialises publishes: each reads the current snapshot
	// and swaps in a successor, and two must not interleave.
	publishing sync.Mutex
}

// NewRefresher returns a refresher publishing into store.
func NewRefresher(store *Store, cfg RefresherConfig) *Refresher {
	if cfg.Retries == 0 {
		cfg.Retries = 2
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = 250 * time.Millisecond
	}
	if cfg.ColdRetryBase <= 0 {
		cfg.ColdRetryBase = time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Observer == nil {
		cfg.Observer = nopObserver{}
	}
	r := &Refresher{cfg: cfg, store: store}
	// The first round's flights open here, before the server listens, so a
	// request arriving before Run has started (or while it loads the disk
	// cache) waits for the upstream rather than answering 503.
	r.openFlights()
	return r
}

type nopObserver struct{}

func (nopObserver) UpstreamRequest(Collection, string, time.Duration) {}
func (nopObserver) BodyRejected(Collection)                           {}
func (nopObserver) RefreshDone(time.Duration)                         {}

// States returns the state of every collection.
func (r *Refresher) States() [NumCollections]CollectionState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.states
}

// Run loads the disk cache, then refreshes until ctx ends: every Interval
// while every collection has a good body, and sooner, with growing waits,
// while some has none.
func (r *Refresher) Run(ctx context.Context) {
	r.LoadCache()
	wait := r.cfg.ColdRetryBase
	for {
		r.Refresh(ctx)
		next := jitter(r.cfg.Interval)
		if snap := r.store.Current(); snap == nil || len(snap.Missing()) > 0 {
			next = min(jitter(wait), next)
			wait = min(2*wait, r.cfg.Interval)
		} else {
			wait = r.cfg.ColdRetryBase
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(next):
		}
	}
}

// jitter spreads d by ±10%.
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.9 + 0.2*rand.Float64()))
}

// LoadCache publishes what the disk cache holds, so a restart serves at
// once; the next refresh revalidates it. A damaged file is reported and
// left out.
func (r *Refresher) LoadCache() {
	if r.cfg.Cache == nil {
		return
	}
	var parts []*Part
	for c := range NumCollections {
		body, v, err := r.cfg.Cache.Load(c)
		if errors.Is(err, ErrNotCached) {
			continue
		}
		if err != nil {
			r.cfg.Logger.Warn("ignoring a damaged disk cache file", "collection", c.String(), "err", err)
			continue
		}
		p, err := Decode(c, body)
		if err != nil {
			r.cfg.Logger.Warn("ignoring a disk cache file that is not a valid body", "collection", c.String(), "err", err)
			continue
		}
		parts = append(parts, p.WithModified(v.LastModified))
		r.mu.Lock()
		r.states[c] = CollectionState{Source: "cache", validators: v}
		r.mu.Unlock()
	}
	if len(parts) > 0 {
		r.publish(parts)
		r.cfg.Logger.Info("serving the disk cache until the upstream answers", "collections", len(parts))
	}
}

// publish swaps in a snapshot with parts in place of the current ones.
func (r *Refresher) publish(parts []*Part) {
	r.publishing.Lock()
	defer r.publishing.Unlock()
	base := r.store.Current()
	if base == nil {
		base = NewSnapshot()
	}
	r.store.Publish(base.With(parts...))
}

// Refresh reads every collection once, concurrently. Each collection whose
// body changed is published as soon as it is decoded, so one slow or hung
// path delays only itself; a collection whose read fails keeps its last
// good body.
func (r *Refresher) Refresh(ctx context.Context) {
	start := time.Now()
	r.openFlights()
	cur := r.store.Current()
	var wg sync.WaitGroup
	for c := range NumCollections {
		wg.Go(func() {
			defer r.land(c)
			if p := r.refreshOne(ctx, c, cur); p != nil {
				r.publish([]*Part{p})
			}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		// Stopped, most often by a shutdown: the reads cut short did not
		// fail, and warning about each (one per collection in flight)
		// would tell an operator of thirteen faults that were not.
		r.cfg.Logger.Info("upstream reads stopped before the round ended", "cause", context.Cause(ctx))
		return
	}
	r.cfg.Observer.RefreshDone(time.Since(start))
	r.logMissing()
}

// noteCold keeps the error of a read of c, which has no body yet.
func (r *Refresher) noteCold(c Collection, err error) {
	r.mu.Lock()
	r.coldErrs[c] = err
	r.mu.Unlock()
}

// logMissing says, in one line per round, which collections still have no
// good body (a cold start with the upstream down): there is no last good
// body to keep, and thirteen warnings saying so would hide the one fact.
func (r *Refresher) logMissing() {
	var missing []Collection
	if snap := r.store.Current(); snap == nil {
		for c := range NumCollections {
			missing = append(missing, c)
		}
	} else {
		missing = snap.Missing()
	}
	if len(missing) == 0 {
		return
	}
	names := make([]string, len(missing))
	for i, c := range missing {
		names[i] = c.String()
	}
	r.mu.Lock()
	last := r.coldErrs[missing[0]]
	r.mu.Unlock()
	r.cfg.Logger.Warn("no body read from the upstream yet; these collections are not served until it answers",
		"collections", strings.Join(names, ","), "missing", len(missing), "err", last)
}

// openFlights opens a flight for every collection that has none open.
func (r *Refresher) openFlights() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for c := range r.flights {
		if r.flights[c] == nil {
			r.flights[c] = make(chan struct{})
		}
	}
}

// land closes the flight of collection c, waking those waiting on it.
func (r *Refresher) land(c Collection) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ch := r.flights[c]; ch != nil {
		close(ch)
		r.flights[c] = nil
	}
}

// refreshOne reads collection c and returns its new part, or nil when the
// body is unchanged or the read failed.
func (r *Refresher) refreshOne(ctx context.Context, c Collection, cur *Snapshot) *Part {
	var have *Body
	if cur != nil {
		have = cur.Body(c)
	}
	r.mu.Lock()
	v := r.states[c].validators
	r.mu.Unlock()
	if have == nil {
		v = Validators{} // nothing to revalidate
	}

	f, err := r.fetch(ctx, c, v)
	now := time.Now()
	if errors.Is(err, errDeferred) {
		r.cfg.Logger.Debug("upstream asked for a later request (Retry-After); not asking this round", "collection", c.String())
		return nil
	}
	if err != nil && ctx.Err() != nil {
		return nil // stopped, not failed: Refresh says so once
	}
	if err != nil {
		r.record(c, func(s *CollectionState) { s.LastOutcome, s.LastError = "error", Describe(err) }, now)
		if have == nil { // no good body to keep: Refresh says so once for all
			r.noteCold(c, err)
			r.cfg.Logger.Debug("upstream read failed", "collection", c.String(), "err", err)
			return nil
		}
		r.cfg.Logger.Warn("upstream read failed; keeping the last good body", "collection", c.String(), "err", err)
		return nil
	}
	if f.NotModified {
		r.record(c, func(s *CollectionState) {
			s.LastOutcome, s.LastError, s.CheckedAt, s.validators = "304", "", now, f.Validators
		}, now)
		return nil
	}
	if have != nil && have.ETag() == newETag(f.Body) {
		// An upstream that sends no validators still costs no decoding
		// when its body has not changed.
		r.record(c, func(s *CollectionState) {
			s.LastOutcome, s.LastError, s.CheckedAt, s.validators = "unchanged", "", now, f.Validators
		}, now)
		return nil
	}
	p, err := Decode(c, f.Body)
	if err == nil {
		p = p.WithModified(f.Validators.LastModified)
	}
	if err != nil {
		r.cfg.Observer.BodyRejected(c)
		r.record(c, func(s *CollectionState) { s.LastOutcome, s.LastError = "rejected", Describe(err) }, now)
		if have == nil {
			r.noteCold(c, err)
			r.cfg.Logger.Debug("upstream body rejected", "collection", c.String(), "err", err)
			return nil
		}
		r.cfg.Logger.Warn("upstream body rejected; keeping the last good body", "collection", c.String(), "err", err)
		return nil
	}
	if r.cfg.Cache != nil {
		if err := r.cfg.Cache.Save(c, f.Body, f.Validators); err != nil {
			r.cfg.Logger.Warn("cannot write the disk cache", "collection", c.String(), "err", err)
		}
	}
	r.record(c, func(s *CollectionState) {
		s.Source, s.LastOutcome, s.LastError, s.CheckedAt, s.validators = "upstream", "200", "", now, f.Validators
	}, now)
	return p
}

func (r *Refresher) record(c Collection, update func(*CollectionState), now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states[c].LastAttemptAt = now
	update(&r.states[c])
}

// errDeferred is fetch's answer when the upstream's Retry-After is too
// far off to be waited out in this round: no request was made.
var errDeferred = errors.New("deferred: the upstream asked for a later request")

// fetch reads c, trying transient failures again within ctx: after the
// wait a Retry-After asked for, or else with exponential backoff and
// jitter.
func (r *Refresher) fetch(ctx context.Context, c Collection, v Validators) (Fetched, error) {
	if wait := r.askedWait(c); wait > 0 {
		if wait > r.maxHold() {
			return Fetched{}, errDeferred
		}
		if !sleep(ctx, wait) {
			return Fetched{}, ctx.Err()
		}
	}
	for attempt := 0; ; attempt++ {
		start := time.Now()
		f, err := r.cfg.Upstream.Fetch(ctx, c, v)
		took := time.Since(start)
		if err == nil {
			if f.NotModified {
				r.cfg.Observer.UpstreamRequest(c, "304", took)
			} else {
				r.cfg.Observer.UpstreamRequest(c, "200", took)
			}
			return f, nil
		}
		if ctx.Err() != nil {
			// Cut short by the caller: no outcome of the upstream's.
			return Fetched{}, err
		}
		var fe *FetchError
		if !errors.As(err, &fe) {
			return Fetched{}, err
		}
		outcome := fe.Kind
		if fe.Kind == "status" {
			outcome = "status_" + strconv.Itoa(fe.Status)
		}
		r.cfg.Observer.UpstreamRequest(c, outcome, took)
		if !fe.Transient() {
			return Fetched{}, err
		}
		wait := jitter(r.cfg.RetryBase << attempt)
		if fe.RetryAfter > 0 {
			wait = min(fe.RetryAfter, r.cfg.Interval*9/10)
			r.mu.Lock()
			r.notBefore[c] = time.Now().Add(wait)
			r.mu.Unlock()
			if wait > r.maxHold() {
				return Fetched{}, err // waited out by a later round
			}
		}
		if attempt >= r.cfg.Retries {
			return Fetched{}, err
		}
		if !sleep(ctx, wait) {
			return Fetched{}, err
		}
	}
}

// askedWait is how long the upstream's last Retry-After for c still asks
// to wait; zero or less when it asks nothing.
func (r *Refresher) askedWait(c Collection) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Until(r.notBefore[c])
}

// maxHold is the longest a round waits on a Retry-After: the upstream
// timeout, which one try may cost anyway.
func (r *Refresher) maxHold() time.Duration {
	if t := r.cfg.Upstream.Timeout; t > 0 {
		return t
	}
	return DefaultTimeout
}

// sleep waits d, or until ctx ends; it reports whether it waited d.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// AwaitFlight waits, at most until ctx ends, for the read of collection c
// under way, if there is one, to land. Requests for a collection with no
// good body yet wait on it rather than each asking the upstream: however
// many arrive while the snapshot is cold, each collection is fetched once
// per round.
func (r *Refresher) AwaitFlight(ctx context.Context, c Collection) {
	r.mu.Lock()
	flight := r.flights[c]
	r.mu.Unlock()
	if flight == nil {
		return
	}
	select {
	case <-flight:
	case <-ctx.Done():
	}
}
