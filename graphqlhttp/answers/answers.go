// Package answers keeps whole GraphQL answers: the response cache, per
// version of the data, and each answer's ETag and compressed variants,
// made once however many requests it serves. It knows nothing of HTTP or
// of how an answer was run; the endpoint (package graphqlhttp) asks it
// for an answer by key and gives it the ones it runs.
//
// It imports only internal/memory, whose budget it is charged to, and
// contentcoding.
package answers

import (
	"container/list"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sync/singleflight"

	"github.com/catalogue-gateway/gateway/contentcoding"
	"github.com/catalogue-gateway/gateway/internal/memory"
)

// Cache keeps whole GraphQL answers of the current version of the
// data, so that a query asked again is answered without running it. An
// answer depends only on the data and on the request (its document,
// operation name and variables), so it stays right for as long as the data
// does: entries are kept per data version, and the first request that
// reads a new version empties the cache.
//
// Only complete answers are kept: a response with errors never is. The
// cache holds at most its byte bound of answers (their compressed
// variants included), evicting the least recently used. Concurrent
// identical misses run the query once. A nil *Cache caches nothing.
type Cache struct {
	maxBytes int64
	// maxEntryBytes is the largest answer kept: a few huge answers must
	// not push out every other.
	maxEntryBytes int64

	mu      sync.Mutex
	version string
	entries map[Key]*list.Element // of *Answer
	lru     *list.List            // most recently used first
	bytes   int64
	// evictions counts the answers let go to make room, or with their
	// version of the data.
	evictions uint64

	flight singleflight.Group
}

// NewCache returns a cache of at most maxBytes of answers, or nil
// (no caching) when maxBytes is 0 or less. maxBytes is the response
// cache's share of the memory budget (memory.Budget.ResponseCacheBytes): each
// answer is charged its body, its compressed variants, its key and what
// the map and the list that hold it cost.
func NewCache(maxBytes int64) *Cache {
	if maxBytes <= 0 {
		return nil
	}
	return &Cache{
		maxBytes:      maxBytes,
		maxEntryBytes: maxBytes / 8,
		entries:       map[Key]*list.Element{},
		lru:           list.New(),
	}
}

// Stats reports what the cache holds; zero for a nil cache.
func (c *Cache) Stats() memory.StoreStats {
	if c == nil {
		return memory.StoreStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return memory.StoreStats{Entries: len(c.entries), Bytes: c.bytes, Share: c.maxBytes, Evictions: c.evictions}
}

// Key names one request's answer within a data version: a digest of
// the document, the operation name and the canonical variables.
type Key [sha256.Size]byte

// entryOverhead is what an entry costs beside its body: the answer's
// fields (its key among them), the list element, and the map slot (the
// key again and a pointer, at Go's load factor). The ETag's base, 24
// bytes once made, is counted with the fields' string header as 32.
var entryOverhead = memory.HeapSize(int64(unsafe.Sizeof(Answer{}))) + 32 + memory.LRUEntryOverhead(int64(unsafe.Sizeof(Key{})))

// Get returns the answer kept for key under version, or nil.
func (c *Cache) Get(version string, key Key) *Answer {
	c.mu.Lock()
	defer c.mu.Unlock()
	if version != c.version {
		c.reset(version)
		return nil
	}
	el, ok := c.entries[key]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*Answer)
}

// Once runs fn for key under version, once for all the callers that ask
// at the same time, and gives each what it returned; leader reports the
// caller whose fn ran. fn is the caller's to make an answer and Put it.
func (c *Cache) Once(version string, key Key, fn func() any) (v any, leader bool) {
	v, _, _ = c.flight.Do(version+string(key[:]), func() (any, error) {
		leader = true
		return fn(), nil
	})
	return v, leader
}

// Put keeps a under version, unless it is too large or the cache has moved
// on to another version meanwhile.
func (c *Cache) Put(version string, a *Answer) {
	size := memory.HeapSize(int64(cap(a.body))) + entryOverhead
	if a.keys != nil {
		size += 2*memory.HeapSize(int64(len(a.keys[0]))) + 32 // and the two strings' array
	}
	if size > c.maxEntryBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if version != c.version {
		c.reset(version)
	}
	if _, ok := c.entries[a.key]; ok {
		return
	}
	// a.size already counts the variants made before it was kept: the
	// one its first request asked for is compressed while that request
	// still holds its place among the cores.
	a.size += size
	c.entries[a.key] = c.lru.PushFront(a)
	c.bytes += a.size
	c.evict()
}

// grow counts n more bytes against a, which made a compressed variant:
// against the cache if it holds a, else against a alone, for put.
func (c *Cache) grow(a *Answer, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a.size += n
	if el, ok := c.entries[a.key]; ok && el.Value == a {
		c.bytes += n
		c.evict()
	}
}

// evict drops the least recently used answers until the cache fits its
// bound. c.mu is held.
func (c *Cache) evict() {
	for c.bytes > c.maxBytes {
		el := c.lru.Back()
		a := el.Value.(*Answer)
		c.lru.Remove(el)
		delete(c.entries, a.key)
		c.bytes -= a.size
		c.evictions++
	}
}

// reset empties the cache for a new version of the data. c.mu is held.
func (c *Cache) reset(version string) {
	c.version = version
	c.evictions += uint64(len(c.entries))
	clear(c.entries)
	c.lru.Init()
	c.bytes = 0
}

