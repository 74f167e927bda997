package catalogue

import (
	"embed"
	"fmt"
	"sync"
)

//go:generate go run ./gen -out embedded

// embedded is the default catalogue, served when no upstream is configured.
// It is written by the generator in ./gen, the way a real upstream writes its
// bodies, and committed.
//
//go:embed embedded/*.json
var embedded embed.FS

// Embedded decodes the catalogue shipped in the binary.
func Embedded() (*Snapshot, error) {
	parts := make([]*Part, NumCollections)
	errs := make([]error, NumCollections)
	var wg sync.WaitGroup
	for c := range NumCollections {
		wg.Go(func() {
			raw, err := EmbeddedBody(c)
			if err != nil {
				errs[c] = err
				return
			}
			parts[c], errs[c] = Decode(c, raw)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("loading the embedded catalogue: %w", err)
		}
	}
	return NewSnapshot(parts...), nil
}

// EmbeddedBody returns the embedded catalogue's body of collection c, as an
// upstream would serve it.
func EmbeddedBody(c Collection) ([]byte, error) {
	raw, err := embedded.ReadFile("embedded/" + c.String() + ".json")
	if err != nil {
		return nil, fmt.Errorf("reading embedded %s: %w", c, err)
	}
	return raw, nil
}
