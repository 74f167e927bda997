package catalogue_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// TestChangeByRecord: a snapshot made by With names the records added,
// removed and changed, by id, and the collection's key; nothing for a
// collection's first body, and nothing for a record whose bytes changed
// only in their form.
func TestChangeByRecord(t *testing.T) {
	base := body(env(quest(1, "one"), quest(2, "two"), quest(3, "three")))
	bosses := body(bossEnv(plainBoss))
	tests := []struct {
		name            string
		c               catalogue.Collection
		before, after   string
		wantCollections []catalogue.Collection
		wantKeys        []string
	}{
		{"one record changed", catalogue.Quests, base,
			body(env(quest(1, "one"), quest(2, "TWO"), quest(3, "three"))),
			[]catalogue.Collection{catalogue.Quests}, []string{"Quest:2", "quests"}},
		{"added, removed and changed, by id whatever the order", catalogue.Quests, base,
			body(env(quest(3, "three"), quest(4, "four")), env(quest(1, "ONE"))),
			[]catalogue.Collection{catalogue.Quests}, []string{"Quest:1", "Quest:2", "Quest:4", "quests"}},
		{"reordered records: only the collection", catalogue.Quests, base,
			body(env(quest(3, "three"), quest(2, "two"), quest(1, "one"))),
			[]catalogue.Collection{catalogue.Quests}, []string{"quests"}},
		{"spacing and member order: only the collection", catalogue.Quests, base,
			body(env(quest(1, "one"), reordered(quest(2, "two")), quest(3, "three"))),
			[]catalogue.Collection{catalogue.Quests}, []string{"quests"}},
		{"an envelope's field a record takes is the record's", catalogue.WorldBosses, bosses,
			strings.Replace(bosses, "2024-01-01", "2024-01-02", 1),
			[]catalogue.Collection{catalogue.WorldBosses}, []string{"WorldBoss:1", "worldboss"}},
		{"the same bytes: nothing", catalogue.Quests, base, base, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := catalogue.NewSnapshot().With(mustDecode(t, tt.c, tt.before))
			after := before.With(mustDecode(t, tt.c, tt.after))
			got, ok := after.ChangeSince(before.Version(), before.BodyETags())
			if !ok {
				t.Fatal("ChangeSince the previous snapshot: not remembered")
			}
			if diff := cmp.Diff(tt.wantCollections, got.Collections); diff != "" {
				t.Errorf("collections (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantKeys, got.Keys); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
		})
	}
}

// reordered writes a quest record with its members in another order and
// with spaces: the same record.
func reordered(record string) string {
	inner := strings.TrimSuffix(strings.TrimPrefix(record, "{"), "}")
	members := strings.Split(inner, `,"`)
	for i := range members {
		if i > 0 {
			members[i] = `"` + members[i]
		}
	}
	for i, j := 0, len(members)-1; i < j; i, j = i+1, j-1 {
		members[i], members[j] = members[j], members[i]
	}
	return "{ " + strings.Join(members, " , ") + " }"
}

// TestChangeFirstBody: a collection's first body changes nothing a cache
// could hold (start-up purges nothing), though the version changes.
func TestChangeFirstBody(t *testing.T) {
	empty := catalogue.NewSnapshot()
	first := empty.With(mustDecode(t, catalogue.Quests, body(env(quest(1, "one")))))
	got, ok := first.ChangeSince(empty.Version(), empty.BodyETags())
	if !ok || len(got.Collections) != 0 || len(got.Keys) != 0 {
		t.Errorf("ChangeSince(empty) = %+v, %v; want no collection and no key, remembered", got, ok)
	}
}

// TestChangeSinceSeveral: a watcher that missed snapshots hears the union
// of their changes, each collection's key after its records'; one that
// fell beyond memory hears the collections' keys alone.
func TestChangeSinceSeveral(t *testing.T) {
	s0 := catalogue.NewSnapshot().With(
		mustDecode(t, catalogue.Quests, body(env(quest(1, "one"), quest(2, "two")))),
		mustDecode(t, catalogue.Items, itemsBody(t, 1, 2)))
	s1 := s0.With(mustDecode(t, catalogue.Quests, body(env(quest(1, "ONE"), quest(2, "two")))))
	s2 := s1.With(mustDecode(t, catalogue.Items, itemsBody(t, 1)))
	s3 := s2.With(mustDecode(t, catalogue.Quests, body(env(quest(1, "ONE"), quest(2, "TWO")))))

	got, ok := s3.ChangeSince(s0.Version(), s0.BodyETags())
	if !ok {
		t.Fatal("not remembered")
	}
	if diff := cmp.Diff([]catalogue.Collection{catalogue.Items, catalogue.Quests}, got.Collections); diff != "" {
		t.Errorf("collections (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Item:2", "items", "Quest:1", "Quest:2", "quests"}, got.Keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}

	// A snapshot not made by With remembers nothing: the collections
	// whose bodies differ, by their keys alone.
	fresh := catalogue.NewSnapshot(s3.Part(catalogue.Quests), s3.Part(catalogue.Items))
	got, ok = fresh.ChangeSince(s0.Version(), s0.BodyETags())
	if ok {
		t.Error("a snapshot not made by With says it remembers")
	}
	if diff := cmp.Diff([]string{"items", "quests"}, got.Keys); diff != "" {
		t.Errorf("keys beyond memory (-want +got):\n%s", diff)
	}
}

// itemsBody is a body of items with the given ids, from the fixture's
// first item.
func itemsBody(t *testing.T, ids ...int64) string {
	t.Helper()
	var records []string
	for _, id := range ids {
		records = append(records, strings.Replace(plainItem, `"id":1,`, `"id":`+strconv.FormatInt(id, 10)+`,`, 1))
	}
	return body(env(records...))
}
