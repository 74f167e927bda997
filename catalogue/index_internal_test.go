package catalogue

import "testing"

// TestSelectStopsOnceThePageIsFull: a filtered selection read as a page
// tests records only until the page and the one after it are found, and
// tests them all only when its length is asked for (totalCount).
func TestSelectStopsOnceThePageIsFull(t *testing.T) {
	s, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	ix := s.Index(Items)
	sel, err := ix.Select(Query{NameContains: "e", OrderBy: "value", Descending: true})
	if err != nil {
		t.Fatal(err)
	}
	if sel.lazy == nil {
		t.Fatal("a name filter in the ordering's order is not read lazily")
	}
	if got := sel.Clip(51); got != 51 {
		t.Fatalf("Clip(51) = %d; the test wants a term matching more than a page", got)
	}
	if tested := sel.lazy.next; tested >= ix.n/2 {
		t.Errorf("a page of 50 and the one after tested %d of %d records", tested, ix.n)
	}
	n := sel.Len()
	if sel.lazy.next != ix.n {
		t.Errorf("Len tested %d of %d records", sel.lazy.next, ix.n)
	}
	if n <= 51 || n >= ix.n {
		t.Errorf("Len() = %d of %d", n, ix.n)
	}
}
