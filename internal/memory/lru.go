package memory

import (
	"container/list"
	"iter"
	"slices"
)

// LRU is a least-recently-used map bounded by what its entries are
// charged: each Add says what the entry costs, and the oldest entries go
// until the total fits. It is not safe for concurrent use.
type LRU[K comparable, V any] struct {
	max       int64
	items     map[K]*list.Element
	order     list.List // of *lruEntry[K, V], newest first
	bytes     int64
	evictions uint64
}

type lruEntry[K comparable, V any] struct {
	key   K
	value V
	size  int64
}

// LRUEntryOverhead is what the LRU itself costs an entry, besides its key
// and value: the list element (48 bytes), the entry it points to (its key
// and value are counted by the caller, 16 bytes more for the size and the
// allocation's rounding) and the map slot, a pointer and the key again at
// Go's load factor (about 1.15 slots per entry, plus control bytes).
func LRUEntryOverhead(keyBytes int64) int64 {
	return 48 + 16 + (keyBytes+8)*23/20 + 2
}

// NewLRU returns an empty LRU whose entries are charged at most maxBytes.
func NewLRU[K comparable, V any](maxBytes int64) *LRU[K, V] {
	return &LRU[K, V]{max: maxBytes, items: map[K]*list.Element{}}
}

// Get returns the value of key, now the most recently used.
func (c *LRU[K, V]) Get(key K) (V, bool) {
	el, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruEntry[K, V]).value, true
}

// Peek returns the value of key, leaving the order as it is.
func (c *LRU[K, V]) Peek(key K) (V, bool) {
	el, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	return el.Value.(*lruEntry[K, V]).value, true
}

// Add keeps value under key, charged size bytes, unless size alone is
// over the bound; older entries go to make room. It reports whether the
// value is kept.
func (c *LRU[K, V]) Add(key K, value V, size int64) bool {
	if size > c.max {
		return false
	}
	if el, ok := c.items[key]; ok {
		e := el.Value.(*lruEntry[K, V])
		c.bytes += size - e.size
		e.value, e.size = value, size
		c.order.MoveToFront(el)
	} else {
		c.items[key] = c.order.PushFront(&lruEntry[K, V]{key, value, size})
		c.bytes += size
	}
	c.evict()
	return true
}

// Grow charges the entry of key n more bytes, if it is still kept; it
// reports whether it was.
func (c *LRU[K, V]) Grow(key K, n int64) bool {
	el, ok := c.items[key]
	if !ok {
		return false
	}
	el.Value.(*lruEntry[K, V]).size += n
	c.bytes += n
	c.evict()
	_, ok = c.items[key]
	return ok
}

// evict lets the oldest entries go until the charges fit.
func (c *LRU[K, V]) evict() {
	for c.bytes > c.max {
		el := c.order.Back()
		e := el.Value.(*lruEntry[K, V])
		c.order.Remove(el)
		delete(c.items, e.key)
		c.bytes -= e.size
		c.evictions++
	}
}

// Stats reports what the LRU holds, against its bound.
func (c *LRU[K, V]) Stats() StoreStats {
	return StoreStats{Bytes: c.bytes, Share: c.max, Entries: len(c.items), Evictions: c.evictions}
}

// HeapSize is what an allocation of n bytes takes on Go's heap: n rounded
// up to the allocator's size class (runtime/sizeclasses.go), or to whole
// pages past 32 KiB.
func HeapSize(n int64) int64 {
	if n <= 0 {
		return 0
	}
	if n > 32<<10 {
		return (n + 8191) &^ 8191
	}
	i, _ := slices.BinarySearch(sizeClasses[:], n)
	return sizeClasses[i]
}

var sizeClasses = [...]int64{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048,
	2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880,
	12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

// Resize bounds the LRU at maxBytes from now on, letting the oldest
// entries go until they fit.
func (c *LRU[K, V]) Resize(maxBytes int64) {
	c.max = maxBytes
	c.evict()
}

// All yields the entries, newest first, leaving the order as it is.
func (c *LRU[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		for el := c.order.Front(); el != nil; el = el.Next() {
			if e := el.Value.(*lruEntry[K, V]); !yield(e.key, e.value) {
				return
			}
		}
	}
}
