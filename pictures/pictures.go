// Package pictures serves the catalogue's pictures from the gateway's own
// origin, at GET /images/{kind}/{id} (catalogue.PicturesPath), so that a
// frontend stays same-origin and works offline.
//
// The route names a record, never an address: the one address it may
// fetch is the record's own in the current snapshot (catalogue's
// Snapshot.Picture). A fetch is guarded as a public endpoint's must be
// (fetch.go): http and https only, no private, loopback, link-local or
// multicast target unless Options.AllowPrivate (checked on the address
// dialled, so a name that resolves elsewhere later cannot slip past),
// redirects dialled under the same check, image types only (PNG, JPEG,
// GIF, WebP, AVIF; never SVG, which can carry script), their bytes sniffed
// as well, a size bound and a time bound; concurrent fetches of one
// address are one, cancelled once no request waits for it (waiting for a
// place or fetching), one host runs at most a quarter of the fetches, a
// client that misses the cache too often is refused (Options.ClientRate),
// and a failure is remembered (Options.FailureTTL) so that a broken
// address is not fetched per request.
//
// What is fetched is kept in memory (a share of the one memory budget,
// charged by bytes, least recently used let go first) and, with a
// directory, on disk (store.go), and served with a strong ETag, long and
// immutable caching when the URL carries the address's version (v), and
// nosniff. With no picture to serve (no address, fetching off, or the
// fetch failed), a small SVG placeholder made here (placeholder.go), with
// the kind's mark and the record's initial, cached briefly.
package pictures

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// Defaults of the Options a flag sets.
const (
	DefaultMaxBytes    = 2 << 20
	DefaultTimeout     = 10 * time.Second
	DefaultClientRate  = 60 // fetches a minute
	DefaultClientBurst = 30
	DefaultDiskBytes   = 256 << 20
	DefaultFailureTTL  = 5 * time.Minute
)

// The bounds that are not options.
const (
	// maxFetches is how many fetches run at once, from every client; a
	// fetch over it waits for a place while a request waits for it.
	maxFetches = 16
	// perHostFetches is how many of them one host may run: a quarter, so
	// that a host that answers slowly (or never, within Timeout) leaves
	// three quarters of the places to the others. Four is also as many
	// idle connections as the client keeps to a host, so a host's
	// fetches in turn reuse them rather than dial.
	perHostFetches = max(1, maxFetches/4)
	// maxClients is how many clients' rates are kept; past it, idle ones
	// are let go, and a new client finds no room until some are.
	maxClients = 10000
	// maxIDBytes bounds the id's segment in the path; no record's is
	// longer.
	maxIDBytes = 256
	// maxSourceBytes bounds an address the gateway fetches.
	maxSourceBytes = 2048
)

// Options configure a Server.
type Options struct {
	// Fetch turns fetching on; off, every picture is its placeholder
	// and nothing is fetched (the embedded catalogue's case).
	Fetch bool
	// AllowPrivate lets fetches reach private, loopback, link-local and
	// other non-public addresses (a test's stand-in image server).
	AllowPrivate bool
	// MaxBytes bounds one picture; a larger one is refused.
	MaxBytes int64
	// Timeout bounds one fetch, redirects and body included.
	Timeout time.Duration
	// ClientRate is how many fetches a minute one client may cause by
	// missing the cache, ClientBurst how many at once; past them it gets
	// 429 with the placeholder. A client is an IPv4 address or an IPv6
	// /64, as ClientKey reads it.
	ClientRate  int
	ClientBurst int
	// MemoryBytes bounds the pictures kept in memory: the pictures'
	// share of the memory budget.
	MemoryBytes int64
	// DiskDir, when set, keeps fetched pictures there too, at most
	// DiskBytes of them, so that a restart does not fetch them again.
	DiskDir   string
	DiskBytes int64
	// FailureTTL is how long a failed fetch is remembered: meanwhile
	// the address is not fetched again and its placeholder is served.
	FailureTTL time.Duration
	// ClientKey names the client a request comes from, for ClientRate.
	ClientKey func(*http.Request) netip.Prefix
	// Error writes an error answer (the gateway's JSON error body).
	Error func(w http.ResponseWriter, status int, code, message string)
	// Observer counts every outcome; nil counts none.
	Observer Observer
	// Logger reports failed fetches, once per address and failure.
	Logger *slog.Logger
	// UserAgent is sent with each fetch.
	UserAgent string
	// Now is the clock (tests move it); nil is time.Now.
	Now func() time.Time
}

