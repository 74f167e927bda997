package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp/documents"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/engine"
	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/internal/memory"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/resolvers"
)

// counting wraps an Executor and counts the operations it answered.
type counting struct {
	execution.Executor
	answered atomic.Int64
}

func (c *counting) Execute(ctx context.Context, oc *graphql.OperationContext, memo *execution.Memo, maxBytes int) (execution.Answer, error) {
	answer, err := c.Executor.Execute(ctx, oc, memo, maxBytes)
	if err == nil {
		c.answered.Add(1)
	}
	return answer, err
}

// pair is the same catalogue served twice: by the engine (falling back to
// gqlgen) and by gqlgen alone.
type pair struct {
	engine, reference http.Handler
	answered          *counting
}

func newPair(snap *catalogue.Snapshot) *pair {
	st := &catalogue.Store{}
	st.Publish(snap)
	p := &pair{answered: &counting{Executor: resolvers.NewEngine(nil)}}
	// A short batching window: these tests compare answers, not batches.
	// Limits wide enough for queries of every field of a whole collection.
	opts := loader.Options{Wait: 20 * time.Microsecond}
	limits := admission.Limits{MaxBodyBytes: 1 << 20, MaxTokens: 1 << 20, MaxDepth: 20, MaxFields: 1 << 20,
		MaxAliases: 100, MaxDirectives: 100, MaxComplexity: 1 << 50}
	p.engine = resolvers.NewHandler(st, opts, graphqlhttp.Options{Executor: p.answered, Introspection: true, Limits: limits})
	p.reference = resolvers.NewHandler(st, opts, graphqlhttp.Options{Executor: execution.None, Introspection: true, Limits: limits})
	return p
}

func post(h http.Handler, query string, vars map[string]any) (int, []byte) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// embeddedStore returns a store publishing the embedded catalogue.
func embeddedStore(tb testing.TB) *catalogue.Store {
	tb.Helper()
	snap, err := catalogue.Embedded()
	if err != nil {
		tb.Fatal(err)
	}
	st := &catalogue.Store{}
	st.Publish(snap)
	return st
}

var requestIDs = regexp.MustCompile(`"requestId":"[0-9a-f]+"`)

// compare runs query on both and fails unless they answer the same status
// and bytes, errors included (but for their request ids, each request's
// own). It reports whether the engine answered it.
func (p *pair) compare(t *testing.T, name, query string, vars map[string]any) bool {
	t.Helper()
	before := p.answered.answered.Load()
	// Twice: the second answer copies the renderings the first kept.
	post(p.engine, query, vars)
	cs, cb := post(p.engine, query, vars)
	rs, rb := post(p.reference, query, vars)
	answered := p.answered.answered.Load() > before
	cb, rb = requestIDs.ReplaceAll(cb, nil), requestIDs.ReplaceAll(rb, nil)
	if cs != rs || !bytes.Equal(cb, rb) {
		i := 0
		for i < len(cb) && i < len(rb) && cb[i] == rb[i] {
			i++
		}
		lo := max(0, i-120)
		t.Errorf("%s: answers differ (engine answered: %t) at byte %d:\n engine %d …%.240s\n gqlgen %d …%.240s",
			name, answered, i, cs, cb[lo:], rs, rb[lo:])
	}
	// The entity keys each noted, on a GET, the engine's from the
	// renderings the POSTs kept.
	if ck, rk := getKeys(p.engine, query, vars), getKeys(p.reference, query, vars); ck != rk {
		t.Errorf("%s: Surrogate-Key differs (engine answered: %t):\n engine %.400s\n gqlgen %.400s", name, answered, ck, rk)
	}
	return answered
}

