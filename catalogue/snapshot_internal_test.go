package catalogue

import (
	"math"
	"testing"
)

// TestPositions: ids find their records' first positions, in a slice when
// they are dense and in a map when they are not, and nothing else finds
// one: ids past the slice, negative, or never given.
func TestPositions(t *testing.T) {
	tests := []struct {
		name      string
		ids       []int64
		wantDense bool
	}{
		{"consecutive", []int64{1, 2, 3, 4}, true},
		{"from zero, out of order, with a duplicate", []int64{3, 0, 7, 3, 5}, true},
		{"a few gaps", []int64{2, 40, 9, 17}, true},
		{"one id far above the rest", []int64{1, 2, 1 << 40}, false},
		{"a negative id", []int64{1, -2, 3}, false},
		{"none", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, dups := newPositions(tt.ids)
			if dense := p.byID == nil; dense != tt.wantDense {
				t.Errorf("dense = %t, want %t", dense, tt.wantDense)
			}
			if p.Len() != len(tt.ids) {
				t.Errorf("Len() = %d, want %d", p.Len(), len(tt.ids))
			}
			first := map[int64]int{}
			for i, id := range tt.ids {
				if _, seen := first[id]; !seen {
					first[id] = i
				}
			}
			if want := len(tt.ids) - len(first); dups != want {
				t.Errorf("duplicates = %d, want %d", dups, want)
			}
			for id, want := range first {
				if got, ok := p.Of(id); !ok || got != want {
					t.Errorf("Of(%d) = %d, %t; want %d", id, got, ok, want)
				}
			}
			for _, id := range []int64{-1, 6, 8, 41, 1<<40 + 1, math.MaxInt64, math.MinInt64} {
				if _, given := first[id]; given {
					continue
				}
				if i, ok := p.Of(id); ok {
					t.Errorf("Of(%d) = %d, true for an id never given", id, i)
				}
			}
		})
	}
	if _, ok := (Positions{}).Of(0); ok {
		t.Error("the zero Positions found id 0")
	}
}
