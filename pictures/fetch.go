package pictures

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// FetchOutcomes are the outcomes PictureFetched counts: ok, or why the
// picture was refused: bad_address (not http or https, no host,
// credentials, too long), refused_address (a non-public address, or a
// port other than 80 and 443, dialled, the redirect's included), redirect (too many, or to another scheme),
// timeout, connection, status (not 200), not_image (a type that is not
// an allowed image's, declared or sniffed, or the two disagreeing),
// too_large, read; or canceled: every request waiting for it left first
// (not remembered: the address may be only slow).
var FetchOutcomes = []string{"ok", "bad_address", "refused_address", "redirect", "timeout", "connection", "status", "not_image", "too_large", "read", "canceled"}

var (
	errRefusedAddress = errors.New("refused: not a public address")
	errRedirect       = errors.New("refused redirect")
)

// imageTypes are the types served, by media type. SVG is not one: a
// picture of the gateway's own origin that is a document could carry
// script.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/avif": true}

// newClient is the client of the fetches: no proxy from the environment
// (a proxy would dial for us, past the check), every address and port
// dialled checked by allow (publicTarget; nil allows all), at most 3
// redirects, each to http or https.
func newClient(timeout time.Duration, allow func(netip.AddrPort) bool) *http.Client {
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	if allow != nil {
		dialer.Control = dialControl(allow)
	}
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                  nil,
			DialContext:            dialer.DialContext,
			ForceAttemptHTTP2:      true,
			TLSHandshakeTimeout:    timeout,
			ResponseHeaderTimeout:  timeout,
			MaxResponseHeaderBytes: 64 << 10,
			MaxIdleConns:           32,
			MaxIdleConnsPerHost:    4,
			IdleConnTimeout:        90 * time.Second,
			// A picture is compressed already; asking for gzip would
			// only let a small body inflate past what was counted.
			DisableCompression: true,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > 3 {
				return fmt.Errorf("%w: more than 3", errRedirect)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("%w: to scheme %q", errRedirect, req.URL.Scheme)
			}
			return nil
		},
	}
}

// dialControl is the dialer's Control: it runs on the address about to
// be dialled, after the name is resolved, so no name (nor a redirect, nor
// a name that resolves differently the second time) reaches an address
// allow refuses.
func dialControl(allow func(netip.AddrPort) bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %q", errRefusedAddress, address)
		}
		if !allow(ap) {
			return fmt.Errorf("%w: %s", errRefusedAddress, ap)
		}
		return nil
	}
}

// publicTarget reports whether a picture may be fetched from ap without
// -images-allow-private: a public address (IsPublic), on the web's own
// ports, 80 or 443. A catalogue's pictures are on a web server; any other
// port on a public host (a mail server's, a database's) is not one, and
// a request there is the gateway speaking for a caller to a service that
// trusts where it comes from.
func publicTarget(ap netip.AddrPort) bool {
	return (ap.Port() == 80 || ap.Port() == 443) && IsPublic(ap.Addr())
}

// notPublic are the ranges beyond netip's own tests that no public
// picture is at, from IANA's special-purpose address registries (IPv4
// and IPv6) and the deprecated ranges they no longer list: this network,
// shared (carrier-grade NAT), IETF protocol assignments, the 6to4 relay
// anycast, the documentation ranges, benchmarking, reserved and
// broadcast; IPv6's discard-only, local-use NAT64, Teredo (whose IPv4
// address is obfuscated), benchmarking, ORCHID, documentation (old and
// new), the deprecated site-local and the segment routing SIDs.
var notPublic = func() []netip.Prefix {
	var ps []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.88.99.0/24", "192.0.2.0/24", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32",
		"100::/64", "64:ff9b:1::/48", "2001::/32", "2001:2::/48", "2001:10::/28", "2001:20::/28",
		"2001:db8::/32", "3fff::/20", "fec0::/10", "5f00::/16",
	} {
		ps = append(ps, netip.MustParsePrefix(s))
	}
	return ps
}()

// embedsIPv4 are the IPv6 ranges whose addresses carry an IPv4 address,
// at offset bytes in: IPv4-compatible (::a.b.c.d, deprecated but routed
// by some stacks to the IPv4 host), IPv4-translated (::ffff:0:a.b.c.d),
// NAT64's well-known prefix and 6to4. Such an address reaches its IPv4
// host, so it is public exactly when that host's address is: the gateway
// dialled [::7f00:1] (127.0.0.1) before this was checked. (IPv4-mapped
// addresses, ::ffff:a.b.c.d, are unmapped before anything else.)
var embedsIPv4 = []struct {
	prefix netip.Prefix
	offset int
}{
	{netip.MustParsePrefix("::/96"), 12},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), 12},
	{netip.MustParsePrefix("64:ff9b::/96"), 12},
	{netip.MustParsePrefix("2002::/16"), 2},
}

