package catalogue

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Query selects and orders the records of one collection. The field names
// it uses are those the collection's index was built with: the record
// type's schema field names, as the schema's @contains, @equals, @atLeast,
// @atMost and @order directives name them (see filters_gen.go).
type Query struct {
	// NameContains keeps records whose name contains it, ignoring case.
	NameContains string
	// Equal keeps records whose field equals the value; booleans are
	// "true" and "false". A value some record holds exactly matches
	// exactly; any other matches ignoring case (strings.ToLower), so
	// "epic" finds the "Epic" records and "Epic" finds just what it
	// always did, even beside an "EPIC".
	Equal map[string]string
	// AtLeast and AtMost keep records whose numeric field lies in range; a
	// record without the field is left out.
	AtLeast, AtMost map[string]float64
	// OrderBy is the field to order by; empty means upstream order.
	OrderBy string
	// Descending reverses the ordering. Ties keep upstream order, and
	// records without the field come last, either way.
	Descending bool
}

// Index answers Queries over one collection's records by upstream
// position. It is built once per snapshot, as columns: a Query is
// compiled against them once, and each record is then tested by slice
// lookups alone.
type Index struct {
	n      int
	names  []string // lower-cased name by position; nil when there is none
	search *searchColumns
	grams  []uint64 // by position: the bigrams of the lower-cased name, hashed
	chars  []uint64 // by position: the bytes of the lower-cased name, hashed
	// byPair and byByte list, ascending, the positions whose lower-cased
	// name holds a pair of consecutive bytes, or a byte: the only records
	// a name term can be in are those its rarest pair (its byte, for one
	// letter) lists.
	byPair map[uint16][]int32
	byByte [256][]int32
	equal  map[string]*equalColumn
	nums   map[string][]float64 // field → value by position; NaN when missing
	orders map[string]*ordering
}

// equalColumn is a field tested for equality: each record's value as a
// code, and the records holding each code.
type equalColumn struct {
	codes     []int32          // by position; -1 when missing
	code      map[string]int32 // value → code
	values    []string         // code → value
	lower     []string         // code → value lower-cased
	positions [][]int32        // code → positions, ascending
	// The same, for the values lower-cased: what a value no record holds
	// exactly is matched by.
	folded          []int32
	fold            map[string]int32
	foldedPositions [][]int32
	// byCount is the codes most records hold first (then by value),
	// the unfiltered facet's order.
	byCount []int32
}

// ordering is a field's two orders. Ties keep upstream order in both, and
// records without the field come last.
type ordering struct {
	asc, desc   []int32 // positions in order
	rank, drank []int32 // place in asc and in desc, by position
}

// column is one field of a record type, read for the index.
type column[T, V any] struct {
	field string
	get   func(*T) (V, bool) // false when the record has no value
}

// indexSpec says how to index the records of one type; filters_gen.go
// writes one per collection from the schema's directives.
type indexSpec[T any] struct {
	// name is the field nameContains searches; nil when there is none.
	name    func(*T) string
	equal   []column[T, string]
	numeric []column[T, float64] // ranges and numeric orderings
	// byName are the string fields records can be ordered by.
	byName []column[T, string]
	// orders are the fields of numeric orderings (a subset of numeric's).
	orders []string
}

