package pictures

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
)

// testPNG is a real PNG of n × n pixels, each picture its own colour.
func testPNG(t testing.TB, n int, shade uint8) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, n, n))
	for y := range n {
		for x := range n {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), shade, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// imageServer is a stand-in image server on loopback: each path does
// what behave says (by default, a real PNG), and every request is
// counted by path.
type imageServer struct {
	*httptest.Server
	mu       sync.Mutex
	behave   map[string]string
	requests map[string]int
	png      []byte
	// hold keeps the requests of behaviour "held" until it is closed;
	// arrived counts them.
	hold    chan struct{}
	arrived atomic.Int32
}

func newImageServer(t testing.TB) *imageServer {
	s := &imageServer{behave: map[string]string{}, requests: map[string]int{}, png: testPNG(t, 32, 7), hold: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *imageServer) set(path, behaviour string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.behave[path] = behaviour
}

func (s *imageServer) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path]
}

func (s *imageServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests[r.URL.Path]++
	b := s.behave[r.URL.Path]
	s.mu.Unlock()
	switch b {
	case "", "png":
		w.Header().Set("Content-Type", "image/png")
		w.Write(s.png)
	case "held":
		s.arrived.Add(1)
		select {
		case <-s.hold:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write(s.png)
	case "huge": // declared nothing of its length: read until the bound
		w.Header().Set("Content-Type", "image/png")
		w.Write(s.png[:16])
		chunk := bytes.Repeat([]byte{0}, 64<<10)
		for range 64 { // 4 MiB
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	case "huge-declared":
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Content-Length", "100000000")
		w.Write(s.png)
	case "hang":
		<-r.Context().Done()
	case "html":
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!doctype html><script>alert(1)</script>")
	case "svg":
		w.Header().Set("Content-Type", "image/svg+xml")
		io.WriteString(w, `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)
	case "liar": // says PNG, is HTML
		w.Header().Set("Content-Type", "image/png")
		io.WriteString(w, "<!doctype html><script>alert(1)</script>")
	case "500":
		http.Error(w, "broken", http.StatusInternalServerError)
	case "redirect-ftp":
		http.Redirect(w, r, "ftp://example.test/x.png", http.StatusFound)
	default: // "redirect:URL"
		if to, ok := strings.CutPrefix(b, "redirect:"); ok {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		http.Error(w, "unknown behaviour "+b, http.StatusTeapot)
	}
}

// fixtureStore is the fixture catalogue with its picture addresses on
// base: item 1 → /1.png, 2 → /2.png, 3 → /3.png, 5000000000 → /big.png,
// monster 1 → /m1.png, world boss 1 → /b1.png, its loot ab12 → /s.png.
func fixtureStore(t testing.TB, base string) *catalogue.Store {
	t.Helper()
	var parts []*catalogue.Part
	for c, body := range upstreamtest.FixtureBodies(t) {
		body = bytes.ReplaceAll(body, []byte("https://img.example/"), []byte(base+"/"))
		p, err := catalogue.Decode(c, body)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	st := &catalogue.Store{}
	st.Publish(catalogue.NewSnapshot(parts...))
	return st
}

type counts struct {
	mu             sync.Mutex
	served, fetchd map[string]int
}

func (c *counts) PictureServed(o string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.served[o]++
}

func (c *counts) PictureFetched(o string, _ time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fetchd[o]++
}

func (c *counts) fetched(o string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fetchd[o]
}

func (c *counts) servedN(o string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.served[o]
}

type fixture struct {
	img    *imageServer
	srv    *Server
	url    string
	counts *counts
	client *http.Client
	// asked counts the requests that reached the route.
	asked atomic.Int32
}

// newFixture serves the pictures of the fixture catalogue, whose
// addresses are on a new stand-in image server, over real HTTP on
// loopback, with o (Fetch, AllowPrivate and short bounds by default).
func newFixture(t testing.TB, adjust func(*Options)) *fixture {
	t.Helper()
	img := newImageServer(t)
	c := &counts{served: map[string]int{}, fetchd: map[string]int{}}
	o := Options{Fetch: true, AllowPrivate: true, MaxBytes: 64 << 10, Timeout: 2 * time.Second, ClientRate: 600,
		ClientBurst: 100, MemoryBytes: 4 << 20, Observer: c,
		ClientKey: func(r *http.Request) netip.Prefix {
			if k := r.Header.Get("X-Test-Client"); k != "" {
				return netip.MustParsePrefix(k)
			}
			return netip.MustParsePrefix("127.0.0.1/32")
		}}
	if adjust != nil {
		adjust(&o)
	}
	s, err := New(fixtureStore(t, img.URL), o)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(catalogue.PicturesPath+"{kind}/{id}", s)
	f := &fixture{img: img, srv: s, counts: c}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.asked.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	f.url, f.client = front.URL, front.Client()
	return f
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (f *fixture) get(t *testing.T, path string, header ...string) answer {
	t.Helper()
	return f.do(t, http.MethodGet, path, header...)
}

func (f *fixture) do(t *testing.T, method, path string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, f.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := f.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, body}
}

func itemURL(t *testing.T, f *fixture, id int64) string {
	t.Helper()
	it, ok := f.srv.store.Current().Items().Get(id)
	if !ok {
		t.Fatalf("no item %d", id)
	}
	return it.Image().URL()
}

// isPlaceholder checks a is the placeholder: an SVG of ours, refused
// by the CSP anything else, revalidated before reuse.
func isPlaceholder(t *testing.T, a answer, status int) {
	t.Helper()
	if a.status != status || a.header.Get("Content-Type") != "image/svg+xml" || !bytes.HasPrefix(a.body, []byte("<svg ")) {
		t.Fatalf("status %d, %s, %.80q; want %d and the placeholder", a.status, a.header.Get("Content-Type"), a.body, status)
	}
	if bytes.Contains(a.body, []byte("script")) {
		t.Errorf("the placeholder holds script: %s", a.body)
	}
	if cc := a.header.Get("Cache-Control"); cc != "no-cache" && cc != "no-store" {
		t.Errorf("placeholder Cache-Control %q, want it revalidated", cc)
	}
	if a.header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(a.header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("placeholder headers %v: want nosniff and a CSP of default-src 'none'", a.header)
	}
}

// TestServesThePicture: the record's picture, fetched once, served with
// a strong ETag (its hash), 304 for If-None-Match, immutable only under
// its versioned URL, HEAD with no body; then from memory.
func TestServesThePicture(t *testing.T) {
	f := newFixture(t, nil)
	u := itemURL(t, f, 1)
	if !strings.HasPrefix(u, "/images/items/1?v=") {
		t.Fatalf("item 1's URL %q", u)
	}
	a := f.get(t, u)
	if a.status != 200 || !bytes.Equal(a.body, f.img.png) || a.header.Get("Content-Type") != "image/png" {
		t.Fatalf("status %d, %s, %d bytes; want 200 and the PNG", a.status, a.header.Get("Content-Type"), len(a.body))
	}
	etag := a.header.Get("ETag")
	if want := newPicture(f.img.png, "image/png").etag; etag != want {
		t.Errorf("ETag %s, want %s (the content's hash)", etag, want)
	}
	if cc := a.header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
		t.Errorf("versioned URL: Cache-Control %q, want long and immutable", cc)
	}
	if a.header.Get("X-Content-Type-Options") != "nosniff" {
		t.Error("no nosniff")
	}
	if nm := f.get(t, u, "If-None-Match", etag); nm.status != http.StatusNotModified || len(nm.body) != 0 {
		t.Errorf("If-None-Match: status %d, %d bytes; want 304", nm.status, len(nm.body))
	}
	if h := f.do(t, http.MethodHead, u); h.status != 200 || len(h.body) != 0 || h.header.Get("ETag") != etag {
		t.Errorf("HEAD: status %d, %d bytes, ETag %s", h.status, len(h.body), h.header.Get("ETag"))
	}
	// Unversioned, or under an old version: revalidated, not kept.
	for _, path := range []string{"/images/items/1", "/images/items/1?v=0000000000000000"} {
		if a := f.get(t, path); a.status != 200 || a.header.Get("Cache-Control") != "no-cache" || a.header.Get("ETag") != etag {
			t.Errorf("%s: status %d, Cache-Control %q", path, a.status, a.header.Get("Cache-Control"))
		}
	}
	if n := f.img.count("/1.png"); n != 1 {
		t.Errorf("the image server was asked %d times, want once", n)
	}
	if f.counts.servedN("memory") < 4 || f.counts.fetched("ok") != 1 {
		t.Errorf("counted %v, %v", f.counts.served, f.counts.fetchd)
	}
	// Every kind, loot by its hashed id.
	snap := f.srv.store.Current()
	m, _ := snap.Monsters().Get(1)
	b, _ := snap.WorldBosses().Get(1)
	for _, u := range []string{m.Image().URL(), b.Image().URL(), b.Loot[0].Image().URL()} {
		if a := f.get(t, u); a.status != 200 || a.header.Get("Content-Type") != "image/png" {
			t.Errorf("%s: status %d, %s", u, a.status, a.header.Get("Content-Type"))
		}
	}
}

// TestRefusedPictures: each bad answer of the image server is refused,
// counted with its reason, answered with the placeholder, and remembered:
// the address is not fetched again while the failure stands.
func TestRefusedPictures(t *testing.T) {
	for _, tt := range []struct {
		behaviour, outcome string
	}{
		{"huge", "too_large"},
		{"huge-declared", "too_large"},
		{"hang", "timeout"},
		{"html", "not_image"},
		{"svg", "not_image"},
		{"liar", "not_image"},
		{"500", "status"},
		{"redirect-ftp", "redirect"},
	} {
		t.Run(tt.behaviour, func(t *testing.T) {
			now := time.Unix(1_800_000_000, 0)
			var mu sync.Mutex
			f := newFixture(t, func(o *Options) {
				o.Timeout = 300 * time.Millisecond
				o.FailureTTL = time.Minute
				o.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			})
			f.img.set("/2.png", tt.behaviour)
			u := itemURL(t, f, 2)
			isPlaceholder(t, f.get(t, u), 200)
			if got := f.counts.fetched(tt.outcome); got != 1 {
				t.Errorf("fetch outcomes %v, want one %s", f.counts.fetchd, tt.outcome)
			}
			isPlaceholder(t, f.get(t, u), 200)
			if n := f.img.count("/2.png"); n != 1 {
				t.Errorf("the failing address was fetched %d times, want once while its failure stands", n)
			}
			if f.counts.servedN("failed") != 2 {
				t.Errorf("served %v, want 2 failed", f.counts.served)
			}
			// Once the failure is old, and the address mended, the picture.
			f.img.set("/2.png", "png")
			mu.Lock()
			now = now.Add(2 * time.Minute)
			mu.Unlock()
			if a := f.get(t, u); a.status != 200 || a.header.Get("Content-Type") != "image/png" {
				t.Errorf("after the failure expired: status %d, %s", a.status, a.header.Get("Content-Type"))
			}
		})
	}
}

// TestGuardRefusesLoopback: without AllowPrivate, an address on
// loopback is refused when dialled, by IP or by a name resolving there,
// and nothing reaches the server.
func TestGuardRefusesLoopback(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.AllowPrivate = false })
	isPlaceholder(t, f.get(t, itemURL(t, f, 1)), 200)
	// A name, resolved then checked: localhost.
	f.srv.store.Publish(fixtureStore(t, strings.Replace(f.img.URL, "127.0.0.1", "localhost", 1)).Current())
	isPlaceholder(t, f.get(t, itemURL(t, f, 3)), 200)
	if got := f.counts.fetched("refused_address"); got != 2 {
		t.Errorf("fetch outcomes %v, want 2 refused_address", f.counts.fetchd)
	}
	if n := f.img.count("/1.png") + f.img.count("/3.png"); n != 0 {
		t.Errorf("the loopback server was reached %d times", n)
	}
}

// TestGuardChecksRedirects: a redirect is dialled under the same check
// as the first address: here only 127.0.0.1 is allowed, and a redirect
// to 127.0.0.2 (loopback, but not allowed) is refused.
func TestGuardChecksRedirects(t *testing.T) {
	f := newFixture(t, nil)
	only := netip.MustParseAddr("127.0.0.1")
	f.srv.client = newClient(time.Second, func(ap netip.AddrPort) bool { return ap.Addr() == only })
	_, port, _ := strings.Cut(strings.TrimPrefix(f.img.URL, "http://"), ":")
	f.img.set("/1.png", "redirect:http://127.0.0.2:"+port+"/2.png")
	f.img.set("/3.png", "redirect:/2.png")
	isPlaceholder(t, f.get(t, itemURL(t, f, 1)), 200)
	if got := f.counts.fetched("refused_address"); got != 1 {
		t.Errorf("fetch outcomes %v, want the redirect refused_address", f.counts.fetchd)
	}
	// A redirect to an allowed address is followed.
	if a := f.get(t, itemURL(t, f, 3)); a.status != 200 || a.header.Get("Content-Type") != "image/png" {
		t.Errorf("an allowed redirect: status %d, %s", a.status, a.header.Get("Content-Type"))
	}
}

// TestIsPublic: the addresses a picture may never be fetched from.
func TestIsPublic(t *testing.T) {
	for addr, want := range map[string]bool{
		"8.8.8.8": true, "151.101.1.1": true, "2606:4700::1111": true,
		"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false, "169.254.169.254": false,
		"0.0.0.0": false, "100.64.0.1": false, "224.0.0.1": false, "255.255.255.255": false, "198.18.0.1": false,
		"::1": false, "::": false, "fe80::1": false, "fd00::1": false, "ff02::1": false, "::ffff:127.0.0.1": false,
		"::ffff:10.0.0.1": false, "64:ff9b::a00:1": false, "2002:a00:1::1": false, "2001:db8::1": false,
		// IPv6 addresses that carry an IPv4 one are judged by it:
		// IPv4-compatible, IPv4-translated, NAT64 and 6to4.
		"::7f00:1": false, "::a9fe:a9fe": false, "::808:808": true,
		"::ffff:0:7f00:1": false, "::ffff:0:a9fe:a9fe": false, "::ffff:0:808:808": true,
		"64:ff9b::7f00:1": false, "64:ff9b::808:808": true, "2002:808:808::1": true, "2002:7f00:1::1": false,
		// Special-purpose IPv6 ranges: discard-only, site-local,
		// documentation (new), segment routing, local-use NAT64.
		"100::1": false, "fec0::1": false, "3fff::1": false, "5f00::1": false, "64:ff9b:1::808:808": false,
	} {
		if got := IsPublic(netip.MustParseAddr(addr)); got != want {
			t.Errorf("IsPublic(%s) = %v, want %v", addr, got, want)
		}
	}
}

// TestGuardRefusesOtherPorts: a public address is dialled on ports 80
// and 443 only; a private one on neither. (The check runs on the address
// about to be dialled: nothing is dialled here.)
func TestGuardRefusesOtherPorts(t *testing.T) {
	control := dialControl(publicTarget)
	for addr, want := range map[string]bool{
		"151.101.1.1:443": true, "151.101.1.1:80": true, "[2606:4700::1111]:443": true,
		"151.101.1.1:8080": false, "151.101.1.1:25": false, "151.101.1.1:6379": false, "[2606:4700::1111]:22": false,
		"127.0.0.1:443": false, "10.0.0.1:80": false,
	} {
		err := control("tcp", addr, nil)
		if got := err == nil; got != want {
			t.Errorf("dialling %s: %v, want allowed %t", addr, err, want)
		}
		if err != nil && !errors.Is(err, errRefusedAddress) {
			t.Errorf("dialling %s: %v, want it counted as a refused address", addr, err)
		}
	}
}

// TestClientRate: a client that misses the cache past its burst gets 429
// and the placeholder, with nothing fetched; another client is not
// affected, and hits in memory are never limited.
func TestClientRate(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.ClientRate, o.ClientBurst = 1, 2 })
	a, b := "203.0.113.7/32", "198.51.100.9/32"
	for _, id := range []int64{1, 2} {
		if got := f.get(t, itemURL(t, f, id), "X-Test-Client", a); got.status != 200 {
			t.Fatalf("item %d within the burst: status %d", id, got.status)
		}
	}
	over := f.get(t, itemURL(t, f, 3), "X-Test-Client", a)
	isPlaceholder(t, over, http.StatusTooManyRequests)
	if over.header.Get("Retry-After") == "" {
		t.Error("429 with no Retry-After")
	}
	if f.img.count("/3.png") != 0 {
		t.Error("a limited client's miss was fetched")
	}
	if got := f.get(t, itemURL(t, f, 1), "X-Test-Client", a); got.status != 200 {
		t.Errorf("a hit for a limited client: status %d, want 200", got.status)
	}
	if got := f.get(t, itemURL(t, f, 3), "X-Test-Client", b); got.status != 200 {
		t.Errorf("another client: status %d, want 200", got.status)
	}
	if f.counts.servedN("rate_limited") != 1 {
		t.Errorf("served %v, want one rate_limited", f.counts.served)
	}
}

// TestConcurrentFetchesCollapse: many requests for one address at once
// cost one fetch.
func TestConcurrentFetchesCollapse(t *testing.T) {
	f := newFixture(t, nil)
	f.img.set("/1.png", "held")
	u := itemURL(t, f, 1)
	var wg sync.WaitGroup
	statuses := make([]int, 20)
	for i := range statuses {
		wg.Go(func() { statuses[i] = f.get(t, u).status })
	}
	// Let the requests pile up on the one flight, then answer it.
	deadline := time.Now().Add(5 * time.Second)
	for f.img.arrived.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	close(f.img.hold)
	wg.Wait()
	for i, s := range statuses {
		if s != 200 {
			t.Errorf("request %d: status %d", i, s)
		}
	}
	if n := f.img.count("/1.png"); n != 1 {
		t.Errorf("20 requests at once fetched %d times, want once", n)
	}
}

// TestMemoryShareBound: the pictures kept stay within their share,
// charged by bytes, the least recently used let go.
func TestMemoryShareBound(t *testing.T) {
	size := charge("http://127.0.0.1:65535/1.png", entry{pic: newPicture(testPNG(t, 32, 7), "image/png")})
	f := newFixture(t, func(o *Options) { o.MemoryBytes = 2*size + size/2 })
	for _, id := range []int64{1, 2, 3, 5000000000} {
		f.get(t, itemURL(t, f, id))
		if st := f.srv.Stats(); st.Bytes > st.Share {
			t.Fatalf("after item %d: charged %d, over the share %d", id, st.Bytes, st.Share)
		}
	}
	st := f.srv.Stats()
	if st.Entries != 2 || st.Evictions != 2 || st.Bytes < size {
		t.Errorf("stats %+v, want 2 entries kept and 2 let go (a picture charged %d)", st, size)
	}
	// The one let go first is fetched again.
	f.get(t, itemURL(t, f, 1))
	if n := f.img.count("/1.png"); n != 2 {
		t.Errorf("item 1, let go, fetched %d times, want twice", n)
	}
}

// TestDiskCacheSurvivesRestart: a picture fetched with a directory is
// served by the next server on that directory, same bytes and ETag, with
// the image server down; a damaged file is not served.
func TestDiskCacheSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, func(o *Options) { o.DiskDir = dir })
	u := itemURL(t, f, 1)
	first := f.get(t, u)
	if first.status != 200 {
		t.Fatalf("status %d", first.status)
	}
	if b, n := f.srv.DiskStats(); n != 1 || b <= int64(len(f.img.png)) {
		t.Errorf("disk stats %d bytes, %d files after one picture", b, n)
	}
	src, _ := f.srv.store.Current().Items().Get(1)
	store := f.srv.store
	f.img.Close() // the image server is gone

	again, err := New(store, Options{Fetch: true, AllowPrivate: true, MaxBytes: 64 << 10, MemoryBytes: 1 << 20, DiskDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	mux := http.NewServeMux()
	mux.Handle(catalogue.PicturesPath+"{kind}/{id}", again)
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, u, nil))
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), first.body) || rec.Header().Get("ETag") != first.header.Get("ETag") {
		t.Fatalf("after a restart: status %d, %d bytes, ETag %s; want the picture kept on disk", rec.Code, rec.Body.Len(), rec.Header().Get("ETag"))
	}

	// Damaged on disk: not served, removed.
	name := filepath.Join(dir, diskName(src.ImageURL))
	raw, _ := os.ReadFile(name)
	raw[len(raw)-1] ^= 0xff
	os.WriteFile(name, raw, 0o644)
	third, err := New(store, Options{Fetch: true, AllowPrivate: true, MaxBytes: 64 << 10, MemoryBytes: 1 << 20, DiskDir: dir, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	mux = http.NewServeMux()
	mux.Handle(catalogue.PicturesPath+"{kind}/{id}", third)
	rec = httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, u, nil))
	if rec.Header().Get("Content-Type") != "image/svg+xml" {
		t.Errorf("a damaged file: %s, want the placeholder", rec.Header().Get("Content-Type"))
	}
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("the damaged file is still there: %v", err)
	}
}

// TestDiskCacheBound: the directory holds at most its bytes, the oldest
// let go.
func TestDiskCacheBound(t *testing.T) {
	dir := t.TempDir()
	png := testPNG(t, 32, 7)
	d, err := openDiskStore(dir, int64(2*len(png)+400), 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := d.save(fmt.Sprintf("http://img.test/%d.png", i), newPicture(png, "image/png")); err != nil {
			t.Fatal(err)
		}
	}
	b, n := d.stats()
	files, _ := os.ReadDir(dir)
	if n != 2 || len(files) != 2 || b > int64(2*len(png)+400) {
		t.Errorf("%d bytes in %d files (%d on disk), want the 2 newest within the bound", b, n, len(files))
	}
	if d.load("http://img.test/4.png") == nil || d.load("http://img.test/0.png") != nil {
		t.Error("want the newest kept and the oldest gone")
	}
	// Opened again, it counts what is there.
	d2, err := openDiskStore(dir, int64(2*len(png)+400), 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	if b2, n2 := d2.stats(); b2 != b || n2 != 2 {
		t.Errorf("reopened: %d bytes in %d files, want %d in 2", b2, n2, b)
	}
}

// TestHostileRoute: bad kinds, bad and unknown ids, odd methods: 404 or
// 405 with the gateway's error, nothing fetched.
func TestHostileRoute(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.Error = func(w http.ResponseWriter, status int, code, message string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"code":%q}}`, code)
		}
	})
	for _, path := range []string{
		"/images/bogus/1", "/images/items/999", "/images/items/01", "/images/items/+1", "/images/items/-1",
		"/images/items/1.0", "/images/items/0x1", "/images/items/%20", "/images/items/99999999999999999999",
		"/images/monsters/abc", "/images/world-bosses/" + strings.Repeat("9", 300), "/images/world-boss-loot/nope",
		"/images/world-boss-loot/" + strings.Repeat("a", 300), "/images/ITEMS/1", "/images/items/%00",
	} {
		a := f.get(t, path)
		if a.status != http.StatusNotFound || !bytes.Contains(a.body, []byte("NOT_FOUND")) {
			t.Errorf("%s: status %d %q, want 404 NOT_FOUND", path, a.status, a.body)
		}
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		if a := f.do(t, m, "/images/items/1"); a.status != http.StatusMethodNotAllowed || a.header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: status %d, Allow %q", m, a.status, a.header.Get("Allow"))
		}
	}
	if n := f.img.count("/1.png"); n != 0 {
		t.Errorf("hostile requests fetched %d times", n)
	}
}

