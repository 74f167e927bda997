package catalogue

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
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
// the REST paths serve. The encodings are made once, when the body arrives,
// never per request.
type Body struct {
	reps [contentcoding.NumEncodings]Representation
}

// etagBase is the part of every ETag of a body that derives from its bytes.
func etagBase(raw []byte) string {
	sum := sha256.Sum256(raw)
	return base64.RawURLEncoding.EncodeToString(sum[:18])
}

// newETag returns the identity ETag a body of these bytes has.
func newETag(raw []byte) string { return contentcoding.ETag(etagBase(raw), contentcoding.Identity) }

// newBody keeps raw and makes its compressed representations.
func newBody(raw []byte) (*Body, error) {
	tag := etagBase(raw)
	b := &Body{}
	b.reps[contentcoding.Identity] = Representation{Encoding: contentcoding.Identity, Bytes: raw, ETag: contentcoding.ETag(tag, contentcoding.Identity)}

	var wg sync.WaitGroup
	var errs [contentcoding.NumEncodings]error
	for e := contentcoding.Gzip; e < contentcoding.NumEncodings; e++ {
		wg.Go(func() {
			z, err := contentcoding.Compress(e, raw)
			if err != nil {
				errs[e] = fmt.Errorf("compressing with %s: %w", e.Token(), err)
				return
			}
			b.reps[e] = Representation{Encoding: e, Bytes: z, ETag: contentcoding.ETag(tag, e)}
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

// Raw returns the upstream's bytes. The caller must not change them.
func (b *Body) Raw() []byte { return b.reps[contentcoding.Identity].Bytes }

// ETag returns the strong ETag of the upstream bytes.
func (b *Body) ETag() string { return b.reps[contentcoding.Identity].ETag }

// In returns the body in encoding e.
func (b *Body) In(e contentcoding.Encoding) Representation { return b.reps[e] }
