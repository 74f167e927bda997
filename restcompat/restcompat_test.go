package restcompat_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/contentcoding"
	"github.com/catalogue-gateway/gateway/restcompat"
)

// embedded decodes the embedded catalogue once for the whole test binary:
// decoding compresses every body in three codings, which is too slow to
// repeat in every test. Snapshots are immutable, so sharing one is safe.
var embedded = sync.OnceValues(catalogue.Embedded)

func embeddedSnapshot(tb testing.TB) *catalogue.Snapshot {
	tb.Helper()
	snap, err := embedded()
	if err != nil {
		tb.Fatalf("catalogue.Embedded: %v", err)
	}
	return snap
}

// upstreamBytes reads a collection's file as the generator wrote it, rather
// than asking the snapshot, so the REST paths are compared with the upstream
// bytes and not with the gateway's own idea of them.
func upstreamBytes(tb testing.TB, c catalogue.Collection) []byte {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "catalogue", "embedded", c.String()+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(raw) == 0 {
		tb.Fatalf("%s: the embedded file is empty", c)
	}
	return raw
}

// newServer serves the 13 REST paths from src over real HTTP. Its client
// leaves Accept-Encoding alone and does not decode gzip, so each test sees
// exactly what went over the wire.
func newServer(t *testing.T, src restcompat.Source) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	restcompat.Register(mux, src, restcompat.Options{})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	srv.Client().Transport.(*http.Transport).DisableCompression = true
	return srv
}

func storeOf(snap *catalogue.Snapshot) *catalogue.Store {
	st := &catalogue.Store{}
	if snap != nil {
		st.Publish(snap)
	}
	return st
}

type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request with the given header fields (name, value, name,
// value, …) and reads the whole answer.
func do(t *testing.T, srv *httptest.Server, method, target string, fields ...string) response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+target, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		req.Header.Add(fields[i], fields[i+1])
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, target, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: body}
}

// decode undoes a Content-Encoding with decoders other than the gateway's
// own encoders.
func decode(t *testing.T, coding string, b []byte) []byte {
	t.Helper()
	var (
		out []byte
		err error
	)
	switch coding {
	case "":
		return b
	case "gzip":
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(bytes.NewReader(b)); err == nil {
			out, err = io.ReadAll(zr)
		}
	case "br":
		out, err = io.ReadAll(brotli.NewReader(bytes.NewReader(b)))
	case "zstd":
		var zr *zstd.Decoder
		if zr, err = zstd.NewReader(nil); err == nil {
			out, err = zr.DecodeAll(b, nil)
			zr.Close()
		}
	default:
		t.Fatalf("unexpected Content-Encoding %q", coding)
	}
	if err != nil {
		t.Fatalf("decoding %s: %v", coding, err)
	}
	return out
}

// bytesDiff describes where got first departs from want, in (-want +got)
// form, or returns "" when they are equal. Bodies run to megabytes, so it
// shows the neighbourhood of the first difference rather than everything.
func bytesDiff(want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	lo := max(i-40, 0)
	return fmt.Sprintf("first difference at byte %d; lengths %d (want) and %d (got)\n-%q\n+%q",
		i, len(want), len(got), want[lo:min(i+40, len(want))], got[lo:min(i+40, len(got))])
}

// strongETag matches a quoted strong entity tag (RFC 9110, 8.8.3).
var strongETag = regexp.MustCompile(`^"[\x21\x23-\x7e]+"$`)

// codings are the Accept-Encoding values every collection is fetched with;
// each asks for exactly one coding, so the answer must be in that coding.
var codings = []string{"", "gzip", "br", "zstd"}

func codingName(coding string) string {
	if coding == "" {
		return "identity"
	}
	return coding
}