// Observer counts what the pictures route does.
type Observer interface {
	// PictureServed counts an answer by outcome: memory, disk or
	// fetched (the picture), placeholder (none to fetch), failed (the
	// fetch failed now or before), rate_limited, not_found, unready,
	// canceled (the client left first).
	PictureServed(outcome string)
	// PictureFetched counts a fetch by outcome (FetchOutcomes) and how
	// long it took.
	PictureFetched(outcome string, d time.Duration)
}

// ServedOutcomes are the outcomes PictureServed counts.
var ServedOutcomes = []string{"memory", "disk", "fetched", "placeholder", "failed", "rate_limited", "not_found", "unready", "canceled"}

// Server serves the pictures of the catalogue in a store.
type Server struct {
	o      Options
	store  *catalogue.Store
	client *http.Client
	// flights are the fetches under way or waiting for a place, by
	// address, so that concurrent requests for one address cost one.
	flightsMu sync.Mutex
	flights   map[string]*flight
	// slots holds a place per fetch running, maxFetches at most; hosts
	// a place per fetch running from each host, perHostFetches at most.
	slots chan struct{}
	hosts hostShares
	rates *clientRates
	disk  *diskStore // nil without a directory

	mu   sync.Mutex
	kept *keptPictures
}

// New returns the server of the pictures of store's snapshots.
func New(store *catalogue.Store, o Options) (*Server, error) {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ClientRate <= 0 {
		o.ClientRate = DefaultClientRate
	}
	if o.ClientBurst <= 0 {
		o.ClientBurst = DefaultClientBurst
	}
	if o.FailureTTL <= 0 {
		o.FailureTTL = DefaultFailureTTL
	}
	if o.DiskBytes <= 0 {
		o.DiskBytes = DefaultDiskBytes
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.ClientKey == nil {
		o.ClientKey = func(*http.Request) netip.Prefix { return netip.Prefix{} }
	}
	if o.Error == nil {
		o.Error = func(w http.ResponseWriter, status int, code, message string) { http.Error(w, message, status) }
	}
	s := &Server{o: o, store: store, flights: map[string]*flight{}, slots: make(chan struct{}, maxFetches),
		hosts: hostShares{m: map[string]*hostShare{}},
		rates: newClientRates(o.ClientRate, o.ClientBurst, maxClients),
		kept:  newKeptPictures(o.MemoryBytes)}
	if o.Fetch {
		allow := publicTarget
		if o.AllowPrivate {
			allow = nil
		}
		s.client = newClient(o.Timeout, allow)
	}
	if o.Fetch && o.DiskDir != "" {
		d, err := openDiskStore(o.DiskDir, o.DiskBytes, o.MaxBytes)
		if err != nil {
			return nil, err
		}
		s.disk = d
	}
	return s, nil
}

// Stats are what the memory store holds: bytes charged, its bound, its
// entries (pictures and remembered failures) and its evictions.
type Stats struct {
	Bytes, Share int64
	Entries      int
	Evictions    uint64
}

// Stats reports the memory store.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Bytes: s.kept.bytes, Share: s.kept.max, Entries: s.kept.len(), Evictions: s.kept.evictions}
}

// DiskStats reports the disk store: its bytes and files (0 without one).
func (s *Server) DiskStats() (bytes int64, files int) {
	if s.disk == nil {
		return 0, 0
	}
	return s.disk.stats()
}

