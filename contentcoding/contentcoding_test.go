package contentcoding_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	if a, b := contentcoding.ETag("base", contentcoding.Identity, contentcoding.Dense), contentcoding.ETag("base", contentcoding.Gzip, contentcoding.Dense); a == b {
		t.Errorf("identity and gzip share the ETag %s", a)
	}
}

func TestNegotiateByEffort(t *testing.T) {
	const (
		id   = contentcoding.Identity
		gz   = contentcoding.Gzip
		br   = contentcoding.Brotli
		zstd = contentcoding.Zstd
	)
	for _, tt := range []struct {
		header      string
		dense, fast contentcoding.Encoding
	}{
		{"", id, id},
		{"gzip, deflate, br, zstd", br, zstd}, // Chrome's, Firefox's
		{"gzip, deflate, br", br, gz},         // Safari's
		{"br", br, br},
		{"gzip", gz, gz},
		{"zstd;q=0.5, gzip", gz, gz},
		{"br;q=0.9, zstd;q=0.8", br, br},
		{"*", br, zstd},
		{"zstd;q=0, *", br, gz},
	} {
		a := contentcoding.ParseAccept(tt.header)
		if got := a.Best(contentcoding.Dense); got != tt.dense {
			t.Errorf("%q, dense: %s, want %s", tt.header, got.Token(), tt.dense.Token())
		}
		if got := a.Best(contentcoding.Fast); got != tt.fast {
			t.Errorf("%q, fast: %s, want %s", tt.header, got.Token(), tt.fast.Token())
		}
	}
}

func TestETagNamesEncodingAndEffort(t *testing.T) {
	seen := map[string]string{}
	for e := contentcoding.Identity; e < contentcoding.NumEncodings; e++ {
		for _, effort := range []contentcoding.Effort{contentcoding.Dense, contentcoding.Fast} {
			tag := contentcoding.ETag("base", e, effort)
			name := fmt.Sprintf("%s at effort %d", e.Token(), effort)
			if e == contentcoding.Identity && effort == contentcoding.Fast {
				if tag != contentcoding.ETag("base", e, contentcoding.Dense) {
					t.Errorf("identity has two tags: %s", tag)
				}
				continue
			}
			if other, ok := seen[tag]; ok {
				t.Errorf("%s and %s share the ETag %s", name, other, tag)
			}
			seen[tag] = name
		}
	}
}

func decode(t *testing.T, e contentcoding.Encoding, z []byte) []byte {
	t.Helper()
	var r io.Reader
	var err error
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
	if err != nil {
		t.Fatalf("%s: %v", e.Token(), err)
	}
	return got
}

// compressors are the ways to compress: once, or with a Compressor at
// each effort.
var compressors = map[string]func(contentcoding.Encoding, []byte) ([]byte, error){
	"once": contentcoding.Compress,
	"dense": func(e contentcoding.Encoding, raw []byte) ([]byte, error) {
		return contentcoding.NewCompressor().Compress(contentcoding.Dense, e, raw)
	},
	"fast": func(e contentcoding.Encoding, raw []byte) ([]byte, error) {
		return contentcoding.NewCompressor().Compress(contentcoding.Fast, e, raw)
	},
}

func TestCompressRoundTrip(t *testing.T) {
	raw := []byte(strings.Repeat(`{"id":1,"name":"Bronze Bar & Co <>"},`, 500))
	for name, compress := range compressors {
		for e := contentcoding.Identity; e < contentcoding.NumEncodings; e++ {
			z, err := compress(e, raw)
			if err != nil {
				t.Fatalf("%s %s: %v", name, e.Token(), err)
			}
			if got := decode(t, e, z); !bytes.Equal(got, raw) {
				t.Errorf("%s %s: round trip gave %d bytes, want the %d bytes in", name, e.Token(), len(got), len(raw))
			}
			if e != contentcoding.Identity && len(z) >= len(raw)/4 {
				t.Errorf("%s %s: %d bytes from %d; want it compressed", name, e.Token(), len(z), len(raw))
			}
			again, _ := compress(e, raw)
			if !bytes.Equal(again, z) {
				t.Errorf("%s %s: two compressions of the same bytes differ; replicas would disagree", name, e.Token())
			}
		}
	}
}

// TestCompressorReusesEncoders: a Compressor's encoders, taken by many
// calls at once and reused, give each call the bytes a new one gives
// (what one call leaves in an encoder never reaches the next), and its
// dense bytes are Compress's: every replica, and every path, gives the
// same bytes under one ETag.
func TestCompressorReusesEncoders(t *testing.T) {
	inputs := make([][]byte, 8)
	for i := range inputs {
		inputs[i] = []byte(strings.Repeat(fmt.Sprintf(`{"id":%d,"name":"Item %d"},`, i, i*7), 40+i*30))
	}
	shared := contentcoding.NewCompressor()
	for _, effort := range []contentcoding.Effort{contentcoding.Dense, contentcoding.Fast} {
		for e := contentcoding.Gzip; e < contentcoding.NumEncodings; e++ {
			want := make([][]byte, len(inputs))
			for i, raw := range inputs {
				want[i], _ = contentcoding.NewCompressor().Compress(effort, e, raw)
				if once, _ := contentcoding.Compress(e, raw); effort == contentcoding.Dense && !bytes.Equal(once, want[i]) {
					t.Errorf("%s, input %d: a Compressor's dense bytes are not Compress's", e.Token(), i)
				}
			}
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					for round := range 3 {
						for i, raw := range inputs {
							got, err := shared.Compress(effort, e, raw)
							if err != nil || !bytes.Equal(got, want[i]) {
								t.Errorf("%s at effort %d, input %d, round %d: %d bytes (%v), want the %d a new compressor gives",
									e.Token(), effort, i, round, len(got), err, len(want[i]))
								return
							}
						}
					}
				})
			}
			wg.Wait()
		}
	}
}

// BenchmarkCompress compresses two of the gateway's answers over the
// embedded catalogue (testdata/): a monster's page (2.9 KB, `{ monster(id:
// 42) { id name drops { itemId item { id name rarity droppedByMonsters {
// id name } } } } }`) and Q2 of docs/speed.md, 100 monsters with their
// drops' items (38 KB), in each encoding at each effort, and reports the
// bytes out: once (Compress, a new encoder each time, as the REST bodies
// are), and with a Compressor at each effort. docs/speed.md
// ("Compression") has the figures.
func BenchmarkCompress(b *testing.B) {
	c := contentcoding.NewCompressor()
	for _, name := range []string{"monster", "monsters"} {
		raw, err := os.ReadFile(filepath.Join("testdata", name+".json"))
		if err != nil {
			b.Fatal(err)
		}
		for e := contentcoding.Gzip; e < contentcoding.NumEncodings; e++ {
			for _, effort := range []struct {
				name     string
				compress func(contentcoding.Encoding, []byte) ([]byte, error)
			}{
				{"once", contentcoding.Compress},
				{"dense", func(e contentcoding.Encoding, raw []byte) ([]byte, error) {
					return c.Compress(contentcoding.Dense, e, raw)
				}},
				{"fast", func(e contentcoding.Encoding, raw []byte) ([]byte, error) {
					return c.Compress(contentcoding.Fast, e, raw)
				}},
			} {
				b.Run(fmt.Sprintf("%s/%s/%s", name, e.Token(), effort.name), func(b *testing.B) {
					var out []byte
					for b.Loop() {
						out, _ = effort.compress(e, raw)
					}
					b.ReportMetric(float64(len(out)), "bytes")
				})
			}
		}
	}
}
