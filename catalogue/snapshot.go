package catalogue

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Part is one collection's body as decoded: the upstream bytes and the
// typed records. A Part is immutable.
type Part struct {
	collection Collection
	body       *Body
	table      any // *Table[T] of the collection's record type
	index      *Index
	// modified is when the upstream says the body last changed (its
	// Last-Modified); zero when it did not say. lastModified is the same
	// as an HTTP date, made once rather than for every response.
	modified     time.Time
	lastModified string

	// digested are the records' digests, made once, when the part is
	// first compared with another (changes.go).
	digestOnce sync.Once
	digested   []recordDigest
}

// Decode checks raw against the shape of collection c and decodes its
// records; the body's compressed representations are made when first asked
// for (see [Body.In]). A body that is not JSON of the collection's shape is
// refused with a [*BodyError] naming where.
//
// The part keeps raw as its body, byte for byte: the caller hands the
// buffer over and must never change it, or the part's ETag would name bytes
// it no longer serves. Every caller reads a body into a buffer of its own;
// copying it would cost a body's size more memory at every refresh.
func Decode(c Collection, raw []byte) (*Part, error) {
	records, err := decodeBody(c, raw)
	if err != nil {
		return nil, err
	}
	table, index := tableAndIndex(c, records)
	return &Part{collection: c, body: newBody(raw), table: table, index: index}, nil
}

// Collection returns the collection the part belongs to.
func (p *Part) Collection() Collection { return p.collection }

// Body returns the part's upstream body.
func (p *Part) Body() *Body { return p.body }

// Modified is when the upstream says the part's body last changed, from
// its Last-Modified; zero when the upstream did not say. Every replica
// that read the same body from the same upstream has the same time.
func (p *Part) Modified() time.Time { return p.modified }

// LastModified is Modified as a Last-Modified header's value, "" when the
// upstream did not say.
func (p *Part) LastModified() string { return p.lastModified }

// httpDate is t as an HTTP date, "" for the zero time.
func httpDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(http.TimeFormat)
}

// WithModified returns p with the upstream's Last-Modified header value
// lastModified, or p itself when the value is empty or no HTTP date.
func (p *Part) WithModified(lastModified string) *Part {
	t, err := http.ParseTime(lastModified)
	if lastModified == "" || err != nil {
		return p
	}
	// A new part rather than a copy: the digests' Once must not be
	// copied, and are made for the part that is kept.
	return &Part{collection: p.collection, body: p.body, table: p.table, index: p.index,
		modified: t.UTC(), lastModified: httpDate(t)}
}

// Records returns the part's records in upstream order, as a slice of the
// collection's record type ([]Item for Items, []Monster for Monsters, …),
// for code that walks every record whatever its type. The slice is the
// part's own: read it, never change it.
func (p *Part) Records() any { return p.table.(interface{ all() any }).all() }

// Table is a collection's records in upstream order, indexed by id.
// A nil *Table is an empty one.
type Table[T any] struct {
	records   []T
	id        func(*T) int64
	positions Positions
	// duplicates counts records whose id an earlier record already has;
	// lookups by id find the first.
	duplicates int
}

func newTable[T any](records []T, id func(*T) int64) *Table[T] {
	t := &Table[T]{records: records, id: id}
	ids := make([]int64, len(records))
	for i := range records {
		ids[i] = id(&records[i])
	}
	t.positions, t.duplicates = newPositions(ids)
	return t
}

func (t *Table[T]) all() any { return t.records }

func (t *Table[T]) record(i int) any { return &t.records[i] }

// Len returns the number of records.
func (t *Table[T]) Len() int {
	if t == nil {
		return 0
	}
	return len(t.records)
}

// At returns the i-th record in upstream order.
func (t *Table[T]) At(i int) *T { return &t.records[i] }

// IDAt returns the id of the i-th record in upstream order.
func (t *Table[T]) IDAt(i int) int64 { return t.id(&t.records[i]) }

// Get returns the record with the given id.
func (t *Table[T]) Get(id int64) (*T, bool) {
	if t == nil {
		return nil, false
	}
	i, ok := t.positions.Of(id)
	if !ok {
		return nil, false
	}
	return &t.records[i], true
}

// IndexOf returns the upstream position of the record with the given id.
func (t *Table[T]) IndexOf(id int64) (int, bool) {
	if t == nil {
		return 0, false
	}
	return t.positions.Of(id)
}

// Positions returns the table's positions by id.
func (t *Table[T]) Positions() Positions {
	if t == nil {
		return Positions{}
	}
	return t.positions
}

