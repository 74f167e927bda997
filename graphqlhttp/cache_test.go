package graphqlhttp_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/contentcoding"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/graphqlhttp/answers"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/resolvers"
)

// cacheObserver counts what the endpoint reports of its cache.
type cacheObserver struct {
	hits, misses atomic.Int64
}

func (o *cacheObserver) Request(string, string, time.Duration, int) {}
func (o *cacheObserver) StreamEnded(string, string, time.Duration)  {}
func (o *cacheObserver) Rejected(string)                            {}
func (o *cacheObserver) Streams(int)                                {}
func (o *cacheObserver) Executed(string)                            {}
func (o *cacheObserver) Declined(string)                            {}
func (o *cacheObserver) Cached(hit bool) {
	if hit {
		o.hits.Add(1)
	} else {
		o.misses.Add(1)
	}
}

// cachedServer serves the fixture catalogue from st with a response cache
// of maxBytes, counting the loader batches each query runs: a query that
// resolves a reference costs one batch each time it really runs.
type cachedServer struct {
	*httptest.Server
	cache   *answers.Cache
	obs     *cacheObserver
	batches atomic.Int64
}

func newCachedServer(t *testing.T, st *catalogue.Store, maxBytes int64) *cachedServer {
	t.Helper()
	s := &cachedServer{cache: answers.NewCache(maxBytes), obs: &cacheObserver{}}
	// A window long enough that one run of a query is one batch, on a
	// loaded machine under the race detector.
	h := resolvers.NewHandler(st, loader.Options{Wait: 100 * time.Millisecond, OnBatch: func(string, int) { s.batches.Add(1) }},
		withEngine(graphqlhttp.Options{Cache: s.cache, Observer: s.obs, MaxAge: 5 * time.Minute, Introspection: true}))
	s.Server = httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// freshStore is a store of its own holding the fixture catalogue, for a
// test that swaps snapshots.
func freshStore(t *testing.T) *catalogue.Store {
	st := &catalogue.Store{}
	st.Publish(store(t).Current())
	return st
}

// embeddedStore holds the embedded catalogue, whose answers are large
// enough to be compressed.
func embeddedStore(t *testing.T) *catalogue.Store {
	t.Helper()
	snap, err := embedded()
	if err != nil {
		t.Fatal(err)
	}
	st := &catalogue.Store{}
	st.Publish(snap)
	return st
}

var embedded = sync.OnceValues(catalogue.Embedded)

// rawGet sends a GET asking for no compression unless the header says
// otherwise, and returns the response as it came.
func rawGet(t *testing.T, u string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return send(t, client, req)
}

func getURL(base, query string) string {
	return base + "/graphql?" + url.Values{"query": {query}}.Encode()
}

// A query resolving a reference (so each real run costs a loader batch),
// with a body large enough to be compressed.
const referenceQuery = `{ monsters { nodes { id name drops { itemId item { id name rarity description } } } } }`

func TestResponseCacheHitIsTheSameAnswer(t *testing.T) {
	s := newCachedServer(t, embeddedStore(t), 1<<20)
	for _, send := range []struct {
		name string
		do   func() answer
	}{
		{"POST", func() answer { return postQuery(t, s.URL, referenceQuery, nil) }},
		{"GET", func() answer { return rawGet(t, getURL(s.URL, referenceQuery)) }},
	} {
		t.Run(send.name, func(t *testing.T) {
			before := s.batches.Load()
			miss := send.do()
			hit := send.do()
			if miss.status != http.StatusOK || hit.status != http.StatusOK {
				t.Fatalf("statuses %d and %d, want 200: %s", miss.status, hit.status, miss.body)
			}
			if !bytes.Equal(miss.body, hit.body) {
				t.Errorf("the cached answer differs from the first:\nfirst  %.200s\ncached %.200s", miss.body, hit.body)
			}
			if len(decode(t, miss).Errors) != 0 || !bytes.Contains(miss.body, []byte(`"item":{"id":`)) {
				t.Fatalf("not a complete answer: %.300s", miss.body)
			}
			if ran := s.batches.Load() - before; ran > 1 {
				t.Errorf("the query ran %d times, want at most once (POST and GET share the answer)", ran)
			}
		})
	}
	if s.obs.hits.Load() < 3 {
		t.Errorf("observer saw %d hits, want 3 or more", s.obs.hits.Load())
	}
}

func TestResponseCacheKey(t *testing.T) {
	s := newCachedServer(t, freshStore(t), 1<<20)
	const q = `query Q($id: Int!) { item(id: $id) { id name } } query R { items(first: 1) { nodes { id } } }`
	ask := func(op string, vars string) string {
		t.Helper()
		a := postJSON(t, s.URL+"/graphql", fmt.Sprintf(`{"query":%q,"operationName":%q,"variables":%s}`, q, op, vars))
		if a.status != http.StatusOK {
			t.Fatalf("status %d: %s", a.status, a.body)
		}
		return string(a.body)
	}
	one, two := ask("Q", `{"id":1}`), ask("Q", `{"id":2}`)
	if one == two {
		t.Errorf("variables id 1 and 2 gave the same answer %s", one)
	}
	if got := ask("Q", `{ "id" : 1 }`); got != one {
		t.Errorf("the same variables written otherwise: %s, want %s", got, one)
	}
	if got := ask("R", `{"id":1}`); got == one || !strings.Contains(got, `"items"`) {
		t.Errorf("operation R answered as Q: %s", got)
	}
	// Persisted by hash, after the query has run once in full.
	sum := sha256.Sum256([]byte(q))
	ext := fmt.Sprintf(`{"persistedQuery":{"version":1,"sha256Hash":%q}}`, hex.EncodeToString(sum[:]))
	a := postJSON(t, s.URL+"/graphql", fmt.Sprintf(`{"operationName":"Q","variables":{"id":2},"extensions":%s}`, ext))
	if string(a.body) != two {
		t.Errorf("persisted query by hash: %s, want %s", a.body, two)
	}
	// A hash that is not the query's is refused, cached answer or not.
	bad := fmt.Sprintf(`{"persistedQuery":{"version":1,"sha256Hash":"%s"}}`, strings.Repeat("ab", 32))
	a = postJSON(t, s.URL+"/graphql", fmt.Sprintf(`{"query":%q,"operationName":"Q","variables":{"id":1},"extensions":%s}`, q, bad))
	if len(decode(t, a).Errors) == 0 {
		t.Errorf("a query with another query's hash was answered: %s", a.body)
	}
}

func TestResponseCacheNeverKeepsErrors(t *testing.T) {
	s := newCachedServer(t, freshStore(t), 1<<20)
	for _, q := range []string{
		`{ items(after: "not a cursor") { totalCount } }`, // an execution error
		`{ items(first: 5000) { totalCount } }`,           // a refused argument
		`{ item(id: 1) { nosuchfield } }`,                 // a validation error
	} {
		for range 3 {
			a := postQuery(t, s.URL, q, nil)
			if len(decode(t, a).Errors) == 0 {
				t.Fatalf("%s: want errors, got %s", q, a.body)
			}
			if g := rawGet(t, getURL(s.URL, q)); g.header.Get("ETag") != "" || g.header.Get("Cache-Control") != "no-store" {
				t.Errorf("%s: GET with errors has ETag %q and Cache-Control %q, want none and no-store",
					q, g.header.Get("ETag"), g.header.Get("Cache-Control"))
			}
		}
	}
	if st := s.cache.Stats(); st.Entries != 0 {
		t.Errorf("the cache holds %d answers after only errors, want none", st.Entries)
	}
	if s.obs.hits.Load() != 0 {
		t.Errorf("%d answers with errors came from the cache", s.obs.hits.Load())
	}
}

func TestResponseCacheSnapshotSwap(t *testing.T) {
	st := freshStore(t)
	s := newCachedServer(t, st, 1<<20)
	const q = `{ items { totalCount } }`
	before := string(postQuery(t, s.URL, q, nil).body)
	if again := string(postQuery(t, s.URL, q, nil).body); again != before || s.obs.hits.Load() != 1 {
		t.Fatalf("second ask: %s (%d hits), want the cached %s", again, s.obs.hits.Load(), before)
	}

	// A snapshot with one item fewer: the same query now has another answer.
	old := st.Current()
	items := old.Body(catalogue.Items).Raw()
	fewer, err := catalogue.Decode(catalogue.Items, dropFirstItem(t, items))
	if err != nil {
		t.Fatal(err)
	}
	st.Publish(old.With(fewer))
	after := string(postQuery(t, s.URL, q, nil).body)
	if after == before {
		t.Fatalf("after the swap the answer is still the old snapshot's: %s", after)
	}
	if st := s.cache.Stats(); st.Entries != 1 {
		t.Errorf("the cache holds %d answers after the swap, want only the new one", st.Entries)
	}
	// And the old snapshot comes back: its answer is made anew, not
	// remembered from before.
	hits := s.obs.hits.Load()
	st.Publish(old)
	if got := string(postQuery(t, s.URL, q, nil).body); got != before || s.obs.hits.Load() != hits {
		t.Errorf("back on the first snapshot: %s (hits %d → %d), want %s run anew", got, hits, s.obs.hits.Load(), before)
	}
}

// dropFirstItem removes the first record of the first envelope of an
// /items body.
func dropFirstItem(t *testing.T, raw []byte) []byte {
	t.Helper()
	s := string(raw)
	start := strings.Index(s, `"results"`)
	open := strings.Index(s[start:], "{") + start
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				rest := strings.TrimLeft(s[i+1:], " \n\t\r")
				rest = strings.TrimPrefix(rest, ",")
				return []byte(s[:open] + rest)
			}
		}
	}
	t.Fatal("no record in the items body")
	return nil
}

