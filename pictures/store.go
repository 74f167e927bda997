package pictures

import (
	"bufio"
	"bytes"
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/catalogue-gateway/gateway/internal/memory"
	"golang.org/x/time/rate"
)

// entry is what is kept of an address: its picture, or, for a failed
// fetch, only the verdict and until when it stands.
type entry struct {
	pic         *picture
	failedUntil time.Time
}

// keptPictures is a least-recently-used map from address to entry,
// bounded by what its entries are charged: a picture its bytes (as the
// heap rounds them), a failure nothing but its verdict; both their key
// and about 200 bytes of entry, list element and map slot. Not safe for
// concurrent use.
type keptPictures struct {
	max       int64
	items     map[string]*list.Element
	order     list.List // of *keptEntry, newest first
	bytes     int64
	evictions uint64
}

type keptEntry struct {
	key  string
	e    entry
	size int64
}

func newKeptPictures(maxBytes int64) *keptPictures {
	return &keptPictures{max: maxBytes, items: map[string]*list.Element{}}
}

// charge is what an entry of key costs.
func charge(key string, e entry) int64 {
	n := int64(200 + 2*len(key))
	if e.pic != nil {
		n += memory.HeapSize(int64(len(e.pic.body))) + int64(len(e.pic.etag)+len(e.pic.contentType)) + 48
	}
	return n
}

func (k *keptPictures) len() int { return len(k.items) }

func (k *keptPictures) get(key string) (entry, bool) {
	el, ok := k.items[key]
	if !ok {
		return entry{}, false
	}
	k.order.MoveToFront(el)
	return el.Value.(*keptEntry).e, true
}

// add keeps e under key, unless it alone is over the bound; the least
// recently used go to make room.
func (k *keptPictures) add(key string, e entry) {
	size := charge(key, e)
	if size > k.max {
		if el, ok := k.items[key]; ok { // an older entry must not outlive this news
			k.remove(el)
		}
		return
	}
	if el, ok := k.items[key]; ok {
		ke := el.Value.(*keptEntry)
		k.bytes += size - ke.size
		ke.e, ke.size = e, size
		k.order.MoveToFront(el)
	} else {
		k.items[key] = k.order.PushFront(&keptEntry{key, e, size})
		k.bytes += size
	}
	for k.bytes > k.max {
		k.remove(k.order.Back())
		k.evictions++
	}
}

func (k *keptPictures) remove(el *list.Element) {
	ke := el.Value.(*keptEntry)
	k.order.Remove(el)
	delete(k.items, ke.key)
	k.bytes -= ke.size
}

// diskStore keeps pictures in a directory, one file per address, named
// by the SHA-256 of the address: a JSON header line (the address, type,
// length and SHA-256 of the bytes), then the bytes. A file is written to
// a temporary name, synced and renamed into place, as the snapshot's disk
// cache is, so a crash leaves the old file or the new one; a file whose
// bytes do not match its header is ignored and removed. The directory is
// bounded by max bytes: the files least recently written or read go
// first (read order is kept while the process runs; a restart starts
// from the files' times).
type diskStore struct {
	dir      string
	max      int64
	maxBytes int64 // one picture's bound

	mu    sync.Mutex
	files map[string]*list.Element // of *diskFile, by file name
	order list.List                // newest first
	bytes int64
}

type diskFile struct {
	name string
	size int64
}

type diskHeader struct {
	Source string `json:"source"`
	Type   string `json:"type"`
	Length int    `json:"length"`
	SHA256 string `json:"sha256"`
}

const diskSuffix = ".picture"

// openDiskStore opens dir (made if missing) and counts what it holds.
func openDiskStore(dir string, maxDir, maxBytes int64) (*diskStore, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("opening the pictures' disk cache: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("opening the pictures' disk cache: %w", err)
	}
	type found struct {
		name string
		size int64
		at   time.Time
	}
	var files []found
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), diskSuffix) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, found{e.Name(), info.Size(), info.ModTime()})
	}
	slices.SortFunc(files, func(a, b found) int { return a.at.Compare(b.at) })
	d := &diskStore{dir: dir, max: maxDir, maxBytes: maxBytes, files: map[string]*list.Element{}}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, f := range files { // oldest first, so the newest ends in front
		d.files[f.name] = d.order.PushFront(&diskFile{f.name, f.size})
		d.bytes += f.size
	}
	d.evict()
	return d, nil
}

