package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The generated bodies stand in for what a real upstream sends, so they are
// written by hand rather than with encoding/json: that package sorts map
// keys, escapes <, > and & as \u003c and formats floats its own way, none of
// which a Node or Python server does. The writers below reproduce the two
// upstream styles the gateway has to pass through byte for byte.

// Field is one member of an [Object].
type Field struct {
	Key string
	Val any
}

// Object is a JSON object whose members are written in slice order, which is
// the order the upstream description lists them.
type Object []Field

// Array is a JSON array.
type Array []any

// set appends a member. Members are never replaced, so callers add each key
// once, in output order.
func (o *Object) set(key string, val any) { *o = append(*o, Field{key, val}) }

// appendJS appends v the way Node's JSON.stringify(v) does with no
// indentation. Supported values: nil, bool, string, int, int64, float64,
// Object and Array.
func appendJS(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		return append(b, jsNumber(v)...)
	case string:
		return appendJSString(b, v)
	case Object:
		b = append(b, '{')
		for i, f := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSString(b, f.Key)
			b = append(b, ':')
			b = appendJS(b, f.Val)
		}
		return append(b, '}')
	case Array:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJS(b, e)
		}
		return append(b, ']')
	}
	panic(fmt.Sprintf("appendJS: unsupported type %T", v))
}

// appendJSString quotes s like JSON.stringify: only the quote, the backslash
// and control characters are escaped; everything else, including non-ASCII
// and HTML-special characters, is written as raw UTF-8.
func appendJSString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			if c < 0x20 {
				b = fmt.Appendf(b, `\u%04x`, c)
			} else {
				b = append(b, c)
			}
		}
	}
	return append(b, '"')
}

// shortestDigits returns the shortest decimal digits that round-trip to the
// positive, finite f, and the exponent of the first digit: f = 0.d1d2… × 10^(exp+1).
// Go and JavaScript both pick the shortest round-tripping digits closest to
// the value, so the digits agree; only the layout differs between languages.
func shortestDigits(f float64) (digits string, exp int) {
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, e, _ := strings.Cut(s, "e")
	exp, err := strconv.Atoi(e)
	if err != nil {
		panic(err)
	}
	return strings.Replace(mant, ".", "", 1), exp
}

// jsNumber formats f as JavaScript's Number.prototype.toString does
// (ECMAScript Number::toString): plain notation for 1e-7 < |f| < 1e21,
// exponent notation like 1e-7 or 1.5e+21 outside it.
func jsNumber(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null" // what JSON.stringify writes for them
	}
	if f == 0 {
		return "0" // also for -0, as JavaScript does
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	digits, exp := shortestDigits(f)
	k, n := len(digits), exp+1
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	mant := digits[:1]
	if k > 1 {
		mant += "." + digits[1:]
	}
	esign := "+"
	if n-1 < 0 {
		esign = "-"
	}
	return sign + mant + "e" + esign + strconv.Itoa(abs(n-1))
}

// pyFloat formats f as Python's float.__repr__, which json.dumps uses:
// plain notation while the decimal point is within 16 digits of the first
// digit and at most 4 places before it, always with a fractional part
// ("5.0"); otherwise exponent notation with at least two exponent digits
// ("1e-05", "1e+16").
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	sign := ""
	if math.Signbit(f) {
		sign, f = "-", -f
	}
	if f == 0 {
		return sign + "0.0"
	}
	digits, exp := shortestDigits(f)
	k, decpt := len(digits), exp+1
	if decpt <= -4 || decpt > 16 {
		mant := digits[:1]
		if k > 1 {
			mant += "." + digits[1:]
		}
		return sign + mant + fmt.Sprintf("e%+03d", decpt-1)
	}
	switch {
	case decpt <= 0:
		return sign + "0." + strings.Repeat("0", -decpt) + digits
	case decpt >= k:
		return sign + digits + strings.Repeat("0", decpt-k) + ".0"
	}
	return sign + digits[:decpt] + "." + digits[decpt:]
}

// appendPy appends v the way Python's json.dumps(v, indent=2) does with the
// default ensure_ascii=True: two-space indentation, "," at line ends, ": "
// between key and value, empty containers as [] and {}.
func appendPy(b []byte, v any, depth int) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		if v {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		return append(b, pyFloat(v)...)
	case string:
		return appendPyString(b, v)
	case Object:
		if len(v) == 0 {
			return append(b, "{}"...)
		}
		b = append(b, '{')
		for i, f := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = pyNewline(b, depth+1)
			b = appendPyString(b, f.Key)
			b = append(b, ": "...)
			b = appendPy(b, f.Val, depth+1)
		}
		return append(pyNewline(b, depth), '}')
	case Array:
		if len(v) == 0 {
			return append(b, "[]"...)
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = pyNewline(b, depth+1)
			b = appendPy(b, e, depth+1)
		}
		return append(pyNewline(b, depth), ']')
	}
	panic(fmt.Sprintf("appendPy: unsupported type %T", v))
}

func pyNewline(b []byte, depth int) []byte {
	b = append(b, '\n')
	for range depth {
		b = append(b, "  "...)
	}
	return b
}

// appendPyString quotes s as json.dumps with ensure_ascii does: everything
// outside printable ASCII (space to '~') becomes a lower-case \uXXXX escape,
// characters beyond the Basic Multilingual Plane as a surrogate pair.
func appendPyString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch r {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			switch {
			case r >= ' ' && r <= '~':
				b = append(b, byte(r))
			case r > 0xFFFF:
				r -= 0x10000
				b = fmt.Appendf(b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			default:
				b = fmt.Appendf(b, `\u%04x`, r)
			}
		}
	}
	return append(b, '"')
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
