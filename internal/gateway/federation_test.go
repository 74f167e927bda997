package gateway_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
)

// The record types, every one a federation entity keyed by its id (the
// API contract's table of names). WorldBossLocation and WorldBossLoot are
// not: the one is part of a world boss with no collection of its own, the
// other names its item by a hashed id, not an /items id.
var entityTypes = []string{"BaseCamp", "CookingRecipe", "DiscoveryLocation", "EventChest", "FarmingSeed",
	"FletchingRecipe", "ForestryTree", "Item", "MiningRock", "Monster", "Quest", "SecretRare", "WorldBoss"}

// federationDirectives declares what a subgraph's SDL uses of federation
// v2, so that gqlparser can load it as a router's composition would.
const federationDirectives = `
scalar FieldSet
scalar link__Import
directive @link(url: String!, import: [link__Import]) repeatable on SCHEMA
directive @key(fields: FieldSet!, resolvable: Boolean = true) repeatable on OBJECT | INTERFACE
`

// TestFederationSubgraph asks the gateway, over real HTTP on loopback, what
// a federation router asks a subgraph: its SDL, and entities by their keys.
func TestFederationSubgraph(t *testing.T) {
	g := gatewaytest.Start(t, gatewaytest.Options{Args: []string{"-access-log=false", "-response-cache-bytes=0"}})
	client := gatewaytest.NewClient(t)
	ask := func(t *testing.T, query string, vars map[string]any) (int, fedAnswer) {
		t.Helper()
		return postFederation(t, client, g.URL, query, vars)
	}

	t.Run("_service sdl is a federation v2 subgraph's", func(t *testing.T) {
		_, a := ask(t, `{ _service { sdl } }`, nil)
		var d struct {
			Service struct{ SDL string } `json:"_service"`
		}
		a.decode(t, &d)
		doc, err := parser.ParseSchema(&ast.Source{Name: "sdl", Input: d.Service.SDL})
		if err != nil {
			t.Fatalf("the SDL does not parse: %v", err)
		}
		var linked bool
		for _, ext := range append(doc.Schema, doc.SchemaExtension...) {
			for _, dir := range ext.Directives.ForNames("link") {
				url := dir.Arguments.ForName("url")
				imp := dir.Arguments.ForName("import")
				if url != nil && strings.HasPrefix(url.Value.Raw, "https://specs.apollo.dev/federation/v2.") &&
					imp != nil && strings.Contains(imp.Value.String(), `"@key"`) {
					linked = true
				}
			}
		}
		if !linked {
			t.Error("no @link to federation v2 importing @key")
		}
		var keyed []string
		for _, def := range append(doc.Definitions, doc.Extensions...) {
			for _, key := range def.Directives.ForNames("key") {
				if f := key.Arguments.ForName("fields"); f == nil || f.Value.Raw != "id" {
					t.Errorf("%s: @key(fields: %v), want \"id\"", def.Name, f)
				}
				keyed = append(keyed, def.Name)
			}
		}
		slices.Sort(keyed)
		if diff := cmp.Diff(entityTypes, keyed); diff != "" {
			t.Errorf("the types with @key (-want +got):\n%s", diff)
		}
		for _, def := range append(doc.Definitions, doc.Extensions...) {
			for _, f := range def.Fields {
				if f.Name == "_entities" || f.Name == "_service" {
					t.Errorf("the SDL declares %s.%s, which a subgraph's SDL leaves to the router", def.Name, f.Name)
				}
			}
			if strings.HasPrefix(def.Name, "_") {
				t.Errorf("the SDL declares %s, which a subgraph's SDL leaves to the router", def.Name)
			}
		}
		// It loads as a schema, with the federation directives a router
		// knows, each entity with its Int id.
		s, gerr := gqlparser.LoadSchema(&ast.Source{Name: "sdl", Input: d.Service.SDL}, &ast.Source{Name: "federation", Input: federationDirectives})
		if gerr != nil {
			t.Fatalf("the SDL does not load: %v", gerr)
		}
		for _, name := range entityTypes {
			if f := s.Types[name].Fields.ForName("id"); f == nil || f.Type.String() != "Int!" {
				t.Errorf("%s.id is %v, want Int!", name, f)
			}
		}
	})

	t.Run("/schema.graphql stays the API schema", func(t *testing.T) {
		_, body := gatewaytest.Get(t, client, g.URL+"/schema.graphql")
		doc, err := parser.ParseSchema(&ast.Source{Name: "schema.graphql", Input: string(body)})
		if err != nil {
			t.Fatalf("/schema.graphql does not parse: %v", err)
		}
		for _, def := range doc.Definitions {
			if strings.HasPrefix(def.Name, "_") || def.Directives.ForName("key") != nil {
				t.Errorf("/schema.graphql shows %s of the subgraph", def.Name)
			}
			for _, f := range def.Fields {
				if strings.HasPrefix(f.Name, "_") {
					t.Errorf("/schema.graphql shows %s.%s of the subgraph", def.Name, f.Name)
				}
			}
		}
		if len(doc.Schema)+len(doc.SchemaExtension) > 0 || doc.Directives.ForName("link") != nil || doc.Directives.ForName("key") != nil {
			t.Error("/schema.graphql shows the subgraph's @link or the federation's directives")
		}
	})

	t.Run("_entities: mixed kinds, duplicates and missing ids", func(t *testing.T) {
		reps := []any{
			rep("Item", 1), rep("Monster", 2), rep("Item", 999999), rep("Item", 1), rep("Quest", 3),
			rep("WorldBoss", 1), rep("SecretRare", 1), rep("MiningRock", 1), rep("EventChest", 1),
			rep("BaseCamp", 1), rep("Monster", 2), rep("CookingRecipe", 999999), rep("FarmingSeed", 1),
		}
		var sel strings.Builder
		for _, typ := range entityTypes {
			fmt.Fprintf(&sel, " ... on %s { id }", typ)
		}
		_, a := ask(t, `query($r: [_Any!]!) { _entities(representations: $r) { __typename`+sel.String()+` ... on Item { name } } }`,
			map[string]any{"r": reps})
		var got struct {
			Entities []map[string]any `json:"_entities"`
		}
		a.decode(t, &got)
		// Each is what the one-record field answers for its id.
		_, b := ask(t, `{ item(id: 1) { id name } monster(id: 2) { id } quest(id: 3) { id } worldBoss(id: 1) { id }
			secretRare(id: 1) { id } miningRock(id: 1) { id } eventChest(id: 1) { id } baseCamp(id: 1) { id }
			farmingSeed(id: 1) { id } }`, nil)
		var one map[string]map[string]any
		b.decode(t, &one)
		with := func(typ string, m map[string]any) map[string]any {
			out := map[string]any{"__typename": typ}
			for k, v := range m {
				out[k] = v
			}
			return out
		}
		want := []map[string]any{
			with("Item", one["item"]), with("Monster", one["monster"]), nil, with("Item", one["item"]),
			with("Quest", one["quest"]), with("WorldBoss", one["worldBoss"]), with("SecretRare", one["secretRare"]),
			with("MiningRock", one["miningRock"]), with("EventChest", one["eventChest"]), with("BaseCamp", one["baseCamp"]),
			with("Monster", one["monster"]), nil, with("FarmingSeed", one["farmingSeed"]),
		}
		if diff := cmp.Diff(want, got.Entities); diff != "" {
			t.Errorf("_entities (-want +got):\n%s", diff)
		}
	})

	t.Run("one loader batch per kind, whatever the representations' number", func(t *testing.T) {
		var reps []any
		for i := range 40 {
			reps = append(reps, rep("Item", 100+i%25), rep("Monster", 1+i%7))
		}
		reps = append(reps, rep("Quest", 5), rep("SecretRare", 2))
		before := batches(t, g.URL)
		_, a := ask(t, `query($r: [_Any!]!) { _entities(representations: $r) { __typename } }`, map[string]any{"r": reps})
		a.decode(t, new(map[string]any))
		after := batches(t, g.URL)
		for _, c := range []struct {
			kind       string
			count, ids float64
		}{{"item", 1, 25}, {"monster", 1, 7}, {"quest", 1, 1}} {
			if n := after[c.kind].count - before[c.kind].count; n != c.count {
				t.Errorf("%s: %v batches, want %v", c.kind, n, c.count)
			}
			if n := after[c.kind].sum - before[c.kind].sum; n != c.ids {
				t.Errorf("%s: %v ids in its batch, want the %v distinct ones", c.kind, n, c.ids)
			}
		}
	})

	t.Run("a representation it cannot resolve: a clear error", func(t *testing.T) {
		for _, c := range []struct {
			name string
			reps any
			says string
		}{
			{"a wrong __typename", []any{rep("Item", 1), rep("Nope", 1)}, `representation 1: "Nope" is not an entity type`},
			{"a type that is no entity", []any{rep("WorldBossLoot", 1)}, `"WorldBossLoot" is not an entity type`},
			{"a non-numeric id", []any{map[string]any{"__typename": "Item", "id": "abc"}}, `representation 0 (Item): id must be an Int (a whole number, written as one), not the string "abc"`},
			{"a fraction", []any{map[string]any{"__typename": "Monster", "id": 1.5}}, `id must be an Int`},
			{"a whole number spelled as a fraction", []any{map[string]any{"__typename": "Monster", "id": json.Number("3.0")}}, `id must be an Int`},
			{"an id beyond 32 bits", []any{map[string]any{"__typename": "Monster", "id": int64(1) << 40}}, `id must be an Int`},
			{"no id", []any{map[string]any{"__typename": "Item"}}, `representation 0 (Item) has no id`},
			{"no __typename", []any{map[string]any{"id": 1}}, `representation 0 has no __typename`},
			{"not an object", []any{"Item:1"}, `representation 0 is not an object`},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, a := ask(t, `query($r: [_Any!]!) { _entities(representations: $r) { __typename } }`, map[string]any{"r": c.reps})
				if a.Data != nil || len(a.Errors) != 1 || a.Errors[0].Extensions.Code != "BAD_USER_INPUT" ||
					!strings.Contains(a.Errors[0].Message, c.says) {
					t.Errorf("answered %s, want no data and one BAD_USER_INPUT saying %q", a.raw, c.says)
				}
			})
		}
	})

	t.Run("bounded: refused before anything runs, and nothing changes", func(t *testing.T) {
		many := func(n int) []any {
			out := make([]any, n)
			for i := range out {
				out[i] = rep("Monster", 1+i%150)
			}
			return out
		}
		const deep = `... on Monster { drops { item { droppedByMonsters { drops { item { name } } } } } }`
		aliases := ""
		for i := range 25 {
			aliases += fmt.Sprintf(" a%d: _entities(representations: $r) { ... on Item { id name } }", i)
		}
		before := batches(t, g.URL)
		for _, c := range []struct {
			name, query string
			reps        []any
			status      int
			code        string
		}{
			{"a huge list, past the body's bound", `query($r: [_Any!]!) { _entities(representations: $r) { __typename } }`,
				many(100000), http.StatusRequestEntityTooLarge, "BODY_TOO_LARGE"},
			{"a list whose answer would be too large", `query($r: [_Any!]!) { _entities(representations: $r) { ... on Item { id name } ` + deep + ` } }`,
				many(1500), http.StatusBadRequest, "COMPLEXITY_LIMIT_EXCEEDED"},
			{"aliases of _entities, priced together", `query($r: [_Any!]!) {` + aliases + ` }`,
				many(1500), http.StatusBadRequest, "COMPLEXITY_LIMIT_EXCEEDED"},
			{"a selection too deep under it", `query($r: [_Any!]!) { _entities(representations: $r) { ... on Monster { drops { item { droppedByMonsters { drops { item { droppedByMonsters { drops { item { droppedByMonsters { id } } } } } } } } } } } }`,
				many(1), http.StatusBadRequest, "QUERY_TOO_DEEP"},
		} {
			t.Run(c.name, func(t *testing.T) {
				status, a := ask(t, c.query, map[string]any{"r": c.reps})
				if a.Data != nil || len(a.Errors) == 0 || a.Errors[0].Extensions.Code != c.code || status != c.status {
					t.Errorf("answered %d %.300s, want %d with %s and no data", status, a.raw, c.status, c.code)
				}
			})
		}
		if after := batches(t, g.URL); !cmp.Equal(before, after, cmp.AllowUnexported(batchCount{})) {
			t.Errorf("a refused request read the catalogue: batches %v, then %v", before, after)
		}
		// And the gateway answers as before.
		_, a := ask(t, `{ _entities(representations: [{__typename: "Monster", id: 1}]) { ... on Monster { id } } }`, nil)
		if !bytes.Equal(a.raw, []byte(`{"data":{"_entities":[{"id":1}]}}`)) {
			t.Errorf("after the refusals, answered %s", a.raw)
		}
	})
}