func diskName(src string) string {
	sum := sha256.Sum256([]byte(src))
	return hex.EncodeToString(sum[:]) + diskSuffix
}

// load returns the picture kept for src, or nil.
func (d *diskStore) load(src string) *picture {
	name := diskName(src)
	d.mu.Lock()
	el, ok := d.files[name]
	if ok {
		d.order.MoveToFront(el)
	}
	d.mu.Unlock()
	if !ok {
		return nil
	}
	raw, err := os.ReadFile(filepath.Join(d.dir, name))
	if err != nil {
		d.drop(name)
		return nil
	}
	line, body, _ := bytes.Cut(raw, []byte("\n"))
	var h diskHeader
	sum := sha256.Sum256(body)
	if json.Unmarshal(line, &h) != nil || h.Source != src || h.Length != len(body) || int64(len(body)) > d.maxBytes ||
		h.SHA256 != hex.EncodeToString(sum[:]) || !imageTypes[h.Type] || Sniff(body) != h.Type {
		d.drop(name)
		return nil
	}
	return newPicture(body, h.Type)
}

// save keeps pic for src, letting the oldest files go to stay within
// the bound.
func (d *diskStore) save(src string, pic *picture) error {
	name := diskName(src)
	sum := sha256.Sum256(pic.body)
	header, err := json.Marshal(diskHeader{Source: src, Type: pic.contentType, Length: len(pic.body), SHA256: hex.EncodeToString(sum[:])})
	if err != nil {
		return fmt.Errorf("saving a picture: %w", err)
	}
	size := int64(len(header) + 1 + len(pic.body))
	if size > d.max {
		return nil // it would push out everything else and still not fit
	}
	tmp, err := os.CreateTemp(d.dir, "picture.*.tmp")
	if err != nil {
		return fmt.Errorf("saving a picture: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, a no-op
	w := bufio.NewWriter(tmp)
	w.Write(header)
	w.WriteByte('\n')
	w.Write(pic.body)
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("saving a picture: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("saving a picture: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("saving a picture: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(d.dir, name)); err != nil {
		return fmt.Errorf("saving a picture: %w", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if el, ok := d.files[name]; ok {
		f := el.Value.(*diskFile)
		d.bytes += size - f.size
		f.size = size
		d.order.MoveToFront(el)
	} else {
		d.files[name] = d.order.PushFront(&diskFile{name, size})
		d.bytes += size
	}
	d.evict()
	return nil
}

// evict removes the oldest files until the rest fit; d.mu is held.
func (d *diskStore) evict() {
	for d.bytes > d.max && d.order.Len() > 0 {
		el := d.order.Back()
		f := el.Value.(*diskFile)
		d.order.Remove(el)
		delete(d.files, f.name)
		d.bytes -= f.size
		os.Remove(filepath.Join(d.dir, f.name))
	}
}

// drop forgets a damaged or vanished file, and removes it.
func (d *diskStore) drop(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if el, ok := d.files[name]; ok {
		d.bytes -= el.Value.(*diskFile).size
		d.order.Remove(el)
		delete(d.files, name)
	}
	os.Remove(filepath.Join(d.dir, name))
}

func (d *diskStore) stats() (int64, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.bytes, len(d.files)
}

// clientRates is each client's rate of fetches: a token bucket per
// client (golang.org/x/time/rate), at most max clients; past that, the
// clients whose buckets are full again (idle long enough to be new) are
// let go, and if none is, a new client is refused until one is.
type clientRates struct {
	limit rate.Limit
	burst int
	max   int

	mu      sync.Mutex
	clients map[netip.Prefix]*rate.Limiter
}

func newClientRates(perMinute, burst, max int) *clientRates {
	return &clientRates{limit: rate.Limit(float64(perMinute) / 60), burst: burst, max: max,
		clients: map[netip.Prefix]*rate.Limiter{}}
}

// allow takes one of client's fetches at now, or reports that it has
// none left.
func (c *clientRates) allow(client netip.Prefix, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.clients[client]
	if !ok {
		if len(c.clients) >= c.max {
			for k, l := range c.clients {
				if l.TokensAt(now) >= float64(c.burst) {
					delete(c.clients, k)
				}
			}
			if len(c.clients) >= c.max {
				return false
			}
		}
		l = rate.NewLimiter(c.limit, c.burst)
		c.clients[client] = l
	}
	return l.AllowN(now, 1)
}
