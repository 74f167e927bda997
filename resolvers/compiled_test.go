package resolvers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/loader"
)

// counting wraps an Executor and counts the operations it answered.
type counting struct {
	graphqlhttp.Executor
	answered atomic.Int64
}

func (c *counting) Execute(ctx context.Context, oc *graphql.OperationContext, maxBytes int) ([]byte, error) {
	body, err := c.Executor.Execute(ctx, oc, maxBytes)
	if err == nil {
		c.answered.Add(1)
	}
	return body, err
}

// gqlgenOnly declines every operation: the handler it is given to runs
// everything through gqlgen's generated executor.
type gqlgenOnly struct{}

func (gqlgenOnly) Execute(context.Context, *graphql.OperationContext, int) ([]byte, error) {
	return nil, graphqlhttp.ErrDeclined
}

// pair is the same catalogue served twice: by the compiled plans (falling
// back to gqlgen) and by gqlgen alone.
type pair struct {
	compiled, reference http.Handler
	plans               *counting
}

func newPair(snap *catalogue.Snapshot) *pair {
	st := &catalogue.Store{}
	st.Publish(snap)
	p := &pair{plans: &counting{Executor: NewCompiled()}}
	// A short batching window: these tests compare answers, not batches.
	// Limits wide enough for queries of every field of a whole collection.
	opts := loader.Options{Wait: 20 * time.Microsecond}
	limits := graphqlhttp.Limits{MaxBodyBytes: 1 << 20, MaxTokens: 1 << 20, MaxDepth: 20, MaxFields: 1 << 20,
		MaxAliases: 100, MaxDirectives: 100, MaxComplexity: 1 << 50}
	p.compiled = NewHandler(st, opts, graphqlhttp.Options{Executor: p.plans, Introspection: true, Limits: limits})
	p.reference = NewHandler(st, opts, graphqlhttp.Options{Executor: graphqlhttp.NoExecutor, Introspection: true, Limits: limits})
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

// compare runs query on both and fails unless they answer the same bytes.
// It reports whether the compiled plan answered it.
func (p *pair) compare(t *testing.T, name, query string, vars map[string]any) bool {
	t.Helper()
	before := p.plans.answered.Load()
	cs, cb := post(p.compiled, query, vars)
	rs, rb := post(p.reference, query, vars)
	answered := p.plans.answered.Load() > before
	if bytes.HasPrefix(rb, []byte(`{"errors"`)) {
		// Errors carry request ids; both must fail alike, and the plan
		// must have left the query to gqlgen.
		if answered || cs != rs || !bytes.HasPrefix(cb, []byte(`{"errors"`)) {
			t.Errorf("%s: gqlgen answered %d with errors, the plan path %d (answered by the plan: %t): %.300s",
				name, rs, cs, answered, cb)
		}
		return answered
	}
	if cs != rs || !bytes.Equal(cb, rb) {
		i := 0
		for i < len(cb) && i < len(rb) && cb[i] == rb[i] {
			i++
		}
		lo := max(0, i-120)
		t.Errorf("%s: answers differ (plan answered: %t) at byte %d:\n plan  %d …%.240s\n gqlgen %d …%.240s",
			name, answered, i, cs, cb[lo:], rs, rb[lo:])
	}
	return answered
}

// everything writes a selection of every field of a type that the plans
// can answer (plain fields and references), depth levels of objects deep.
func everything(s *ast.Schema, typeName string, depth int) string {
	def := s.Types[typeName]
	goType := goTypes[typeName]
	var b strings.Builder
	b.WriteString("{ __typename")
	for _, f := range def.Fields {
		if strings.HasPrefix(f.Name, "__") || len(f.Arguments) > 0 {
			continue
		}
		named := s.Types[f.Type.Name()]
		_, isRef := references[goType][f.Name]
		_, isRelation := relations[goType][f.Name]
		if goType != nil && !isRef && !isRelation {
			if _, _, _, ok := bind(goType, f.Name); !ok {
				continue // a reverse relation: gqlgen's
			}
		}
		switch {
		case named.Kind == ast.Object && depth == 0:
		case named.Kind == ast.Object:
			fmt.Fprintf(&b, " %s %s", f.Name, everything(s, named.Name, depth-1))
		default:
			fmt.Fprintf(&b, " %s", f.Name)
		}
	}
	b.WriteString(" }")
	return b.String()
}

// goTypes maps the schema's object types to the Go types they bind to,
// found by walking the root fields' results.
var goTypes = map[string]reflect.Type{}

func learnTypes(s *ast.Schema, typeName string, t reflect.Type) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || goTypes[typeName] != nil {
		return
	}
	goTypes[typeName] = t
	for _, f := range s.Types[typeName].Fields {
		named := s.Types[f.Type.Name()]
		if named == nil || named.Kind != ast.Object {
			continue
		}
		if ref, ok := references[t][f.Name]; ok {
			learnTypes(s, named.Name, recordTypes[ref.kind])
			continue
		}
		if rel, ok := relations[t][f.Name]; ok {
			learnTypes(s, named.Name, rel.typ)
			continue
		}
		if ft, _, _, ok := bind(t, f.Name); ok {
			learnTypes(s, named.Name, ft)
		}
	}
}