// checkRepresentation checks a 200 answer's headers and that its body decodes
// to want.
func checkRepresentation(t *testing.T, got response, wantCoding string, want []byte) {
	t.Helper()
	if got.status != http.StatusOK {
		t.Fatalf("status = %d, want 200; body %.200q", got.status, got.body)
	}
	for _, h := range []struct{ name, want string }{
		{"Content-Type", "application/json"},
		{"Content-Encoding", wantCoding},
		{"Vary", "Accept-Encoding"},
		{"Content-Length", strconv.Itoa(len(got.body))},
	} {
		if v := got.header.Get(h.name); v != h.want {
			t.Errorf("%s = %q, want %q", h.name, v, h.want)
		}
	}
	if etag := got.header.Get("ETag"); !strongETag.MatchString(etag) {
		t.Errorf("ETag = %q, want a quoted strong entity tag", etag)
	}
	if d := bytesDiff(want, decode(t, got.header.Get("Content-Encoding"), got.body)); d != "" {
		t.Errorf("decoded body differs from the upstream file (-want +got):\n%s", d)
	}
}

func TestBodiesAreTheUpstreamBytes(t *testing.T) {
	srv := newServer(t, storeOf(embeddedSnapshot(t)))
	for c := range catalogue.NumCollections {
		t.Run(c.String(), func(t *testing.T) {
			want := upstreamBytes(t, c)
			etags := map[string]string{} // coding → ETag
			for _, coding := range codings {
				t.Run(codingName(coding), func(t *testing.T) {
					var fields []string
					if coding != "" {
						fields = []string{"Accept-Encoding", coding}
					}
					got := do(t, srv, http.MethodGet, c.Path(), fields...)
					checkRepresentation(t, got, coding, want)
					etags[codingName(coding)] = got.header.Get("ETag")
				})
			}
			// A strong validator promises identical bytes, so each coding
			// needs a tag of its own.
			seen := map[string]string{}
			for coding, tag := range etags {
				if other, dup := seen[tag]; dup {
					t.Errorf("%s and %s share the ETag %s", other, coding, tag)
				}
				seen[tag] = coding
			}
		})
	}
}

func TestHeadGivesHeadersWithoutBody(t *testing.T) {
	srv := newServer(t, storeOf(embeddedSnapshot(t)))
	for c := range catalogue.NumCollections {
		for _, coding := range codings {
			t.Run(c.String()+"/"+codingName(coding), func(t *testing.T) {
				var fields []string
				if coding != "" {
					fields = []string{"Accept-Encoding", coding}
				}
				get := do(t, srv, http.MethodGet, c.Path(), fields...)
				head := do(t, srv, http.MethodHead, c.Path(), fields...)
				if head.status != http.StatusOK {
					t.Fatalf("status = %d, want 200", head.status)
				}
				if len(head.body) != 0 {
					t.Errorf("HEAD returned %d body bytes, want none", len(head.body))
				}
				for _, name := range []string{"Content-Type", "Content-Encoding", "Content-Length", "ETag", "Vary"} {
					if g, h := get.header.Get(name), head.header.Get(name); g != h {
						t.Errorf("%s: GET has %q, HEAD has %q", name, g, h)
					}
				}
				if cl := head.header.Get("Content-Length"); cl != strconv.Itoa(len(get.body)) {
					t.Errorf("HEAD Content-Length = %q, want %d, the length of the GET body", cl, len(get.body))
				}
			})
		}
	}
}