// getKeys sends query as a GET and returns the answer's Surrogate-Key.
func getKeys(h http.Handler, query string, vars map[string]any) string {
	v := url.Values{"query": {query}}
	if vars != nil {
		b, _ := json.Marshal(vars)
		v.Set("variables", string(b))
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/graphql?"+v.Encode(), nil))
	return rec.Header().Get("Surrogate-Key")
}

// everything writes a selection of every field of a type that takes no
// arguments, depth levels of objects deep, from the schema alone.
func everything(s *ast.Schema, typeName string, depth int) string {
	var b strings.Builder
	b.WriteString("{ __typename")
	for _, f := range s.Types[typeName].Fields {
		if strings.HasPrefix(f.Name, "__") || len(f.Arguments) > 0 {
			continue
		}
		named := s.Types[f.Type.Name()]
		if named.Kind == ast.Object {
			if depth == 0 {
				continue
			}
			b.WriteString(" " + f.Name + " " + everything(s, named.Name, depth-1))
			continue
		}
		b.WriteString(" " + f.Name)
	}
	b.WriteString(" }")
	return b.String()
}

func fixtureSnapshot(t *testing.T) *catalogue.Snapshot {
	t.Helper()
	var parts []*catalogue.Part
	for c, raw := range upstreamtest.FixtureBodies(t) {
		p, err := catalogue.Decode(c, raw)
		if err != nil {
			t.Fatalf("fixture %s: %v", c, err)
		}
		parts = append(parts, p)
	}
	return catalogue.NewSnapshot(parts...)
}

// TestEngineMatchesGQLGen runs queries through the engine and through
// gqlgen's executor and requires the same bytes from both: every field of
// every collection, every reference (resolved and dangling), pages and
// cursors, aliases, fragments, variables, field errors, the golden queries
// of a frontend, and the queries the engine leaves to gqlgen.
func TestEngineMatchesGQLGen(t *testing.T) {
	s := graph.NewExecutableSchema(graph.Config{Resolvers: &resolvers.Resolver{}}).Schema()
	embedded, err := catalogue.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, cat := range []struct {
		name  string
		snap  *catalogue.Snapshot
		first int
	}{{"fixture", fixtureSnapshot(t), 1000}, {"embedded", embedded, 12}} {
		t.Run(cat.name, func(t *testing.T) {
			p := newPair(cat.snap)
			mustAnswer := func(name, query string, vars map[string]any) {
				t.Helper()
				if !p.compare(t, name, query, vars) {
					t.Errorf("%s: the engine left it to gqlgen, want it to answer it", name)
				}
			}
			for _, f := range s.Query.Fields {
				if strings.HasPrefix(f.Name, "__") {
					continue
				}
				typ := f.Type.Name()
				if strings.HasSuffix(typ, "Connection") {
					node := strings.TrimSuffix(typ, "Connection")
					mustAnswer(f.Name+" everything", fmt.Sprintf(`{ %s(first: %d) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } nodes %s } }`,
						f.Name, cat.first, everything(s, node, 3)), nil)
					mustAnswer(f.Name+" edges", fmt.Sprintf(`query($n: Int, $after: String) { %s(first: $n, after: $after) { edges { cursor node { __typename } } pageInfo { endCursor hasNextPage } } }`,
						f.Name), map[string]any{"n": 2})
					mustAnswer(f.Name+" facets", fmt.Sprintf(`{ %s(first: 1) { facets { field values { value count } } } }`, f.Name), nil)
					mustAnswer(f.Name+" last", fmt.Sprintf(`{ a: %s(last: 3) { totalCount nodes { __typename } } b: %s(first: 0) { pageInfo { startCursor endCursor } } }`,
						f.Name, f.Name), nil)
					continue
				}
				switch f.Name {
				case "_entities":
					// The federation subgraph's entities: every kind, a
					// missing id, duplicates, a type not selected, fragments
					// on the union and references under the entities.
					var sel strings.Builder
					for _, typ := range []string{"Item", "Monster", "SecretRare", "WorldBoss", "Quest", "BaseCamp", "DiscoveryLocation",
						"MiningRock", "CookingRecipe", "FarmingSeed", "ForestryTree", "FletchingRecipe", "EventChest"} {
						fmt.Fprintf(&sel, " ... on %s { id }", typ)
					}
					mustAnswer(f.Name+" every kind", `query($r: [_Any!]!) { _entities(representations: $r) { __typename`+sel.String()+` } }`,
						map[string]any{"r": []any{
							map[string]any{"__typename": "Item", "id": 1}, map[string]any{"__typename": "Monster", "id": 2},
							map[string]any{"__typename": "Item", "id": 999999999}, map[string]any{"__typename": "WorldBoss", "id": 1},
							map[string]any{"__typename": "Item", "id": 1}, map[string]any{"__typename": "SecretRare", "id": 1},
							map[string]any{"__typename": "Quest", "id": 3}, map[string]any{"__typename": "MiningRock", "id": 1},
							map[string]any{"__typename": "EventChest", "id": 1}, map[string]any{"__typename": "BaseCamp", "id": 1},
							map[string]any{"__typename": "CookingRecipe", "id": 1}, map[string]any{"__typename": "FarmingSeed", "id": 1},
							map[string]any{"__typename": "ForestryTree", "id": 1}, map[string]any{"__typename": "FletchingRecipe", "id": 1},
							map[string]any{"__typename": "DiscoveryLocation", "id": 1}}})
					for _, typ := range []string{"Item", "Monster"} {
						// (One type at a time: Item's and Monster's fields of
						// one name differ in type, which no selection may merge.)
						mustAnswer(f.Name+" everything of "+typ, fmt.Sprintf(`{ _entities(representations: [{__typename: "Item", id: 1}, {__typename: "Monster", id: 2}, {__typename: "Monster", id: 999999999}, {__typename: "Quest", id: 1}, {__typename: "Item", id: 3}]) { ... on _Entity { __typename } ... on %s %s } }`,
							typ, everything(s, typ, 2)), nil)
					}
					continue
				case "_service":
					// Asked once per composition: gqlgen's executor answers
					// it, and the two agree.
					p.compare(t, f.Name, `{ _service { sdl } }`, nil)
					continue
				}
				if f.Arguments.ForName("id") == nil {
					// search: a union of the records (a Go interface) and
					// an enum, both answered by the engine, as gqlgen
					// writes them.
					mustAnswer(f.Name+" records", fmt.Sprintf(`{ %s(text: "bone", first: 20) { match name record { __typename ... on Item { id name } ... on Monster { id combatLevel drops { item { name } } } } } }`, f.Name), nil)
					mustAnswer(f.Name+" every kind", fmt.Sprintf(`{ %s(text: "e", first: 200) { match record { __typename ... on Quest { questName } ... on WorldBoss { id } ... on SecretRare { id } } } }`, f.Name), nil)
					mustAnswer(f.Name+" names", fmt.Sprintf(`{ %s(text: "tro", first: 20) { name } }`, f.Name), nil)
					continue
				}
				for _, id := range []int{1, 2, 3, 999999999} {
					mustAnswer(fmt.Sprintf("%s(id: %d)", f.Name, id), fmt.Sprintf(`query($id: Int!) { %s(id: $id) %s }`,
						f.Name, everything(s, typ, 2)), map[string]any{"id": id})
				}
			}
			// Paging onwards with a cursor the first page gave.
			_, first := post(p.reference, `{ items(first: 2) { pageInfo { endCursor } } }`, nil)
			var page struct {
				Data struct {
					Items struct{ PageInfo struct{ EndCursor string } }
				}
			}
			json.Unmarshal(first, &page)
			mustAnswer("items after a cursor", `query($after: String) { items(first: 3, after: $after) { nodes { id name } pageInfo { hasPreviousPage } } }`,
				map[string]any{"after": page.Data.Items.PageInfo.EndCursor})
			mustAnswer("fragments and aliases", `
				query Page { x: monsters(first: 5) { ...M nodes { drops { ... on MonsterDrop { it: item { ...I } } } } } }
				fragment M on MonsterConnection { n: totalCount nodes { id, name, again: name } }
				fragment I on Item { id name rarity itemName: name }`, nil)
			mustAnswer("the peer queries", `{
				q1: item(id: 5) { id name value }
				q2: monsters(first: 100) { nodes { id name drops { itemId item { id name rarity } } } }
				q3: items(first: 200) { nodes { id name monsterDrops { monsterId monster { id name combatLevel } } } }
				q4: quests(first: 100) { nodes { questName questItems { item { name } } questRewards { item { name } } } } }`, nil)
			mustAnswer("one record, two selections", `{ monsters(first: 50) { nodes { drops {
				a: item { id crafting { materials { item { name } } } }
				b: item { id monsterDrops { monster { name drops { item { rarity } } } } } } } } }`, nil)
			mustAnswer("three levels of references", `{ items(first: 100) { nodes { crafting { materials { item {
				crafting { materials { item { monsterDrops { monster { name } } } } } } } } } } }`, nil)
			mustAnswer("reverse relations", `{ items(first: 100) { nodes { id droppedByMonsters { id name drops { item { name } } }
				rewardedByQuests { questName } ingredientOf { name } } }
				monsters(first: 20) { nodes { droppedItems { name droppedByMonsters { id } } } } }`, nil)
			// @skip and @include: one plan for each value of the variables.
			const skipInclude = `query($a: Boolean!, $b: Boolean = true, $id: Int!) {
				items(first: 5) { nodes { id name @include(if: $a) crafting @skip(if: $a) { name } } }
				monster(id: $id) { ...M @include(if: $b) name @skip(if: true) area @include(if: true) }
			} fragment M on Monster { drops { item @skip(if: $b) { name } rarity } }`
			for _, vars := range []map[string]any{
				{"a": true, "b": true, "id": 1}, {"a": false, "b": true, "id": 2},
				{"a": true, "b": false, "id": 3}, {"a": false, "id": 1},
			} {
				mustAnswer(fmt.Sprintf("@skip and @include %v", vars), skipInclude, vars)
			}
			// An explicit null where the directive needs a Boolean is an
			// error gqlgen reports while executing: the engine leaves it
			// to it.
			if p.compare(t, "@include(if: null)", skipInclude, map[string]any{"a": true, "b": nil, "id": 2}) {
				t.Errorf("@include(if: null): the engine answered it, want it left to gqlgen")
			}
			mustAnswer("root typename", `{ __typename items(first: 1) { totalCount } }`, nil)
			// Filters and orderings, as literals and as variables.
			mustAnswer("filter", `{ items(first: 3, filter: { nameContains: "a" }) { nodes { id monsterDrops { monster { name } } } } }`, nil)
			mustAnswer("filter and ordering", `query($f: MonsterFilter, $o: MonsterOrder) {
				monsters(first: 5, filter: $f, orderBy: $o) { totalCount nodes { name combatLevel drops { item { name } } } } }`,
				map[string]any{"f": map[string]any{"combatLevelMin": 3}, "o": map[string]any{"field": "COMBAT_LEVEL", "direction": "DESC"}})
			mustAnswer("prerequisite chains", `{ quests(first: 120) { nodes { questName prerequisite { questName
				prerequisite { id prerequisite { questName questRewards { item { name } } } } unlocks { questName } } } } }`, nil)
			mustAnswer("ordering, default direction", `{ quests(first: 4, orderBy: {field: NAME}) { nodes { questName questItems { item { name } } } } }`, nil)

			// Field errors: null, or data null for a non-null field, and
			// the error at its path.
			mustAnswer("bad cursor", `{ items(after: "nope") { totalCount } }`, nil)
			mustAnswer("too many", `{ items(first: 5000) { totalCount } }`, nil)
			mustAnswer("negative, by a variable", `query($n: Int) { a: monster(id: 1) { name } b: quests(last: $n) { totalCount } }`,
				map[string]any{"n": -1})
			// @defer and @stream: asked as JSON, the whole answer, as
			// gqlgen gives it without them.
			mustAnswer("@defer", `{ items(first: 2) { nodes { id ... @defer { name } } } }`, nil)
			mustAnswer("@stream and a deferred spread", `query($on: Boolean!) { search(text: "a") @stream(initialCount: 1) {
				name record { ...R @defer(if: $on) } } } fragment R on Item { id }`, map[string]any{"on": true})
			// What the engine leaves to gqlgen, still the same answer.
			for name, q := range map[string]string{
				"introspection": `{ __type(name: "Item") { name } }`,
			} {
				if p.compare(t, name, q, map[string]any{"yes": true}) {
					t.Errorf("%s: the engine answered it, want it left to gqlgen", name)
				}
			}
			// The golden queries of a frontend: whatever the plans take must
			// be gqlgen's answer.
			docs, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.graphql"))
			for _, doc := range docs {
				q, _ := os.ReadFile(doc)
				var vars map[string]any
				if raw, err := os.ReadFile(strings.TrimSuffix(doc, ".graphql") + ".vars.json"); err == nil {
					json.Unmarshal(raw, &vars)
				}
				p.compare(t, filepath.Base(doc), string(q), vars)
			}
		})
	}
}

// TestEngineWithCollectionsMissing: before a collection's first good
// body, a field of it is an error, and references into it are null, as
// gqlgen answers them.
func TestEngineWithCollectionsMissing(t *testing.T) {
	full := fixtureSnapshot(t)
	var parts []*catalogue.Part
	for c := range catalogue.NumCollections {
		if c != catalogue.Items && c != catalogue.Monsters {
			parts = append(parts, full.Part(c))
		}
	}
	p := newPair(catalogue.NewSnapshot(parts...))
	for name, q := range map[string]string{
		"item by id":    `{ item(id: 1) { id name } }`,
		"monster by id": `{ monster(id: 1) { id } }`,
		"items":         `{ items(first: 2) { nodes { id } } }`,
	} {
		if !p.compare(t, name, q, nil) {
			t.Errorf("%s: the engine left it to gqlgen, want it answered", name)
		}
	}
	if !p.compare(t, "references into a missing collection", `{ quests(first: 10) { nodes { questItems { itemId item { id } } } } }`, nil) {
		t.Errorf("the engine left references into a missing collection to gqlgen, want them answered")
	}
}

// TestKeptRenderingsFollowTheSnapshot: the renderings of records the
// engine keeps are those of the request's snapshot; after a refresh that
// renames an item, the new name is served, and a request still reading
// the old snapshot gets the old one.
func TestKeptRenderingsFollowTheSnapshot(t *testing.T) {
	bodies := upstreamtest.FixtureBodies(t)
	decode := func(items []byte) *catalogue.Snapshot {
		var parts []*catalogue.Part
		for c, raw := range bodies {
			if c == catalogue.Items {
				raw = items
			}
			p, err := catalogue.Decode(c, raw)
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, p)
		}
		return catalogue.NewSnapshot(parts...)
	}
	before := decode(bodies[catalogue.Items])
	after := decode(bytes.ReplaceAll(bodies[catalogue.Items], []byte(`"Copper Ore"`), []byte(`"Tin Ore"`)))

	st := &catalogue.Store{}
	h := resolvers.NewHandler(st, loader.Options{}, graphqlhttp.Options{Executor: resolvers.NewEngine(nil)})
	const q = `{ monsters(first: 5) { nodes { drops { item { name } } } } }`
	names := func() string {
		_, b := post(h, q, nil)
		switch {
		case bytes.Contains(b, []byte("Copper Ore")) && !bytes.Contains(b, []byte("Tin Ore")):
			return "old"
		case bytes.Contains(b, []byte("Tin Ore")) && !bytes.Contains(b, []byte("Copper Ore")):
			return "new"
		}
		t.Fatalf("an answer naming neither or both: %s", b)
		return ""
	}
	for _, step := range []struct {
		snap *catalogue.Snapshot
		want string
	}{{before, "old"}, {before, "old"}, {after, "new"}, {after, "new"}, {before, "old"}} {
		st.Publish(step.snap)
		if got := names(); got != step.want {
			t.Errorf("with the %s snapshot published, the answer has the %s name", step.want, got)
		}
	}
}

