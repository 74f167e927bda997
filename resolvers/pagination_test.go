package resolvers_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/loader"
)

type pageResult struct {
	ids                  []string
	cursors              []string
	hasNext, hasPrevious bool
	total                string
}

func page(t *testing.T, d map[string]any, field string) pageResult {
	t.Helper()
	conn := d[field].(map[string]any)
	var p pageResult
	for _, e := range conn["edges"].([]any) {
		edge := e.(map[string]any)
		p.ids = append(p.ids, fmt.Sprint(edge["node"].(map[string]any)["id"]))
		p.cursors = append(p.cursors, edge["cursor"].(string))
	}
	info := conn["pageInfo"].(map[string]any)
	p.hasNext, p.hasPrevious = info["hasNextPage"].(bool), info["hasPreviousPage"].(bool)
	p.total = fmt.Sprint(conn["totalCount"])
	return p
}

// TestPaginationWalksWholeLists pages through lists forwards, then
// backwards, and checks that both see every record once, in the same order,
// and that the first 1000 agree with one big page.
func TestPaginationWalksWholeLists(t *testing.T) {
	srv := serve(t, storeOf(embedded(t)), loader.Options{})
	lists := []struct{ field, args string }{
		{"items", ``},
		{"items", `orderBy: {field: NAME, direction: DESC}`},
		{"items", `filter: {tradable: true}, orderBy: {field: VALUE}`},
		{"monsters", `filter: {combatLevelMin: 10}, orderBy: {field: COMBAT_LEVEL, direction: DESC}`},
		{"quests", `orderBy: {field: NAME}`},
		{"cookingRecipes", `filter: {nameContains: "e"}, orderBy: {field: LEVEL}`},
	}
	const fields = `totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage }`
	for _, l := range lists {
		t.Run(l.field+"("+l.args+")", func(t *testing.T) {
			args := ""
			if l.args != "" {
				args = ", " + l.args
			}
			big := page(t, data(t, srv, fmt.Sprintf(`{ %s(first: 1000%s) { %s } }`, l.field, args, fields), nil), l.field)
			if len(big.ids) < 10 {
				t.Fatalf("list too short to page through: %v", big.ids)
			}

			q := fmt.Sprintf(`query($after: String) { %s(first: 97, after: $after%s) { %s } }`, l.field, args, fields)
			var forward []string
			var after any
			for i := 0; ; i++ {
				if i == 100 {
					t.Fatal("no last page after 100 pages")
				}
				p := page(t, data(t, srv, q, map[string]any{"after": after}), l.field)
				if p.total != big.total {
					t.Fatalf("totalCount %s on a page, %s on the first", p.total, big.total)
				}
				if p.hasPrevious != (after != nil) {
					t.Fatalf("hasPreviousPage = %v after %v", p.hasPrevious, after)
				}
				forward = append(forward, p.ids...)
				if !p.hasNext {
					break
				}
				after = p.cursors[len(p.cursors)-1]
			}
			if fmt.Sprint(len(forward)) != big.total {
				t.Fatalf("walked %d records, totalCount is %s", len(forward), big.total)
			}
			seen := map[string]bool{}
			for _, id := range forward {
				if seen[id] {
					t.Fatalf("id %s seen twice", id)
				}
				seen[id] = true
			}
			if n := min(len(forward), 1000); strings.Join(forward[:n], ",") != strings.Join(big.ids, ",") {
				t.Fatal("the walk's first records differ from one big page")
			}

			qb := fmt.Sprintf(`query($before: String) { %s(last: 89, before: $before%s) { %s } }`, l.field, args, fields)
			var backward []string
			var before any
			for i := 0; ; i++ {
				if i == 100 {
					t.Fatal("no first page after 100 pages")
				}
				p := page(t, data(t, srv, qb, map[string]any{"before": before}), l.field)
				backward = append(p.ids, backward...)
				if !p.hasPrevious {
					break
				}
				before = p.cursors[0]
			}
			if strings.Join(backward, ",") != strings.Join(forward, ",") {
				t.Fatal("the backward walk differs from the forward walk")
			}
		})
	}
}