func TestNegotiation(t *testing.T) {
	srv := newServer(t, storeOf(embeddedSnapshot(t)))
	want := upstreamBytes(t, catalogue.EventChests)
	compressed := []string{"gzip", "br", "zstd"}
	for _, tt := range []struct {
		name           string
		acceptEncoding string
		want           []string // acceptable Content-Encodings; "" is identity
	}{
		{"gzip", "gzip", []string{"gzip"}},
		{"br", "br", []string{"br"}},
		{"zstd", "zstd", []string{"zstd"}},
		{"x-gzip alias", "x-gzip", []string{"gzip"}},
		{"coding names ignore case", "GZip", []string{"gzip"}},
		{"gzip refused with q=0", "gzip;q=0", []string{""}},
		{"gzip refused with q=0.000", "gzip; q=0.000", []string{""}},
		{"refused coding skipped", "gzip;q=0, br", []string{"br"}},
		{"higher weight wins over preference", "br;q=0.5, gzip;q=1", []string{"gzip"}},
		{"missing weight is 1", "br;q=0.5, gzip", []string{"gzip"}},
		{"white space around parameters", " gzip ; q=0.8 , br ; Q=0.9 ", []string{"br"}},
		{"three weights", "gzip;q=0.7, br;q=0.8, zstd;q=0.9", []string{"zstd"}},
		{"tiny weight still acceptable", "gzip;q=0.001", []string{"gzip"}},
		{"wildcard", "*", compressed},
		{"wildcard refused", "*;q=0", []string{""}},
		{"wildcard except gzip", "*, gzip;q=0", []string{"br", "zstd"}},
		{"wildcard weighs codings not named", "gzip;q=0.5, *;q=0.6", []string{"br", "zstd"}},
		{"identity only", "identity", []string{""}},
		{"identity with weight", "identity;q=1", []string{""}},
		{"unknown codings", "compress, deflate, sdch", []string{""}},
		{"unknown beside known", "deflate, gzip;q=0.5", []string{"gzip"}},
		{"malformed weight is ignored", "gzip;q=abc", []string{"gzip"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := do(t, srv, http.MethodGet, catalogue.EventChests.Path(), "Accept-Encoding", tt.acceptEncoding)
			ce := got.header.Get("Content-Encoding")
			if !slices.Contains(tt.want, ce) {
				t.Fatalf("Accept-Encoding %q: Content-Encoding = %q, want one of %q", tt.acceptEncoding, ce, tt.want)
			}
			checkRepresentation(t, got, ce, want)
		})
	}
}