// TestPlaceholders: with no address, or fetching off, the kind's
// placeholder with the record's initial; with no snapshot, 503.
func TestPlaceholders(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Fetch = false })
	a := f.get(t, itemURL(t, f, 1))
	isPlaceholder(t, a, 200)
	it, _ := f.srv.store.Current().Items().Get(1)
	if want := ">" + initial(it.Name) + "</text>"; !bytes.Contains(a.body, []byte(want)) {
		t.Errorf("placeholder %s lacks the initial %s", a.body, want)
	}
	if nm := f.get(t, itemURL(t, f, 1), "If-None-Match", a.header.Get("ETag")); nm.status != http.StatusNotModified {
		t.Errorf("placeholder revalidated: status %d, want 304", nm.status)
	}
	if f.img.count("/1.png") != 0 {
		t.Error("fetching off, and a picture was fetched")
	}
	kinds := map[string]bool{}
	for k := range catalogue.NumPictureKinds {
		kinds[string(placeholder(k, "Zed"))] = true
	}
	if len(kinds) != int(catalogue.NumPictureKinds) {
		t.Error("two kinds share a placeholder")
	}
	for name, want := range map[string]string{"": "?", "  ": "?", "élan": "É", "<script>": "S", "9 lives": "9", "\xff": "?"} {
		if got := initial(name); got != want {
			t.Errorf("initial(%q) = %q, want %q", name, got, want)
		}
	}

	empty := &catalogue.Store{}
	s, _ := New(empty, Options{})
	mux := http.NewServeMux()
	mux.Handle(catalogue.PicturesPath+"{kind}/{id}", s)
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/images/items/1", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("no snapshot: status %d, want 503", rec.Code)
	}
}