func buildIndex[T any](t *Table[T], spec indexSpec[T]) *Index {
	n := t.Len()
	ix := &Index{
		n:      n,
		equal:  map[string]*equalColumn{},
		nums:   map[string][]float64{},
		orders: map[string]*ordering{},
	}
	if spec.name != nil {
		ix.names, ix.grams, ix.chars = make([]string, n), make([]uint64, n), make([]uint64, n)
		ix.byPair = map[uint16][]int32{}
		for i := range n {
			name := strings.ToLower(spec.name(t.At(i)))
			ix.names[i], ix.grams[i], ix.chars[i] = name, bigrams(name), byteSet(name)
			// Positions come in order, so a list's last is the only
			// one that can repeat.
			for j := range len(name) {
				if l := ix.byByte[name[j]]; len(l) == 0 || l[len(l)-1] != int32(i) {
					ix.byByte[name[j]] = append(l, int32(i))
				}
				if j > 0 {
					pair := uint16(name[j-1])<<8 | uint16(name[j])
					if l := ix.byPair[pair]; len(l) == 0 || l[len(l)-1] != int32(i) {
						ix.byPair[pair] = append(l, int32(i))
					}
				}
			}
		}
		ix.search = newSearchColumns(t, spec.name, ix.names)
	}
	for _, c := range spec.equal {
		col := &equalColumn{codes: make([]int32, n), code: map[string]int32{},
			folded: make([]int32, n), fold: map[string]int32{}}
		for i := range n {
			v, ok := c.get(t.At(i))
			if !ok {
				col.codes[i], col.folded[i] = -1, -1
				continue
			}
			code, seen := col.code[v]
			if !seen {
				code = int32(len(col.positions))
				col.code[v] = code
				col.values = append(col.values, v)
				col.lower = append(col.lower, strings.ToLower(v))
				col.positions = append(col.positions, nil)
			}
			col.codes[i] = code
			col.positions[code] = append(col.positions[code], int32(i))
			lower := col.lower[code]
			fcode, seen := col.fold[lower]
			if !seen {
				fcode = int32(len(col.foldedPositions))
				col.fold[lower] = fcode
				col.foldedPositions = append(col.foldedPositions, nil)
			}
			col.folded[i] = fcode
			col.foldedPositions[fcode] = append(col.foldedPositions[fcode], int32(i))
		}
		counts := make([]int, len(col.positions))
		for code, ps := range col.positions {
			counts[code] = len(ps)
		}
		col.byCount = col.facetOrder(counts)
		ix.equal[c.field] = col
	}
	for _, c := range spec.numeric {
		vals := make([]float64, n)
		for i := range n {
			v, ok := c.get(t.At(i))
			if !ok || math.IsNaN(v) {
				v = math.NaN()
			}
			vals[i] = v
		}
		ix.nums[c.field] = vals
	}
	for _, field := range spec.orders {
		vals := ix.nums[field]
		ix.addOrder(field, func(a, b int32) int { return cmp.Compare(vals[a], vals[b]) },
			func(p int32) bool { return math.IsNaN(vals[p]) })
	}
	for _, c := range spec.byName {
		lower := make([]string, n)
		exact := make([]string, n)
		missing := make([]bool, n)
		for i := range n {
			v, ok := c.get(t.At(i))
			lower[i], exact[i], missing[i] = strings.ToLower(v), v, !ok
		}
		ix.addOrder(c.field, func(a, b int32) int {
			return cmp.Or(strings.Compare(lower[a], lower[b]), strings.Compare(exact[a], exact[b]))
		}, func(p int32) bool { return missing[p] })
	}
	return ix
}

// addOrder records the ascending and descending orders of a field. Ties
// keep upstream order in both, and records without the field come last.
func (ix *Index) addOrder(field string, compare func(a, b int32) int, missing func(int32) bool) {
	var present, absent []int32
	for i := range int32(ix.n) {
		if missing(i) {
			absent = append(absent, i)
		} else {
			present = append(present, i)
		}
	}
	asc := slices.Clone(present)
	slices.SortStableFunc(asc, compare)
	desc := slices.Clone(present)
	slices.SortStableFunc(desc, func(a, b int32) int { return compare(b, a) })
	o := &ordering{asc: append(asc, absent...), desc: append(desc, absent...)}
	o.rank, o.drank = ranks(o.asc), ranks(o.desc)
	ix.orders[field] = o
}

// ranks inverts an order: the place of each position in it.
func ranks(order []int32) []int32 {
	r := make([]int32, len(order))
	for place, p := range order {
		r[p] = int32(place)
	}
	return r
}

