package catalogue

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// DiskCache keeps the last good body of each collection, with its
// validators, in a directory, so that a restart while the upstream is down
// still serves, and a restart while it is up revalidates with a 304.
//
// Each collection is one file, <name>.cache: a JSON header line (the
// validators, the body's length and SHA-256), then the body's bytes. A file
// is written to a temporary name, synced and renamed into place, so a crash
// leaves the old file or the new one, never half of either; the checksum
// catches a file damaged any other way.
type DiskCache struct {
	Dir string
}

type cacheHeader struct {
	Validators
	Length int    `json:"length"`
	SHA256 string `json:"sha256"`
}

func (d DiskCache) path(c Collection) string { return filepath.Join(d.Dir, c.String()+".cache") }

// Save stores a good body of collection c and its validators.
func (d DiskCache) Save(c Collection, body []byte, v Validators) error {
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		return fmt.Errorf("saving %s to the disk cache: %w", c, err)
	}
	sum := sha256.Sum256(body)
	header, err := json.Marshal(cacheHeader{Validators: v, Length: len(body), SHA256: hex.EncodeToString(sum[:])})
	if err != nil {
		return fmt.Errorf("saving %s to the disk cache: %w", c, err)
	}
	tmp, err := os.CreateTemp(d.Dir, c.String()+".*.tmp")
	if err != nil {
		return fmt.Errorf("saving %s to the disk cache: %w", c, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, a no-op
	w := bufio.NewWriter(tmp)
	w.Write(header)
	w.WriteByte('\n')
	w.Write(body)
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("saving %s to the disk cache: %w", c, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("saving %s to the disk cache: %w", c, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("saving %s to the disk cache: %w", c, err)
	}
	if err := os.Rename(tmp.Name(), d.path(c)); err != nil {
		return fmt.Errorf("saving %s to the disk cache: %w", c, err)
	}
	// The rename is durable once the directory is synced.
	if dir, err := os.Open(d.Dir); err == nil {
		dir.Sync()
		dir.Close()
	}
	return nil
}

// ErrNotCached means the cache holds nothing for a collection.
var ErrNotCached = errors.New("not in the disk cache")

// Load returns the cached body of collection c and its validators. A file
// that is damaged is an error; the caller reports it and goes on without.
func (d DiskCache) Load(c Collection) ([]byte, Validators, error) {
	raw, err := os.ReadFile(d.path(c))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Validators{}, ErrNotCached
	}
	if err != nil {
		return nil, Validators{}, fmt.Errorf("reading %s from the disk cache: %w", c, err)
	}
	line, body, ok := bytes.Cut(raw, []byte("\n"))
	var h cacheHeader
	if !ok || json.Unmarshal(line, &h) != nil {
		return nil, Validators{}, fmt.Errorf("reading %s from the disk cache: %s: damaged header", c, d.path(c))
	}
	sum := sha256.Sum256(body)
	if len(body) != h.Length || hex.EncodeToString(sum[:]) != h.SHA256 {
		return nil, Validators{}, fmt.Errorf("reading %s from the disk cache: %s: body does not match its checksum", c, d.path(c))
	}
	return body, h.Validators, nil
}
