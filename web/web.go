// Package web serves the gateway's two browser apps from files built into
// the binary: the GraphiQL playground and the catalogue explorer. Nothing
// they load comes from another host, so both work behind a firewall.
//
// Each app's sources and build recipe sit beside this file (playground/,
// explorer/; see CONTRIBUTING.md, "Browser apps"). Their built output, dist/,
// is committed, so building the gateway needs no Node.js.
package web

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"sync"

	"github.com/catalogue-gateway/gateway/contentcoding"
)

//go:embed all:playground/dist all:explorer/dist
var built embed.FS

// App is one built browser app: its index page and its assets, each served
// with a strong ETag, compressed when the client accepts it.
type App struct {
	index  *file
	assets map[string]*file // by path in dist/, such as assets/index-3f2a.js
}

// Playground is GraphiQL, opening on an example query. Its page is served
// at / and its assets under /playground/assets/.
func Playground() (*App, error) { return load("playground") }

// Explorer is the catalogue explorer, served at /explorer: the same page at
// every path under it (its links are its own routes), assets under
// /explorer/assets/.
func Explorer() (*App, error) { return load("explorer") }

func load(name string) (*App, error) {
	root, err := fs.Sub(built, name+"/dist")
	if err != nil {
		return nil, fmt.Errorf("reading the built %s: %w", name, err)
	}
	index, err := fs.ReadFile(root, "index.html")
	if err != nil {
		return nil, fmt.Errorf("reading the built %s: %w", name, err)
	}
	// The page names its assets by their hashes, so it must be asked for
	// again each time; an asset's name changes with its content, so it can
	// be kept for good.
	app := &App{index: newFile("index.html", index, "no-cache"), assets: map[string]*file{}}
	app.index.csp = contentSecurityPolicy
	err = fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == "index.html" {
			return err
		}
		b, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		app.assets[p] = newFile(p, b, "public, max-age=31536000, immutable")
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the built %s's assets: %w", name, err)
	}
	return app, nil
}

// Index serves the app's page.
func (a *App) Index() http.Handler { return a.index }

// Assets serves the app's assets by name, taken from the path wildcard
// {name...}: the route "GET /explorer/assets/{name...}". An unknown name
// is answered by notFound.
func (a *App) Assets(notFound http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := a.assets["assets/"+r.PathValue("name")]
		if !ok {
			notFound.ServeHTTP(w, r)
			return
		}
		f.ServeHTTP(w, r)
	})
}

// contentSecurityPolicy is the pages' policy: everything from the gateway
// itself, so a page can neither load nor send anything elsewhere. (Inline
// styles are allowed: GraphiQL sets some.)
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
	"font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

// mediaTypes names the types of the files the apps are built into. The
// table is fixed here, not read from the machine's, so that every replica
// labels a file alike.
var mediaTypes = map[string]string{
	".html":  "text/html; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".css":   "text/css; charset=utf-8",
	".json":  "application/json",
	".svg":   "image/svg+xml",
	".png":   "image/png",
	".ico":   "image/x-icon",
	".woff":  "font/woff",
	".woff2": "font/woff2",
	".ttf":   "font/ttf",
}

// compressible lists the types worth compressing; fonts and images are
// compressed already.
var compressible = map[string]bool{".html": true, ".js": true, ".css": true, ".json": true, ".svg": true, ".ttf": true}

// file is one file of an app, ready to serve.
type file struct {
	contentType  string
	cacheControl string
	// csp is the Content-Security-Policy of a page; empty for assets.
	csp string
	// etagBase derives from the file's bytes; each encoding has its tag.
	etagBase string
	// compressible is false for what is compressed already (fonts,
	// images): those are served as they are.
	compressible bool

	reps [contentcoding.NumEncodings]lazyRep
}

// lazyRep is the file in one encoding, compressed on its first request:
// most encodings of most files are never asked for, and compressing them
// all would add to every start.
type lazyRep struct {
	once  sync.Once
	bytes []byte
}

func newFile(name string, b []byte, cacheControl string) *file {
	sum := sha256.Sum256(b)
	ext := path.Ext(name)
	f := &file{
		contentType:  mediaTypes[ext],
		cacheControl: cacheControl,
		etagBase:     base64.RawURLEncoding.EncodeToString(sum[:18]),
		compressible: compressible[ext] && len(b) >= 1<<10,
	}
	if f.contentType == "" {
		f.contentType = "application/octet-stream"
	}
	f.reps[contentcoding.Identity].once.Do(func() { f.reps[contentcoding.Identity].bytes = b })
	return f
}

// in returns the file in encoding e, or in identity if e is not worth it.
func (f *file) in(e contentcoding.Encoding) (contentcoding.Encoding, []byte) {
	if !f.compressible {
		e = contentcoding.Identity
	}
	rep := &f.reps[e]
	rep.once.Do(func() {
		z, err := contentcoding.Compress(e, f.reps[contentcoding.Identity].bytes)
		if err != nil {
			return // bytes stays nil: served in identity below
		}
		rep.bytes = z
	})
	if rep.bytes == nil {
		return contentcoding.Identity, f.reps[contentcoding.Identity].bytes
	}
	return e, rep.bytes
}

func (f *file) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	enc, body := f.in(contentcoding.Negotiate(r.Header.Get("Accept-Encoding")))
	h := w.Header()
	etag := contentcoding.ETag(f.etagBase, enc, contentcoding.Dense)
	h.Set("Content-Type", f.contentType)
	h.Set("Cache-Control", f.cacheControl)
	h.Set("ETag", etag)
	h.Set("X-Content-Type-Options", "nosniff")
	if f.csp != "" {
		h.Set("Content-Security-Policy", f.csp)
	}
	if f.compressible {
		h.Add("Vary", "Accept-Encoding") // after the CORS layer's Origin
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" && contentcoding.NoneMatch(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if enc != contentcoding.Identity {
		h.Set("Content-Encoding", enc.Token())
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}
