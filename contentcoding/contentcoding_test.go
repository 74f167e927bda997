package contentcoding_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/catalogue-gateway/gateway/contentcoding"
)

func TestNegotiate(t *testing.T) {
	for _, tt := range []struct {
		header string
		want   contentcoding.Encoding
	}{
		{"", contentcoding.Identity},
		{"identity", contentcoding.Identity},
		{"gzip", contentcoding.Gzip},
		{"x-gzip", contentcoding.Gzip},
		{"gzip, deflate, br, zstd", contentcoding.Brotli},
		{"gzip, zstd", contentcoding.Zstd},
		{"br;q=0.5, gzip", contentcoding.Gzip},
		{"GZIP;Q=0.9", contentcoding.Gzip},
		{"*", contentcoding.Brotli},
		{"*;q=0, gzip", contentcoding.Gzip},
		{"gzip;q=0", contentcoding.Identity},
		{"deflate", contentcoding.Identity},
		{"br;q=0, *;q=0.1", contentcoding.Zstd},
	} {
		if got := contentcoding.Negotiate(tt.header); got != tt.want {
			t.Errorf("Negotiate(%q) = %s, want %s", tt.header, got.Token(), tt.want.Token())
		}
	}
}

func TestNoneMatch(t *testing.T) {
	const tag = `"abc"`
	for _, tt := range []struct {
		header string
		want   bool
	}{
		{`"abc"`, true},
		{`W/"abc"`, true},
		{`"x", "abc"`, true},
		{`*`, true},
		{`"abc-gzip"`, false},
		{`"ab"`, false},
		{`abc`, false},
	} {
		if got := contentcoding.NoneMatch(tt.header, tag); got != tt.want {
			t.Errorf("NoneMatch(%q, %s) = %t, want %t", tt.header, tag, got, tt.want)
		}
	}
	if a, b := contentcoding.ETag("base", contentcoding.Identity), contentcoding.ETag("base", contentcoding.Gzip); a == b {
		t.Errorf("identity and gzip share the ETag %s", a)
	}
}

func TestCompressRoundTrip(t *testing.T) {
	raw := []byte(strings.Repeat(`{"id":1,"name":"Bronze Bar & Co <>"},`, 500))
	for e := contentcoding.Identity; e < contentcoding.NumEncodings; e++ {
		z, err := contentcoding.Compress(e, raw)
		if err != nil {
			t.Fatalf("%s: %v", e.Token(), err)
		}
		var r io.Reader
		switch e {
		case contentcoding.Identity:
			r = bytes.NewReader(z)
		case contentcoding.Gzip:
			if r, err = gzip.NewReader(bytes.NewReader(z)); err != nil {
				t.Fatal(err)
			}
		case contentcoding.Brotli:
			r = brotli.NewReader(bytes.NewReader(z))
		case contentcoding.Zstd:
			d, err := zstd.NewReader(bytes.NewReader(z))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			r = d
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, raw) {
			t.Errorf("%s: round trip gave %d bytes (%v), want the %d bytes in", e.Token(), len(got), err, len(raw))
		}
		if e != contentcoding.Identity && len(z) >= len(raw)/4 {
			t.Errorf("%s: %d bytes from %d; want it compressed", e.Token(), len(z), len(raw))
		}
		again, _ := contentcoding.Compress(e, raw)
		if !bytes.Equal(again, z) {
			t.Errorf("%s: two compressions of the same bytes differ; replicas would disagree", e.Token())
		}
	}
}