// TestClientGoneLeavesTheFlight: a client that leaves while its picture
// is being fetched does not end the fetch for another still waiting.
func TestClientGoneLeavesTheFlight(t *testing.T) {
	f := newFixture(t, nil)
	f.img.set("/1.png", "held")
	u := itemURL(t, f, 1)
	leaving := newLeavers(t)
	leaving.ask(f, u)
	type result struct {
		status int
		ctype  string
		err    error
	}
	staying := make(chan result, 1)
	go func() {
		status, ctype, err := f.getWithin(t, u, 20*time.Second)
		staying <- result{status, ctype, err}
	}()
	// Both wait on the fetch when one leaves.
	if !within(5*time.Second, func() bool { return f.img.arrived.Load() == 1 && f.waiting(u) == 2 }) {
		t.Fatalf("%d fetches, %d requests waiting; want 2 on one", f.img.arrived.Load(), f.waiting(u))
	}
	leaving.leave()
	if !within(5*time.Second, func() bool { return f.waiting(u) == 1 }) {
		t.Fatalf("%d requests waiting, want the one that stayed", f.waiting(u))
	}
	close(f.img.hold)
	if a := <-staying; a.err != nil || a.status != 200 || a.ctype != "image/png" {
		t.Errorf("after a client left: status %d, %s, %v", a.status, a.ctype, a.err)
	}
	if n := f.img.count("/1.png"); n != 1 {
		t.Errorf("fetched %d times, want once (the flight finished for the client that stayed)", n)
	}
}

