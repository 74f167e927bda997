package web_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/web"
)

// serve routes an app as the gateway does, with a 404 for unknown assets.
func serve(t *testing.T, app *web.App, page, prefix string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("GET "+page, app.Index())
	mux.Handle("GET "+prefix+"assets/{name...}", app.Assets(http.NotFoundHandler()))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	// No transparent decompression: the test reads what was sent.
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// refs finds what a page loads: the src and href of its scripts,
// stylesheets, icons and images (links to follow are not loads).
var refs = regexp.MustCompile(`<(?:script|link|img)\b[^>]*?\b(?:src|href)="([^"]+)"`)

// TestApps checks each built app as a browser meets it: the page, then
// every asset the page names, all from the gateway itself and each with
// the caching its name allows.
func TestApps(t *testing.T) {
	for _, tt := range []struct {
		name       string
		load       func() (*web.App, error)
		page, base string
	}{
		{"playground", web.Playground, "/{$}", "/playground/"},
		{"explorer", web.Explorer, "/explorer", "/explorer/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			app, err := tt.load()
			if err != nil {
				t.Fatal(err)
			}
			srv := serve(t, app, tt.page, tt.base)
			pageURL := srv.URL + strings.TrimSuffix(tt.page, "{$}")

			resp, page := get(t, pageURL, nil)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Fatalf("page: %d %q, want 200 text/html", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") ||
				!strings.Contains(csp, "connect-src 'self'") {
				t.Errorf("page CSP %q, want everything from 'self'", csp)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != "no-cache" {
				t.Errorf("page Cache-Control %q, want no-cache: it names the current assets", cc)
			}
			etag := resp.Header.Get("ETag")
			if r, _ := get(t, pageURL, map[string]string{"If-None-Match": etag}); etag == "" || r.StatusCode != http.StatusNotModified {
				t.Errorf("page ETag %q, revalidated: %d; want 304", etag, r.StatusCode)
			}

			scripts := 0
			for _, m := range refs.FindAllSubmatch(page, -1) {
				ref := string(m[1])
				if strings.HasPrefix(ref, "data:") {
					continue // inline, nothing fetched
				}
				if strings.Contains(ref, "//") {
					t.Errorf("the page loads %q, from another host", ref)
					continue
				}
				if !strings.HasPrefix(ref, tt.base+"assets/") {
					t.Errorf("the page loads %q, outside %sassets/", ref, tt.base)
					continue
				}
				resp, body := get(t, srv.URL+ref, nil)
				if resp.StatusCode != http.StatusOK || len(body) == 0 {
					t.Errorf("%s: status %d, %d bytes", ref, resp.StatusCode, len(body))
					continue
				}
				if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
					t.Errorf("%s: Cache-Control %q, want immutable: its name changes with its bytes", ref, cc)
				}
				switch {
				case strings.HasSuffix(ref, ".js"):
					scripts++
					if ct := resp.Header.Get("Content-Type"); ct != "text/javascript; charset=utf-8" {
						t.Errorf("%s: Content-Type %q", ref, ct)
					}
				case strings.HasSuffix(ref, ".css"):
					// Stylesheets load fonts and images: from here only.
					for _, u := range regexp.MustCompile(`(?:url\(|@import\s*)["']?(https?:)?//[^"')]+`).FindAll(body, -1) {
						t.Errorf("%s loads %s from another host", ref, u)
					}
				}
			}
			if scripts == 0 {
				t.Fatalf("the page loads no script; is dist/ a real build?\n%s", page)
			}

			t.Run("compressed", func(t *testing.T) {
				// The page's largest script: small ones are not worth it.
				var ref string
				var plain []byte
				for _, m := range refs.FindAllSubmatch(page, -1) {
					if r := string(m[1]); strings.HasSuffix(r, ".js") {
						if _, b := get(t, srv.URL+r, nil); len(b) > len(plain) {
							ref, plain = r, b
						}
					}
				}
				resp, z := get(t, srv.URL+ref, map[string]string{"Accept-Encoding": "gzip"})
				if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" {
					t.Fatalf("Content-Encoding %q, Vary %q; want gzip and Vary", resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
				}
				zr, err := gzip.NewReader(bytes.NewReader(z))
				if err != nil {
					t.Fatal(err)
				}
				if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, plain) {
					t.Errorf("the gzip body decodes to %d bytes (%v), want the %d of the plain one", len(got), err, len(plain))
				}
				if resp.Header.Get("ETag") == "" || resp.Header.Get("ETag") == etagOf(t, srv.URL+ref) {
					t.Errorf("the gzip ETag %q is not one of its own", resp.Header.Get("ETag"))
				}
			})

			t.Run("unknown asset", func(t *testing.T) {
				if r, _ := get(t, srv.URL+tt.base+"assets/no-such-file.js", nil); r.StatusCode != http.StatusNotFound {
					t.Errorf("status %d, want 404", r.StatusCode)
				}
			})
		})
	}
}

func etagOf(t *testing.T, url string) string {
	t.Helper()
	resp, _ := get(t, url, nil)
	return resp.Header.Get("ETag")
}