func TestResponseCacheBound(t *testing.T) {
	const bound = 64 << 10
	s := newCachedServer(t, freshStore(t), bound)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 100 {
				// Distinct documents (the alias differs), each answer ~1 KiB.
				q := fmt.Sprintf(`{ a%d_%d: monsters { nodes { id name drops { name } } } }`, w, i)
				if a := postQuery(t, s.URL, q, nil); a.status != http.StatusOK {
					t.Errorf("status %d: %s", a.status, a.body)
					return
				}
				if st := s.cache.Stats(); st.Bytes > bound {
					t.Errorf("the cache holds %d bytes, over its bound of %d", st.Bytes, bound)
					return
				}
			}
		})
	}
	wg.Wait()
	st := s.cache.Stats()
	if st.Entries == 0 || st.Entries >= 400 {
		t.Errorf("the cache holds %d answers of 400; want some, evicted down to its bound", st.Entries)
	}
	if st.Evictions == 0 || st.Share != bound {
		t.Errorf("stats %+v: want the evictions counted and the bound as the share", st)
	}
}

func TestResponseCacheRunsConcurrentMissesOnce(t *testing.T) {
	s := newCachedServer(t, embeddedStore(t), 1<<20)
	body := jsonBody(t, map[string]any{"query": referenceQuery})
	var wg sync.WaitGroup
	answers := make([][]byte, 16)
	for i := range answers {
		wg.Go(func() { answers[i] = postJSON(t, s.URL+"/graphql", body).body })
	}
	wg.Wait()
	for i, a := range answers {
		if !bytes.Equal(a, answers[0]) {
			t.Errorf("answer %d differs from answer 0", i)
		}
	}
	if n := s.batches.Load(); n != 1 {
		t.Errorf("16 identical requests at once ran the query %d times, want 1", n)
	}
}