// waiting is how many requests wait on the flight of path's address.
func (f *fixture) waiting(path string) int {
	kind, id, _ := strings.Cut(strings.TrimPrefix(path, catalogue.PicturesPath), "/")
	id, v, _ := strings.Cut(id, "?v=")
	k, _ := catalogue.ParsePictureKind(kind)
	im, _, _ := f.srv.store.Current().Picture(k, id, v)
	f.srv.flightsMu.Lock()
	defer f.srv.flightsMu.Unlock()
	if fl := f.srv.flights[im.SourceAddress()]; fl != nil {
		return fl.waiting
	}
	return 0
}

// BenchmarkServeFromMemory: a picture kept in memory, served through the
// route with its headers (what every view after the first costs).
func BenchmarkServeFromMemory(b *testing.B) {
	f := newFixture(b, nil)
	it, _ := f.srv.store.Current().Items().Get(1)
	u := it.Image().URL()
	mux := http.NewServeMux()
	mux.Handle(catalogue.PicturesPath+"{kind}/{id}", f.srv)
	req := httptest.NewRequest(http.MethodGet, u, nil)
	mux.ServeHTTP(httptest.NewRecorder(), req) // fetched once
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("status %d", rec.Code)
		}
	}
}

// slowServer is an image host that answers nothing until the test ends
// (or its request is cancelled), on a loopback address of its own, so
// that it is a host of its own. It counts the requests that arrived, the
// ones whose context ended (the fetch was cancelled), and the most it
// held at once.
type slowServer struct {
	*httptest.Server
	arrived, left atomic.Int32
	running, most atomic.Int32
	release       chan struct{}
	// mended makes it answer at once, with png.
	mended atomic.Bool
	png    []byte
}

