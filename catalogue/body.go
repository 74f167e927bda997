package catalogue

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Encoding is a content coding a body is kept in.
type Encoding uint8

// The encodings every body is kept in. Identity is the upstream's own bytes.
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

// Representation is a body in one encoding, with its strong ETag.
type Representation struct {
	Encoding Encoding
	Bytes    []byte
	// ETag is a quoted strong entity tag derived from the upstream bytes
	// alone, so every replica holding the same body gives the same tag.
	// Each encoding has a tag of its own, as strong validators must.
	ETag string
}

// Body is one upstream response body, kept byte for byte, in every encoding
// the REST paths serve. The encodings are made once, when the body arrives,
// never per request.
type Body struct {
	reps [NumEncodings]Representation
}

// Compression settings. They are fixed, not tuned per run, so that replicas
// produce the same compressed bytes. A body is compressed once per change
// of the upstream data, but start-up waits for it too: these are the
// smallest outputs that keep the embedded catalogue's start-up well under a
// second on two cores (measured in the README). Brotli above 7 and zstd's
// best level cost several times the time for 1–3% fewer bytes.
const (
	gzipLevel   = gzip.BestCompression
	brotliLevel = 6
	zstdLevel   = zstd.SpeedBetterCompression
	// zstdWindow bounds the encoder's memory and the decoder's window; a
	// catalogue body fits in it many times over.
	zstdWindow = 2 << 20
)

// etagBase is the part of every ETag of a body that derives from its bytes.
func etagBase(raw []byte) string {
	sum := sha256.Sum256(raw)
	return base64.RawURLEncoding.EncodeToString(sum[:18])
}

// newETag returns the identity ETag a body of these bytes has.
func newETag(raw []byte) string { return `"` + etagBase(raw) + `"` }

// newBody keeps raw and makes its compressed representations.
func newBody(raw []byte) (*Body, error) {
	tag := etagBase(raw)
	b := &Body{}
	b.reps[Identity] = Representation{Encoding: Identity, Bytes: raw, ETag: `"` + tag + `"`}

	var wg sync.WaitGroup
	var errs [NumEncodings]error
	for e := Gzip; e < NumEncodings; e++ {
		wg.Go(func() {
			z, err := compress(e, raw)
			if err != nil {
				errs[e] = fmt.Errorf("compressing with %s: %w", e.Token(), err)
				return
			}
			b.reps[e] = Representation{Encoding: e, Bytes: z, ETag: `"` + tag + "-" + e.Token() + `"`}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

func compress(e Encoding, raw []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(raw) / 4)
	switch e {
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

// Raw returns the upstream's bytes. The caller must not change them.
func (b *Body) Raw() []byte { return b.reps[Identity].Bytes }

// ETag returns the strong ETag of the upstream bytes.
func (b *Body) ETag() string { return b.reps[Identity].ETag }

// In returns the body in encoding e.
func (b *Body) In(e Encoding) Representation { return b.reps[e] }
