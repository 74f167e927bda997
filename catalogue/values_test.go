package catalogue_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/catalogue-gateway/gateway/catalogue"
)

func TestNumberMarshalGQL(t *testing.T) {
	tests := []struct {
		name string
		n    catalogue.Number
		want string
	}{
		{"trailing zero", "1.50", "1.50"},
		{"beyond 32 bits", "3000000000", "3000000000"},
		{"beyond float64 precision", "9007199254740993", "9007199254740993"},
		{"small exponent", "1e-06", "1e-06"},
		{"negative zero", "-0.0", "-0.0"},
		{"capital exponent", "1E+2", "1E+2"},
		{"zero value", "", "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			tt.n.MarshalGQL(&b)
			if got := b.String(); got != tt.want {
				t.Errorf("MarshalGQL wrote %s, want %s", got, tt.want)
			}
			if !json.Valid(b.Bytes()) {
				t.Errorf("MarshalGQL wrote %s, not JSON", b.String())
			}
		})
	}
}

func TestNumberUnmarshalGQL(t *testing.T) {
	tests := []struct {
		name    string
		in      any
		want    catalogue.Number
		wantErr bool
	}{
		{"json.Number keeps its literal", json.Number("1.50"), "1.50", false},
		{"json.Number beyond float64 precision", json.Number("9007199254740993"), "9007199254740993", false},
		{"json.Number not a number", json.Number("abc"), "", true},
		{"int", 3, "3", false},
		{"negative int", -7, "-7", false},
		{"int64 beyond float64 precision", int64(9007199254740993), "9007199254740993", false},
		{"float64", 1.5, "1.5", false},
		{"float64 small", 0.000001, "1e-06", false},
		{"float64 large", 1e21, "1e+21", false},
		{"float64 whole", float64(3000000000), "3e+09", false},
		{"float64 NaN", math.NaN(), "", true},
		{"float64 +Inf", math.Inf(1), "", true},
		{"float64 -Inf", math.Inf(-1), "", true},
		{"string number", "1.50", "1.50", false},
		{"string with capital exponent", "1E+2", "1E+2", false},
		{"string negative zero", "-0.0", "-0.0", false},
		{"empty string", "", "", true},
		{"string word", "abc", "", true},
		{"string with a leading space", " 12", "", true},
		{"string with a trailing space", "12 ", "", true},
		{"string with a trailing bracket", "1]", "", true},
		{"string with a trailing brace", "1}", "", true},
		{"string of two numbers", "1 2", "", true},
		{"string with a plus sign", "+1", "", true},
		{"string with a leading zero", "01", "", true},
		{"string with a bare point", "1.", "", true},
		{"string starting with a point", ".5", "", true},
		{"string hexadecimal", "0x10", "", true},
		{"string NaN", "NaN", "", true},
		{"string Infinity", "Infinity", "", true},
		{"string holding a JSON string", `"1"`, "", true},
		{"bool", true, "", true},
		{"nil", nil, "", true},
		{"array", []any{1}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const before = catalogue.Number("42")
			n := before
			err := n.UnmarshalGQL(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("UnmarshalGQL(%#v) = nil error, set %q", tt.in, n)
				}
				if n != before {
					t.Errorf("UnmarshalGQL(%#v) failed but changed the number to %q", tt.in, n)
				}
				return
			}
			if err != nil {
				t.Fatalf("UnmarshalGQL(%#v): %v", tt.in, err)
			}
			if n != tt.want {
				t.Errorf("UnmarshalGQL(%#v) set %q, want %q", tt.in, n, tt.want)
			}
		})
	}
}

