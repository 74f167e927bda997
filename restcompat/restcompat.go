// Package restcompat serves the upstream's 13 REST collections from the
// current catalogue snapshot, byte for byte as the upstream sent them, so
// that REST callers move to the gateway by changing only their base address.
//
// It reads nothing but the catalogue: no change to the GraphQL schema can
// change what a REST caller receives.
package restcompat

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/contentcoding"
	"github.com/catalogue-gateway/gateway/loader"
)

// Source gives the snapshot to serve; *catalogue.Store is one.
type Source interface {
	Current() *catalogue.Snapshot
}

// Options tune the REST paths.
type Options struct {
	// AwaitCold, if set, is called when a collection has no good body; it
	// waits for the upstream read under way, at most until its context
	// ends, so that callers arriving while the snapshot is cold cost no
	// upstream request of their own. ColdWait bounds the wait (default
	// loader.DefaultColdWait, the GraphQL requests' own, so that both
	// kinds of caller wait alike); after it the answer is 503.
	AwaitCold func(ctx context.Context, c catalogue.Collection)
	ColdWait  time.Duration
	// CacheControl is each collection's Cache-Control (the wiring reads
	// it from the schema's cache hints); an empty one is
	// defaultCacheControl.
	CacheControl [catalogue.NumCollections]string
}

// Register adds a handler for each collection's upstream path to mux.
func Register(mux *http.ServeMux, src Source, opts Options) {
	if opts.ColdWait <= 0 {
		opts.ColdWait = loader.DefaultColdWait
	}
	for c := range catalogue.NumCollections {
		if opts.CacheControl[c] == "" {
			opts.CacheControl[c] = defaultCacheControl
		}
		key := []string{catalogue.CollectionKey(c).String()}
		mux.Handle(c.Path(), &collectionHandler{collection: c, src: src, opts: opts, key: key})
	}
}

// defaultCacheControl lets caches keep a body but makes them ask again
// before each use; the ETag makes asking cheap, and the data may change at
// any refresh.
const defaultCacheControl = "public, no-cache"

type collectionHandler struct {
	collection catalogue.Collection
	src        Source
	opts       Options
	// key is the collection's entity key (see catalogue.Key), the value
	// of a body's Surrogate-Key and Cache-Tag headers: a refresh that
	// changes any of its records purges it. Made once, shared by every
	// response (net/http only reads a header's values).
	key []string
}

// part returns the collection's current part, waiting for the upstream
// read under way if there is none yet.
func (h *collectionHandler) part(ctx context.Context) *catalogue.Part {
	if snap := h.src.Current(); snap != nil && snap.Part(h.collection) != nil {
		return snap.Part(h.collection)
	}
	if h.opts.AwaitCold == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, h.opts.ColdWait)
	defer cancel()
	h.opts.AwaitCold(ctx, h.collection)
	if snap := h.src.Current(); snap != nil {
		return snap.Part(h.collection)
	}
	return nil
}

func (h *collectionHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		WriteError(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "use GET or HEAD")
		return
	}
	part := h.part(r.Context())
	if part == nil {
		w.Header().Set("Retry-After", "5")
		WriteError(w, http.StatusServiceUnavailable, "SNAPSHOT_UNAVAILABLE",
			"the "+h.collection.String()+" collection has not been loaded from the upstream yet")
		return
	}

	rep := part.Body().In(contentcoding.Negotiate(r.Header.Get("Accept-Encoding")))
	hdr := w.Header()
	// Added to, never set: the CORS layer has named Origin already, and a
	// shared cache must key on both.
	hdr.Add("Vary", "Accept-Encoding")
	hdr.Set("ETag", rep.ETag)
	hdr.Set("Cache-Control", h.opts.CacheControl[h.collection])
	hdr["Surrogate-Key"] = h.key
	hdr["Cache-Tag"] = h.key
	if lm := part.LastModified(); lm != "" {
		hdr["Last-Modified"] = []string{lm}
	}
	if contentcoding.NotModified(r.Header, rep.ETag, part.Modified()) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hdr.Set("Content-Type", "application/json")
	if rep.Encoding != contentcoding.Identity {
		hdr.Set("Content-Encoding", rep.Encoding.Token())
	}
	hdr.Set("Content-Length", strconv.Itoa(len(rep.Bytes)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	w.Write(rep.Bytes)
}

// WriteError answers with a small JSON error body,
// {"error":{"code":"…","message":"…"}}, the shape of every error the
// gateway's non-GraphQL endpoints return.
func WriteError(w http.ResponseWriter, status int, code, message string) {
	body, _ := json.Marshal(errorBody{Error: errorDetail{Code: code, Message: message}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}