func TestGetAnswersValidators(t *testing.T) {
	for _, cacheBytes := range []int64{1 << 20, 0} {
		t.Run(fmt.Sprintf("cache=%d", cacheBytes), func(t *testing.T) {
			s := newCachedServer(t, embeddedStore(t), cacheBytes)
			u := getURL(s.URL, referenceQuery)
			first := rawGet(t, u)
			etag := first.header.Get("ETag")
			if first.status != http.StatusOK || !strings.HasPrefix(etag, `"`) {
				t.Fatalf("status %d, ETag %q: want 200 and a strong ETag", first.status, etag)
			}
			if cc := first.header.Get("Cache-Control"); cc != "public, max-age=300" {
				t.Errorf("Cache-Control %q, want public, max-age=300", cc)
			}
			if again := rawGet(t, u); again.header.Get("ETag") != etag {
				t.Errorf("the same GET has ETag %q, then %q", etag, again.header.Get("ETag"))
			}
			nm := rawGet(t, u, "If-None-Match", etag)
			if nm.status != http.StatusNotModified || len(nm.body) != 0 || nm.header.Get("ETag") != etag {
				t.Errorf("If-None-Match: status %d, %d bytes, ETag %q; want 304, empty, %q", nm.status, len(nm.body), nm.header.Get("ETag"), etag)
			}
			if other := rawGet(t, u, "If-None-Match", `"something-else"`); other.status != http.StatusOK {
				t.Errorf("If-None-Match naming another tag: status %d, want 200", other.status)
			}
			// POST answers carry no validators: they are not for HTTP caches.
			if p := postQuery(t, s.URL, referenceQuery, nil); p.header.Get("ETag") != "" {
				t.Errorf("POST answer has ETag %q", p.header.Get("ETag"))
			}
			// Each encoding decodes to the identity bytes and has a tag
			// of its own, which its If-None-Match matches.
			for _, enc := range []string{"gzip", "br", "zstd"} {
				a := rawGet(t, u, "Accept-Encoding", enc)
				if a.header.Get("Content-Encoding") != enc {
					t.Errorf("%s: Content-Encoding %q", enc, a.header.Get("Content-Encoding"))
					continue
				}
				if got := decompress(t, enc, a.body); !bytes.Equal(got, first.body) {
					t.Errorf("%s: decodes to other bytes than the identity answer", enc)
				}
				tag := a.header.Get("ETag")
				if tag == etag || tag == "" {
					t.Errorf("%s: ETag %q, want one of its own", enc, tag)
				}
				if nm := rawGet(t, u, "Accept-Encoding", enc, "If-None-Match", tag); nm.status != http.StatusNotModified {
					t.Errorf("%s: If-None-Match its own tag: status %d, want 304", enc, nm.status)
				}
				if v := a.header.Values("Vary"); !slices.Contains(v, "Accept, Accept-Encoding") {
					t.Errorf("%s: Vary %q, want Accept, Accept-Encoding", enc, v)
				}
			}
		})
	}
}