// bigrams returns the set of s's pairs of consecutive bytes, each hashed
// to one of 64 bits. A name that contains a text holds every pair the
// text holds, so a name whose set lacks one of the text's cannot contain
// it: one AND rules out nearly every name a rare term is not in, before
// strings.Contains reads any.
func bigrams(s string) uint64 {
	var set uint64
	for i := 1; i < len(s); i++ {
		set |= 1 << ((uint32(s[i-1])<<8 | uint32(s[i])) * 0x9E3779B1 >> 26)
	}
	return set
}

// byteSet returns the set of s's bytes, each to one of 64 bits. It does
// for a one-letter text, which has no bigram, what bigrams does for
// longer ones: a page filtered by a random one- or two-letter term spent
// two thirds of its filtering in strings.Contains, on names without the
// letter. (Letters and digits fall on 26 and 10 bits of their own, but
// for p-y and 0-9, which share theirs.)
func byteSet(s string) uint64 {
	var set uint64
	for i := range len(s) {
		set |= 1 << (s[i] & 63)
	}
	return set
}

// nameCandidates returns, ascending, the positions whose name can contain
// needle (lower-cased, not empty): those holding its rarest pair of
// bytes, or its byte when it has one. The list is the index's own.
func (ix *Index) nameCandidates(needle string) []int32 {
	if len(needle) == 1 {
		return ix.byByte[needle[0]]
	}
	var rarest []int32
	for j := 1; j < len(needle); j++ {
		l := ix.byPair[uint16(needle[j-1])<<8|uint16(needle[j])]
		if j == 1 || len(l) < len(rarest) {
			rarest = l
		}
	}
	return rarest
}

// fewCandidates bounds the candidates a name term may give an ordered
// selection, as a fraction of the collection: they are all tested and
// then sorted, where a scan in order stops at the page's end. Past a
// sixteenth, a term matches so many records that the scan reaches a page
// of 50 sooner (BenchmarkSelectPageShortTerm).
const fewCandidates = 16

// Orders reports whether the index can order by field.
func (ix *Index) Orders(field string) bool { _, ok := ix.orders[field]; return ok }

// filter is a Query's conditions compiled against an index: each a slice
// to look a position up in, so testing a record reads no map.
type filter struct {
	names           []string // nil: no name condition
	needle          string
	grams, chars    []uint64 // the names' bigrams and bytes
	need, needChars uint64   // the needle's
	equal           []equalTest
	atLeast, atMost []numTest
}

type equalTest struct {
	codes []int32
	code  int32
}

type numTest struct {
	vals  []float64
	bound float64
}

// keep reports whether the record at position p meets every condition.
func (f *filter) keep(p int32) bool {
	if f.names != nil && !strings.Contains(f.names[p], f.needle) {
		return false // (fill has ruled out names without the needle's bigrams and bytes)
	}
	for _, t := range f.equal {
		if t.codes[p] != t.code {
			return false
		}
	}
	for _, t := range f.atLeast {
		if !(t.vals[p] >= t.bound) { // NaN, a missing value, fails too
			return false
		}
	}
	for _, t := range f.atMost {
		if !(t.vals[p] <= t.bound) {
			return false
		}
	}
	return true
}

// Selection is the result of a Query: upstream positions of the matching
// records, in the query's order. A filtered selection is found as it is
// read: At and Clip test only as many records as reach the place asked
// for, and only Len (and Find of a record far down) tests them all. Its
// copies share what was found; it is read by one goroutine at a time.
type Selection struct {
	all bool // every record, in upstream order
	n   int  // with all: the number of records
	// fixed is the whole selection, when it is known at once.
	fixed []int32
	// lazy is the selection found as it is read, when it is not.
	lazy *pending
	// rank orders positions: the place of each upstream position in the
	// ordering. Nil means upstream order.
	rank []int32
}