// newSlowServer listens on ip (127.0.0.2, …: Linux routes all of 127/8
// to loopback; elsewhere the test is skipped).
func newSlowServer(t *testing.T, ip string) *slowServer {
	t.Helper()
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("no loopback address %s here: %v", ip, err)
	}
	s := &slowServer{release: make(chan struct{}), png: testPNG(t, 8, 3)}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.mended.Load() {
			w.Header().Set("Content-Type", "image/png")
			w.Write(s.png)
			return
		}
		s.arrived.Add(1)
		n := s.running.Add(1)
		defer s.running.Add(-1)
		for m := s.most.Load(); n > m && !s.most.CompareAndSwap(m, n); m = s.most.Load() {
		}
		select {
		case <-r.Context().Done():
			s.left.Add(1)
		case <-s.release:
			http.Error(w, "too late", http.StatusServiceUnavailable)
		}
	}))
	s.Listener.Close()
	s.Listener = l
	s.Start()
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(s.release) }) // first: Close waits for the handlers
	return s
}

// itemsSnapshot is a catalogue of items only, item i+1's picture at
// addrs[i] (each a copy of the fixture's first item).
func itemsSnapshot(t *testing.T, addrs []string) *catalogue.Snapshot {
	t.Helper()
	var env []struct {
		Results []map[string]any `json:"results"`
	}
	d := json.NewDecoder(bytes.NewReader(upstreamtest.FixtureBodies(t)[catalogue.Items]))
	d.UseNumber()
	if err := d.Decode(&env); err != nil {
		t.Fatal(err)
	}
	var records []map[string]any
	for i, a := range addrs {
		r := maps.Clone(env[0].Results[0])
		r["id"], r["imageUrl"] = i+1, a
		records = append(records, r)
	}
	body, err := json.Marshal([]any{map[string]any{"total": len(records), "results": records}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := catalogue.Decode(catalogue.Items, body)
	if err != nil {
		t.Fatal(err)
	}
	return catalogue.NewSnapshot(p)
}

// leavers are clients that ask for pictures and stay until told to
// leave (or the test ends).
type leavers struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	ctx    context.Context
}

func newLeavers(t *testing.T) *leavers {
	l := &leavers{}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	t.Cleanup(l.leave)
	return l
}

// ask sends a request for path that waits until the clients leave.
func (l *leavers) ask(f *fixture, path string) {
	req, _ := http.NewRequestWithContext(l.ctx, http.MethodGet, f.url+path, nil)
	l.wg.Go(func() {
		if resp, err := f.client.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}

// leave cancels every request and waits for the clients to be gone.
func (l *leavers) leave() {
	l.cancel()
	l.wg.Wait()
}

// within polls cond until it holds or d has passed.
func within(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// getWithin gets path with a request of its own time d, and says whether
// the picture came back.
func (f *fixture) getWithin(t *testing.T, path string, d time.Duration) (int, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.url+path, nil)
	resp, err := f.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), nil
}

// TestSlowAddressesAbandonedFreeTheirPlaces: many addresses that answer
// nothing, on several hosts, each asked by a client that leaves soon;
// once they have left, their fetches (running or waiting for a place)
// are cancelled, and a picture from another host is served within its
// request's time, long before the slow fetches' own bound.
func TestSlowAddressesAbandonedFreeTheirPlaces(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Timeout = time.Minute })
	addrs := []string{f.img.URL + "/1.png"}
	var slow []*slowServer
	for h := range 8 {
		s := newSlowServer(t, fmt.Sprintf("127.0.0.%d", h+2))
		slow = append(slow, s)
		for i := range 5 {
			addrs = append(addrs, fmt.Sprintf("%s/%d.png", s.URL, i))
		}
	}
	f.srv.store.Publish(itemsSnapshot(t, addrs))
	arrived := func() (n int32) {
		for _, s := range slow {
			n += s.arrived.Load()
		}
		return n
	}
	clients := newLeavers(t)
	for id := 2; id <= len(addrs); id++ {
		clients.ask(f, itemURL(t, f, int64(id)))
	}
	// Every place taken by a slow fetch, the rest waiting for one.
	if !within(10*time.Second, func() bool { return arrived() >= maxFetches }) {
		t.Fatalf("%d slow fetches under way, want %d", arrived(), maxFetches)
	}
	clients.leave()

	status, ctype, err := f.getWithin(t, itemURL(t, f, 1), 10*time.Second)
	if err != nil || status != 200 || ctype != "image/png" {
		t.Fatalf("a fast picture after the slow ones' clients left: %d %s %v; want it served", status, ctype, err)
	}
}