// ServeHTTP answers GET and HEAD of /images/{kind}/{id} (route it for
// every method: others get 405).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.o.Error(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "pictures are read with GET or HEAD")
		return
	}
	kind, ok := catalogue.ParsePictureKind(r.PathValue("kind"))
	seg := r.PathValue("id")
	var id string
	if ok && len(seg) <= maxIDBytes {
		id, ok = catalogue.ParsePictureSegment(seg)
	}
	if !ok {
		s.served("not_found")
		s.o.Error(w, http.StatusNotFound, "NOT_FOUND", "no such picture")
		return
	}
	snap := s.store.Current()
	if snap == nil {
		s.served("unready")
		w.Header().Set("Retry-After", "1")
		s.o.Error(w, http.StatusServiceUnavailable, "NOT_READY", "the catalogue is not loaded yet")
		return
	}
	v := r.URL.Query().Get("v")
	im, name, ok := snap.Picture(kind, id, v)
	if !ok {
		s.served("not_found")
		s.o.Error(w, http.StatusNotFound, "NOT_FOUND", "no such picture")
		return
	}
	src := im.SourceAddress()
	if src == "" || !s.o.Fetch {
		s.served("placeholder")
		s.writePlaceholder(w, r, kind, name, http.StatusOK)
		return
	}
	pic, outcome := s.picture(r, src)
	s.served(outcome)
	switch {
	case pic != nil:
		cache := "no-cache"
		if v != "" && v == catalogue.PictureVersion(src) {
			// The URL names this address: another address is another URL.
			cache = "public, max-age=31536000, immutable"
		}
		write(w, r, pic.body, pic.contentType, pic.etag, cache, http.StatusOK)
	case outcome == "rate_limited":
		w.Header().Set("Retry-After", strconv.Itoa(max(1, 60/s.o.ClientRate)))
		s.writePlaceholder(w, r, kind, name, http.StatusTooManyRequests)
	case outcome == "canceled":
		// The client is gone; nothing to write.
	default:
		s.writePlaceholder(w, r, kind, name, http.StatusOK)
	}
}

func (s *Server) served(outcome string) {
	if s.o.Observer != nil {
		s.o.Observer.PictureServed(outcome)
	}
}

// picture returns the picture at src, from memory, from disk or fetched,
// and the outcome; nil with the outcome when there is none to serve.
func (s *Server) picture(r *http.Request, src string) (*picture, string) {
	now := s.o.Now()
	s.mu.Lock()
	e, ok := s.kept.get(src)
	s.mu.Unlock()
	if ok {
		if e.pic != nil {
			return e.pic, "memory"
		}
		if now.Before(e.failedUntil) {
			return nil, "failed"
		}
	}
	if s.disk != nil {
		if pic := s.disk.load(src); pic != nil {
			s.keep(src, entry{pic: pic})
			return pic, "disk"
		}
	}
	if !s.rates.allow(s.o.ClientKey(r), now) {
		return nil, "rate_limited"
	}
	fl := s.join(r.Context(), src)
	select {
	case <-fl.done:
		if fl.pic != nil {
			return fl.pic, "fetched"
		}
		return nil, "failed"
	case <-r.Context().Done():
		s.leave(src, fl)
		return nil, "canceled"
	}
}

// flight is one fetch of an address and the requests waiting for it. A
// request that leaves does not end it for the others; the last one to
// leave does, whether it is waiting for a place or fetching: a fetch no
// one waits for would hold a place that a request still there could use.
type flight struct {
	waiting int // requests waiting for it; under Server.flightsMu
	cancel  context.CancelFunc
	done    chan struct{} // closed once pic is set
	pic     *picture      // nil for a failure
}

// join counts a request in the flight of src, starting one if there is
// none.
func (s *Server) join(ctx context.Context, src string) *flight {
	s.flightsMu.Lock()
	defer s.flightsMu.Unlock()
	fl, ok := s.flights[src]
	if !ok {
		// The flight keeps the first request's values (its trace), not its
		// end: that is the last request's.
		fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		fl = &flight{cancel: cancel, done: make(chan struct{})}
		s.flights[src] = fl
		go s.fly(fctx, src, fl)
	}
	fl.waiting++
	return fl
}

// leave counts a request out of fl; the last one out cancels it, and a
// request that comes next starts a flight of its own.
func (s *Server) leave(src string, fl *flight) {
	s.flightsMu.Lock()
	defer s.flightsMu.Unlock()
	fl.waiting--
	if fl.waiting == 0 {
		fl.cancel()
		if s.flights[src] == fl {
			delete(s.flights, src)
		}
	}
}

// fly runs fl's fetch and hands its picture to the requests waiting.
// The flight leaves the map before they have it: a request that comes
// after one of them was answered starts from what was kept (a failure
// that has since expired is fetched again), never from this flight.
func (s *Server) fly(ctx context.Context, src string, fl *flight) {
	defer fl.cancel()
	pic := s.fetchAndKeep(ctx, src)
	s.flightsMu.Lock()
	if s.flights[src] == fl {
		delete(s.flights, src)
	}
	s.flightsMu.Unlock()
	fl.pic = pic
	close(fl.done)
}

