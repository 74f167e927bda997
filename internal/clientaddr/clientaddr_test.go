package clientaddr

import (
	"net/netip"
	"slices"
	"testing"
)

func TestAddr(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.1.1/32"), netip.MustParsePrefix("fd00::/8")}
	for _, tt := range []struct {
		name    string
		remote  string
		xff     []string
		trusted []netip.Prefix
		want    string // "" for the zero Addr
	}{
		{name: "no trusted proxies", remote: "203.0.113.5:1234", xff: []string{"198.51.100.1"}, want: "203.0.113.5"},
		{name: "no X-Forwarded-For", remote: "203.0.113.5:1234", trusted: trusted, want: "203.0.113.5"},
		{name: "untrusted peer: X-Forwarded-For ignored", remote: "203.0.113.5:1234", xff: []string{"198.51.100.1"}, trusted: trusted, want: "203.0.113.5"},
		{name: "trusted peer without X-Forwarded-For", remote: "10.0.0.1:80", trusted: trusted, want: "10.0.0.1"},
		{name: "trusted peer: the forwarded client", remote: "10.0.0.1:80", xff: []string{"198.51.100.1"}, trusted: trusted, want: "198.51.100.1"},
		{name: "the nearest untrusted hop, not what the client wrote", remote: "10.0.0.1:80", xff: []string{"198.51.100.7, 203.0.113.9, 10.0.0.2"}, trusted: trusted, want: "203.0.113.9"},
		{name: "several header lines are one list", remote: "10.0.0.1:80", xff: []string{"198.51.100.7", "203.0.113.9, 192.168.1.1"}, trusted: trusted, want: "203.0.113.9"},
		{name: "every hop trusted: the leftmost", remote: "10.0.0.1:80", xff: []string{"10.1.1.1, 10.0.0.2"}, trusted: trusted, want: "10.1.1.1"},
		{name: "garbage where a proxy wrote: the nearest readable hop", remote: "10.0.0.1:80", xff: []string{"198.51.100.7, nonsense, 10.0.0.2"}, trusted: trusted, want: "10.0.0.2"},
		{name: "garbage nearest: the peer", remote: "10.0.0.1:80", xff: []string{"198.51.100.7, unknown"}, trusted: trusted, want: "10.0.0.1"},
		{name: "garbage the client wrote is never read", remote: "10.0.0.1:80", xff: []string{"<script>, 203.0.113.9, 10.0.0.2"}, trusted: trusted, want: "203.0.113.9"},
		{name: "an empty entry", remote: "10.0.0.1:80", xff: []string{"203.0.113.9,, 10.0.0.2"}, trusted: trusted, want: "10.0.0.2"},
		{name: "an empty header", remote: "10.0.0.1:80", xff: []string{""}, trusted: trusted, want: "10.0.0.1"},
		{name: "hops with ports and brackets", remote: "10.0.0.1:80", xff: []string{"[2001:db8::1]:443, 10.0.0.2:8080"}, trusted: trusted, want: "2001:db8::1"},
		{name: "a hop in brackets without a port", remote: "10.0.0.1:80", xff: []string{"[2001:db8::1]"}, trusted: trusted, want: "2001:db8::1"},
		{name: "a hop's zone dropped", remote: "10.0.0.1:80", xff: []string{"fe80::1%eth0"}, trusted: trusted, want: "fe80::1"},
		{name: "an IPv4 peer written as IPv6", remote: "[::ffff:10.0.0.1]:80", xff: []string{"203.0.113.9"}, trusted: trusted, want: "203.0.113.9"},
		{name: "an IPv4 hop written as IPv6", remote: "10.0.0.1:80", xff: []string{"::ffff:203.0.113.9"}, trusted: trusted, want: "203.0.113.9"},
		{name: "an IPv6 proxy", remote: "[fd00::1]:80", xff: []string{"2001:db8::5"}, trusted: trusted, want: "2001:db8::5"},
		{name: "a peer without a port", remote: "10.0.0.1", xff: []string{"203.0.113.9"}, trusted: trusted, want: "203.0.113.9"},
		{name: "a peer without an IP address", remote: "@", xff: []string{"203.0.113.9"}, trusted: trusted, want: ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := addrOf(tt.remote, tt.xff, tt.trusted)
			var want netip.Addr
			if tt.want != "" {
				want = netip.MustParseAddr(tt.want)
			}
			if got != want {
				t.Errorf("addrOf(%q, %q) = %v, want %v", tt.remote, tt.xff, got, want)
			}
		})
	}
}

func TestParseTrustedProxies(t *testing.T) {
	for _, tt := range []struct {
		list    string
		want    []string
		wantErr bool
	}{
		{list: "", want: nil},
		{list: " , ", want: nil},
		{list: "10.0.0.0/8", want: []string{"10.0.0.0/8"}},
		{list: "10.0.0.0/8, 192.168.1.1,fd00::/8", want: []string{"10.0.0.0/8", "192.168.1.1/32", "fd00::/8"}},
		{list: "10.1.2.3/8", want: []string{"10.0.0.0/8"}},
		{list: "2001:db8::1", want: []string{"2001:db8::1/128"}},
		{list: "10.0.0.0/33", wantErr: true},
		{list: "proxy.internal", wantErr: true},
		{list: "10.0.0.0/8;192.168.0.0/16", wantErr: true},
		{list: "fe80::1%eth0", wantErr: true},
	} {
		t.Run(tt.list, func(t *testing.T) {
			got, err := ParseTrustedProxies(tt.list)
			if tt.wantErr {
				if err == nil {
					t.Errorf("ParseTrustedProxies(%q) = %v, want an error", tt.list, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTrustedProxies(%q): %v", tt.list, err)
			}
			var want []netip.Prefix
			for _, p := range tt.want {
				want = append(want, netip.MustParsePrefix(p))
			}
			if !slices.Equal(got, want) {
				t.Errorf("ParseTrustedProxies(%q) mismatch (-want +got):\n-%v\n+%v", tt.list, want, got)
			}
		})
	}
}

func TestKey(t *testing.T) {
	of := func(s string) netip.Prefix { return key(netip.MustParseAddr(s)) }
	for _, tt := range []struct {
		name string
		a, b netip.Prefix
		same bool
	}{
		{"two IPv4 addresses", of("203.0.113.1"), of("203.0.113.2"), false},
		{"one IPv4 address", of("203.0.113.1"), of("203.0.113.1"), true},
		{"two addresses of an IPv6 /64", of("2001:db8::1"), of("2001:db8::2:3:4"), true},
		{"two IPv6 /64s", of("2001:db8::1"), of("2001:db8:0:1::1"), false},
		{"no address", key(netip.Addr{}), key(netip.Addr{}), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if same := tt.a == tt.b; same != tt.same {
				t.Errorf("%v and %v: same client %v, want %v", tt.a, tt.b, same, tt.same)
			}
		})
	}
}