// TestKeptRecordsLoadNothing: the records a page lists are kept under
// their selection like the records references name (a page with no
// reference keeps each of its records), so the same page, or
// another document listing the same records under the same selection,
// loads nothing the second time and answers the same bytes; a record named
// by a reference and listed with the same selection shares one rendering.
func TestKeptRecordsLoadNothing(t *testing.T) {
	st := embeddedStore(t)
	var batches atomic.Int64
	mem := memory.NewBudget(32 << 20)
	h := resolvers.NewHandler(st, loader.Options{OnBatch: func(string, int) { batches.Add(1) }},
		graphqlhttp.Options{Executor: resolvers.NewEngine(mem), Memory: mem})
	renderings := func() int {
		for _, s := range mem.Stats() {
			if s.Store == "renderings" {
				return s.Entries
			}
		}
		t.Fatal("no renderings store")
		return 0
	}
	answer := func(q string) []byte {
		t.Helper()
		status, body := post(h, q, nil)
		if status != http.StatusOK || bytes.Contains(body, []byte(`"errors"`)) {
			t.Fatalf("%d %s", status, body)
		}
		return body
	}

	const page = `{ monsters(first: 20) { nodes { id name drops { item { id name } } } } }`
	first := answer(page)
	if batches.Load() == 0 {
		t.Fatal("the first run loaded nothing: the drops' items went unresolved")
	}
	kept := renderings()
	batches.Store(0)
	if again := answer("# another document\n" + page); !bytes.Equal(again, first) {
		t.Errorf("the page from its kept records differs:\n first %.300s\n again %.300s", first, again)
	}
	if n := batches.Load(); n != 0 {
		t.Errorf("the kept page loaded %d batches, want none", n)
	}
	if renderings() != kept {
		t.Errorf("the same page again kept %d renderings more", renderings()-kept)
	}

	// The items the drops name, listed by id under the same selection,
	// are already kept: the reference's rendering is the record's.
	var id int64
	if _, err := fmt.Sscan(string(regexp.MustCompile(`"item":\{"id":(\d+)`).FindSubmatch(first)[1]), &id); err != nil {
		t.Fatal(err)
	}
	answer(fmt.Sprintf(`{ item(id: %d) { id name } }`, id))
	if renderings() != kept {
		t.Errorf("an item named by a reference, asked by id under the same selection, kept %d renderings more", renderings()-kept)
	}

	// A page with no reference at all keeps each record it lists.
	answer(`{ items(first: 10) { nodes { id rarity } } }`)
	if got := renderings() - kept; got != 10 {
		t.Errorf("a page of 10 items under a new selection kept %d renderings, want 10", got)
	}
}

