package catalogue

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// FacetField is a list's facet: a filter's equality field, by the name
// the filter gives it (Name) and the index column it reads (Field).
type FacetField struct {
	Name, Field string
}

// Facet is the values one field takes among the records a query
// selects, each with how many records hold it.
type Facet struct {
	// Field is the facet's name: the filter field that selects a value.
	Field string `json:"field"`
	// Values are the values held, the most held first, then by value
	// ignoring case (then exactly); values no selected record holds are
	// left out.
	Values []FacetValue `json:"values"`
}

// FacetValue is a value of a facet and the number of records holding it.
type FacetValue struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// Facets counts, for each of fields, the values the records selected by
// q hold, each facet under every condition of q but its own: the count
// beside a value is how many records the filter would select with that
// value chosen instead. The counts are read from the index's columns (a
// code per record); a facet whose query is unfiltered reads the counts
// the index kept when it was built. Each of fields must be an equality
// column of the index, and q a query Select takes (CheckFacets).
func (ix *Index) Facets(q Query, fields []FacetField) []Facet {
	out := make([]Facet, 0, len(fields))
	unordered := q
	unordered.OrderBy, unordered.Descending = "", false // counting needs no order
	var (
		shared     Selection
		sharedErr  error
		haveShared bool
	)
	for _, ff := range fields {
		facet := Facet{Field: ff.Name, Values: []FacetValue{}}
		if ix == nil {
			out = append(out, facet)
			continue
		}
		col, ok := ix.equal[ff.Field]
		if !ok {
			out = append(out, facet) // CheckFacets reports it
			continue
		}
		var sel Selection
		if _, own := q.Equal[ff.Field]; own {
			others := unordered
			others.Equal = maps.Clone(q.Equal)
			delete(others.Equal, ff.Field)
			var err error
			if sel, err = ix.Select(others); err != nil {
				out = append(out, facet) // q with fewer conditions: Select took q
				continue
			}
		} else {
			// Every facet q has no condition on counts q's records: they
			// share one selection.
			if !haveShared {
				shared, sharedErr = ix.Select(unordered)
				haveShared = true
			}
			if sharedErr != nil {
				out = append(out, facet)
				continue
			}
			sel = shared
		}
		if sel.all {
			for _, code := range col.byCount {
				facet.Values = append(facet.Values, FacetValue{Value: col.values[code], Count: len(col.positions[code])})
			}
			out = append(out, facet)
			continue
		}
		counts := make([]int, len(col.values))
		for _, p := range sel.upTo(ix.n) {
			if code := col.codes[p]; code >= 0 {
				counts[code]++
			}
		}
		for _, code := range col.facetOrder(counts) {
			facet.Values = append(facet.Values, FacetValue{Value: col.values[code], Count: counts[code]})
		}
		out = append(out, facet)
	}
	return out
}

// CheckFacets fails if a field of fields is no equality column of the
// index: a programming error in the caller, reported before Facets is
// asked.
func (ix *Index) CheckFacets(fields []FacetField) error {
	if ix == nil {
		return nil
	}
	for _, ff := range fields {
		if _, ok := ix.equal[ff.Field]; !ok {
			return fmt.Errorf("no equality index on %q to count", ff.Field)
		}
	}
	return nil
}

// facetOrder returns the codes with a count above zero, the largest
// count first, then by value ignoring case, then exactly.
func (col *equalColumn) facetOrder(counts []int) []int32 {
	var codes []int32
	for code, n := range counts {
		if n > 0 {
			codes = append(codes, int32(code))
		}
	}
	slices.SortFunc(codes, func(a, b int32) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]),
			strings.Compare(col.lower[a], col.lower[b]), strings.Compare(col.values[a], col.values[b]))
	})
	return codes
}

// MostValues returns the most distinct values any equality column of the
// index holds: the longest a facet's values can be.
func (ix *Index) MostValues() int {
	if ix == nil {
		return 0
	}
	most := 0
	for _, col := range ix.equal {
		most = max(most, len(col.values))
	}
	return most
}
