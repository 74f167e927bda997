package catalogue

import (
	"encoding/base64"
	"hash/fnv"
	"strconv"
	"strings"
)

// Pictures. Items, monsters, world bosses and world boss loot carry the
// address of a picture upstream; the gateway serves each from its own
// origin, at a path of its own that names the record, never the address
// (see package pictures). The path is written here, beside the records,
// because two parts read it: GraphQL's Image.url writes it, from the record
// alone, and the picture route reads it back to find the record in the
// current snapshot, and through it the one address it may fetch.

// PicturesPath is where the gateway serves pictures: PicturesPath +
// kind + "/" + id, with "?v=" and the address's version (see Image.URL).
const PicturesPath = "/images/"

// PictureKind is a kind of record that has a picture.
type PictureKind uint8

// The kinds of record with a picture, each named in the path by String.
const (
	PictureItem          PictureKind = iota // an item, by its id
	PictureMonster                          // a monster, by its id
	PictureWorldBoss                        // a world boss, by its id
	PictureWorldBossLoot                    // a world boss's loot, by its hashed item id
	NumPictureKinds
)

var pictureKindNames = [NumPictureKinds]string{"items", "monsters", "world-bosses", "world-boss-loot"}

// String is the kind's name in the path: items, monsters, world-bosses,
// world-boss-loot.
func (k PictureKind) String() string {
	if k < NumPictureKinds {
		return pictureKindNames[k]
	}
	return "unknown"
}

// ParsePictureKind reads a kind's name in the path.
func ParsePictureKind(s string) (PictureKind, bool) {
	for k, name := range pictureKindNames {
		if s == name {
			return PictureKind(k), true
		}
	}
	return 0, false
}

// Image is a record's picture, as GraphQL's Image type gives it: where the
// gateway serves it, and the catalogue's own address of it. It is a pure
// function of the record, so that an answer holding it depends on the
// snapshot alone (the response cache and the ETags assume so); that is
// also why it has no width or height, which only the picture's bytes
// could tell.
type Image struct {
	kind   PictureKind
	id     string
	source string
}

// NewImage is the picture of the record of kind k whose id (as the path
// writes it: a decimal id, or a loot's hashed item id) is id, at the
// catalogue's address source ("" for none).
func NewImage(k PictureKind, id, source string) Image {
	return Image{kind: k, id: id, source: source}
}

// Kind is the kind of record the picture is of.
func (im Image) Kind() PictureKind { return im.kind }

// ID is the record's id as the path writes it.
func (im Image) ID() string { return im.id }

// SourceAddress is the catalogue's address of the picture, "" for none.
func (im Image) SourceAddress() string { return im.source }

// URL is where the gateway serves the picture, on its own origin: a path,
// so that every frontend on the gateway's origin (and every replica) gets
// the same answer. Its v parameter is the version of the catalogue's
// address (PictureVersion): a picture whose address changes gets a new URL,
// so the gateway can let browsers keep one for good. With no address, the
// path alone, where the gateway serves the kind's placeholder.
func (im Image) URL() string {
	var b strings.Builder
	b.Grow(len(PicturesPath) + 16 + len(im.id) + 19)
	b.WriteString(PicturesPath)
	b.WriteString(im.kind.String())
	b.WriteByte('/')
	b.WriteString(PictureSegment(im.id))
	if im.source != "" {
		b.WriteString("?v=")
		b.WriteString(PictureVersion(im.source))
	}
	return b.String()
}

// Source is the catalogue's address of the picture, as the upstream gave
// it; nil when it gave none (or an empty one).
func (im Image) Source() *string {
	if im.source == "" {
		return nil
	}
	return &im.source
}

// PictureVersion is the version of a picture's address in its URL: 16
// hex digits of its FNV-1a hash. It names the address, not the bytes (the
// gateway has not read them when it answers GraphQL); an address that
// keeps its name but changes its picture keeps its version.
func PictureVersion(source string) string {
	h := fnv.New64a()
	h.Write([]byte(source))
	var out [16]byte
	const digits = "0123456789abcdef"
	sum := h.Sum64()
	for i := 15; i >= 0; i-- {
		out[i] = digits[sum&15]
		sum >>= 4
	}
	return string(out[:])
}

// PictureSegment writes an id as the path segment of its picture: as it
// is when it is made only of letters, digits, '-' and '_' (every record
// id, every hashed item id the catalogue has sent), else "~" and the id
// in unpadded base64url. No segment so written needs escaping, so none
// can decode into a path the gateway refuses as unclean ("..", "a/b"), and
// none is read back as another id.
func PictureSegment(id string) string {
	if id != "" && plainSegment(id) {
		return id
	}
	return "~" + base64.RawURLEncoding.EncodeToString([]byte(id))
}

// ParsePictureSegment reads back what PictureSegment wrote; ok is false
// for anything it does not write.
func ParsePictureSegment(seg string) (id string, ok bool) {
	if b64, found := strings.CutPrefix(seg, "~"); found {
		raw, err := base64.RawURLEncoding.Strict().DecodeString(b64)
		if err != nil || PictureSegment(string(raw)) != seg {
			return "", false
		}
		return string(raw), true
	}
	if seg == "" || !plainSegment(seg) {
		return "", false
	}
	return seg, true
}

func plainSegment(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Image is the item's picture.
func (it *Item) Image() Image {
	return NewImage(PictureItem, strconv.FormatInt(it.ID, 10), it.ImageURL)
}

// Image is the monster's picture.
func (m *Monster) Image() Image {
	var src string
	if m.ImageURL != nil {
		src = *m.ImageURL
	}
	return NewImage(PictureMonster, strconv.FormatInt(m.ID, 10), src)
}

// Image is the world boss's picture.
func (b *WorldBoss) Image() Image {
	return NewImage(PictureWorldBoss, strconv.FormatInt(b.ID, 10), b.ImageURL)
}

// Image is the loot's picture, named by its hashed item id.
func (l *WorldBossLoot) Image() Image {
	return NewImage(PictureWorldBossLoot, l.HashedItemID, l.ImageURL)
}

// Picture finds the record of kind k that id (as ParsePictureSegment
// reads it) names in the snapshot, and returns its picture and its name (for a
// placeholder's initial); ok is false when there is none. An id is read
// only in the form Image.URL writes it: a decimal id with no sign or
// leading zero. Loot is named by its hashed item id; when several entries
// share one, the one whose address has the version v, else the first. A
// nil snapshot has none.
func (s *Snapshot) Picture(k PictureKind, id, v string) (im Image, name string, ok bool) {
	if s == nil {
		return Image{}, "", false
	}
	if k == PictureWorldBossLoot {
		for i := range s.tables.worldBosses.Len() {
			for j := range s.tables.worldBosses.At(i).Loot {
				l := &s.tables.worldBosses.At(i).Loot[j]
				if l.HashedItemID != id {
					continue
				}
				if !ok || (v != "" && PictureVersion(l.ImageURL) == v && PictureVersion(im.source) != v) {
					im, name, ok = l.Image(), l.Name, true
				}
			}
		}
		return im, name, ok
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || strconv.FormatInt(n, 10) != id {
		return Image{}, "", false
	}
	switch k {
	case PictureItem:
		if r, found := s.tables.items.Get(n); found {
			return r.Image(), r.Name, true
		}
	case PictureMonster:
		if r, found := s.tables.monsters.Get(n); found {
			if r.Name != nil {
				name = *r.Name
			}
			return r.Image(), name, true
		}
	case PictureWorldBoss:
		if r, found := s.tables.worldBosses.Get(n); found {
			return r.Image(), r.Name, true
		}
	}
	return Image{}, "", false
}