func TestIfNoneMatch(t *testing.T) {
	snap := embeddedSnapshot(t)
	srv := newServer(t, storeOf(snap))
	body := snap.Body(catalogue.Items)
	tag := func(e contentcoding.Encoding) string { return body.In(e).ETag }
	identity, gz := tag(contentcoding.Identity), tag(contentcoding.Gzip)
	otherCollection := snap.Body(catalogue.Monsters).ETag()

	for _, tt := range []struct {
		name           string
		method         string // GET unless set
		acceptEncoding string
		ifNoneMatch    string
		wantStatus     int
		wantETag       string
	}{
		{name: "identity tag", ifNoneMatch: identity, wantStatus: 304, wantETag: identity},
		{name: "gzip tag", acceptEncoding: "gzip", ifNoneMatch: gz, wantStatus: 304, wantETag: gz},
		{name: "br tag", acceptEncoding: "br", ifNoneMatch: tag(contentcoding.Brotli), wantStatus: 304, wantETag: tag(contentcoding.Brotli)},
		{name: "zstd tag", acceptEncoding: "zstd", ifNoneMatch: tag(contentcoding.Zstd), wantStatus: 304, wantETag: tag(contentcoding.Zstd)},
		{name: "in a list", acceptEncoding: "gzip", ifNoneMatch: `"a", ` + gz + `, "b"`, wantStatus: 304, wantETag: gz},
		{name: "in a list without spaces", ifNoneMatch: `"a",` + identity, wantStatus: 304, wantETag: identity},
		{name: "weak prefix", ifNoneMatch: "W/" + identity, wantStatus: 304, wantETag: identity},
		{name: "weak prefix in a list", acceptEncoding: "gzip", ifNoneMatch: `W/"a", W/` + gz, wantStatus: 304, wantETag: gz},
		{name: "wildcard", ifNoneMatch: "*", wantStatus: 304, wantETag: identity},
		{name: "wildcard with gzip", acceptEncoding: "gzip", ifNoneMatch: "*", wantStatus: 304, wantETag: gz},
		{name: "HEAD", method: http.MethodHead, ifNoneMatch: identity, wantStatus: 304, wantETag: identity},
		{name: "stale tag", ifNoneMatch: `"stale"`, wantStatus: 200, wantETag: identity},
		{name: "another collection's tag", ifNoneMatch: otherCollection, wantStatus: 200, wantETag: identity},
		{name: "unquoted tag", ifNoneMatch: strings.Trim(identity, `"`), wantStatus: 200, wantETag: identity},
		// A 304 tells a cache to reuse its stored response with the 304's
		// ETag (RFC 9111, 4.3.4), so it may only name a tag the request
		// named: a tag of another coding than the one negotiated is not a
		// match for the selected representation (RFC 9110, 13.1.2).
		{name: "gzip tag without Accept-Encoding", ifNoneMatch: gz, wantStatus: 200, wantETag: identity},
		{name: "identity tag asking for br", acceptEncoding: "br", ifNoneMatch: identity, wantStatus: 200, wantETag: tag(contentcoding.Brotli)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			method := cmpOr(tt.method, http.MethodGet)
			fields := []string{"If-None-Match", tt.ifNoneMatch}
			if tt.acceptEncoding != "" {
				fields = append(fields, "Accept-Encoding", tt.acceptEncoding)
			}
			got := do(t, srv, method, catalogue.Items.Path(), fields...)
			if got.status != tt.wantStatus {
				t.Fatalf("If-None-Match %s: status = %d, want %d", tt.ifNoneMatch, got.status, tt.wantStatus)
			}
			if etag := got.header.Get("ETag"); etag != tt.wantETag {
				t.Errorf("ETag = %s, want %s", etag, tt.wantETag)
			}
			if v := got.header.Get("Vary"); v != "Accept-Encoding" {
				t.Errorf("Vary = %q, want Accept-Encoding", v)
			}
			if got.status == http.StatusNotModified && len(got.body) != 0 {
				t.Errorf("304 came with %d body bytes, want none", len(got.body))
			}
			if got.status == http.StatusOK && method == http.MethodGet {
				checkRepresentation(t, got, got.header.Get("Content-Encoding"), upstreamBytes(t, catalogue.Items))
			}
		})
	}
}

func cmpOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// checkError checks a JSON error answer of the shape WriteError documents.
func checkError(t *testing.T, got response, wantStatus int) {
	t.Helper()
	if got.status != wantStatus {
		t.Fatalf("status = %d, want %d; body %.200q", got.status, wantStatus, got.body)
	}
	if ct := got.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(got.body, &e); err != nil {
		t.Fatalf("body %q is not a JSON error: %v", got.body, err)
	}
	if e.Error.Code == "" || e.Error.Message == "" {
		t.Errorf("error body %s lacks a code or a message", got.body)
	}
}

func TestOtherMethodsAreRefused(t *testing.T) {
	srv := newServer(t, storeOf(embeddedSnapshot(t)))
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions} {
		for _, c := range []catalogue.Collection{catalogue.Items, catalogue.WorldBosses} {
			t.Run(method+c.Path(), func(t *testing.T) {
				got := do(t, srv, method, c.Path(), "Accept-Encoding", "gzip")
				checkError(t, got, http.StatusMethodNotAllowed)
				if allow := got.header.Get("Allow"); allow != "GET, HEAD" {
					t.Errorf("Allow = %q, want %q", allow, "GET, HEAD")
				}
				if ce := got.header.Get("Content-Encoding"); ce != "" {
					t.Errorf("Content-Encoding = %q on an error, want none", ce)
				}
			})
		}
	}
}

