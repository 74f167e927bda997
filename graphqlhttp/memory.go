package graphqlhttp

import (
	"container/list"
	"slices"

	"github.com/catalogue-gateway/gateway/internal/memory"
)

// chargedLRU is a least-recently-used map bounded by what its entries are
// charged: each Add says what the entry costs, and the oldest entries go
// until the total fits. It is not safe for concurrent use.
type chargedLRU[K comparable, V any] struct {
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

// lruEntryOverhead is what the LRU itself costs an entry, besides its key
// and value: the list element (48 bytes), the entry it points to (its key
// and value are counted by the caller, 16 bytes more for the size and the
// allocation's rounding) and the map slot, a pointer and the key again at
// Go's load factor (about 1.15 slots per entry, plus control bytes).
func lruEntryOverhead(keyBytes int64) int64 {
	return 48 + 16 + (keyBytes+8)*23/20 + 2
}

func newChargedLRU[K comparable, V any](maxBytes int64) *chargedLRU[K, V] {
	return &chargedLRU[K, V]{max: maxBytes, items: map[K]*list.Element{}}
}

// get returns the value of key, now the most recently used.
func (c *chargedLRU[K, V]) get(key K) (V, bool) {
	el, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruEntry[K, V]).value, true
}

// peek returns the value of key, leaving the order as it is.
func (c *chargedLRU[K, V]) peek(key K) (V, bool) {
	el, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	return el.Value.(*lruEntry[K, V]).value, true
}

// add keeps value under key, charged size bytes, unless size alone is
// over the bound; older entries go to make room. It reports whether the
// value is kept.
func (c *chargedLRU[K, V]) add(key K, value V, size int64) bool {
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

// grow charges the entry of key n more bytes, if it is still kept; it
// reports whether it was.
func (c *chargedLRU[K, V]) grow(key K, n int64) bool {
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

func (c *chargedLRU[K, V]) evict() {
	for c.bytes > c.max {
		el := c.order.Back()
		e := el.Value.(*lruEntry[K, V])
		c.order.Remove(el)
		delete(c.items, e.key)
		c.bytes -= e.size
		c.evictions++
	}
}

func (c *chargedLRU[K, V]) stats() memory.StoreStats {
	return memory.StoreStats{Bytes: c.bytes, Share: c.max, Entries: len(c.items), Evictions: c.evictions}
}

// heapSize is what an allocation of n bytes takes on Go's heap: n rounded
// up to the allocator's size class (runtime/sizeclasses.go), or to whole
// pages past 32 KiB.
func heapSize(n int64) int64 {
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