// TestRenderingsSharedAcrossDocuments: 420 documents of the same nested
// selection, each with a different comment (issue 22: they held 570-663
// MB against a 32 MiB bound), share their renderings, so the store does
// not grow with them; the documents they came in are each charged, and
// the stores stay within their shares.
func TestRenderingsSharedAcrossDocuments(t *testing.T) {
	st := embeddedStore(t)
	mem := memory.NewBudget(32 << 20)
	h := resolvers.NewHandler(st, loader.Options{}, graphqlhttp.Options{Executor: resolvers.NewEngine(mem), Memory: mem})
	stats := func() map[string]memory.StoreStats {
		out := map[string]memory.StoreStats{}
		for _, s := range mem.Stats() {
			out[s.Store] = s
			if s.Bytes > s.Share {
				t.Errorf("%s is charged %d bytes, over its share %d", s.Store, s.Bytes, s.Share)
			}
		}
		return out
	}
	var aliases strings.Builder
	for i := range 10 {
		fmt.Fprintf(&aliases, "i%d: item { id name } ", i)
	}
	query := func(n int) string {
		return fmt.Sprintf("# client %d\n{ monsters(first: 50) { nodes { drops { %s} } } }", n, aliases.String())
	}
	if status, body := post(h, query(0), nil); status != http.StatusOK || bytes.Contains(body, []byte(`"errors"`)) {
		t.Fatalf("%d %s", status, body)
	}
	first := stats()
	if first["renderings"].Entries == 0 {
		t.Fatalf("no rendering kept after the first query: %+v", first)
	}
	for n := 1; n < 420; n++ {
		post(h, query(n), nil)
	}
	last := stats()
	if last["renderings"].Entries != first["renderings"].Entries || last["renderings"].Bytes != first["renderings"].Bytes {
		t.Errorf("renderings grew with the documents: %+v after one, %+v after 420", first["renderings"], last["renderings"])
	}
	if docs := last["documents"]; docs.Entries+int(docs.Evictions) != 420 {
		t.Errorf("documents %+v; want 420 kept or let go", docs)
	}
}