func TestQueryStringIsIgnored(t *testing.T) {
	srv := newServer(t, storeOf(embeddedSnapshot(t)))
	for _, coding := range []string{"", "gzip"} {
		plain := do(t, srv, http.MethodGet, "/items", "Accept-Encoding", coding)
		for _, query := range []string{"?_=123", "?", "?a=1&b=2", "?_=1712345678901&callback=x"} {
			t.Run(codingName(coding)+"/"+query, func(t *testing.T) {
				got := do(t, srv, http.MethodGet, "/items"+query, "Accept-Encoding", coding)
				checkRepresentation(t, got, coding, upstreamBytes(t, catalogue.Items))
				if g, w := got.header.Get("ETag"), plain.header.Get("ETag"); g != w {
					t.Errorf("ETag = %s, want %s as without the query", g, w)
				}
				if !bytes.Equal(got.body, plain.body) {
					t.Errorf("body differs from the answer without the query")
				}
			})
		}
	}
}

func TestUnavailable(t *testing.T) {
	full := embeddedSnapshot(t)

	t.Run("no snapshot", func(t *testing.T) {
		srv := newServer(t, storeOf(nil))
		for c := range catalogue.NumCollections {
			t.Run(c.String(), func(t *testing.T) {
				for _, method := range []string{http.MethodGet, http.MethodHead} {
					got := do(t, srv, method, c.Path(), "Accept-Encoding", "gzip")
					if method == http.MethodHead {
						if got.status != http.StatusServiceUnavailable {
							t.Errorf("HEAD: status = %d, want 503", got.status)
						}
						continue
					}
					checkError(t, got, http.StatusServiceUnavailable)
					if etag := got.header.Get("ETag"); etag != "" {
						t.Errorf("ETag = %s on a 503, want none", etag)
					}
				}
			})
		}
	})

	for missing := range catalogue.NumCollections {
		t.Run("missing "+missing.String(), func(t *testing.T) {
			var parts []*catalogue.Part
			for c := range catalogue.NumCollections {
				if c != missing {
					parts = append(parts, full.Part(c))
				}
			}
			srv := newServer(t, storeOf(catalogue.NewSnapshot(parts...)))
			for c := range catalogue.NumCollections {
				got := do(t, srv, http.MethodGet, c.Path())
				if c == missing {
					checkError(t, got, http.StatusServiceUnavailable)
					continue
				}
				if got.status != http.StatusOK {
					t.Errorf("%s: status = %d, want 200 while only %s is missing", c.Path(), got.status, missing)
				}
			}
		})
	}
}

// TestReplicasAgree builds a second snapshot from fresh copies of the same
// upstream bytes, as another replica would, and checks that both give the
// same tags and the same bytes in every coding: a strong ETag promises
// byte-identical bodies, wherever the load balancer sends the next request.
func TestReplicasAgree(t *testing.T) {
	var parts []*catalogue.Part
	for c := range catalogue.NumCollections {
		p, err := catalogue.Decode(c, bytes.Clone(upstreamBytes(t, c)))
		if err != nil {
			t.Fatalf("decoding %s: %v", c, err)
		}
		parts = append(parts, p)
	}
	a := newServer(t, storeOf(embeddedSnapshot(t)))
	b := newServer(t, storeOf(catalogue.NewSnapshot(parts...)))
	for c := range catalogue.NumCollections {
		for _, coding := range codings {
			t.Run(c.String()+"/"+codingName(coding), func(t *testing.T) {
				ga := do(t, a, http.MethodGet, c.Path(), "Accept-Encoding", coding)
				gb := do(t, b, http.MethodGet, c.Path(), "Accept-Encoding", coding)
				if ga.status != http.StatusOK || gb.status != http.StatusOK {
					t.Fatalf("statuses %d and %d, want 200", ga.status, gb.status)
				}
				if ea, eb := ga.header.Get("ETag"), gb.header.Get("ETag"); ea != eb {
					t.Errorf("ETag differs between replicas (-a +b):\n-%s\n+%s", ea, eb)
				}
				if d := bytesDiff(ga.body, gb.body); d != "" {
					t.Errorf("%s bytes differ between replicas with the same ETag (-a +b):\n%s", codingName(coding), d)
				}
			})
		}
	}
}

