package restcompat_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/restcompat"
)

// FuzzRESTHandler sends requests of any method, path suffix, query string,
// Accept-Encoding and If-None-Match to the REST paths, routed as the
// gateway routes them, on the fixture catalogue with one collection
// missing. The handler must not panic and must answer with one of the
// statuses the REST contract allows, each with its headers.
func FuzzRESTHandler(f *testing.F) {
	var parts []*catalogue.Part
	for c, raw := range upstreamtest.FixtureBodies(f) {
		if c == catalogue.WorldBosses {
			continue // answered 503
		}
		p, err := catalogue.Decode(c, raw)
		if err != nil {
			f.Fatal(err)
		}
		parts = append(parts, p)
	}
	mux := http.NewServeMux()
	restcompat.Register(mux, storeOf(catalogue.NewSnapshot(parts...)), restcompat.Options{})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		restcompat.WriteError(w, http.StatusNotFound, "NOT_FOUND", "no such path")
	})
	f.Add("GET", uint8(catalogue.Items), "", "gzip, br;q=0.5", "")
	f.Add("HEAD", uint8(catalogue.Monsters), "?page=2", "*", `"nope", *`)

	f.Fuzz(func(t *testing.T, method string, collection uint8, suffix, acceptEncoding, ifNoneMatch string) {
		if !isToken(method) || !isFieldValue(acceptEncoding) || !isFieldValue(ifNoneMatch) {
			return // a server refuses these before any handler
		}
		target := catalogue.Collection(collection%uint8(catalogue.NumCollections)).Path() + suffix
		u, err := url.ParseRequestURI(target)
		if err != nil || strings.ContainsAny(target, " \t\r\n") {
			return
		}
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Method, req.URL, req.RequestURI = method, u, target
		if acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", acceptEncoding)
		}
		if ifNoneMatch != "" {
			req.Header.Set("If-None-Match", ifNoneMatch)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		h := rec.Header()

		switch rec.Code {
		case http.StatusOK:
			if h.Get("ETag") == "" || h.Get("Content-Type") != "application/json" || h.Get("Vary") != "Accept-Encoding" {
				t.Errorf("200 with headers %v", h)
			}
			if acceptEncoding == "" && h.Get("Content-Encoding") != "" {
				t.Errorf("Content-Encoding %q for a request accepting none", h.Get("Content-Encoding"))
			}
			if n, err := strconv.Atoi(h.Get("Content-Length")); err != nil || n == 0 || method != http.MethodHead && n != rec.Body.Len() {
				t.Errorf("Content-Length %q for a body of %d bytes", h.Get("Content-Length"), rec.Body.Len())
			}
		case http.StatusNotModified:
			if h.Get("ETag") == "" || rec.Body.Len() != 0 {
				t.Errorf("304 with headers %v and %d bytes", h, rec.Body.Len())
			}
		case http.StatusMethodNotAllowed, http.StatusNotFound, http.StatusServiceUnavailable:
			if rec.Code == http.StatusMethodNotAllowed && h.Get("Allow") != "GET, HEAD" {
				t.Errorf("405 with Allow %q", h.Get("Allow"))
			}
			var e struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error.Code == "" {
				t.Errorf("%d with a body that is no error: %.300q", rec.Code, rec.Body)
			}
		case http.StatusMovedPermanently, http.StatusTemporaryRedirect:
			// ServeMux sends a path that is not clean to its clean form
			// (307 for methods other than GET and HEAD, to keep them);
			// only such paths may be redirected.
			if method == http.MethodConnect || cleanPath(u.Path) == u.Path || h.Get("Location") == "" {
				t.Errorf("%d to %q for the path %q", rec.Code, h.Get("Location"), u.Path)
			}
		default:
			t.Errorf("%s %q: status %d, want 200, 304, 404, 405 or 503 (or a redirect of a path that is not clean)", method, target, rec.Code)
		}
	})
}

// cleanPath is how ServeMux cleans a path: path.Clean, keeping a trailing
// slash.
func cleanPath(p string) string {
	np := path.Clean(p)
	if strings.HasSuffix(p, "/") && np != "/" {
		np += "/"
	}
	return np
}

// isToken reports whether s is an HTTP token (RFC 9110, 5.6.2), as a
// method must be.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// isFieldValue reports whether s may be sent as a header field's value.
func isFieldValue(s string) bool {
	for _, c := range []byte(s) {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return strings.TrimSpace(s) == s
}
