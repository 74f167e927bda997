package documents

import (
	"fmt"
	"testing"
)

// TestPersistedQueriesBounded: persisted query texts are charged their
// text, hash and overhead, and stay within their share, the oldest let go.
func TestPersistedQueriesBounded(t *testing.T) {
	const share = 1 << 20
	c := NewPersistedQueries(share)
	ctx := t.Context()
	text := string(make([]byte, 60<<10))
	for i := range 40 {
		c.Add(ctx, fmt.Sprintf("%064d", i), text)
		if st := c.Stats(); st.Bytes > share {
			t.Fatalf("after %d texts of 60 KiB: charged %d, over the share %d", i+1, st.Bytes, share)
		}
	}
	st := c.Stats()
	if st.Entries > share/(60<<10) || st.Evictions == 0 {
		t.Errorf("40 texts of 60 KiB in 1 MiB: %+v", st)
	}
	if _, ok := c.Get(ctx, fmt.Sprintf("%064d", 39)); !ok {
		t.Error("the newest persisted query was let go")
	}
	if _, ok := c.Get(ctx, fmt.Sprintf("%064d", 0)); ok {
		t.Error("the oldest persisted query is still kept")
	}
}