func schemaAndTypes(t *testing.T) *ast.Schema {
	t.Helper()
	s := graph.NewExecutableSchema(graph.Config{Resolvers: &Resolver{}}).Schema()
	q := reflect.ValueOf((&Resolver{}).Query())
	for _, f := range s.Query.Fields {
		if m := q.MethodByName(strings.ToUpper(f.Name[:1]) + f.Name[1:]); m.IsValid() {
			learnTypes(s, f.Type.Name(), m.Type().Out(0))
		}
	}
	return s
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

// TestCompiledMatchesGQLGen runs queries through the compiled plans and
// through gqlgen's executor and requires the same bytes from both: every
// field of every collection, every reference (resolved and dangling),
// pages and cursors, aliases, fragments, variables, the golden queries of
// a frontend, and the queries the plans must leave to gqlgen.
func TestCompiledMatchesGQLGen(t *testing.T) {
	s := schemaAndTypes(t)
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
			mustCompile := func(name, query string, vars map[string]any) {
				t.Helper()
				if !p.compare(t, name, query, vars) {
					t.Errorf("%s: the plans left it to gqlgen, want them to answer it", name)
				}
			}
			for _, f := range s.Query.Fields {
				if strings.HasPrefix(f.Name, "__") {
					continue
				}
				typ := f.Type.Name()
				if strings.HasSuffix(typ, "Connection") {
					node := strings.TrimSuffix(typ, "Connection")
					mustCompile(f.Name+" everything", fmt.Sprintf(`{ %s(first: %d) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } nodes %s } }`,
						f.Name, cat.first, everything(s, node, 3)), nil)
					mustCompile(f.Name+" edges", fmt.Sprintf(`query($n: Int, $after: String) { %s(first: $n, after: $after) { edges { cursor node { __typename } } pageInfo { endCursor hasNextPage } } }`,
						f.Name), map[string]any{"n": 2})
					mustCompile(f.Name+" last", fmt.Sprintf(`{ a: %s(last: 3) { totalCount nodes { __typename } } b: %s(first: 0) { pageInfo { startCursor endCursor } } }`,
						f.Name, f.Name), nil)
					continue
				}
				for _, id := range []int{1, 2, 3, 999999999} {
					mustCompile(fmt.Sprintf("%s(id: %d)", f.Name, id), fmt.Sprintf(`query($id: Int!) { %s(id: $id) %s }`,
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
			mustCompile("items after a cursor", `query($after: String) { items(first: 3, after: $after) { nodes { id name } pageInfo { hasPreviousPage } } }`,
				map[string]any{"after": page.Data.Items.PageInfo.EndCursor})
			mustCompile("fragments and aliases", `
				query Page { x: monsters(first: 5) { ...M nodes { drops { ... on MonsterDrop { it: item { ...I } } } } } }
				fragment M on MonsterConnection { n: totalCount nodes { id, name, again: name } }
				fragment I on Item { id name rarity itemName: name }`, nil)
			mustCompile("the peer queries", `{
				q1: item(id: 5) { id name value }
				q2: monsters(first: 100) { nodes { id name drops { itemId item { id name rarity } } } }
				q3: items(first: 200) { nodes { id name monsterDrops { monsterId monster { id name combatLevel } } } }
				q4: quests(first: 100) { nodes { questName questItems { item { name } } questRewards { item { name } } } } }`, nil)
			mustCompile("one record, two selections", `{ monsters(first: 50) { nodes { drops {
				a: item { id crafting { materials { item { name } } } }
				b: item { id monsterDrops { monster { name drops { item { rarity } } } } } } } } }`, nil)
			mustCompile("three levels of references", `{ items(first: 100) { nodes { crafting { materials { item {
				crafting { materials { item { monsterDrops { monster { name } } } } } } } } } } }`, nil)
			mustCompile("reverse relations", `{ items(first: 100) { nodes { id droppedByMonsters { id name drops { item { name } } }
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
				mustCompile(fmt.Sprintf("@skip and @include %v", vars), skipInclude, vars)
			}
			// An explicit null where the directive needs a Boolean is an
			// error gqlgen reports while executing: the plans leave it to it.
			if p.compare(t, "@include(if: null)", skipInclude, map[string]any{"a": true, "b": nil, "id": 2}) {
				t.Errorf("@include(if: null): the plans answered it, want it left to gqlgen")
			}
			mustCompile("root typename", `{ __typename items(first: 1) { totalCount } }`, nil)
			// Filters and orderings, as literals and as variables.
			mustCompile("filter", `{ items(first: 3, filter: { nameContains: "a" }) { nodes { id monsterDrops { monster { name } } } } }`, nil)
			mustCompile("filter and ordering", `query($f: MonsterFilter, $o: MonsterOrder) {
				monsters(first: 5, filter: $f, orderBy: $o) { totalCount nodes { name combatLevel drops { item { name } } } } }`,
				map[string]any{"f": map[string]any{"combatLevelMin": 3}, "o": map[string]any{"field": "COMBAT_LEVEL", "direction": "DESC"}})
			mustCompile("prerequisite chains", `{ quests(first: 120) { nodes { questName prerequisite { questName
				prerequisite { id prerequisite { questName questRewards { item { name } } } } unlocks { questName } } } } }`, nil)
			mustCompile("ordering, default direction", `{ quests(first: 4, orderBy: {field: NAME}) { nodes { questName questItems { item { name } } } } }`, nil)

			// What the plans leave to gqlgen, still the same answer.
			for name, q := range map[string]string{
				"@defer":        `{ items(first: 2) { nodes { id ... @defer { name } } } }`,
				"introspection": `{ __type(name: "Item") { name } }`,
				"bad cursor":    `{ items(after: "nope") { totalCount } }`,
				"too many":      `{ items(first: 5000) { totalCount } }`,
			} {
				if p.compare(t, name, q, map[string]any{"yes": true}) {
					t.Errorf("%s: the plans answered it, want it left to gqlgen", name)
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

// TestCompiledWithCollectionsMissing: before a collection's first good
// body, a one-record field of it is an error (gqlgen's to report), and
// references into it are null, as gqlgen answers them.
func TestCompiledWithCollectionsMissing(t *testing.T) {
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
		if p.compare(t, name, q, nil) {
			t.Errorf("%s: the plans answered it, want it left to gqlgen", name)
		}
	}
	if !p.compare(t, "references into a missing collection", `{ quests(first: 10) { nodes { questItems { itemId item { id } } } } }`, nil) {
		t.Errorf("the plans left references into a missing collection to gqlgen, want them answered")
	}
}

func TestAppendQuoted(t *testing.T) {
	// Every character class gqlgen and encoding/json escape, and some
	// they leave alone.
	s := "plain \"q\" \\ \t\r\n \x00\x1f\x7f <b>&amp; é ✓ \u2028\u2029 \xff end"
	var gq bytes.Buffer
	graphql.MarshalString(s).MarshalGQL(&gq)
	want, err := json.Marshal(json.RawMessage(gq.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got := appendQuoted(nil, s); !bytes.Equal(got, want) {
		t.Errorf("appendQuoted(%q)\n got %s\nwant %s", s, got, want)
	}
}
