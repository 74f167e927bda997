package graphqlhttp

import "testing"

type mapLengths map[string]int

func (l mapLengths) Longest(typeName, field string) (int, bool) {
	n, ok := l[typeName+"."+field]
	return n, ok
}

// TestKeyable: costs are kept per Lengths only when a Lengths can be
// part of a key; one that cannot (a map) is priced each time rather than
// panicking.
func TestKeyable(t *testing.T) {
	m := mapLengths{"Item.drops": 3}
	for _, tt := range []struct {
		name string
		v    Lengths
		want bool
	}{
		{"nil", nil, true},
		{"pointer", &m, true},
		{"map", m, false},
	} {
		if got := keyable(tt.v); got != tt.want {
			t.Errorf("%s: keyable = %t, want %t", tt.name, got, tt.want)
		}
	}
}
