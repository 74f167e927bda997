package catalogue

import (
	"crypto/sha256"
	"encoding/base64"
	"sync"

	"github.com/catalogue-gateway/gateway/contentcoding"
)

// Representation is a body in one encoding, with its strong ETag.
type Representation struct {
	Encoding contentcoding.Encoding
	Bytes    []byte
	// ETag is a quoted strong entity tag derived from the upstream bytes
	// alone, so every replica holding the same body gives the same tag.
	// Each encoding has a tag of its own, as strong validators must.
	ETag string
}

// Body is one upstream response body, kept byte for byte, in every encoding
// the REST paths serve. A compressed encoding is made the first time it is
// asked for, once however many ask at the same time, and kept for the
// body's life: never per request. Making all three up front cost most of
// the start-up time and three compressed copies of every body, most of
// which no client asks for (bench/memory.sh; README, Speed).
type Body struct {
	base string // the part of every ETag derived from the bytes
	reps [contentcoding.NumEncodings]lazyRep
	// compress makes an encoding: contentcoding.Compress, or a test's
	// counting stand-in.
	compress func(contentcoding.Encoding, []byte) ([]byte, error)
}

type lazyRep struct {
	once sync.Once
	rep  Representation
}

// etagBase is the part of every ETag of a body that derives from its bytes.
func etagBase(raw []byte) string {
	sum := sha256.Sum256(raw)
	return base64.RawURLEncoding.EncodeToString(sum[:18])
}

// newETag returns the identity ETag a body of these bytes has.
func newETag(raw []byte) string {
	return contentcoding.ETag(etagBase(raw), contentcoding.Identity, contentcoding.Dense)
}

// newBody keeps raw; its compressed representations are made on demand.
func newBody(raw []byte) *Body {
	b := &Body{base: etagBase(raw), compress: contentcoding.Compress}
	id := &b.reps[contentcoding.Identity]
	id.rep = Representation{Encoding: contentcoding.Identity, Bytes: raw, ETag: contentcoding.ETag(b.base, contentcoding.Identity, contentcoding.Dense)}
	id.once.Do(func() {})
	return b
}

// Raw returns the upstream's bytes. The caller must not change them.
func (b *Body) Raw() []byte { return b.reps[contentcoding.Identity].rep.Bytes }

// ETag returns the strong ETag of the upstream bytes.
func (b *Body) ETag() string { return b.reps[contentcoding.Identity].rep.ETag }

// In returns the body in encoding e. The first call for an encoding
// compresses the body (tens of milliseconds for a large one) and every
// later call returns the same bytes; calls at the same time wait for the
// one compressing. Compressing in memory does not fail with the fixed
// settings contentcoding uses; if it ever did, the body is served in
// identity, which every client accepts, rather than not at all.
func (b *Body) In(e contentcoding.Encoding) Representation {
	r := &b.reps[e]
	r.once.Do(func() {
		raw := b.Raw()
		z, err := b.compress(e, raw)
		if err != nil {
			r.rep = b.reps[contentcoding.Identity].rep
			return
		}
		r.rep = Representation{Encoding: e, Bytes: z, ETag: contentcoding.ETag(b.base, e, contentcoding.Dense)}
	})
	return r.rep
}