// Positions finds records by id in a table of any record type: the
// position of each in upstream order, for code that keeps something per
// record in a slice of its own. The zero Positions is an empty table's.
//
// The catalogue's ids are small and nearly consecutive (1 to the number of
// records, give or take a few), so where they all lie below
// denseSlack times the number of records, a slice indexed by id finds them:
// a load, where a map lookup cost a nested page a sixth of its time, and
// 4 bytes an id rather than a map's 16 or more. Other ids (large, or
// negative) are in a map.
type Positions struct {
	dense []int32         // by id: the position plus one, 0 for none
	byID  map[int64]int32 // when ids are not dense
	n     int             // the table's length: duplicates have no id of their own
}

// denseSlack bounds how sparse a table's ids may be for Positions to index
// them in a slice: below denseSlack times the number of records, plus a
// little for tiny tables, so the slice is never more than a few times the
// map it replaces.
const denseSlack = 4

// newPositions indexes the positions of ids (the records' ids, in upstream
// order) and counts the ids an earlier record already has.
func newPositions(ids []int64) (p Positions, duplicates int) {
	p.n = len(ids)
	limit := int64(denseSlack*len(ids) + 64)
	dense := true
	var top int64
	for _, id := range ids {
		if id < 0 || id >= limit {
			dense = false
			break
		}
		top = max(top, id)
	}
	if dense {
		p.dense = make([]int32, top+1)
		for i, id := range ids {
			if p.dense[id] != 0 {
				duplicates++
				continue
			}
			p.dense[id] = int32(i) + 1
		}
		return p, duplicates
	}
	p.byID = make(map[int64]int32, len(ids))
	for i, id := range ids {
		if _, dup := p.byID[id]; dup {
			duplicates++
			continue
		}
		p.byID[id] = int32(i)
	}
	return p, duplicates
}

// Of returns the upstream position of the record with the given id.
func (p Positions) Of(id int64) (int, bool) {
	if p.byID == nil {
		if uint64(id) < uint64(len(p.dense)) {
			if i := p.dense[id]; i != 0 {
				return int(i - 1), true
			}
		}
		return 0, false
	}
	i, ok := p.byID[id]
	return int(i), ok
}

// Len returns the number of positions: every Of is below it.
func (p Positions) Len() int { return p.n }

// KindPositions returns the positions by id of the records of kind k in s;
// empty for a nil snapshot or a collection it lacks.
func (s *Snapshot) KindPositions(k Kind) Positions {
	if s == nil || s.parts[Kinds[k].Collection] == nil {
		return Positions{}
	}
	return s.parts[Kinds[k].Collection].table.(interface{ Positions() Positions }).Positions()
}

// KindRecords returns the function giving the i-th record of kind k in s
// (a pointer to its struct), for code that keeps something per record
// whatever its type; nil for a nil snapshot or a collection it lacks.
func (s *Snapshot) KindRecords(k Kind) func(i int) any {
	if s == nil || s.parts[Kinds[k].Collection] == nil {
		return nil
	}
	return s.parts[Kinds[k].Collection].table.(interface{ record(int) any }).record
}

// Snapshot is a consistent, immutable view of the whole catalogue: for each
// collection, the upstream body and its typed records, or nothing if no good
// body for it has been seen yet. Readers hold on to the *Snapshot they
// started with, so a refresh never mixes two versions in one answer.
type Snapshot struct {
	parts   [NumCollections]*Part
	version string

	// tables are the parts' tables, by record type (collections_gen.go).
	tables recordTables

	indexes   [NumCollections]*Index
	relations relations
	integrity []Dangling
	// modified is the newest of the parts' Modified, or zero when a
	// collection is missing or its upstream said no time; lastModified,
	// the same as an HTTP date.
	modified     time.Time
	lastModified string

	// history is what the latest snapshots made by With changed, oldest
	// first, this one's change last; at most historyLength.
	history []Change
}

// NewSnapshot assembles a snapshot from parts, at most one per collection;
// collections without a part are missing from it.
func NewSnapshot(parts ...*Part) *Snapshot {
	s := &Snapshot{}
	for _, p := range parts {
		s.parts[p.collection] = p
	}
	s.index()
	return s
}