// TestFlightCanceledWhenEveryoneLeaves: a fetch whose every waiting
// request has left is cancelled (the image host sees its request end),
// its place is free, and it is not remembered as a failure: the next
// request fetches again.
func TestFlightCanceledWhenEveryoneLeaves(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Timeout = time.Minute })
	slow := newSlowServer(t, "127.0.0.2")
	f.srv.store.Publish(itemsSnapshot(t, []string{slow.URL + "/1.png"}))
	u := itemURL(t, f, 1)
	clients := newLeavers(t)
	for range 3 {
		clients.ask(f, u)
	}
	if !within(10*time.Second, func() bool { return f.asked.Load() == 3 && slow.arrived.Load() >= 1 }) {
		t.Fatalf("%d requests, %d fetches arrived; want 3 waiting on a fetch", f.asked.Load(), slow.arrived.Load())
	}
	clients.leave()
	if !within(10*time.Second, func() bool { return f.counts.servedN("canceled") == 3 }) {
		t.Fatalf("served %v, want 3 canceled", f.counts.served)
	}
	if !within(10*time.Second, func() bool { return slow.left.Load() == slow.arrived.Load() }) {
		t.Fatalf("every client left, and %d of %d fetches go on", slow.arrived.Load()-slow.left.Load(), slow.arrived.Load())
	}
	if !within(10*time.Second, func() bool { return len(f.srv.slots) == 0 }) {
		t.Errorf("%d places still taken", len(f.srv.slots))
	}
	if got := f.counts.fetched("canceled"); got < 1 || f.counts.fetched("timeout") != 0 {
		t.Errorf("fetch outcomes %v, want the fetch canceled", f.counts.fetchd)
	}
	// Not remembered as failed: asked again once the host is mended,
	// fetched again.
	slow.mended.Store(true)
	if a := f.get(t, u); a.status != 200 || a.header.Get("Content-Type") != "image/png" {
		t.Errorf("asked again: status %d, %s; want the picture", a.status, a.header.Get("Content-Type"))
	}
}