// TestRenderingsOutliveAFlood: a client that fills the renderings' share
// with selections nobody asks for again holds it only until two sweeps
// have passed; then a page others ask for is kept again, and loads
// nothing. (Before sweeps, the flood held the share for the snapshot's
// life, and the page was loaded and written every time.)
func TestRenderingsOutliveAFlood(t *testing.T) {
	st := embeddedStore(t)
	var batches atomic.Int64
	mem := memory.NewBudget(1 << 20) // a renderings share of about a dozen items' tables
	eng := resolvers.NewEngine(mem)
	engine.SetSweepEvery(eng, time.Hour) // the flood first fills the share
	h := resolvers.NewHandler(st, loader.Options{OnBatch: func(string, int) { batches.Add(1) }},
		graphqlhttp.Options{Executor: eng, Memory: mem})
	renderings := func() memory.StoreStats {
		for _, s := range mem.Stats() {
			if s.Store == "renderings" {
				return s
			}
		}
		t.Fatal("no renderings store")
		return memory.StoreStats{}
	}
	answer := func(q string) {
		t.Helper()
		if status, body := post(h, q, nil); status != http.StatusOK || bytes.Contains(body, []byte(`"errors"`)) {
			t.Fatalf("%d %s", status, body)
		}
	}

	// Items' tables, then monsters' (smaller: the page's first), until
	// not even a monsters' table has room.
	for n := range 400 {
		kind := "items"
		if n >= 100 {
			kind = "monsters"
		}
		answer(fmt.Sprintf(`{ %s(first: 3) { nodes { flood%d: id } } }`, kind, n))
	}
	if r := renderings(); r.Bytes+tableCostOf(st, catalogue.MonsterKind) <= r.Share {
		t.Fatalf("the flood left room for another table (%+v): the test needs a smaller share", r)
	}

	const page = `{ monsters(first: 20) { nodes { id name drops { item { id name } } } } }`
	const sweepEvery = 20 * time.Millisecond
	engine.SetSweepEvery(eng, sweepEvery)
	deadline := time.Now().Add(10 * time.Second)
	for {
		// Each run finds the store full and sweeps once a sweepEvery has
		// passed: the first clears the marks, the next drops the flood.
		time.Sleep(2 * sweepEvery)
		answer(page)
		batches.Store(0)
		answer(page)
		if batches.Load() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page still loads %d batches after 10 s of sweeps: the flood holds the share (%+v)", batches.Load(), renderings())
		}
	}
	if r := renderings(); r.Evictions == 0 || r.Bytes > r.Share {
		t.Errorf("renderings %+v; want the flood's counted as evicted, within the share", r)
	}
}