func TestPaginationDefaultsAndLimits(t *testing.T) {
	srv := serve(t, storeOf(embedded(t)), loader.Options{})
	d := data(t, srv, `{ items { totalCount nodes { id } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`, nil)
	items := d["items"].(map[string]any)
	if n := len(items["nodes"].([]any)); n != 50 {
		t.Errorf("default page has %d nodes, want 50", n)
	}
	if !items["pageInfo"].(map[string]any)["hasNextPage"].(bool) {
		t.Error("hasNextPage false on the first page of items")
	}
	empty := data(t, srv, `{ items(first: 0) { nodes { id } pageInfo { startCursor endCursor hasNextPage } } }`, nil)
	info := empty["items"].(map[string]any)["pageInfo"].(map[string]any)
	if info["startCursor"] != nil || info["endCursor"] != nil || info["hasNextPage"] != true {
		t.Errorf("first: 0 pageInfo = %v", info)
	}
}

func TestPaginationErrors(t *testing.T) {
	srv := serve(t, storeOf(embedded(t)), loader.Options{})
	first := page(t, data(t, srv, `{ items(first: 2) { totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage } } }`, nil), "items")
	itemCursor := first.cursors[1]
	named := page(t, data(t, srv, `{ items(first: 2, orderBy: {field: NAME}) { totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage } } }`, nil), "items")
	monsters := page(t, data(t, srv, `{ monsters(first: 2) { totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage } } }`, nil), "monsters")
	raw, _ := base64.RawURLEncoding.DecodeString(itemCursor)
	altered := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), "|1|", "|7|", 1)))

	tests := []struct {
		name, query, wantInMessage string
	}{
		{"first above 1000", `{ items(first: 1001) { totalCount } }`, "at most 1000"},
		{"last above 1000", `{ items(last: 5000) { totalCount } }`, "at most 1000"},
		{"negative first", `{ items(first: -1) { totalCount } }`, "must not be negative"},
		{"garbage cursor", `{ items(after: "!!not a cursor!!") { totalCount } }`, "invalid cursor"},
		{"base64 of junk", `{ items(after: "aGVsbG8") { totalCount } }`, "invalid cursor"},
		{"altered cursor", fmt.Sprintf(`{ items(after: %q) { totalCount } }`, altered), "altered"},
		{"cursor of another collection", fmt.Sprintf(`{ items(after: %q) { totalCount } }`, monsters.cursors[0]), "belongs to the monsters list"},
		{"cursor of another ordering", fmt.Sprintf(`{ items(after: %q) { totalCount } }`, named.cursors[0]), "another orderBy"},
		{"cursor of another filter", fmt.Sprintf(`{ items(after: %q, filter: {tradable: true}) { totalCount } }`, itemCursor), "another filter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, srv, tt.query, nil)
			if len(r.Errors) != 1 {
				t.Fatalf("want one error, got %s", r.raw)
			}
			e := r.Errors[0]
			if !strings.Contains(e.Message, tt.wantInMessage) {
				t.Errorf("message %q lacks %q", e.Message, tt.wantInMessage)
			}
			if e.Extensions["code"] != "BAD_USER_INPUT" {
				t.Errorf("code = %v, want BAD_USER_INPUT", e.Extensions["code"])
			}
		})
	}
	// The server is still there.
	if d := data(t, srv, `{ item(id: 1) { id } }`, nil); d["item"] == nil {
		t.Error("item 1 missing after the bad requests")
	}
}

// TestCursorsAcrossReplicas: a cursor from one replica pages on another
// that holds the same data.
func TestCursorsAcrossReplicas(t *testing.T) {
	a := serve(t, storeOf(embedded(t)), loader.Options{})
	b := serve(t, storeOf(embedded(t)), loader.Options{})
	q := `query($after: String) { items(first: 3, after: $after, orderBy: {field: VALUE, direction: DESC}) { totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage } } }`
	pa := page(t, data(t, a, q, nil), "items")
	pb := page(t, data(t, b, q, nil), "items")
	if strings.Join(pa.cursors, ",") != strings.Join(pb.cursors, ",") {
		t.Fatalf("replicas gave different cursors: %v vs %v", pa.cursors, pb.cursors)
	}
	nextA := page(t, data(t, a, q, map[string]any{"after": pa.cursors[2]}), "items")
	nextB := page(t, data(t, b, q, map[string]any{"after": pa.cursors[2]}), "items")
	if strings.Join(nextA.ids, ",") != strings.Join(nextB.ids, ",") {
		t.Fatalf("replica b read replica a's cursor differently: %v vs %v", nextB.ids, nextA.ids)
	}
}
