package catalogue_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/catalogue-gateway/gateway/catalogue"
)

func quest(id int64, name string) string {
	return fmt.Sprintf(`{"id":%d,"questName":%q,"questSeries":"","requiredSkills":[],"questItems":[],"questRewards":[],"prerequisiteQuest":""}`, id, name)
}

func mustDecode(t testing.TB, c catalogue.Collection, raw string) *catalogue.Part {
	t.Helper()
	p, err := catalogue.Decode(c, []byte(raw))
	if err != nil {
		t.Fatalf("Decode(%s): %v", c, err)
	}
	return p
}

func TestTable(t *testing.T) {
	p := mustDecode(t, catalogue.Quests, body(
		env(quest(30, "thirty"), quest(10, "ten")),
		env(quest(9007199254740993, "big"), quest(20, "twenty")),
	))
	quests := catalogue.NewSnapshot(p).Quests()

	if got, want := quests.Len(), 4; got != want {
		t.Fatalf("Len() = %d, want %d", got, want)
	}
	var order []string
	for i := range quests.Len() {
		order = append(order, quests.At(i).QuestName)
	}
	if diff := cmp.Diff([]string{"thirty", "ten", "big", "twenty"}, order); diff != "" {
		t.Errorf("At(i) order (-want +got):\n%s", diff)
	}

	tests := []struct {
		id        int64
		wantName  string // empty: not found
		wantIndex int
	}{
		{30, "thirty", 0},
		{10, "ten", 1},
		{9007199254740993, "big", 2},
		{20, "twenty", 3},
		{9007199254740992, "", 0}, // the float64 neighbour of the big id
		{0, "", 0},
		{-10, "", 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.id), func(t *testing.T) {
			q, ok := quests.Get(tt.id)
			i, iok := quests.IndexOf(tt.id)
			if tt.wantName == "" {
				if ok || iok {
					t.Errorf("Get(%d) = %+v, %t; IndexOf = %d, %t; want not found", tt.id, q, ok, i, iok)
				}
				return
			}
			if !ok || q.QuestName != tt.wantName {
				t.Errorf("Get(%d) = %+v, %t; want %q", tt.id, q, ok, tt.wantName)
			}
			if !iok || i != tt.wantIndex {
				t.Errorf("IndexOf(%d) = %d, %t; want %d", tt.id, i, iok, tt.wantIndex)
			}
			if ok && q != quests.At(tt.wantIndex) {
				t.Errorf("Get(%d) and At(%d) are different records", tt.id, tt.wantIndex)
			}
		})
	}
}

func TestTableDuplicateIDsFirstWins(t *testing.T) {
	// The duplicate comes in a later envelope too: first means first in
	// upstream order over the whole body.
	p := mustDecode(t, catalogue.Quests, body(
		env(quest(1, "first"), quest(2, "two"), quest(1, "second")),
		env(quest(1, "third")),
	))
	quests := catalogue.NewSnapshot(p).Quests()
	if got, want := quests.Len(), 4; got != want {
		t.Errorf("Len() = %d, want %d: duplicates still count as records", got, want)
	}
	q, ok := quests.Get(1)
	if !ok || q.QuestName != "first" {
		t.Errorf("Get(1) = %+v, %t; want the record named first", q, ok)
	}
	if i, _ := quests.IndexOf(1); i != 0 {
		t.Errorf("IndexOf(1) = %d, want 0", i)
	}
	if got := quests.At(2).QuestName; got != "second" {
		t.Errorf("At(2).QuestName = %q, want second: the duplicate keeps its place in the list", got)
	}
}

func TestNilTableIsEmpty(t *testing.T) {
	var items *catalogue.Table[catalogue.Item]
	if n := items.Len(); n != 0 {
		t.Errorf("Len() = %d, want 0", n)
	}
	if r, ok := items.Get(1); ok || r != nil {
		t.Errorf("Get(1) = %v, %t; want nil, false", r, ok)
	}
	if i, ok := items.IndexOf(1); ok {
		t.Errorf("IndexOf(1) = %d, true; want false", i)
	}
}