func decompress(t *testing.T, enc string, b []byte) []byte {
	t.Helper()
	var r io.Reader
	switch enc {
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	case "br":
		r = brotli.NewReader(bytes.NewReader(b))
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", enc, err)
	}
	return out
}

// TestResponseCacheCountsTheFirstVariant: the variant a new answer's first
// request asks for is compressed before the answer is kept, and must count
// against the bound as every later variant does.
func TestResponseCacheCountsTheFirstVariant(t *testing.T) {
	s := newCachedServer(t, embeddedStore(t), 64<<20)
	u := getURL(s.URL, referenceQuery)
	gzipped := rawGet(t, u, "Accept-Encoding", "gzip") // a miss: run, compressed, kept
	plain := rawGet(t, u)                              // a hit
	if gzipped.header.Get("Content-Encoding") != "gzip" || plain.status != http.StatusOK {
		t.Fatalf("want a gzip answer, then the plain one: %d %v, %d", gzipped.status, gzipped.header, plain.status)
	}
	// Each buffer is charged its capacity, as the allocator rounds it (a
	// body grown by appending may have up to twice its length), and the
	// entry's overhead (its key, fields, list element and map slot) is
	// several hundred bytes.
	least := int64(len(plain.body)+len(gzipped.body)) + 256
	if st := s.cache.Stats(); st.Entries != 1 || st.Bytes < least || st.Bytes > 2*least {
		t.Errorf("the cache holds %d answers, %d bytes; want 1 and %d-%d (the body, its gzip variant, the overhead)", st.Entries, st.Bytes, least, 2*least)
	}
}