// TestOneHostTakesItsShare: a host with many pictures that answer
// nothing, asked by clients that stay, runs at most its share of the
// fetches; a picture from another host (another loopback address: the
// share is the host name's, whatever the port) is served meanwhile.
func TestOneHostTakesItsShare(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Timeout = time.Minute })
	slow := newSlowServer(t, "127.0.0.2")
	addrs := []string{f.img.URL + "/1.png"}
	for i := range 40 {
		addrs = append(addrs, fmt.Sprintf("%s/%d.png", slow.URL, i))
	}
	f.srv.store.Publish(itemsSnapshot(t, addrs))
	clients := newLeavers(t)
	for id := 2; id <= len(addrs); id++ {
		clients.ask(f, itemURL(t, f, int64(id)))
	}
	if !within(10*time.Second, func() bool { return slow.arrived.Load() >= perHostFetches }) {
		t.Fatalf("%d slow fetches under way, want %d", slow.arrived.Load(), perHostFetches)
	}
	status, ctype, err := f.getWithin(t, itemURL(t, f, 1), 10*time.Second)
	if err != nil || status != 200 || ctype != "image/png" {
		t.Fatalf("a picture from another host while one host's are pending: %d %s %v; want it served", status, ctype, err)
	}
	if most := slow.most.Load(); most > perHostFetches {
		t.Errorf("one host had %d fetches at once, over its share of %d", most, perHostFetches)
	}
	// Gone with their clients: the places, and the hosts' shares.
	clients.leave()
	var places, hosts int
	if !within(10*time.Second, func() bool {
		f.srv.hosts.mu.Lock()
		defer f.srv.hosts.mu.Unlock()
		places, hosts = len(f.srv.slots), len(f.srv.hosts.m)
		return places == 0 && hosts == 0
	}) {
		t.Errorf("%d places taken, %d hosts' shares kept, after every client left", places, hosts)
	}
}
