package catalogue_test

import (
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// routeID is the id the route's pattern reads back from an image's URL,
// as the gateway's mux gives it to the pictures' handler, and the v
// parameter; ok is false when the URL does not match the route.
func routeID(t testing.TB, im catalogue.Image) (kind, id, v string, ok bool) {
	mux := http.NewServeMux()
	mux.HandleFunc(catalogue.PicturesPath+"{kind}/{id}", func(w http.ResponseWriter, r *http.Request) {
		kind, id, v, ok = r.PathValue("kind"), r.PathValue("id"), r.URL.Query().Get("v"), true
	})
	u := im.URL()
	req := httptest.NewRequest(http.MethodGet, u, nil)
	if p := req.URL.Path; path.Clean(p) != p {
		t.Errorf("URL %q: its path is not clean, and the gateway answers unclean paths 404", u)
	}
	mux.ServeHTTP(httptest.NewRecorder(), req)
	return kind, id, v, ok
}

// TestPictureURLs: each kind's URL, read back by the route, names the
// record and the address's version; odd ids come back whole.
func TestPictureURLs(t *testing.T) {
	for _, tt := range []struct {
		im   catalogue.Image
		want string
	}{
		{catalogue.NewImage(catalogue.PictureItem, "7", "https://cdn.example/a.png"), "/images/items/7?v=" + catalogue.PictureVersion("https://cdn.example/a.png")},
		{catalogue.NewImage(catalogue.PictureMonster, "2", ""), "/images/monsters/2"},
		{catalogue.NewImage(catalogue.PictureWorldBoss, "1", "x"), "/images/world-bosses/1?v=" + catalogue.PictureVersion("x")},
		{catalogue.NewImage(catalogue.PictureWorldBossLoot, "143cc91285e9d005", "y"), "/images/world-boss-loot/143cc91285e9d005?v=" + catalogue.PictureVersion("y")},
		{catalogue.NewImage(catalogue.PictureWorldBossLoot, "a1b2&c3", "y"), "/images/world-boss-loot/~YTFiMiZjMw?v=" + catalogue.PictureVersion("y")},
		{catalogue.NewImage(catalogue.PictureWorldBossLoot, "..", "y"), "/images/world-boss-loot/~Li4?v=" + catalogue.PictureVersion("y")},
		{catalogue.NewImage(catalogue.PictureWorldBossLoot, "", "y"), "/images/world-boss-loot/~?v=" + catalogue.PictureVersion("y")},
	} {
		if got := tt.im.URL(); got != tt.want {
			t.Errorf("URL() = %q, want %q", got, tt.want)
		}
	}
	if catalogue.PictureVersion("a") == catalogue.PictureVersion("b") || len(catalogue.PictureVersion("a")) != 16 {
		t.Error("versions of two addresses agree, or are not 16 digits")
	}
	if s := catalogue.NewImage(catalogue.PictureMonster, "2", "").Source(); s != nil {
		t.Errorf("no address: Source() = %q, want nil", *s)
	}
}

// FuzzPictureRoute: whatever a loot's hashed id holds, its URL is a clean
// path whose segment the route reads back as that id, with the version of
// its address; and no other segment reads back as it.
func FuzzPictureRoute(f *testing.F) {
	for _, s := range []string{"ab12", "", "-", "..", ".", "a/b", "%2e", "a b?c#d", "\x00\xff", "é", strings.Repeat("z", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		im := catalogue.NewImage(catalogue.PictureWorldBossLoot, id, "https://cdn.example/"+id)
		kind, seg, v, ok := routeID(t, im)
		got, parsed := catalogue.ParsePictureSegment(seg)
		if !ok || !parsed || kind != "world-boss-loot" || got != id || v != catalogue.PictureVersion("https://cdn.example/"+id) {
			t.Errorf("id %q: URL %q read back as %v kind %q id %q (%v) v %q", id, im.URL(), ok, kind, got, parsed, v)
		}
		// The id as a segment itself: read back only as what it names.
		if back, ok := catalogue.ParsePictureSegment(id); ok && catalogue.PictureSegment(back) != id {
			t.Errorf("segment %q reads back as %q, which is written %q", id, back, catalogue.PictureSegment(back))
		}
	})
}

// TestSnapshotPicture: the route's look-up finds each kind's record by
// its id as URL writes it, and nothing for any other spelling.
func TestSnapshotPicture(t *testing.T) {
	snap, err := catalogue.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	it := snap.Items().At(0)
	im, name, ok := snap.Picture(catalogue.PictureItem, routeOf(t, it.Image()), "")
	if !ok || name != it.Name || im.URL() != it.Image().URL() {
		t.Errorf("item %d: %v %q %q", it.ID, ok, name, im.URL())
	}
	boss := snap.WorldBosses().At(0)
	loot := boss.Loot[0]
	if im, name, ok := snap.Picture(catalogue.PictureWorldBossLoot, routeOf(t, loot.Image()), ""); !ok || name != loot.Name || im.SourceAddress() != loot.ImageURL {
		t.Errorf("loot %q: %v %q %q", loot.HashedItemID, ok, name, im.SourceAddress())
	}
	if _, _, ok := snap.Picture(catalogue.PictureWorldBoss, routeOf(t, boss.Image()), ""); !ok {
		t.Errorf("world boss %d not found", boss.ID)
	}
	for _, tt := range []struct {
		k  catalogue.PictureKind
		id string
	}{
		{catalogue.PictureItem, "0"}, {catalogue.PictureItem, "01"}, {catalogue.PictureItem, "+1"}, {catalogue.PictureItem, " 1"},
		{catalogue.PictureItem, "1e0"}, {catalogue.PictureMonster, "99999"}, {catalogue.PictureWorldBoss, "-1"},
		{catalogue.PictureWorldBossLoot, "no-such-hash"}, {catalogue.NumPictureKinds, "1"},
	} {
		if _, _, ok := snap.Picture(tt.k, tt.id, ""); ok {
			t.Errorf("Picture(%s, %q) found a record", tt.k, tt.id)
		}
	}
	var none *catalogue.Snapshot
	if _, _, ok := none.Picture(catalogue.PictureItem, "1", ""); ok {
		t.Error("a nil snapshot has a picture")
	}
}

func routeOf(t *testing.T, im catalogue.Image) string {
	t.Helper()
	_, seg, _, ok := routeID(t, im)
	id, parsed := catalogue.ParsePictureSegment(seg)
	if !ok || !parsed {
		t.Fatalf("URL %q does not match the route", im.URL())
	}
	return id
}