func TestSnapshotMissing(t *testing.T) {
	items := mustDecode(t, catalogue.Items, body(env(plainItem)))
	bosses := mustDecode(t, catalogue.WorldBosses, body(bossEnv(plainBoss)))

	all := make([]catalogue.Collection, 0, catalogue.NumCollections)
	for c := range catalogue.NumCollections {
		all = append(all, c)
	}
	without := func(drop ...catalogue.Collection) []catalogue.Collection {
		var out []catalogue.Collection
	next:
		for _, c := range all {
			for _, d := range drop {
				if c == d {
					continue next
				}
			}
			out = append(out, c)
		}
		return out
	}

	tests := []struct {
		name  string
		parts []*catalogue.Part
		want  []catalogue.Collection
	}{
		{"nothing", nil, all},
		{"items only", []*catalogue.Part{items}, without(catalogue.Items)},
		{"items and world bosses", []*catalogue.Part{bosses, items}, without(catalogue.Items, catalogue.WorldBosses)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := catalogue.NewSnapshot(tt.parts...)
			if diff := cmp.Diff(tt.want, s.Missing()); diff != "" {
				t.Errorf("Missing() (-want +got):\n%s", diff)
			}
			for _, c := range tt.want {
				if s.Part(c) != nil || s.Body(c) != nil {
					t.Errorf("%s is missing but Part or Body is not nil", c)
				}
			}
		})
	}

	t.Run("missing tables are empty", func(t *testing.T) {
		s := catalogue.NewSnapshot(items)
		if n := s.Quests().Len(); n != 0 {
			t.Errorf("Quests().Len() = %d, want 0", n)
		}
		if _, ok := s.Monsters().Get(1); ok {
			t.Errorf("Monsters().Get(1) found a record in a missing collection")
		}
		if _, ok := s.Items().Get(1); !ok {
			t.Errorf("Items().Get(1) not found")
		}
		if s.Body(catalogue.Items) != items.Body() {
			t.Errorf("Body(Items) is not the part's body")
		}
	})

	t.Run("complete", func(t *testing.T) {
		var parts []*catalogue.Part
		for _, tc := range hostileCases {
			parts = append(parts, mustDecode(t, tc.collection, string(readFixture(t, tc.file))))
		}
		if m := catalogue.NewSnapshot(parts...).Missing(); len(m) != 0 {
			t.Errorf("Missing() = %v, want none", m)
		}
	})
}

func TestSnapshotWith(t *testing.T) {
	items1 := mustDecode(t, catalogue.Items, body(env(itemWith(`"name":"Plain"`, `"name":"old"`))))
	items2 := mustDecode(t, catalogue.Items, body(env(itemWith(`"name":"Plain"`, `"name":"new"`))))
	quests := mustDecode(t, catalogue.Quests, body(env(quest(7, "q"))))

	s1 := catalogue.NewSnapshot(items1, quests)
	s2 := s1.With(items2)

	if s2.Part(catalogue.Items) != items2 {
		t.Errorf("With did not put the new items part in place")
	}
	if s2.Part(catalogue.Quests) != quests {
		t.Errorf("With dropped or replaced the quests part it was not given")
	}
	if got, _ := s2.Items().Get(1); got == nil || got.Name != "new" {
		t.Errorf("new snapshot's item 1 = %+v, want the one named new", got)
	}
	if got, _ := s2.Quests().Get(7); got == nil || got.QuestName != "q" {
		t.Errorf("new snapshot's quest 7 = %+v, want it kept", got)
	}
	// The old snapshot is immutable: readers holding it see what they saw.
	if s1.Part(catalogue.Items) != items1 {
		t.Errorf("With changed the snapshot it was called on")
	}
	if got, _ := s1.Items().Get(1); got == nil || got.Name != "old" {
		t.Errorf("old snapshot's item 1 = %+v, want the one named old", got)
	}
	if diff := cmp.Diff(s1.Missing(), s2.Missing()); diff != "" {
		t.Errorf("Missing() changed by With (-old +new):\n%s", diff)
	}

	t.Run("adds a missing collection", func(t *testing.T) {
		bosses := mustDecode(t, catalogue.WorldBosses, body(bossEnv(plainBoss)))
		s3 := s2.With(bosses)
		if s3.WorldBosses().Len() != 1 || s3.Quests().Len() != 1 || s3.Items().Len() != 1 {
			t.Errorf("lengths after adding bosses: bosses %d, quests %d, items %d; want 1 each",
				s3.WorldBosses().Len(), s3.Quests().Len(), s3.Items().Len())
		}
		if s2.WorldBosses().Len() != 0 {
			t.Errorf("With changed the snapshot it was called on")
		}
	})
}

func TestSnapshotVersion(t *testing.T) {
	itemsA := body(env(plainItem))
	itemsB := body(env(itemWith(`"value":0`, `"value":0.0`))) // same value, other bytes
	questsA := body(env(quest(1, "q")))

	build := func(bodies map[catalogue.Collection]string) *catalogue.Snapshot {
		var parts []*catalogue.Part
		for c, b := range bodies {
			parts = append(parts, mustDecode(t, c, b))
		}
		return catalogue.NewSnapshot(parts...)
	}
	base := build(map[catalogue.Collection]string{catalogue.Items: itemsA, catalogue.Quests: questsA})
	if base.Version() == "" {
		t.Fatal("Version() is empty")
	}

	tests := []struct {
		name     string
		snap     *catalogue.Snapshot
		wantSame bool
	}{
		{"same bytes decoded again", build(map[catalogue.Collection]string{catalogue.Quests: questsA, catalogue.Items: itemsA}), true},
		{"With the same bytes decoded again", base.With(mustDecode(t, catalogue.Items, itemsA)), true},
		{"one body changed", base.With(mustDecode(t, catalogue.Items, itemsB)), false},
		{"one body changed by white space", base.With(mustDecode(t, catalogue.Items, itemsA+"\n")), false},
		{"a collection added", base.With(mustDecode(t, catalogue.WorldBosses, body(bossEnv(plainBoss)))), false},
		{"a collection missing", build(map[catalogue.Collection]string{catalogue.Items: itemsA}), false},
		{"nothing", catalogue.NewSnapshot(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.snap.Version()
			if same := got == base.Version(); same != tt.wantSame {
				t.Errorf("Version() = %s, base %s; want same %t", got, base.Version(), tt.wantSame)
			}
		})
	}
	t.Run("two empty snapshots agree", func(t *testing.T) {
		if a, b := catalogue.NewSnapshot().Version(), catalogue.NewSnapshot().Version(); a != b {
			t.Errorf("Version() = %s and %s", a, b)
		}
	})
}