// tableCostOf is what a table of renderings of kind k is charged.
func tableCostOf(st *catalogue.Store, k catalogue.Kind) int64 {
	return engine.TableCost(st.Current().KindPositions(k).Len())
}

// TestDocumentChargeTracksTheHeap: what the documents and renderings are
// charged for many new documents with plans (their text, parse, plan and
// cost, and the entries' overhead) is within a third of what they add to
// the live heap, measured by the runtime through the whole handler.
func TestDocumentChargeTracksTheHeap(t *testing.T) {
	st := embeddedStore(t)
	mem := memory.NewBudget(1 << 30)
	h := resolvers.NewHandler(st, loader.Options{}, graphqlhttp.Options{Executor: resolvers.NewEngine(mem), Memory: mem})
	var aliases strings.Builder
	for i := range 29 {
		fmt.Fprintf(&aliases, "i%d: item { id } ", i)
	}
	query := func(n int) string {
		return fmt.Sprintf("# client %d\n{ monsters(first: 150) { nodes { drops { %s} } } }", n, aliases.String())
	}
	post(h, query(-1), nil) // the loaders', lengths' and renderings' first use
	charged := func() int64 {
		var n int64
		for _, s := range mem.Stats() {
			n += s.Bytes
		}
		return n
	}
	// Two collections: what survives exactly one (sync.Pool's victim
	// caches, what waits on a finalizer) is gone after the second. With
	// one, the baseline held 12 MB of it or not depending on when the
	// last automatic collection had run: one run in three saw the heap
	// shrink.
	live := func() int64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	heapBefore, chargedBefore := live(), charged()
	const n = 300
	for i := range n {
		if status, _ := post(h, query(i), nil); status != http.StatusOK {
			t.Fatalf("status %d", status)
		}
	}
	grown, more := live()-heapBefore, charged()-chargedBefore
	runtime.KeepAlive(h)
	t.Logf("%d documents: charged %d bytes each, the heap grew %d", n, more/n, grown/n)
	if ratio := float64(more) / float64(grown); ratio < 0.75 || ratio > 1.33 {
		t.Errorf("charged %d bytes, the heap grew %d (ratio %.2f, want 0.75-1.33)", more, grown, ratio)
	}
}