// TestFederationPaths: _entities by GET, answered by the engine as a POST
// is; and with introspection off, _service is refused as introspection is
// while _entities still answers.
func TestFederationPaths(t *testing.T) {
	client := gatewaytest.NewClient(t)
	const query = `query($r: [_Any!]!) { _entities(representations: $r) { ... on Item { id name } } }`
	vars := map[string]any{"r": []any{rep("Item", 2), rep("Item", 999999)}}

	t.Run("GET, answered by the engine", func(t *testing.T) {
		g := gatewaytest.Start(t, gatewaytest.Options{Args: []string{"-access-log=false"}})
		v, _ := json.Marshal(vars)
		before := engineAnswered(t, g.URL)
		resp, body := gatewaytest.Get(t, client, g.URL+"/graphql?query="+url.QueryEscape(query)+"&variables="+url.QueryEscape(string(v)))
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), `{"data":{"_entities":[{"id":2,"name":`) || !strings.HasSuffix(string(body), `},null]}}`) {
			t.Errorf("GET: %d %.300s", resp.StatusCode, body)
		}
		if n := engineAnswered(t, g.URL) - before; n != 1 {
			t.Errorf("the engine answered %v operations, want the one", n)
		}
	})
	t.Run("introspection off", func(t *testing.T) {
		g := gatewaytest.Start(t, gatewaytest.Options{Args: []string{"-access-log=false", "-introspection=false"}})
		if _, a := postFederation(t, client, g.URL, `{ _service { sdl } }`, nil); a.Data != nil || len(a.Errors) != 1 || a.Errors[0].Extensions.Code != "INTROSPECTION_DISABLED" {
			t.Errorf("_service: %.300s, want INTROSPECTION_DISABLED", a.raw)
		}
		_, a := postFederation(t, client, g.URL, query, vars)
		var d struct {
			Entities []any `json:"_entities"`
		}
		a.decode(t, &d)
		if len(d.Entities) != 2 || d.Entities[1] != nil {
			t.Errorf("_entities: %s", a.raw)
		}
	})
}

