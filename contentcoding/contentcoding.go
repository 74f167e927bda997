// Package contentcoding keeps HTTP response bodies in the content codings
// clients ask for (gzip, br, zstd) and answers the two questions every such
// response asks: which coding a request accepts, and whether its
// If-None-Match names what it would get.
//
// A body is compressed with one of two efforts, priced by how often it is
// served. Dense is for a body compressed once and served many times: the
// REST paths' upstream bodies, the schema, the web apps, and a cached
// GraphQL answer asked for again. Fast is for an answer made for one
// request, where compressing is most of the request's cost: fast levels,
// with encoders reused across calls (Compressor). Each effort gives its own bytes,
// so each has its own ETag.
//
// It imports nothing of the gateway's.
package contentcoding

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Encoding is a content coding a body is kept in.
type Encoding uint8

// The encodings a body is kept in. Identity is the body's own bytes.
const (
	Identity Encoding = iota
	Gzip
	Brotli
	Zstd

	// NumEncodings is the number of encodings; ranging over it yields each.
	NumEncodings
)

// Token returns the encoding's name in Accept-Encoding and Content-Encoding
// headers; "identity" for Identity.
func (e Encoding) Token() string {
	switch e {
	case Gzip:
		return "gzip"
	case Brotli:
		return "br"
	case Zstd:
		return "zstd"
	}
	return "identity"
}

// Effort is how hard a body is compressed, which decides its bytes: each
// effort's variant has an ETag of its own.
type Effort uint8

const (
	// Dense is for a body compressed once and served many times: small
	// output first.
	Dense Effort = iota
	// Fast is for an answer made for one request: quick first.
	Fast
)

// Dense settings. They are fixed, not tuned per run, so that replicas
// produce the same compressed bytes. brotli above 7 and zstd's best level
// cost several times the time for 1–3% fewer bytes.
const (
	gzipLevel   = gzip.BestCompression
	brotliLevel = 6
	zstdLevel   = zstd.SpeedBetterCompression
	// zstdWindow bounds the encoder's memory and the decoder's window; a
	// catalogue body fits in it many times over.
	zstdWindow = 2 << 20
)

// Compress returns raw in encoding e, densely; raw itself for Identity.
// It is for a body compressed once; a Compressor keeps its encoders for
// many.
func Compress(e Encoding, raw []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(raw) / 4)
	switch e {
	case Identity:
		return raw, nil
	case Gzip:
		w, err := gzip.NewWriterLevel(&buf, gzipLevel)
		if err != nil {
			return nil, err
		}
		if err := writeAll(w, raw); err != nil {
			return nil, err
		}
	case Brotli:
		if err := writeAll(brotli.NewWriterLevel(&buf, brotliLevel), raw); err != nil {
			return nil, err
		}
	case Zstd:
		enc, err := zstd.NewWriter(nil, append(zstdOptions(Dense), zstd.WithEncoderConcurrency(1))...)
		if err != nil {
			return nil, err
		}
		defer enc.Close()
		return enc.EncodeAll(raw, nil), nil
	default:
		return nil, fmt.Errorf("unknown encoding %d", e)
	}
	return buf.Bytes(), nil
}

// preference orders the compressed encodings, for each effort, when a
// client accepts several with the same weight.
//
// Dense: brotli is the smallest on the wire (2–6% under zstd's and gzip's
// best on our answers), and its cost is paid once per body.
//
// Fast: zstd at its fastest level is the quickest per byte saved, and the
// quickest to decode; gzip at level 1 costs about the same on a small
// answer for 1–10% more bytes; brotli's fastest levels (andybalholm's, in
// Go) take 1.5–2x zstd's time for no smaller output. So a browser that
// offers all three gets zstd, and one that offers gzip and br (Safari)
// gets gzip. (docs/speed.md, "Compression", has the figures.)
var preference = [...][3]Encoding{
	Dense: {Brotli, Zstd, Gzip},
	Fast:  {Zstd, Gzip, Brotli},
}

// Accept is what an Accept-Encoding header accepts: a weight for each
// encoding. Parse the header once with ParseAccept, then ask Best for each
// effort.
type Accept struct {
	q [NumEncodings]float64
}

// ParseAccept reads an Accept-Encoding header. An empty header accepts
// identity alone.
func ParseAccept(header string) Accept {
	var a Accept
	if header == "" {
		return a
	}
	type weight struct {
		q   float64
		set bool
	}
	var named [NumEncodings]weight
	var wildcard weight
	for part := range strings.SplitSeq(header, ",") {
		token, params, _ := strings.Cut(part, ";")
		w := weight{q: 1, set: true}
		for p := range strings.SplitSeq(params, ";") {
			k, v, ok := strings.Cut(p, "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					w.q = f
				}
			}
		}
		switch token = strings.ToLower(strings.TrimSpace(token)); token {
		case "*":
			wildcard = w
		case "gzip", "x-gzip":
			named[Gzip] = w
		case "br":
			named[Brotli] = w
		case "zstd":
			named[Zstd] = w
		}
	}
	for e := Gzip; e < NumEncodings; e++ {
		w := named[e]
		if !w.set {
			w = wildcard
		}
		a.q[e] = w.q
	}
	return a
}

// Best picks the encoding to answer with at effort: the acceptable
// compressed encoding of highest weight, on a tie the one the effort
// prefers, else identity.
func (a Accept) Best(effort Effort) Encoding {
	best, bestQ := Identity, 0.0
	for _, e := range preference[effort] {
		if a.q[e] > bestQ {
			best, bestQ = e, a.q[e]
		}
	}
	return best
}

// Negotiate picks the encoding to answer an Accept-Encoding header with,
// for a body compressed densely: ParseAccept(header).Best(Dense).
func Negotiate(header string) Encoding {
	return ParseAccept(header).Best(Dense)
}

// NoneMatch reports whether an If-None-Match header names etag, the tag of
// the representation selected for the request (or is "*"), so that the
// answer is 304 Not Modified. If-None-Match compares weakly (RFC 9110,
// 13.1.2), so a W/ prefix is ignored.
//
// A tag of the body in another encoding is not a match: a 304 tells a cache
// to reuse its stored response with the 304's ETag (RFC 9111, 4.3.4), and
// that is the selected representation's tag, which the request did not name.
func NoneMatch(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" {
			return true
		}
		if strings.TrimPrefix(tag, "W/") == etag {
			return true
		}
	}
	return false
}

// ETag returns the strong ETag of a body in encoding e, compressed with
// effort, from base, the part derived from the body's identity bytes. Each
// encoding and effort has a tag of its own, as strong validators must;
// identity has one whatever the effort.
func ETag(base string, e Encoding, effort Effort) string {
	switch {
	case e == Identity:
		return `"` + base + `"`
	case effort == Fast:
		return `"` + base + "-" + e.Token() + `-fast"`
	}
	return `"` + base + "-" + e.Token() + `"`
}

// NotModified reports whether a GET or HEAD with header h may be answered
// 304 for a representation tagged etag and last changed at modified (zero:
// not known), as RFC 9110 section 13.2.2 orders the conditions:
// If-None-Match when the request has one, else If-Modified-Since, which
// holds when the representation has not changed since the date it gives.
func NotModified(h http.Header, etag string, modified time.Time) bool {
	if inm := h.Get("If-None-Match"); inm != "" {
		return NoneMatch(inm, etag)
	}
	ims := h.Get("If-Modified-Since")
	if ims == "" || modified.IsZero() {
		return false
	}
	since, err := http.ParseTime(ims)
	return err == nil && !modified.Truncate(time.Second).After(since)
}
