package catalogue

import "strconv"

// The readers of the indexes' columns (filters_gen.go, generated from the
// schema's filter and order directives), one per Go type a filtered or
// ordered field may have: its value, and whether the record has one.

func str(s string) (string, bool) { return s, true }

func optStr(s *string) (string, bool) {
	if s == nil {
		return "", false
	}
	return *s, true
}

func boolStr(b bool) (string, bool) { return strconv.FormatBool(b), true }

func optBoolStr(b *bool) (string, bool) {
	if b == nil {
		return "", false
	}
	return strconv.FormatBool(*b), true
}

func intNum(v int64) (float64, bool) { return float64(v), true }

func num(n Number) (float64, bool) { return n.Float64(), true }

func optNum(n *Number) (float64, bool) {
	if n == nil {
		return 0, false
	}
	return n.Float64(), true
}

// Index returns the query index of collection c, or nil if c is missing.
func (s *Snapshot) Index(c Collection) *Index { return s.indexes[c] }