// fetchAndKeep fetches src within a place of its own, keeps the picture
// (or the failure), and returns it (nil for a failure, or when ctx ended
// first: every request waiting for it has left).
func (s *Server) fetchAndKeep(ctx context.Context, src string) *picture {
	release, ok := s.take(ctx, hostOf(src))
	if !ok {
		return nil // nothing fetched, nothing learnt
	}
	defer release()
	start := time.Now()
	pic, outcome, err := s.fetch(ctx, src)
	if err != nil && ctx.Err() != nil {
		// Every request waiting left: the address may be only slower
		// than they were patient, so nothing is remembered or logged.
		outcome = "canceled"
	}
	if s.o.Observer != nil {
		s.o.Observer.PictureFetched(outcome, time.Since(start))
	}
	if outcome == "canceled" {
		return nil
	}
	if err != nil {
		// Logged once per address and failure: it is remembered, and
		// not fetched again until FailureTTL has passed.
		s.o.Logger.Warn("picture not fetched", "source", clip(src, 200), "outcome", outcome,
			"error", clip(err.Error(), 300), "retry_after", s.o.FailureTTL.String())
		s.keep(src, entry{failedUntil: s.o.Now().Add(s.o.FailureTTL)})
		return nil
	}
	s.keep(src, entry{pic: pic})
	if s.disk != nil {
		if err := s.disk.save(src, pic); err != nil {
			s.o.Logger.Warn("picture not saved to the disk cache", "source", clip(src, 200), "error", clip(err.Error(), 300))
		}
	}
	return pic
}

// take waits for a place for a fetch from host: one of its host's share,
// then one of all, in that order so that a fetch waiting behind its own
// host holds none of the places the others could use; both waits end
// with ctx. release gives them back.
func (s *Server) take(ctx context.Context, host string) (release func(), ok bool) {
	h := s.hosts.join(host)
	select {
	case h.places <- struct{}{}:
	case <-ctx.Done():
		s.hosts.leave(host, h)
		return nil, false
	}
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		<-h.places
		s.hosts.leave(host, h)
		return nil, false
	}
	release = func() {
		<-s.slots
		<-h.places
		s.hosts.leave(host, h)
	}
	if ctx.Err() != nil { // both were ready: a place, but no one to fetch for
		release()
		return nil, false
	}
	return release, true
}

// hostOf is the host whose share a fetch of src takes: its name without
// the port (one server, whatever its ports), in lower case; "" for an
// address that fetch will refuse anyway.
func hostOf(src string) string {
	u, err := url.Parse(src)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// hostShares are the places of the hosts being fetched from. A host is
// here only while a fetch from it runs or waits, so there are at most as
// many as flights, and those are the catalogue's addresses that requests
// still there wait for.
type hostShares struct {
	mu sync.Mutex
	m  map[string]*hostShare
}

type hostShare struct {
	places chan struct{} // perHostFetches
	users  int           // fetches holding or waiting for a place; under hostShares.mu
}

func (hs *hostShares) join(host string) *hostShare {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	h := hs.m[host]
	if h == nil {
		h = &hostShare{places: make(chan struct{}, perHostFetches)}
		hs.m[host] = h
	}
	h.users++
	return h
}

func (hs *hostShares) leave(host string, h *hostShare) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if h.users--; h.users == 0 {
		delete(hs.m, host)
	}
}

func (s *Server) keep(src string, e entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kept.add(src, e)
}

// write answers with body: GET and HEAD, If-None-Match against etag (a
// 304), ranges (http.ServeContent); a non-200 status as it is.
func write(w http.ResponseWriter, r *http.Request, body []byte, contentType, etag, cacheControl string, status int) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("ETag", etag)
	h.Set("Cache-Control", cacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	// A picture opened on its own is a document of this origin: it may
	// run nothing and load nothing.
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	if status != http.StatusOK {
		h.Set("Cache-Control", "no-store")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			w.Write(body)
		}
		return
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// clip cuts s to at most n bytes, for a log line.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
