package gateway_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
)

// pictureServer is a stand-in image server on loopback answering every
// path with one real PNG, counting the requests.
type pictureServer struct {
	*httptest.Server
	png      []byte
	requests atomic.Int32
}

func newPictureServer(t *testing.T) *pictureServer {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 48, 48))
	for i := range 48 {
		img.Set(i, i, color.RGBA{200, 40, 40, 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	s := &pictureServer{png: b.Bytes()}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		w.Header().Set("Content-Type", "image/png")
		w.Write(s.png)
	}))
	t.Cleanup(s.Close)
	return s
}

// upstreamsWithPictures are stand-in upstreams serving the fixture
// catalogue, its picture addresses on pics.
func upstreamsWithPictures(t *testing.T, pics *pictureServer) *upstreams {
	t.Helper()
	bodies := upstreamtest.FixtureBodies(t)
	for c, b := range bodies {
		bodies[c] = bytes.ReplaceAll(b, []byte("https://img.example/"), []byte(pics.URL+"/"))
	}
	return newUpstreamsOf(t, bodies)
}

// pictureURLs asks GraphQL for the picture of item 1, monster 1, world
// boss 1 and its first loot.
func pictureURLs(t *testing.T, g *testGateway) []string {
	t.Helper()
	a := g.graphQLOK(t, `{ item(id: 1) { image { url source } } monster(id: 1) { image { url } }
		worldBoss(id: 1) { image { url } loot { image { url } } } }`)
	var data struct {
		Item struct {
			Image struct{ URL, Source string }
		}
		Monster, WorldBoss struct {
			Image struct{ URL string }
			Loot  []struct{ Image struct{ URL string } }
		}
	}
	if err := json.Unmarshal(a.Data, &data); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(data.Item.Image.Source, "/1.png") {
		t.Errorf("item 1's source %q, want the catalogue's address", data.Item.Image.Source)
	}
	urls := []string{data.Item.Image.URL, data.Monster.Image.URL, data.WorldBoss.Image.URL, data.WorldBoss.Loot[0].Image.URL}
	for _, u := range urls {
		if !strings.HasPrefix(u, catalogue.PicturesPath) || !strings.Contains(u, "?v=") {
			t.Fatalf("picture URL %q: want a versioned path of the gateway's own", u)
		}
	}
	return urls
}