// TestEngineEscapesOpenValuesAsGqlgen: a value of a type the upstream
// leaves open (an event chest's itemId) holding <, > and & is written
// HTML-escaped by both executors, byte for byte alike.
func TestEngineEscapesOpenValuesAsGqlgen(t *testing.T) {
	bodies := upstreamtest.FixtureBodies(t)
	event := bytes.Replace(bodies[catalogue.EventChests], []byte(`"itemId":"abc"`), []byte(`"itemId":"<b>&</b>"`), 1)
	if bytes.Equal(event, bodies[catalogue.EventChests]) {
		t.Fatal("the fixture's event body has no itemId \"abc\" to replace")
	}
	var parts []*catalogue.Part
	for c, raw := range bodies {
		if c == catalogue.EventChests {
			raw = event
		}
		p, err := catalogue.Decode(c, raw)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	p := newPair(catalogue.NewSnapshot(parts...))
	if !p.compare(t, "open values", `{ eventChests(first: 20) { nodes { id itemId } } }`, nil) {
		t.Errorf("the engine left open values to gqlgen, want them answered")
	}
}

// TestTrustedDocumentsPlannedAtLoad: the trusted documents' queries are
// compiled when the manifest is loaded, for the operation name a client
// sends (or none) and each value of their Boolean variables, so that
// their first requests compile nothing, as their hundredth; an unlisted
// query, run in log mode, is compiled on its first request, once.
func TestTrustedDocumentsPlannedAtLoad(t *testing.T) {
	st := embeddedStore(t)
	const (
		page    = `query Page($first: Int!, $withDroppers: Boolean!) { items(first: $first) { nodes { id droppedByMonsters @include(if: $withDroppers) { id } } } }`
		monster = `query Monster($id: Int!) { monster(id: $id) { name drops { item { name } } } }`
	)
	m := documents.Manifest{Documents: []documents.ManifestDocument{{ID: "page", Body: page}, {ID: "monster", Body: monster}}}
	eng := resolvers.NewEngine(nil)
	h := resolvers.NewHandler(st, loader.Options{}, graphqlhttp.Options{Executor: eng,
		TrustedDocuments: graphqlhttp.NewTrustedDocuments(graphqlhttp.TrustedLog, m)})
	loaded := engine.Compiles(eng)
	// Page: named and not, each with true and false; Monster: named and not.
	if loaded != 4+2 {
		t.Errorf("%d operations compiled at load, want 6", loaded)
	}
	for range 100 {
		for _, c := range []struct {
			query string
			vars  map[string]any
		}{
			{page, map[string]any{"first": 3, "withDroppers": true}},
			{page, map[string]any{"first": 5, "withDroppers": false}},
			{monster, map[string]any{"id": 1}},
		} {
			if status, body := post(h, c.query, c.vars); status != http.StatusOK || bytes.Contains(body, []byte(`"errors"`)) {
				t.Fatalf("%d %s", status, body)
			}
		}
	}
	if n := engine.Compiles(eng); n != loaded {
		t.Errorf("%d compiled by 300 requests for listed documents, want none", n-loaded)
	}
	for range 3 {
		post(h, `{ item(id: 1) { name } }`, nil)
	}
	if n := engine.Compiles(eng); n != loaded+1 {
		t.Errorf("an unlisted query asked 3 times compiled %d times, want once", n-loaded)
	}
}
