package catalogue

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/catalogue-gateway/gateway/contentcoding"
)

// countingBody returns a body of raw whose compressions are counted per
// encoding.
func countingBody(raw []byte) (*Body, *[contentcoding.NumEncodings]atomic.Int32) {
	var n [contentcoding.NumEncodings]atomic.Int32
	b := newBody(raw)
	b.compress = func(e contentcoding.Encoding, raw []byte) ([]byte, error) {
		n[e].Add(1)
		return contentcoding.Compress(e, raw)
	}
	return b, &n
}

// TestBodyInIsWhatEagerCompressionMade checks that a representation made on
// first request is byte for byte what compressing the body up front made
// (contentcoding.Compress is deterministic), with the same ETag, so that
// replicas and restarts still agree on bytes and tags.
func TestBodyInIsWhatEagerCompressionMade(t *testing.T) {
	for _, c := range []Collection{Items, WorldBosses, EventChests} {
		raw, err := EmbeddedBody(c)
		if err != nil {
			t.Fatal(err)
		}
		b := newBody(raw)
		for e := range contentcoding.NumEncodings {
			t.Run(c.String()+"/"+e.Token(), func(t *testing.T) {
				want, err := contentcoding.Compress(e, raw)
				if err != nil {
					t.Fatal(err)
				}
				got := b.In(e)
				if !bytes.Equal(got.Bytes, want) {
					t.Errorf("In(%s): %d bytes, not the %d contentcoding.Compress makes", e.Token(), len(got.Bytes), len(want))
				}
				if got.Encoding != e {
					t.Errorf("In(%s).Encoding = %s", e.Token(), got.Encoding.Token())
				}
				if tag := contentcoding.ETag(etagBase(raw), e, contentcoding.Dense); got.ETag != tag {
					t.Errorf("In(%s).ETag = %s, want %s", e.Token(), got.ETag, tag)
				}
			})
		}
	}
}

// TestBodyCompressesOnceOnDemand checks that decoding compresses nothing,
// that the first requests for an encoding, arriving together, compress it
// once and all get the same bytes, and that later requests reuse them.
func TestBodyCompressesOnceOnDemand(t *testing.T) {
	raw, err := EmbeddedBody(Monsters)
	if err != nil {
		t.Fatal(err)
	}
	b, n := countingBody(raw)
	for e := range contentcoding.NumEncodings {
		if got := n[e].Load(); got != 0 {
			t.Fatalf("%s compressed %d times before anyone asked", e.Token(), got)
		}
	}

	const callers = 16
	var got [contentcoding.NumEncodings][callers][]byte
	start := make(chan struct{})
	var wg sync.WaitGroup
	for e := range contentcoding.NumEncodings {
		for i := range callers {
			wg.Go(func() {
				<-start
				got[e][i] = b.In(e).Bytes
			})
		}
	}
	close(start)
	wg.Wait()
	for range 3 {
		for e := range contentcoding.NumEncodings {
			if again := b.In(e).Bytes; &again[0] != &got[e][0][0] {
				t.Errorf("a later In(%s) returned other bytes than the first", e.Token())
			}
		}
	}

	if got := n[contentcoding.Identity].Load(); got != 0 {
		t.Errorf("identity compressed %d times, want never", got)
	}
	for e := contentcoding.Gzip; e < contentcoding.NumEncodings; e++ {
		if got := n[e].Load(); got != 1 {
			t.Errorf("%s compressed %d times by %d concurrent first requests and 3 later ones, want once", e.Token(), got, callers)
		}
		for i := 1; i < callers; i++ {
			if &got[e][i][0] != &got[e][0][0] {
				t.Errorf("concurrent In(%s) calls got different copies", e.Token())
				break
			}
		}
	}
}

// TestBodyServesIdentityIfCompressionFails checks the fallback In documents:
// a body that cannot be compressed is still served, uncompressed and
// tagged as such, never as empty bytes under a compressed encoding.
func TestBodyServesIdentityIfCompressionFails(t *testing.T) {
	raw := []byte(`[{"results":[]}]`)
	b := newBody(raw)
	b.compress = func(contentcoding.Encoding, []byte) ([]byte, error) { return nil, errors.New("no") }
	got := b.In(contentcoding.Brotli)
	if got.Encoding != contentcoding.Identity || !bytes.Equal(got.Bytes, raw) || got.ETag != b.ETag() {
		t.Errorf("In(br) after a failed compression = %s, %q, %s; want identity, the raw bytes, %s",
			got.Encoding.Token(), got.Bytes, got.ETag, b.ETag())
	}
}