// TestAnswerEffortFollowsServing: an answer made for the request that ran
// it is compressed fast, in the coding that serves it best per CPU (zstd
// for a browser that offers all three, gzip for one that does not offer
// zstd); once served again, densely, in the smallest (brotli), with the
// very bytes every body compressed once has. Each has a tag of its own,
// and either answers If-None-Match, on a gateway that has the answer
// cached or not, so that a tag a client got from one replica is good on
// every other.
func TestAnswerEffortFollowsServing(t *testing.T) {
	const chrome, safari = "gzip, deflate, br, zstd", "gzip, deflate, br"
	cached := newCachedServer(t, embeddedStore(t), 1<<20)
	uncached := newCachedServer(t, embeddedStore(t), 0)
	u := getURL(cached.URL, referenceQuery)
	identity := rawGet(t, u)
	u = getURL(cached.URL, referenceQuery+" ") // another cache entry, not yet run
	compressor := contentcoding.NewCompressor()

	check := func(name string, a answer, enc contentcoding.Encoding, effort contentcoding.Effort) {
		t.Helper()
		if a.status != http.StatusOK || a.header.Get("Content-Encoding") != enc.Token() {
			t.Fatalf("%s: status %d, Content-Encoding %q; want 200, %s", name, a.status, a.header.Get("Content-Encoding"), enc.Token())
		}
		want, err := contentcoding.Compress(enc, identity.body)
		if effort == contentcoding.Fast {
			want, err = compressor.Compress(effort, enc, identity.body)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.body, want) {
			t.Errorf("%s: %d bytes, not the %d of the answer compressed at effort %d", name, len(a.body), len(want), effort)
		}
		if tag := a.header.Get("ETag"); strings.HasSuffix(tag, `-fast"`) != (effort == contentcoding.Fast) {
			t.Errorf("%s: ETag %s, at effort %d", name, tag, effort)
		}
	}
	first := rawGet(t, u, "Accept-Encoding", chrome) // a miss: run for this request
	check("the first request", first, contentcoding.Zstd, contentcoding.Fast)
	again := rawGet(t, u, "Accept-Encoding", chrome) // a hit
	check("the answer asked again", again, contentcoding.Brotli, contentcoding.Dense)
	check("the answer asked again, without zstd", rawGet(t, u, "Accept-Encoding", safari), contentcoding.Brotli, contentcoding.Dense)
	check("an answer run, without zstd", rawGet(t, getURL(cached.URL, referenceQuery+"  "), "Accept-Encoding", safari),
		contentcoding.Gzip, contentcoding.Fast)
	uu := getURL(uncached.URL, referenceQuery+" ")
	for i := range 2 {
		check(fmt.Sprintf("uncached, request %d", i+1), rawGet(t, uu, "Accept-Encoding", chrome), contentcoding.Zstd, contentcoding.Fast)
	}
	// POST answers follow the same rule; they carry no validators.
	for i, want := range []contentcoding.Encoding{contentcoding.Zstd, contentcoding.Brotli} {
		p := postJSON(t, cached.URL, `{"query":"`+referenceQuery+`   "}`, "Accept-Encoding", chrome)
		if p.header.Get("Content-Encoding") != want.Token() || p.header.Get("ETag") != "" {
			t.Errorf("POST %d: Content-Encoding %q, ETag %q; want %s and none", i+1, p.header.Get("Content-Encoding"), p.header.Get("ETag"), want.Token())
		}
	}

	fastTag, denseTag := first.header.Get("ETag"), again.header.Get("ETag")
	for _, tt := range []struct {
		name, url, tag string
	}{
		{"the fast tag, where the answer is cached", u, fastTag},
		{"the dense tag, where it is cached", u, denseTag},
		{"the fast tag, where nothing is cached", uu, fastTag},
		{"the dense tag, where nothing is cached", uu, denseTag},
	} {
		nm := rawGet(t, tt.url, "Accept-Encoding", chrome, "If-None-Match", tt.tag)
		if nm.status != http.StatusNotModified || nm.header.Get("ETag") != tt.tag {
			t.Errorf("%s: status %d, ETag %q; want 304 with the tag named", tt.name, nm.status, nm.header.Get("ETag"))
		}
	}
	// A tag of the answer in another coding than the request's is not
	// this request's representation.
	if nm := rawGet(t, u, "Accept-Encoding", "gzip", "If-None-Match", denseTag); nm.status != http.StatusOK {
		t.Errorf("the brotli tag, from a gzip-only client: status %d, want 200", nm.status)
	}
}

// TestRevalidationCompressesNothing: a conditional GET that ends in 304 is
// answered before any variant is made: a CDN revalidating a cached
// answer costs no dense compressing. The answer asked for in full then
// is, and the cache is charged for it.
func TestRevalidationCompressesNothing(t *testing.T) {
	const chrome = "gzip, deflate, br, zstd"
	s := newCachedServer(t, embeddedStore(t), 1<<20)
	u := getURL(s.URL, referenceQuery)
	first := rawGet(t, u, "Accept-Encoding", chrome) // run, compressed fast, kept
	before := s.cache.Stats().Bytes
	nm := rawGet(t, u, "Accept-Encoding", chrome, "If-None-Match", first.header.Get("ETag"))
	if nm.status != http.StatusNotModified {
		t.Fatalf("revalidating: status %d, want 304", nm.status)
	}
	if after := s.cache.Stats().Bytes; after != before {
		t.Errorf("the cache held %d bytes before the revalidation, %d after: a variant was made for a 304", before, after)
	}
	if full := rawGet(t, u, "Accept-Encoding", chrome); full.header.Get("Content-Encoding") != "br" || s.cache.Stats().Bytes <= before {
		t.Errorf("asked in full: Content-Encoding %q, cache %d bytes (before %d); want br, and the variant charged",
			full.header.Get("Content-Encoding"), s.cache.Stats().Bytes, before)
	}
}