// With returns a snapshot like s with the given parts in place of s's. It
// remembers what it changed of s, record by record (see ChangeSince).
func (s *Snapshot) With(parts ...*Part) *Snapshot {
	n := &Snapshot{parts: s.parts}
	for _, p := range parts {
		n.parts[p.collection] = p
	}
	n.index()
	if n.version == s.version {
		n.history = s.history
		return n
	}
	// Kept even when it names no collection (a collection's first body),
	// so that a watcher's last version is always some change's From.
	ch := s.change(n)
	keep := s.history[max(0, len(s.history)-(historyLength-1)):]
	n.history = append(slices.Clip(keep), ch)
	return n
}

func (s *Snapshot) index() {
	h := sha256.New()
	for _, p := range s.parts {
		if p == nil {
			h.Write([]byte("-\n"))
			continue
		}
		h.Write([]byte(p.body.ETag() + "\n"))
	}
	s.version = hex.EncodeToString(h.Sum(nil)[:8])
	s.modified = newestModified(&s.parts)
	s.lastModified = httpDate(s.modified)

	s.tables.fill(&s.parts)
	for c, p := range s.parts {
		if p != nil {
			s.indexes[c] = p.index
		}
	}

	s.buildRelations()
	s.integrity = s.checkIntegrity()
}

func table[T any](p *Part) *Table[T] {
	if p == nil {
		return nil
	}
	return p.table.(*Table[T])
}

// newestModified is the newest of parts' Modified, or zero if any part is
// missing or has none: a time that would not cover every body is no time.
func newestModified(parts *[NumCollections]*Part) time.Time {
	var newest time.Time
	for _, p := range parts {
		if p == nil || p.modified.IsZero() {
			return time.Time{}
		}
		if p.modified.After(newest) {
			newest = p.modified
		}
	}
	return newest
}

// Modified is when the snapshot's data last changed, as the upstream says
// it: the newest Last-Modified of its bodies, or zero when a collection
// is missing or its upstream gave none. Derived from the bodies' own
// headers, it is the same on every replica holding the same data.
func (s *Snapshot) Modified() time.Time { return s.modified }

// LastModified is Modified as a Last-Modified header's value, "" when it
// is zero: made once per snapshot, not per response.
func (s *Snapshot) LastModified() string { return s.lastModified }

// Version identifies the snapshot's data: it is derived from the bodies
// alone, so replicas holding the same data report the same version.
func (s *Snapshot) Version() string { return s.version }

// Part returns the part of collection c, or nil if c is missing.
func (s *Snapshot) Part(c Collection) *Part { return s.parts[c] }

// Body returns the upstream body of collection c, or nil if c is missing.
func (s *Snapshot) Body(c Collection) *Body {
	if p := s.parts[c]; p != nil {
		return p.body
	}
	return nil
}

// Len returns the number of records of collection c; 0 if c is missing.
func (s *Snapshot) Len(c Collection) int {
	if ix := s.indexes[c]; ix != nil {
		return ix.n
	}
	return 0
}

// Missing lists the collections the snapshot has no good body for.
func (s *Snapshot) Missing() []Collection {
	var m []Collection
	for c, p := range s.parts {
		if p == nil {
			m = append(m, Collection(c))
		}
	}
	return m
}

// Store holds the current snapshot. It is safe for concurrent use: readers
// take the current snapshot with one atomic load and keep it for as long as
// they need a consistent view.
type Store struct {
	current atomic.Pointer[Snapshot]

	// mu orders Publish and Watch, so that a watcher's snapshot and
	// channel belong together.
	mu sync.Mutex
	// replaced is closed when the current snapshot is replaced; nil until
	// someone watches.
	replaced chan struct{}
}

// Current returns the snapshot being served, or nil before the first one.
func (st *Store) Current() *Snapshot { return st.current.Load() }

// Publish makes s the snapshot being served, and tells its watchers.
func (st *Store) Publish(s *Snapshot) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.current.Store(s)
	if st.replaced != nil {
		close(st.replaced)
		st.replaced = nil
	}
}

// Watch returns the snapshot being served (nil before the first one) and a
// channel that is closed when Publish replaces it.
func (st *Store) Watch() (*Snapshot, <-chan struct{}) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.replaced == nil {
		st.replaced = make(chan struct{})
	}
	return st.current.Load(), st.replaced
}

// BodyETags names each collection's body by its ETag ("" for a missing
// collection; all "" for a nil snapshot): enough to tell which collections
// two snapshots differ in without holding on to either.
func (s *Snapshot) BodyETags() [NumCollections]string {
	var tags [NumCollections]string
	if s == nil {
		return tags
	}
	for c, p := range s.parts {
		if p != nil {
			tags[c] = p.body.ETag()
		}
	}
	return tags
}