// pending is a filtered selection as far as it has been read.
type pending struct {
	f     filter
	cand  []int32 // the candidates in order; nil: every position, upstream order
	ncand int
	next  int     // candidates tested
	found []int32 // the positions found so far, in order
	// byRank: the place of a position among the candidates is its rank
	// (its position, with no ordering); otherwise the candidates are in
	// upstream order, and it is found by search.
	byRank bool
}

// fill tests candidates until k positions are found or none is left.
func (s *pending) fill(k int) {
	for len(s.found) < k && s.next < s.ncand {
		p := int32(s.next)
		if s.cand != nil {
			p = s.cand[s.next]
		}
		// The bigrams and bytes first, here rather than in keep: they
		// rule out most records, and this way with no call.
		if s.f.grams != nil && (s.f.grams[p]&s.f.need != s.f.need || s.f.chars[p]&s.f.needChars != s.f.needChars) {
			s.next++
			continue
		}
		if s.f.keep(p) {
			s.found = append(s.found, p)
		}
		s.next++
	}
}

// upTo returns the selection's first k positions, or all of them if it
// holds fewer.
func (sel Selection) upTo(k int) []int32 {
	if sel.lazy == nil {
		return sel.fixed
	}
	sel.lazy.fill(k)
	return sel.lazy.found
}

// Len returns the number of records selected.
func (sel Selection) Len() int {
	if sel.all {
		return sel.n
	}
	return len(sel.upTo(math.MaxInt))
}

// Clip returns min(k, Len()), testing only as many records as that takes.
func (sel Selection) Clip(k int) int {
	if sel.all {
		return min(k, sel.n)
	}
	return min(k, len(sel.upTo(k)))
}

// At returns the upstream position of the i-th selected record, which
// must be below Len (or Clip(i+1) must be i+1).
func (sel Selection) At(i int) int {
	if sel.all {
		return i
	}
	return int(sel.upTo(i + 1)[i])
}

// Find returns the place in the selection of the record at upstream
// position pos, and false if the selection does not hold it.
func (sel Selection) Find(pos int) (int, bool) {
	if sel.all {
		return pos, pos >= 0 && pos < sel.n
	}
	if pos < 0 || pos > math.MaxInt32 || sel.rank != nil && pos >= len(sel.rank) {
		return 0, false
	}
	p := int32(pos)
	found := sel.fixed
	if s := sel.lazy; s != nil {
		// Test candidates up to pos's place among them, no further.
		var place int
		switch {
		case s.byRank && sel.rank != nil:
			place = int(sel.rank[p])
		case s.byRank:
			place = pos
		default:
			var ok bool
			if place, ok = slices.BinarySearch(s.cand, p); !ok {
				return 0, false
			}
		}
		for s.next <= place && s.next < s.ncand {
			s.fill(len(s.found) + 1)
		}
		found = s.found
	}
	key := func(p int32) int32 { return p }
	if sel.rank != nil {
		key = func(p int32) int32 { return sel.rank[p] }
	}
	want := key(p)
	i, _ := slices.BinarySearchFunc(found, want, func(q, w int32) int { return cmp.Compare(key(q), w) })
	if i < len(found) && found[i] == p {
		return i, true
	}
	return 0, false
}

// Select evaluates q: it compiles q's conditions against the index once,
// and returns a selection that tests records only as it is read. It fails
// only for a field the index does not know, which is a programming error
// in the caller.
func (ix *Index) Select(q Query) (Selection, error) {
	if ix == nil {
		return Selection{all: true}, nil // a missing collection: nothing to select
	}
	f, cand, err := ix.compile(q)
	if err != nil {
		return Selection{}, err
	}
	var order, rank []int32
	ordered := q.OrderBy != ""
	if ordered {
		o, ok := ix.orders[q.OrderBy]
		if !ok {
			return Selection{}, fmt.Errorf("no ordering on %q", q.OrderBy)
		}
		order, rank = o.asc, o.rank
		if q.Descending {
			order, rank = o.desc, o.drank
		}
	}
	if f.names != nil {
		// A rare term's records are candidates too; a common term's,
		// in an ordered selection, are better found by reading the order
		// until the page is full.
		if c := ix.nameCandidates(f.needle); !ordered || len(c) <= ix.n/fewCandidates {
			cand.offer(c)
		}
	}
	if cand.none {
		return Selection{fixed: []int32{}}, nil
	}
	return ix.selection(f, cand, ordered, order, rank), nil
}

