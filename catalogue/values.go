package catalogue

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Number is a JSON number exactly as the upstream wrote it: "3000000000",
// "1.50" and "1e-06" stay those bytes, so no value is ever rounded, truncated
// or widened on its way through the gateway. The GraphQL schema serves it as
// a Float written with the upstream's own digits.
type Number string

// Float64 returns the number as the nearest float64, for sorting and range
// filters; a number beyond float64's range becomes ±Inf.
func (n Number) Float64() float64 {
	f, _ := strconv.ParseFloat(string(n), 64)
	return f
}

// MarshalGQL writes the number's upstream digits. The zero Number, which
// decoding never produces, is written as null to keep the output valid JSON.
func (n Number) MarshalGQL(w io.Writer) {
	if n == "" {
		io.WriteString(w, "null")
		return
	}
	io.WriteString(w, string(n))
}

// UnmarshalGQL reads a GraphQL Float or Int input value.
func (n *Number) UnmarshalGQL(v any) error {
	switch v := v.(type) {
	case json.Number:
		return n.set(string(v))
	case string:
		return n.set(v)
	case int:
		*n = Number(strconv.Itoa(v))
	case int64:
		*n = Number(strconv.FormatInt(v, 10))
	case float64:
		// NaN and ±Inf have no JSON spelling; MarshalGQL would write them
		// as they are and break the response.
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%v is not a number JSON can write", v)
		}
		*n = Number(strconv.FormatFloat(v, 'g', -1, 64))
	default:
		return fmt.Errorf("%T is not a number", v)
	}
	return nil
}

func (n *Number) set(s string) error {
	if !isJSONNumber(s) {
		return fmt.Errorf("%q is not a number", s)
	}
	*n = Number(s)
	return nil
}

// isJSONNumber reports whether s is a number as JSON writes one, and
// nothing else: no white space around it, nothing after it.
func isJSONNumber(s string) bool {
	// A JSON value that starts with '-' or a digit is a number; ending in
	// a digit rules out trailing white space, which json.Valid allows.
	if s == "" || !(s[0] == '-' || '0' <= s[0] && s[0] <= '9') {
		return false
	}
	last := s[len(s)-1]
	return '0' <= last && last <= '9' && json.Valid([]byte(s))
}

// JSONValue is a JSON value of a type the upstream leaves open, kept as the
// upstream sent it (compacted). It is nil when the field is missing or null.
type JSONValue []byte

// MarshalGQL writes the value as it came, or null.
func (v JSONValue) MarshalGQL(w io.Writer) {
	if len(v) == 0 {
		io.WriteString(w, "null")
		return
	}
	w.Write(v)
}

// UnmarshalGQL keeps an input value as JSON, so the type can be used in
// arguments too.
func (v *JSONValue) UnmarshalGQL(in any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encoding input value: %w", err)
	}
	*v = b
	return nil
}

// ID returns the record id the value names: a whole number, or a string
// holding one (the upstream sends both), white space around the digits
// ignored. Fractions, exponents and anything else name no record.
func (v JSONValue) ID() (int64, bool) {
	s := string(v)
	if n, err := strconv.Unquote(s); err == nil {
		s = strings.TrimSpace(n)
	}
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil
}