// Answer is a complete GraphQL response body, with what every request
// that gets it needs: its ETag and its compressed variants. The request
// that ran it gets a variant compressed fast; the requests after it, one
// compressed densely, each made once (see graphqlhttp's resolve).
type Answer struct {
	key  Key
	body []byte
	// cacheControl is shared, one string for every answer of a document
	// and operation: counted with the fields, not per answer.
	cacheControl string
	// keys are the entity keys of what the answer read, space-separated
	// (a Surrogate-Key header's value), and tags the same
	// comma-separated (a Cache-Tag header's), each as a header's values:
	// both are kept, so that a hit makes neither.
	keys, tags []string
	// etag is made when a GET first needs it (see ETagBase): POST answers
	// have no ETag, and hashing every answer cost an uncached one 4 %.
	etag struct {
		once sync.Once
		base string
	}

	// fast is the variant compressed fast for the request that ran the
	// answer, in the coding it preferred: set before the answer is
	// shared, and read-only after. bytes is nil if it was no smaller.
	fast struct {
		enc   contentcoding.Encoding
		bytes []byte
	}
	// dense are the variants compressed densely, each made on first use;
	// made is set once bytes is final.
	dense [contentcoding.NumEncodings]struct {
		once  sync.Once
		made  atomic.Bool
		bytes []byte
	}
	// cache is the cache the answer is meant for, told of each variant's
	// size if it holds the answer then; nil when caching is off.
	cache *Cache
	size  int64 // guarded by cache.mu
}

// New returns the answer body, under key, meant for c (nil: for no
// cache), to be sent to a GET with cacheControl, with the entity keys of
// what it read, space-separated ("" for none).
func New(c *Cache, key Key, body []byte, cacheControl, keys string) *Answer {
	a := &Answer{cache: c, key: key, body: body, cacheControl: cacheControl}
	if keys != "" {
		// One array for both headers' values: a hit hands them to
		// net/http as they are.
		both := [2]string{keys, strings.ReplaceAll(keys, " ", ",")}
		a.keys, a.tags = both[0:1:1], both[1:2:2]
	}
	return a
}

// CacheControl is the answer's Cache-Control for a GET: the schema's
// hints among the fields it read (HintOf).
func (a *Answer) CacheControl() string { return a.cacheControl }

// Keys returns the entity keys of what the answer read, space-separated,
// and the same comma-separated, each as a header's one value, to be read
// and never changed; nil for none.
func (a *Answer) Keys() (keys, tags []string) { return a.keys, a.tags }

// Body is the answer's bytes, uncompressed.
func (a *Answer) Body() []byte { return a.body }

// ETagBase is the part of the answer's ETags that derives from its bytes,
// hashed on first use. (A field rather than a sync.OnceValue closure: the
// closure and its state were two allocations on every uncached answer.)
func (a *Answer) ETagBase() string {
	a.etag.once.Do(func() {
		sum := sha256.Sum256(a.body)
		a.etag.base = base64.RawURLEncoding.EncodeToString(sum[:18])
	})
	return a.etag.base
}

// Coding is the coding the answer goes out in for a request that prefers
// e: identity when the answer is too small to compress.
func (a *Answer) Coding(e contentcoding.Encoding) contentcoding.Encoding {
	if len(a.body) < minCompressBytes {
		return contentcoding.Identity
	}
	return e
}

// CompressFast makes the fast variant in encoding e, with c. It is called
// once, by the request that ran the answer, before anything else sees it.
func (a *Answer) CompressFast(c *contentcoding.Compressor, e contentcoding.Encoding) {
	a.fast.enc = a.Coding(e)
	if a.fast.enc == contentcoding.Identity {
		return
	}
	z, err := c.Compress(contentcoding.Fast, a.fast.enc, a.body)
	if err != nil || len(z) >= len(a.body) {
		return
	}
	a.fast.bytes = z
	if a.cache != nil {
		a.cache.grow(a, memory.HeapSize(int64(cap(z))))
	}
}

// Made reports whether the dense variant in e needs no more work.
func (a *Answer) Made(e contentcoding.Encoding) bool {
	e = a.Coding(e)
	return e == contentcoding.Identity || a.dense[e].made.Load()
}

// In returns the answer in encoding e at effort, making a dense variant on
// first use, with c. A variant that is not there (the fast one in another coding
// than its request's: not asked of it) or would not be smaller is served
// as identity.
func (a *Answer) In(c *contentcoding.Compressor, effort contentcoding.Effort, e contentcoding.Encoding) (contentcoding.Encoding, []byte) {
	e = a.Coding(e)
	if e == contentcoding.Identity {
		return e, a.body
	}
	if effort == contentcoding.Fast {
		if a.fast.enc != e || a.fast.bytes == nil {
			return contentcoding.Identity, a.body
		}
		return e, a.fast.bytes
	}
	v := &a.dense[e]
	v.once.Do(func() {
		defer v.made.Store(true)
		z, err := c.Compress(contentcoding.Dense, e, a.body)
		if err != nil || len(z) >= len(a.body) {
			return
		}
		v.bytes = z
		if a.cache != nil {
			a.cache.grow(a, memory.HeapSize(int64(cap(z))))
		}
	})
	if v.bytes == nil {
		return contentcoding.Identity, a.body
	}
	return e, v.bytes
}

// minCompressBytes is the smallest answer worth compressing: below about a
// packet, compression saves no round trip and costs CPU on both ends.
const minCompressBytes = 1024
