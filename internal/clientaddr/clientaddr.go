// Package clientaddr names the client a request comes from: its address,
// read through the proxies the operator trusts (X-Forwarded-For), and the
// key the per-client caps, the cores' turns, the pictures' rate and the
// access log count it by. It imports nothing of this module.
package clientaddr

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// ParseTrustedProxies reads a comma-separated list of CIDR prefixes
// ("10.0.0.0/8, fd00::/8"), for the endpoint's Options.TrustedProxies and the access log. A bare address
// stands for itself alone. An empty list trusts no proxy.
func ParseTrustedProxies(list string) ([]netip.Prefix, error) {
	var prefixes []netip.Prefix
	for part := range strings.SplitSeq(list, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			a, aerr := netip.ParseAddr(part)
			if aerr != nil || a.Zone() != "" {
				return nil, fmt.Errorf("%q is not a CIDR prefix or an address", part)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		prefixes = append(prefixes, p.Masked())
	}
	return prefixes, nil
}

// addr returns the address of the client that sent r: the peer's,
// or, when the peer is a trusted proxy, the nearest hop of
// X-Forwarded-For that is not one. Each proxy appends the address it was
// sent from, so the entries left of the first untrusted one from the
// right are whatever the client wrote, and are never read. The zero Addr
// stands for a peer that has no IP address.
func addr(r *http.Request, trusted []netip.Prefix) netip.Addr {
	return addrOf(r.RemoteAddr, r.Header.Values("X-Forwarded-For"), trusted)
}

// Of is the address of the client r comes from, read as the per-client
// caps read it: the peer, or, when the peer is one of the trusted
// proxies, the nearest X-Forwarded-For hop that is not one. The access
// log uses it, so that the log and the caps name the same client.
func Of(r *http.Request, trusted []netip.Prefix) netip.Addr { return addr(r, trusted) }

// Key names the client r comes from as the per-client caps count
// clients: its address (Of) as an IPv4 address or an IPv6 /64. The
// cores' turns and the pictures' rate count clients by it too.
func Key(r *http.Request, trusted []netip.Prefix) netip.Prefix {
	return key(addr(r, trusted))
}

func addrOf(remoteAddr string, forwardedFor []string, trusted []netip.Prefix) netip.Addr {
	client := parseHop(remoteAddr)
	if !isTrusted(client, trusted) {
		return client
	}
	// Several X-Forwarded-For lines are one list, in order; walked from
	// the right, each line's entries from the right.
	for i := len(forwardedFor) - 1; i >= 0; i-- {
		entries := forwardedFor[i]
		for entries != "" {
			var entry string
			if j := strings.LastIndexByte(entries, ','); j >= 0 {
				entries, entry = entries[:j], entries[j+1:]
			} else {
				entries, entry = "", entries
			}
			hop := parseHop(strings.TrimSpace(entry))
			if !hop.IsValid() {
				// What no proxy writes: the client's own words.
				// The nearest readable hop stands for it.
				return client
			}
			client = hop
			if !isTrusted(hop, trusted) {
				return client
			}
		}
	}
	// Every hop is a trusted proxy's: the leftmost is the nearest to
	// the client.
	return client
}

// parseHop reads an address as a peer or a proxy writes it: alone, in
// brackets or with a port (some proxies add them). The zero Addr when it
// is none of these.
func parseHop(s string) netip.Addr {
	if inner, ok := strings.CutPrefix(s, "["); ok && strings.HasSuffix(inner, "]") {
		s = strings.TrimSuffix(inner, "]")
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		ap, perr := netip.ParseAddrPort(s)
		if perr != nil {
			return netip.Addr{}
		}
		a = ap.Addr()
	}
	// An IPv4 address written as IPv6 (::ffff:192.0.2.1) is the same
	// client, and must match IPv4 prefixes.
	return a.WithZone("").Unmap()
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	if !a.IsValid() {
		return false
	}
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// key is what the per-client cap counts: an IPv4 address, or an
// IPv6 address's /64, since one host is routinely given a whole /64 and
// could otherwise open each stream from a new address.
func key(a netip.Addr) netip.Prefix {
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p
	}
	p, _ := a.Prefix(a.BitLen()) // the zero Addr gives the zero Prefix
	return p
}
