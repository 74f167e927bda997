package catalogue

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Query selects and orders the records of one collection. The field names
// it uses are those the collection's index was built with (see indexes.go);
// they are the upstream's field names.
type Query struct {
	// NameContains keeps records whose name contains it, ignoring case.
	NameContains string
	// Equal keeps records whose field equals the value exactly; booleans
	// are "true" and "false".
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
// position. It is built once per snapshot.
type Index struct {
	n     int
	names []string                      // lower-cased name by position
	equal map[string]map[string][]int32 // field → value → positions, ascending
	nums  map[string][]float64          // field → value by position; NaN when missing
	asc   map[string][]int32            // field → positions in ascending order
	desc  map[string][]int32            // field → positions in descending order
	rank  map[string][]int32            // field → place in asc, by position
	drank map[string][]int32            // field → place in desc, by position
}

// indexSpec says how to index the records of one type.
type indexSpec[T any] struct {
	name    func(*T) string
	equal   map[string]func(*T) (string, bool)
	numeric map[string]func(*T) (float64, bool)
	// byName lists the string fields records can be ordered by.
	byName map[string]func(*T) (string, bool)
}

func buildIndex[T any](t *Table[T], spec indexSpec[T]) *Index {
	n := t.Len()
	ix := &Index{
		n:     n,
		names: make([]string, n),
		equal: map[string]map[string][]int32{},
		nums:  map[string][]float64{},
		asc:   map[string][]int32{},
		desc:  map[string][]int32{},
		rank:  map[string][]int32{},
		drank: map[string][]int32{},
	}
	for i := range n {
		ix.names[i] = strings.ToLower(spec.name(t.At(i)))
	}
	for field, key := range spec.equal {
		m := map[string][]int32{}
		for i := range n {
			if v, ok := key(t.At(i)); ok {
				m[v] = append(m[v], int32(i))
			}
		}
		ix.equal[field] = m
	}
	for field, key := range spec.numeric {
		vals := make([]float64, n)
		for i := range n {
			v, ok := key(t.At(i))
			if !ok || math.IsNaN(v) {
				v = math.NaN()
			}
			vals[i] = v
		}
		ix.nums[field] = vals
		ix.addOrder(field, func(a, b int32) int { return cmp.Compare(vals[a], vals[b]) },
			func(p int32) bool { return math.IsNaN(vals[p]) })
	}
	for field, key := range spec.byName {
		lower := make([]string, n)
		exact := make([]string, n)
		missing := make([]bool, n)
		for i := range n {
			v, ok := key(t.At(i))
			lower[i], exact[i], missing[i] = strings.ToLower(v), v, !ok
		}
		ix.addOrder(field, func(a, b int32) int {
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
	ix.asc[field] = append(asc, absent...)
	ix.desc[field] = append(desc, absent...)
	ix.rank[field] = ranks(ix.asc[field])
	ix.drank[field] = ranks(ix.desc[field])
}

// ranks inverts an order: the place of each position in it.
func ranks(order []int32) []int32 {
	r := make([]int32, len(order))
	for place, p := range order {
		r[p] = int32(place)
	}
	return r
}

// Selection is the result of a Query: upstream positions of the matching
// records, in the query's order.
type Selection struct {
	positions []int32
	all       bool // every record, in upstream order; positions is nil
	n         int
	// rank orders positions: the place of each upstream position in the
	// ordering. Nil means upstream order.
	rank []int32
}

// Len returns the number of records selected.
func (s Selection) Len() int {
	if s.all {
		return s.n
	}
	return len(s.positions)
}

// At returns the upstream position of the i-th selected record.
func (s Selection) At(i int) int {
	if s.all {
		return i
	}
	return int(s.positions[i])
}

// Find returns the place in the selection of the record at upstream
// position pos, and false if the selection does not hold it.
func (s Selection) Find(pos int) (int, bool) {
	if s.all {
		return pos, pos >= 0 && pos < s.n
	}
	key := func(p int32) int32 { return p }
	if s.rank != nil {
		key = func(p int32) int32 { return s.rank[p] }
	}
	if pos < 0 || s.rank != nil && pos >= len(s.rank) {
		return 0, false
	}
	want := key(int32(pos))
	i, _ := slices.BinarySearchFunc(s.positions, want, func(p, w int32) int { return cmp.Compare(key(p), w) })
	if i < len(s.positions) && int(s.positions[i]) == pos {
		return i, true
	}
	return 0, false
}

// Orders reports whether the index can order by field.
func (ix *Index) Orders(field string) bool { _, ok := ix.asc[field]; return ok }

// Select evaluates q. It fails only for a field the index does not know,
// which is a programming error in the caller.
func (ix *Index) Select(q Query) (Selection, error) {
	if ix == nil {
		return Selection{all: true}, nil // a missing collection: nothing to select
	}
	for f := range q.Equal {
		if _, ok := ix.equal[f]; !ok {
			return Selection{}, fmt.Errorf("no equality index on %q", f)
		}
	}
	for _, m := range []map[string]float64{q.AtLeast, q.AtMost} {
		for f := range m {
			if _, ok := ix.nums[f]; !ok {
				return Selection{}, fmt.Errorf("no numeric index on %q", f)
			}
		}
	}
	if q.OrderBy != "" && !ix.Orders(q.OrderBy) {
		return Selection{}, fmt.Errorf("no ordering on %q", q.OrderBy)
	}
	filtered := q.NameContains != "" || len(q.Equal) > 0 || len(q.AtLeast) > 0 || len(q.AtMost) > 0

	// Unfiltered: the precomputed orders are the answer, with no copying.
	if !filtered {
		switch {
		case q.OrderBy == "":
			return Selection{all: true, n: ix.n}, nil
		case q.Descending:
			return Selection{positions: ix.desc[q.OrderBy], rank: ix.drank[q.OrderBy]}, nil
		default:
			return Selection{positions: ix.asc[q.OrderBy], rank: ix.rank[q.OrderBy]}, nil
		}
	}

	// Candidates come from the narrowest equality index, else from the
	// ordering requested, else upstream order; the other conditions are
	// checked on each candidate.
	var candidates []int32
	ordered := false
	for f, v := range q.Equal {
		if p := ix.equal[f][v]; candidates == nil || len(p) < len(candidates) {
			candidates = p
			if candidates == nil {
				return Selection{positions: []int32{}}, nil
			}
		}
	}
	if candidates == nil {
		switch {
		case q.OrderBy != "" && q.Descending:
			candidates, ordered = ix.desc[q.OrderBy], true
		case q.OrderBy != "":
			candidates, ordered = ix.asc[q.OrderBy], true
		}
	}
	needle := strings.ToLower(q.NameContains)
	keep := func(p int32) bool {
		if needle != "" && !strings.Contains(ix.names[p], needle) {
			return false
		}
		for f, v := range q.Equal {
			if _, found := slices.BinarySearch(ix.equal[f][v], p); !found {
				return false
			}
		}
		for f, min := range q.AtLeast {
			if v := ix.nums[f][p]; math.IsNaN(v) || v < min {
				return false
			}
		}
		for f, max := range q.AtMost {
			if v := ix.nums[f][p]; math.IsNaN(v) || v > max {
				return false
			}
		}
		return true
	}
	var out []int32
	if candidates == nil {
		for p := range int32(ix.n) {
			if keep(p) {
				out = append(out, p)
			}
		}
	} else {
		for _, p := range candidates {
			if keep(p) {
				out = append(out, p)
			}
		}
	}
	if out == nil {
		out = []int32{}
	}
	if q.OrderBy == "" {
		return Selection{positions: out}, nil
	}
	rank := ix.rank[q.OrderBy]
	if q.Descending {
		rank = ix.drank[q.OrderBy]
	}
	if !ordered {
		slices.SortFunc(out, func(a, b int32) int { return cmp.Compare(rank[a], rank[b]) })
	}
	return Selection{positions: out, rank: rank}, nil
}
