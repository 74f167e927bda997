// Package upstreamtest runs a stand-in for the upstream catalogue service
// on loopback, for tests: it serves the 13 collections from bodies the test
// gives it, honours conditional requests, counts what it is asked, and can
// be told to fail each path in each of the ways a real service fails.
package upstreamtest

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// Fault is a way for a path to fail.
type Fault string

// The faults a path can be given.
const (
	None        Fault = ""
	Status500   Fault = "500"
	Status503   Fault = "503"
	Status429   Fault = "429"          // Too Many Requests
	Hang        Fault = "hang"         // never answers, until the client gives up
	Slow        Fault = "slow"         // answers correctly after SlowDelay
	Close       Fault = "close"        // closes the connection without a response
	Malformed   Fault = "malformed"    // 200 with a body that is not JSON
	Truncated   Fault = "truncated"    // 200 with the body cut in half
	WrongShape  Fault = "wrong-shape"  // 200 with valid JSON of the wrong shape
	Empty       Fault = "empty"        // 200 with an empty body
	NoValidator Fault = "no-validator" // answers correctly but sends no ETag or Last-Modified
)

// SlowDelay is how long a Slow path takes to answer.
const SlowDelay = 300 * time.Millisecond

// Server is a running stand-in upstream. Its methods are safe for
// concurrent use.
type Server struct {
	*httptest.Server

	mu        sync.Mutex
	bodies    map[string][]byte
	faults    map[string]Fault
	redirects map[string]string
	requests  map[string]int
	times     map[string][]time.Time
	notMod    map[string]int
	// full counts the requests answered with the whole body.
	full map[string]int
	// retryAfter is the Retry-After header 429 and 503 answers carry.
	retryAfter map[string]string
	hang       chan struct{}
}

// New starts a stand-in upstream serving bodies, keyed by collection, and
// stops it when the test ends. Collections without a body answer 404.
func New(t testing.TB, bodies map[catalogue.Collection][]byte) *Server {
	t.Helper()
	s := &Server{
		bodies:    map[string][]byte{},
		faults:    map[string]Fault{},
		redirects: map[string]string{},
		requests:  map[string]int{},
		times:     map[string][]time.Time{},
		notMod:    map[string]int{},
		full:      map[string]int{},

		retryAfter: map[string]string{},
		hang:       make(chan struct{}),
	}
	for c, b := range bodies {
		s.bodies[c.Path()] = b
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		close(s.hang) // release hung handlers so Close can finish
		s.Server.CloseClientConnections()
		s.Server.Close()
	})
	return s
}

// SetBody changes what the path of c serves.
func (s *Server) SetBody(c catalogue.Collection, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bodies[c.Path()] = body
}

// SetFault makes the path of c fail as f (None to heal it).
func (s *Server) SetFault(c catalogue.Collection, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[c.Path()] = f
}

// SetRetryAfter makes the 429 and 503 answers of the path of c carry
// Retry-After: value, a number of seconds or an HTTP date ("" for none).
func (s *Server) SetRetryAfter(c catalogue.Collection, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retryAfter[c.Path()] = value
}

// RequestTimes returns when each request of c arrived, in order.
func (s *Server) RequestTimes(c catalogue.Collection) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.times[c.Path()]...)
}

// SetRedirect makes the path of c answer 307 Temporary Redirect to
// location ("" to stop), as a service that has moved it would. A request
// with a query is served as usual rather than redirected, so a location
// such as c.Path()+"?moved" is a redirect that leads to the body, and
// c.Path() itself is a loop.
func (s *Server) SetRedirect(c catalogue.Collection, location string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.redirects[c.Path()] = location
}

// SetFaultAll gives every path the fault f.
func (s *Server) SetFaultAll(f Fault) {
	for c := range catalogue.NumCollections {
		s.SetFault(c, f)
	}
}

// Requests returns how many requests the path of c has had.
func (s *Server) Requests(c catalogue.Collection) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[c.Path()]
}

// NotModified returns how many requests of c were answered 304.
func (s *Server) NotModified(c catalogue.Collection) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notMod[c.Path()]
}

// Full returns how many requests of c were answered with the whole body:
// those neither answered 304 nor failed by a fault. A request is counted here, or
// in NotModified, only once it is answered, while Requests counts it
// when it arrives.
func (s *Server) Full(c catalogue.Collection) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.full[c.Path()]
}