// candidates are the only positions a selection need test, in upstream
// order, when fewer than all: the narrowest equality's records, or a rare
// name term's.
type candidates struct {
	list []int32
	some bool // list holds the candidates; else every position is one
	none bool // no record can match: an equality's value no record holds
}

// offer makes list the candidates if it is narrower than those so far.
func (c *candidates) offer(list []int32) {
	if list == nil {
		list = []int32{}
	}
	if !c.some || len(list) < len(c.list) {
		c.list, c.some = list, true
	}
}

// compile compiles q's conditions against the index: the filter a record
// is tested by, and the candidates its equalities narrow the records to.
func (ix *Index) compile(q Query) (filter, candidates, error) {
	var f filter
	var cand candidates
	if q.NameContains != "" {
		if ix.names == nil {
			return f, cand, fmt.Errorf("no name to search")
		}
		f.names, f.needle = ix.names, strings.ToLower(q.NameContains)
		f.grams, f.need = ix.grams, bigrams(f.needle)
		f.chars, f.needChars = ix.chars, byteSet(f.needle)
	}
	for field, v := range q.Equal {
		col, ok := ix.equal[field]
		if !ok {
			return f, cand, fmt.Errorf("no equality index on %q", field)
		}
		codes, positions := col.codes, col.positions
		code, ok := col.code[v]
		if !ok {
			codes, positions = col.folded, col.foldedPositions
			code, ok = col.fold[strings.ToLower(v)]
		}
		if !ok {
			cand.none = true // no record holds v, in any case
			continue
		}
		cand.offer(positions[code])
		f.equal = append(f.equal, equalTest{codes: codes, code: code})
	}
	for _, r := range [...]struct {
		m    map[string]float64
		into *[]numTest
	}{{q.AtLeast, &f.atLeast}, {q.AtMost, &f.atMost}} {
		for field, bound := range r.m {
			vals, ok := ix.nums[field]
			if !ok {
				return f, cand, fmt.Errorf("no numeric index on %q", field)
			}
			*r.into = append(*r.into, numTest{vals: vals, bound: bound})
		}
	}
	return f, cand, nil
}

// selection is how records meeting f are found, given the candidates and,
// when ordered, the order and its ranks.
func (ix *Index) selection(f filter, cand candidates, ordered bool, order, rank []int32) Selection {
	filtered := f.names != nil || cand.some || len(f.atLeast) > 0 || len(f.atMost) > 0
	switch {
	case !filtered && !ordered:
		// Unfiltered: the precomputed orders are the answer, with no copying.
		return Selection{all: true, n: ix.n}
	case !filtered:
		return Selection{fixed: order, rank: rank}
	case cand.some && ordered:
		// The candidates (an equality's records, or a rare name term's)
		// are few and in upstream order: test them all, then put them
		// in order.
		out := []int32{}
		for _, p := range cand.list {
			if f.keep(p) {
				out = append(out, p)
			}
		}
		slices.SortFunc(out, func(a, b int32) int { return cmp.Compare(rank[a], rank[b]) })
		return Selection{fixed: out, rank: rank}
	}
	// The candidates are in the selection's order: tested as read.
	s := &pending{f: f, ncand: ix.n, found: []int32{}}
	switch {
	case cand.some:
		s.cand, s.ncand = cand.list, len(cand.list)
	case ordered:
		s.cand, s.byRank = order, true
	default:
		s.byRank = true // every position, upstream order: its rank is itself
	}
	return Selection{lazy: s, rank: rank}
}
