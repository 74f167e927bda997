package admission

import (
	"net/netip"
	"testing"
)

func TestClientStreams(t *testing.T) {
	c := NewClientStreams(2)
	a, b := netip.MustParsePrefix("203.0.113.1/32"), netip.MustParsePrefix("203.0.113.2/32")
	for i, tt := range []struct {
		op     string // "acquire" or "release"
		client netip.Prefix
		want   bool // what acquire returns
	}{
		{"acquire", a, true},
		{"acquire", a, true},
		{"acquire", a, false},
		{"acquire", b, true},
		{"release", a, false},
		{"acquire", a, true},
		{"acquire", a, false},
		{"release", a, false},
		{"release", a, false},
		{"release", b, false},
	} {
		if tt.op == "release" {
			c.Release(tt.client)
			continue
		}
		if got := c.Acquire(tt.client); got != tt.want {
			t.Errorf("step %d: acquire(%v) = %v, want %v", i, tt.client, got, tt.want)
		}
	}
	if len(c.open) != 0 {
		t.Errorf("after every release the map holds %v, want nothing", c.open)
	}
}