func TestStore(t *testing.T) {
	var st catalogue.Store
	if s := st.Current(); s != nil {
		t.Fatalf("zero Store's Current() = %v, want nil", s)
	}
	s1 := catalogue.NewSnapshot(mustDecode(t, catalogue.Quests, body(env(quest(1, "one")))))
	s2 := s1.With(mustDecode(t, catalogue.Quests, body(env(quest(2, "two")))))

	st.Publish(s1)
	if st.Current() != s1 {
		t.Errorf("Current() is not the published snapshot")
	}
	st.Publish(s2)
	if st.Current() != s2 {
		t.Errorf("Current() is not the snapshot published last")
	}

	// Readers racing a publisher always see one whole published snapshot;
	// run with -race, this also checks the Store needs no other locking.
	t.Run("concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan string, 8)
		for range 8 {
			wg.Go(func() {
				for range 1000 {
					s := st.Current()
					if s != s1 && s != s2 {
						errs <- "Current() returned a snapshot nobody published"
						return
					}
					if s.Quests().Len() != 1 {
						errs <- fmt.Sprintf("snapshot with %d quests", s.Quests().Len())
						return
					}
				}
			})
		}
		wg.Go(func() {
			for i := range 1000 {
				if i%2 == 0 {
					st.Publish(s1)
				} else {
					st.Publish(s2)
				}
			}
		})
		wg.Wait()
		close(errs)
		var msgs []string
		for m := range errs {
			msgs = append(msgs, m)
		}
		if len(msgs) > 0 {
			t.Error(strings.Join(msgs, "\n"))
		}
	})
}

// TestStoreWatch: a watcher's channel closes when, and only when, another
// snapshot is published, and BodyETags tells the collections apart.
func TestStoreWatch(t *testing.T) {
	st := &catalogue.Store{}
	snap, replaced := st.Watch()
	if snap != nil {
		t.Fatalf("Watch before any Publish gave %v, want nil", snap)
	}
	if tags := snap.BodyETags(); tags != [catalogue.NumCollections]string{} {
		t.Errorf("a nil snapshot's tags %q, want all empty", tags)
	}
	first := catalogue.NewSnapshot()
	st.Publish(first)
	select {
	case <-replaced:
	default:
		t.Fatal("the channel is open after Publish")
	}
	snap, replaced = st.Watch()
	if snap != first {
		t.Fatal("Watch did not give the published snapshot")
	}
	select {
	case <-replaced:
		t.Fatal("the channel closed with no Publish")
	default:
	}

	p, err := catalogue.Decode(catalogue.MiningRocks, []byte(`[{"total":0,"results":[]}]`))
	if err != nil {
		t.Fatal(err)
	}
	second := first.With(p)
	st.Publish(second)
	<-replaced
	before, after := first.BodyETags(), second.BodyETags()
	for c := range catalogue.NumCollections {
		if (before[c] != after[c]) != (c == catalogue.MiningRocks) {
			t.Errorf("%s: tags %q and %q; only mining changed", c, before[c], after[c])
		}
	}
}

// TestSnapshotModified: a snapshot's Modified is the newest of its bodies'
// Last-Modified, and zero while any body has none: a date that does not
// cover every body would let a client keep an answer that changed.
func TestSnapshotModified(t *testing.T) {
	snap, err := catalogue.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Modified().IsZero() {
		t.Fatalf("the embedded catalogue, undated: Modified %v, want zero", snap.Modified())
	}
	dated := make([]*catalogue.Part, 0, catalogue.NumCollections)
	for c := range catalogue.NumCollections {
		dated = append(dated, snap.Part(c).WithModified("Sun, 22 Nov 2026 12:00:00 GMT"))
	}
	dated[catalogue.Monsters] = dated[catalogue.Monsters].WithModified("Mon, 23 Nov 2026 08:30:00 GMT")
	all := snap.With(dated...)
	if want := time.Date(2026, 11, 23, 8, 30, 0, 0, time.UTC); !all.Modified().Equal(want) {
		t.Errorf("every body dated: Modified %v, want the newest, %v", all.Modified(), want)
	}
	if got := all.LastModified(); got != "Mon, 23 Nov 2026 08:30:00 GMT" {
		t.Errorf("LastModified %q, want the newest as an HTTP date", got)
	}
	if got := all.With(snap.Part(catalogue.Quests)).Modified(); !got.IsZero() {
		t.Errorf("one body undated: Modified %v, want zero", got)
	}
	if p := snap.Part(catalogue.Items); p.WithModified("not a date") != p || p.WithModified("") != p {
		t.Error("WithModified of no HTTP date changed the part")
	}
}