func BenchmarkServeItems(b *testing.B) {
	snap := embeddedSnapshot(b)
	mux := http.NewServeMux()
	restcompat.Register(mux, storeOf(snap), restcompat.Options{})
	req := httptest.NewRequest(http.MethodGet, "/items", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	b.SetBytes(int64(len(snap.Body(catalogue.Items).In(contentcoding.Gzip).Bytes)))
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Encoding") != "gzip" {
			b.Fatalf("status %d, Content-Encoding %q", rec.Code, rec.Header().Get("Content-Encoding"))
		}
	}
}

// TestLastModified: a body the upstream dated carries its Last-Modified;
// If-Modified-Since at or after it is answered 304, before it 200, and
// If-None-Match, when sent, decides alone (RFC 9110 13.2.2); a body with
// no date has no Last-Modified and If-Modified-Since changes nothing.
func TestLastModified(t *testing.T) {
	const date = "Sun, 22 Nov 2026 12:00:00 GMT"
	snap := embeddedSnapshot(t)
	snap = snap.With(snap.Part(catalogue.Items).WithModified(date))
	srv := newServer(t, storeOf(snap))
	get := func(path string, header ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	if resp := get("/items"); resp.StatusCode != 200 || resp.Header.Get("Last-Modified") != date {
		t.Fatalf("GET /items: %d, Last-Modified %q, want 200 and %q", resp.StatusCode, resp.Header.Get("Last-Modified"), date)
	}
	for _, c := range []struct {
		name   string
		header []string
		want   int
	}{
		{"since the date", []string{"If-Modified-Since", date}, http.StatusNotModified},
		{"since later", []string{"If-Modified-Since", "Mon, 23 Nov 2026 00:00:00 GMT"}, http.StatusNotModified},
		{"since earlier", []string{"If-Modified-Since", "Sat, 21 Nov 2026 00:00:00 GMT"}, http.StatusOK},
		{"not a date", []string{"If-Modified-Since", "yesterday"}, http.StatusOK},
		{"If-None-Match decides", []string{"If-Modified-Since", date, "If-None-Match", `"other"`}, http.StatusOK},
	} {
		if resp := get("/items", c.header...); resp.StatusCode != c.want {
			t.Errorf("%s: %d, want %d", c.name, resp.StatusCode, c.want)
		}
	}
	if resp := get("/monsters", "If-Modified-Since", date); resp.StatusCode != 200 || resp.Header.Get("Last-Modified") != "" {
		t.Errorf("an undated body: %d, Last-Modified %q; want 200 and none", resp.StatusCode, resp.Header.Get("Last-Modified"))
	}
}

// TestEntityKeys: every body, and its revalidation, carries its
// collection's key, the upstream's name, as a CDN's purge names it.
func TestEntityKeys(t *testing.T) {
	srv := newServer(t, storeOf(embeddedSnapshot(t)))
	want := map[catalogue.Collection]string{catalogue.Items: "items", catalogue.WorldBosses: "worldboss",
		catalogue.DiscoveryLocations: "discovery", catalogue.EventChests: "event"}
	for c := range catalogue.NumCollections {
		t.Run(c.String(), func(t *testing.T) {
			key := c.String()
			if w, ok := want[c]; ok && w != key {
				t.Fatalf("key %q, want %q", key, w)
			}
			get := do(t, srv, http.MethodGet, c.Path())
			again := do(t, srv, http.MethodGet, c.Path(), "If-None-Match", get.header.Get("ETag"))
			if again.status != http.StatusNotModified {
				t.Fatalf("revalidation: status %d, want 304", again.status)
			}
			for name, r := range map[string]response{"200": get, "304": again} {
				for _, h := range []string{"Surrogate-Key", "Cache-Tag"} {
					if got := r.header.Get(h); got != key {
						t.Errorf("%s: %s = %q, want %q", name, h, got, key)
					}
				}
			}
		})
	}
}
