// Package contentcoding keeps HTTP response bodies in the content codings
// clients ask for (gzip, br, zstd), compressed once and served many times,
// and answers the two questions every such response asks: which coding a
// request accepts, and whether its If-None-Match names what it would get.
//
// The REST paths compress each upstream body once per encoding, when a
// client first asks for it, and keep it while the body is served; the
// GraphQL endpoint compresses each cached answer once per entry.
package contentcoding

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

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

// Compression settings. They are fixed, not tuned per run, so that replicas
// produce the same compressed bytes. Every body is compressed once and
// served many times, so these favour small output: brotli above 7 and
// zstd's best level cost several times the time for 1–3% fewer bytes.
const (
	gzipLevel   = gzip.BestCompression
	brotliLevel = 6
	zstdLevel   = zstd.SpeedBetterCompression
	// zstdWindow bounds the encoder's memory and the decoder's window; a
	// catalogue body fits in it many times over.
	zstdWindow = 2 << 20
)

// Compress returns raw in encoding e; raw itself for Identity.
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
		if _, err := w.Write(raw); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
	case Brotli:
		w := brotli.NewWriterLevel(&buf, brotliLevel)
		if _, err := w.Write(raw); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
	case Zstd:
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstdLevel), zstd.WithEncoderConcurrency(1),
			zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(zstdWindow))
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

// serverPreference orders the compressed encodings when a client accepts
// several with the same weight: brotli is the smallest on the wire, zstd
// the quickest to decode.
var serverPreference = [...]Encoding{Brotli, Zstd, Gzip}

// Negotiate picks the encoding to answer an Accept-Encoding header with:
// the acceptable compressed encoding of highest weight, else identity.
func Negotiate(header string) Encoding {
	if header == "" {
		return Identity
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
	best, bestQ := Identity, 0.0
	for _, e := range serverPreference {
		w := named[e]
		if !w.set {
			w = wildcard
		}
		if w.q > bestQ {
			best, bestQ = e, w.q
		}
	}
	return best
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

// ETag returns the strong ETag of a body in encoding e, from base, the part
// derived from the body's identity bytes. Each encoding has a tag of its
// own, as strong validators must.
func ETag(base string, e Encoding) string {
	if e == Identity {
		return `"` + base + `"`
	}
	return `"` + base + "-" + e.Token() + `"`
}