// TotalRequests returns how many requests all paths have had.
func (s *Server) TotalRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, v := range s.requests {
		n += v
	}
	return n
}

// ETag is the ETag the stand-in gives a body.
func ETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"up-` + hex.EncodeToString(sum[:8]) + `"`
}

// lastModified is fixed: the stand-in's validators are its ETags, and
// Last-Modified is only sent back as a courtesy.
const lastModified = "Sun, 22 Nov 2026 12:00:00 GMT"

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests[r.URL.Path]++
	s.times[r.URL.Path] = append(s.times[r.URL.Path], time.Now())
	body, ok := s.bodies[r.URL.Path]
	fault := s.faults[r.URL.Path]
	location := s.redirects[r.URL.Path]
	retryAfter := s.retryAfter[r.URL.Path]
	s.mu.Unlock()

	if location != "" && r.URL.RawQuery == "" {
		http.Redirect(w, r, location, http.StatusTemporaryRedirect)
		return
	}

	switch fault {
	case Status500:
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	case Status503, Status429:
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		status := http.StatusServiceUnavailable
		if fault == Status429 {
			status = http.StatusTooManyRequests
		}
		http.Error(w, http.StatusText(status), status)
		return
	case Hang:
		select {
		case <-r.Context().Done():
		case <-s.hang:
		}
		return
	case Slow:
		select {
		case <-time.After(SlowDelay):
		case <-r.Context().Done():
			return
		}
	case Close:
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic("upstreamtest: cannot hijack")
		}
		conn, _, err := hj.Hijack()
		if err == nil {
			conn.Close()
		}
		return
	case Malformed:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`[{"total": 1, "results": [{"id": 1,,,}`))
		return
	case Truncated:
		w.Header().Set("Content-Type", "application/json")
		w.Write(body[:len(body)/2])
		return
	case WrongShape:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"total": 1, "results": [{"id": "one"}]}`))
		return
	case Empty:
		w.Header().Set("Content-Type", "application/json")
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	if fault != NoValidator {
		tag := ETag(body)
		w.Header().Set("ETag", tag)
		w.Header().Set("Last-Modified", lastModified)
		if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, tag) {
			s.mu.Lock()
			s.notMod[r.URL.Path]++
			s.mu.Unlock()
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	s.mu.Lock()
	s.full[r.URL.Path]++
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

// EmbeddedBodies returns the embedded catalogue's bodies, for New.
func EmbeddedBodies(t testing.TB) map[catalogue.Collection][]byte {
	t.Helper()
	m := map[catalogue.Collection][]byte{}
	for c := range catalogue.NumCollections {
		b, err := catalogue.EmbeddedBody(c)
		if err != nil {
			t.Fatal(err)
		}
		m[c] = b
	}
	return m
}

// fixture is a small hand-written catalogue: a few records of every
// collection, with dangling references, numbers beyond 32 bits and
// float64, several envelopes and mixed EventChest itemIds.
//
//go:embed fixture/*.json
var fixture embed.FS

// FixtureBodies returns the small hand-written catalogue's bodies, for New
// or for catalogue.Decode.
func FixtureBodies(t testing.TB) map[catalogue.Collection][]byte {
	t.Helper()
	m := map[catalogue.Collection][]byte{}
	for c := range catalogue.NumCollections {
		b, err := fixture.ReadFile("fixture/" + c.String() + ".json")
		if err != nil {
			t.Fatal(err)
		}
		m[c] = b
	}
	return m
}

// Pair is the two stand-ins a gateway reads, as the real service serves
// it: Base at {base_url} with every collection but /worldboss, and Boss at
// {world_boss_url} with /worldboss.
type Pair struct{ Base, Boss *Server }

// NewPair starts the two stand-ins serving bodies; they stop when the test
// ends.
func NewPair(t testing.TB, bodies map[catalogue.Collection][]byte) Pair {
	t.Helper()
	base := map[catalogue.Collection][]byte{}
	for c, b := range bodies {
		if !c.FromWorldBossAddress() {
			base[c] = b
		}
	}
	return Pair{
		Base: New(t, base),
		Boss: New(t, map[catalogue.Collection][]byte{catalogue.WorldBosses: bodies[catalogue.WorldBosses]}),
	}
}

// Of returns the stand-in serving c.
func (p Pair) Of(c catalogue.Collection) *Server {
	if c.FromWorldBossAddress() {
		return p.Boss
	}
	return p.Base
}
