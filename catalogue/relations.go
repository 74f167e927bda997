package catalogue

import (
	"sort"
)

// The reverse relations the upstream lacks, and the integrity walk, are
// generated from the schema's reference graph (refgraph_gen.go); these
// are the helpers they share.

// relate adds rec to m[key] once: a record naming the same key twice is
// listed once. Records are visited in upstream order, so a repeat is always
// the last entry.
func relate[T any](m map[int64][]*T, key int64, rec *T) {
	l := m[key]
	if len(l) > 0 && l[len(l)-1] == rec {
		return
	}
	m[key] = append(l, rec)
}

func contains[T any](l []*T, p *T) bool {
	for _, q := range l {
		if q == p {
			return true
		}
	}
	return false
}

// Dangling counts the references of one kind that point at no record.
type Dangling struct {
	// Reference names the referring field, such as
	// "items.crafting.materials.itemId".
	Reference string `json:"reference"`
	// Target is the collection the reference points into.
	Target Collection `json:"-"`
	// Count is how many references of the kind point at no record; Total
	// how many there are.
	Count int `json:"dangling"`
	Total int `json:"total"`
}

// Integrity reports, for every kind of reference whose source and target
// collections the snapshot holds, how many point at no record. An id of 0
// is the upstream's way of saying "none" (an experience reward has no
// item), so it is not counted.
func (s *Snapshot) Integrity() []Dangling { return s.integrity }

// integrityChecker counts the references of a snapshot by kind.
type integrityChecker struct {
	s      *Snapshot
	exists [NumKinds]func(int64) bool
	kinds  map[string]*Dangling
}

func newIntegrityChecker(s *Snapshot) *integrityChecker {
	return &integrityChecker{s: s, exists: s.exists(), kinds: map[string]*Dangling{}}
}

// ref counts a reference by id to a record of kind target.
func (c *integrityChecker) ref(kind string, target Kind, id int64) {
	if id == 0 {
		return
	}
	c.count(kind, target, c.exists[target](id))
}

// named counts a reference by name, found or not.
func (c *integrityChecker) named(kind string, target Kind, found bool) {
	c.count(kind, target, found)
}

func (c *integrityChecker) count(kind string, target Kind, exists bool) {
	col := Kinds[target].Collection
	if c.s.parts[col] == nil {
		return
	}
	d, ok := c.kinds[kind]
	if !ok {
		d = &Dangling{Reference: kind, Target: col}
		c.kinds[kind] = d
	}
	d.Total++
	if !exists {
		d.Count++
	}
}

func (c *integrityChecker) report() []Dangling {
	out := make([]Dangling, 0, len(c.kinds))
	for _, d := range c.kinds {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reference < out[j].Reference })
	return out
}

func has[T any](t *Table[T]) func(int64) bool {
	return func(id int64) bool { _, ok := t.Get(id); return ok }
}