// IsPublic reports whether a is an address a picture may be fetched from
// without -images-allow-private: a global unicast address, not private
// (10/8, 172.16/12, 192.168/16, fc00::/7), loopback, link-local,
// multicast, unspecified, nor in notPublic. An IPv6 address that carries
// an IPv4 one (IPv4-mapped, -compatible or -translated, NAT64, 6to4) is
// judged as that IPv4 address.
func IsPublic(a netip.Addr) bool {
	a = a.Unmap()
	if a.Is6() {
		for _, e := range embedsIPv4 {
			if e.prefix.Contains(a) {
				b := a.As16()
				return IsPublic(netip.AddrFrom4([4]byte(b[e.offset : e.offset+4])))
			}
		}
	}
	if !a.IsValid() || !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() ||
		a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range notPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// fetch reads the picture at src, within the bounds, and returns it or
// why not (an outcome of FetchOutcomes, and the error).
func (s *Server) fetch(ctx context.Context, src string) (*picture, string, error) {
	u, err := url.Parse(src)
	switch {
	case err != nil:
		return nil, "bad_address", fmt.Errorf("reading the address: %w", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, "bad_address", fmt.Errorf("scheme %q: want http or https", u.Scheme)
	case u.Host == "":
		return nil, "bad_address", errors.New("no host")
	case u.User != nil:
		return nil, "bad_address", errors.New("an address with credentials")
	case len(src) > maxSourceBytes:
		return nil, "bad_address", fmt.Errorf("an address of %d bytes, over %d", len(src), maxSourceBytes)
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "bad_address", err
	}
	req.Header.Set("Accept", "image/avif,image/webp,image/png,image/jpeg,image/gif")
	if s.o.UserAgent != "" {
		req.Header.Set("User-Agent", s.o.UserAgent)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, failure(ctx, err), err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "status", fmt.Errorf("status %d", resp.StatusCode)
	}
	declared, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if !imageTypes[declared] {
		return nil, "not_image", fmt.Errorf("Content-Type %q is not an allowed image type", clip(resp.Header.Get("Content-Type"), 100))
	}
	if resp.ContentLength > s.o.MaxBytes {
		return nil, "too_large", fmt.Errorf("Content-Length %d, over %d", resp.ContentLength, s.o.MaxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, s.o.MaxBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, "timeout", fmt.Errorf("reading the body: %w", err)
		}
		return nil, "read", fmt.Errorf("reading the body: %w", err)
	}
	if int64(len(body)) > s.o.MaxBytes {
		return nil, "too_large", fmt.Errorf("a body over %d bytes", s.o.MaxBytes)
	}
	if sniffed := Sniff(body); sniffed != declared {
		return nil, "not_image", fmt.Errorf("declared %s, but the bytes are %q", declared, sniffed)
	}
	return newPicture(body, declared), "ok", nil
}

// failure is the outcome of an error from the client.
func failure(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, errRefusedAddress):
		return "refused_address"
	case errors.Is(err, errRedirect):
		return "redirect"
	case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	return "connection"
}

// Sniff names the image type of body by its first bytes: one of the
// allowed types, or "" for anything else (SVG, HTML, text included).
func Sniff(body []byte) string {
	switch {
	case bytes.HasPrefix(body, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(body, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(body, []byte("GIF87a")), bytes.HasPrefix(body, []byte("GIF89a")):
		return "image/gif"
	case len(body) >= 12 && string(body[:4]) == "RIFF" && string(body[8:12]) == "WEBP":
		return "image/webp"
	case len(body) >= 12 && string(body[4:8]) == "ftyp" && (string(body[8:12]) == "avif" || string(body[8:12]) == "avis"):
		return "image/avif"
	}
	return ""
}

// picture is a picture kept: its bytes, type and strong ETag.
type picture struct {
	body        []byte
	contentType string
	etag        string
}

// newPicture is body, of type contentType, with its ETag: the first 128
// bits of its SHA-256, the same on every replica.
func newPicture(body []byte, contentType string) *picture {
	sum := sha256.Sum256(body)
	return &picture{body: body, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
}