// TestPicturesEndToEnd: the real gateway reading stand-in upstreams whose
// picture addresses are on a stand-in image server (on loopback, hence
// -images-allow-private): GraphQL gives each record's same-origin URL;
// the route fetches the picture once, serves it with its ETag (304 on
// If-None-Match) and immutable caching; /metrics counts it and the
// pictures' store stays within its share; a gateway restarted on the same
// -cache-dir serves it from disk, the image server gone.
func TestPicturesEndToEnd(t *testing.T) {
	pics := newPictureServer(t)
	u := upstreamsWithPictures(t, pics)
	dir := t.TempDir()
	cfg := u.config(time.Hour, dir)
	cfg.ImagesAllowPrivate = true
	g := startGateway(t, cfg, nil)
	g.waitReady(t, readyWithin)

	urls := pictureURLs(t, g)
	etags := map[string]string{}
	for _, path := range urls {
		resp, body := gatewaytest.Get(t, g.client, g.URL+path)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || !bytes.Equal(body, pics.png) {
			t.Fatalf("GET %s: %d %s, %d bytes; want the PNG", path, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
		if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
			t.Errorf("GET %s: Cache-Control %q, want immutable", path, cc)
		}
		etags[path] = resp.Header.Get("ETag")
		req, _ := http.NewRequest(http.MethodGet, g.URL+path, nil)
		req.Header.Set("If-None-Match", etags[path])
		nm, err := g.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		nm.Body.Close()
		if nm.StatusCode != http.StatusNotModified {
			t.Errorf("GET %s with its ETag: %d, want 304", path, nm.StatusCode)
		}
	}
	// Four records, four addresses (the fixture's are all distinct).
	if n := pics.requests.Load(); n != 4 {
		t.Errorf("the image server was asked %d times, want 4 (one per address)", n)
	}
	m := g.metrics(t)
	for series, want := range map[string]float64{
		`gateway_picture_fetches_total{outcome="ok"}`:      4,
		`gateway_pictures_served_total{outcome="fetched"}`: 4,
		`gateway_pictures_served_total{outcome="memory"}`:  4,
		`gateway_store_entries{store="pictures"}`:          4,
		`gateway_picture_disk_files`:                       4,
	} {
		if m[series] != want {
			t.Errorf("%s = %v, want %v", series, m[series], want)
		}
	}
	if b, share := m[`gateway_store_bytes{store="pictures"}`], m[`gateway_store_share_bytes{store="pictures"}`]; b <= float64(4*len(pics.png)) || b > share {
		t.Errorf("pictures charged %v bytes of a %v share, for 4 pictures of %d bytes", b, share, len(pics.png))
	}
	if share := m[`gateway_store_share_bytes{store="pictures"}`]; share != m["gateway_memory_budget_bytes"]/10 {
		t.Errorf("pictures' share %v, want a tenth of the budget %v", share, m["gateway_memory_budget_bytes"])
	}

	g.Stop()
	pics.Close()
	again := startGateway(t, cfg, nil)
	again.waitReady(t, readyWithin)
	for _, path := range urls {
		resp, body := gatewaytest.Get(t, again.client, again.URL+path)
		if resp.StatusCode != 200 || !bytes.Equal(body, pics.png) || resp.Header.Get("ETag") != etags[path] {
			t.Errorf("after a restart, GET %s: %d, %d bytes, ETag %s; want the picture from disk, ETag %s",
				path, resp.StatusCode, len(body), resp.Header.Get("ETag"), etags[path])
		}
	}
	if got := again.metrics(t)[`gateway_pictures_served_total{outcome="disk"}`]; got != 4 {
		t.Errorf("served from disk %v times, want 4", got)
	}
}

// TestPicturesGuardRefusesLoopback: without -images-allow-private, the
// stand-in image server on loopback is never reached: the placeholder is
// served, and the refusal counted and logged once.
func TestPicturesGuardRefusesLoopback(t *testing.T) {
	pics := newPictureServer(t)
	u := upstreamsWithPictures(t, pics)
	cfg := u.config(time.Hour, "")
	g := startGateway(t, cfg, nil)
	g.waitReady(t, readyWithin)
	path := pictureURLs(t, g)[0]
	for range 3 {
		resp, body := gatewaytest.Get(t, g.client, g.URL+path)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" || !bytes.HasPrefix(body, []byte("<svg")) {
			t.Fatalf("GET %s: %d %s; want the placeholder", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	if n := pics.requests.Load(); n != 0 {
		t.Errorf("the loopback image server was reached %d times", n)
	}
	m := g.metrics(t)
	if got := m[`gateway_picture_fetches_total{outcome="refused_address"}`]; got != 1 {
		t.Errorf("refused_address fetches %v, want 1 (then remembered)", got)
	}
	if got := m[`gateway_pictures_served_total{outcome="failed"}`]; got != 3 {
		t.Errorf("failed answers %v, want 3", got)
	}
}

// TestPicturesEmbeddedFetchNothing: on the embedded catalogue (no
// network), every record's picture is its placeholder; the route answers
// hostile paths with the JSON 404 and other methods with 405.
func TestPicturesEmbeddedFetchNothing(t *testing.T) {
	cfg := config.Default()
	cfg.AccessLog = false
	g := startGateway(t, cfg, nil)
	g.waitReady(t, readyWithin)
	for _, path := range []string{"/images/items/1", "/images/monsters/1?v=0", "/images/world-bosses/1"} {
		resp, _ := gatewaytest.Get(t, g.client, g.URL+path)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" {
			t.Errorf("GET %s: %d %s, want the placeholder", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	for _, path := range []string{"/images/", "/images/items", "/images/items/", "/images/items/1/2", "/images/nope/1",
		"/images/items/0", "/images/items/..%2f..%2fetc%2fpasswd", "/images/items/../../etc/passwd", "/images/world-boss-loot/zzz"} {
		if resp, body := gatewaytest.Get(t, g.client, g.URL+path); resp.StatusCode != http.StatusNotFound || !bytes.Contains(body, []byte(`"NOT_FOUND"`)) {
			t.Errorf("GET %s: %d, %.80s; want the JSON 404", path, resp.StatusCode, body)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, g.URL+"/images/items/1", nil)
	resp, err := g.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d, Allow %q; want 405 and GET, HEAD", resp.StatusCode, resp.Header.Get("Allow"))
	}
	if m := g.metrics(t); m[`gateway_picture_fetches_total{outcome="ok"}`]+m[`gateway_picture_fetches_total{outcome="connection"}`] != 0 {
		t.Errorf("the embedded catalogue fetched pictures: %v", m)
	}
}

// TestPicturesRatePerClient: the rate counts clients as the per-client
// caps do: behind a trusted proxy, by X-Forwarded-For. One client past
// its burst gets 429 and the placeholder; another is not affected.
func TestPicturesRatePerClient(t *testing.T) {
	pics := newPictureServer(t)
	u := upstreamsWithPictures(t, pics)
	cfg := u.config(time.Hour, "")
	cfg.ImagesAllowPrivate = true
	cfg.ImagesClientRate, cfg.ImagesClientBurst = 1, 1
	cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	g := startGateway(t, cfg, nil)
	g.waitReady(t, readyWithin)
	urls := pictureURLs(t, g)
	status := func(path, client string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, g.URL+path, nil)
		req.Header.Set("X-Forwarded-For", client)
		resp, err := g.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Content-Type")
	}
	if s, ct := status(urls[0], "203.0.113.1"); s != 200 || ct != "image/png" {
		t.Fatalf("a client's first miss: %d %s", s, ct)
	}
	if s, ct := status(urls[1], "203.0.113.1"); s != http.StatusTooManyRequests || ct != "image/svg+xml" {
		t.Errorf("the same client's second miss: %d %s, want 429 and the placeholder", s, ct)
	}
	if s, _ := status(urls[0], "203.0.113.1"); s != 200 {
		t.Errorf("the same client's hit: %d, want 200 (hits are not limited)", s)
	}
	if s, ct := status(urls[1], "198.51.100.2"); s != 200 || ct != "image/png" {
		t.Errorf("another client behind the same proxy: %d %s, want the picture", s, ct)
	}
	if got := g.metrics(t)[`gateway_pictures_served_total{outcome="rate_limited"}`]; got != 1 {
		t.Errorf("rate_limited %v, want 1", got)
	}
}