func TestNumberFloat64(t *testing.T) {
	tests := []struct {
		n    catalogue.Number
		want float64
	}{
		{"1.50", 1.5},
		{"3000000000", 3e9},
		{"9007199254740993", 9007199254740992}, // nearest float64
		{"1e-06", 0.000001},
		{"1E+2", 100},
		{"-12", -12},
		{"1e400", math.Inf(1)},
		{"-1e400", math.Inf(-1)},
	}
	for _, tt := range tests {
		t.Run(string(tt.n), func(t *testing.T) {
			if got := tt.n.Float64(); got != tt.want {
				t.Errorf("Float64() = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("-0.0", func(t *testing.T) {
		if got := catalogue.Number("-0.0").Float64(); got != 0 || !math.Signbit(got) {
			t.Errorf("Float64() = %v (sign bit %t), want negative zero", got, math.Signbit(got))
		}
	})
}

func TestJSONValueMarshalGQL(t *testing.T) {
	tests := []struct {
		name string
		v    catalogue.JSONValue
		want string
	}{
		{"nil", nil, "null"},
		{"empty", catalogue.JSONValue{}, "null"},
		{"null", catalogue.JSONValue("null"), "null"},
		{"number", catalogue.JSONValue("12"), "12"},
		{"fraction kept", catalogue.JSONValue("1.50"), "1.50"},
		{"string", catalogue.JSONValue(`"12"`), `"12"`},
		{"HTML-special characters unescaped", catalogue.JSONValue(`"<a> & \"b\""`), `"<a> & \"b\""`},
		{"object", catalogue.JSONValue(`{"id":5}`), `{"id":5}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			tt.v.MarshalGQL(&b)
			if got := b.String(); got != tt.want {
				t.Errorf("MarshalGQL wrote %s, want %s", got, tt.want)
			}
		})
	}
}

func TestJSONValueUnmarshalGQL(t *testing.T) {
	tests := []struct {
		name    string
		in      any
		want    catalogue.JSONValue
		wantErr bool
	}{
		{"int", 12, catalogue.JSONValue("12"), false},
		{"json.Number", json.Number("1.50"), catalogue.JSONValue("1.50"), false},
		{"string", "12", catalogue.JSONValue(`"12"`), false},
		{"nil", nil, catalogue.JSONValue("null"), false},
		{"NaN", math.NaN(), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v catalogue.JSONValue
			err := v.UnmarshalGQL(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("UnmarshalGQL(%#v) error = %v, want error %t", tt.in, err, tt.wantErr)
			}
			if diff := cmp.Diff(string(tt.want), string(v)); diff != "" {
				t.Errorf("UnmarshalGQL(%#v) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestJSONValueID pins down which event chest itemIds name an item. The
// decision: a JSON whole number, or a JSON string holding one; white space
// around the digits inside a string is ignored (the upstream's string ids
// are hand-typed), but anything else, fractions and exponents included, is
// not an id: an item id is never written that way, so a guess would more
// likely resolve the wrong item than the right one.
func TestJSONValueID(t *testing.T) {
	tests := []struct {
		name   string
		v      catalogue.JSONValue
		want   int64
		wantOK bool
	}{
		{"number", catalogue.JSONValue("12"), 12, true},
		{"string", catalogue.JSONValue(`"12"`), 12, true},
		{"string padded with spaces", catalogue.JSONValue(`" 12 "`), 12, true},
		{"string with escapes", catalogue.JSONValue(`"\u0031\u0032"`), 12, true},
		{"beyond 32 bits", catalogue.JSONValue("9007199254740993"), 9007199254740993, true},
		{"beyond 32 bits in a string", catalogue.JSONValue(`"9007199254740993"`), 9007199254740993, true},
		{"negative", catalogue.JSONValue("-3"), -3, true},
		// The id is meaningless when ok is false; 0 marks those cases.
		{"nil (missing or null when decoded)", nil, 0, false},
		{"null", catalogue.JSONValue("null"), 0, false},
		{"word", catalogue.JSONValue(`"abc"`), 0, false},
		{"empty string", catalogue.JSONValue(`""`), 0, false},
		{"digits and letters", catalogue.JSONValue(`"12abc"`), 0, false},
		{"fraction", catalogue.JSONValue("1.50"), 0, false},
		{"whole fraction", catalogue.JSONValue("12.0"), 0, false},
		{"exponent", catalogue.JSONValue("1E+2"), 0, false},
		{"beyond int64", catalogue.JSONValue("9223372036854775808"), 0, false},
		{"boolean", catalogue.JSONValue("true"), 0, false},
		{"object", catalogue.JSONValue(`{"id":12}`), 0, false},
		{"array", catalogue.JSONValue("[12]"), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.v.ID()
			if ok != tt.wantOK || ok && got != tt.want {
				t.Errorf("JSONValue(%s).ID() = %d, %t; want %d, %t", tt.v, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// TestEventChestItemIDs follows the hostile event fixture's itemIds from
// upstream bytes to the id they resolve to.
func TestEventChestItemIDs(t *testing.T) {
	p, err := catalogue.Decode(catalogue.EventChests, readFixture(t, "event.json"))
	if err != nil {
		t.Fatal(err)
	}
	chests := catalogue.NewSnapshot(p).EventChests()
	tests := []struct {
		chest    int64
		wantGQL  string
		wantID   int64
		wantIsID bool
	}{
		{1, "101", 101, true},
		{2, `"102"`, 102, true},
		{3, "null", 0, false},
		{4, "null", 0, false},
		{5, `"<none> & \"more\""`, 0, false},
		{6, "1.50", 0, false},
	}
	for _, tt := range tests {
		c, ok := chests.Get(tt.chest)
		if !ok {
			t.Fatalf("chest %d missing", tt.chest)
		}
		t.Run(c.Name, func(t *testing.T) {
			var b bytes.Buffer
			c.ItemID.MarshalGQL(&b)
			if got := b.String(); got != tt.wantGQL {
				t.Errorf("itemId as GraphQL = %s, want %s", got, tt.wantGQL)
			}
			id, isID := c.ItemID.ID()
			if id != tt.wantID || isID != tt.wantIsID {
				t.Errorf("ID() = %d, %t; want %d, %t", id, isID, tt.wantID, tt.wantIsID)
			}
		})
	}
}