// engineAnswered reads graphql_operations_total{executor="engine"}.
func engineAnswered(t *testing.T, base string) float64 {
	t.Helper()
	_, body := gatewaytest.Get(t, gatewaytest.NewClient(t), base+"/metrics")
	for line := range strings.Lines(string(body)) {
		if rest, ok := strings.CutPrefix(line, `graphql_operations_total{executor="engine"} `); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				t.Fatalf("/metrics: %q: %v", line, err)
			}
			return n
		}
	}
	t.Fatal(`/metrics has no graphql_operations_total{executor="engine"}`)
	return 0
}

func rep(typename string, id int) map[string]any {
	return map[string]any{"__typename": typename, "id": id}
}

type fedAnswer struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string
		Extensions struct{ Code string }
	}
	raw []byte
}

// decode reads an answer's data into v, failing on any error.
func (a fedAnswer) decode(t *testing.T, v any) {
	t.Helper()
	if len(a.Errors) > 0 || a.Data == nil {
		t.Fatalf("answered %.500s, want data and no errors", a.raw)
	}
	if err := json.Unmarshal(a.Data, v); err != nil {
		t.Fatalf("%v: %.500s", err, a.raw)
	}
}

func postFederation(t *testing.T, client *http.Client, base, query string, vars map[string]any) (int, fedAnswer) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/graphql-response+json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST /graphql: %v", err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	a := fedAnswer{raw: buf.Bytes()}
	if err := json.Unmarshal(a.raw, &a); err != nil {
		t.Fatalf("%v: %.300s", err, a.raw)
	}
	return resp.StatusCode, a
}

// batchCount is a kind's loader_batch_keys histogram: its batches and the
// ids they held.
type batchCount struct{ count, sum float64 }

// batches reads loader_batch_keys from /metrics, by kind.
func batches(t *testing.T, base string) map[string]batchCount {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	defer resp.Body.Close()
	out := map[string]batchCount{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		for _, suffix := range []string{"_count", "_sum"} {
			prefix := "loader_batch_keys" + suffix + `{kind="`
			if !strings.HasPrefix(line, prefix) {
				continue
			}
			kind, rest, _ := strings.Cut(line[len(prefix):], `"} `)
			v, err := strconv.ParseFloat(rest, 64)
			if err != nil {
				t.Fatalf("/metrics: %q: %v", line, err)
			}
			c := out[kind]
			if suffix == "_count" {
				c.count = v
			} else {
				c.sum = v
			}
			out[kind] = c
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading /metrics: %v", err)
	}
	return out
}
