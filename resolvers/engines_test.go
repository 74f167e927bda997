package resolvers_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graph/querygen"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/internal/incrementaltest"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/resolvers"
)

// TestEnginesAgreeOnGeneratedOperations runs operations generated from
// the schema itself (package querygen, not the engine's own tables)
// through the engine and through gqlgen's executor alone, and requires
// the same status and the same bytes, field errors included, on the
// embedded catalogue and on the fixture with its dangling references. The
// engine must answer every one of them itself.
func TestEnginesAgreeOnGeneratedOperations(t *testing.T) {
	n := 1500 // per catalogue: 3,000 in all
	if testing.Short() {
		n = 100
	}
	for _, c := range differentialCatalogues(t) {
		t.Run(c.name, func(t *testing.T) {
			engine, served, gqlgen := differentialHandlers(c.snap)
			g := querygen.New(schema.Schema(), uint64(len(c.name))+7)
			g.MaxID = c.maxID
			failed := 0   // operations answered with field errors
			searches := 0 // operations searching: its union and its enum
			// The federation subgraph's _service, asked once per
			// composition, is the one field the engine leaves to gqlgen.
			service := 0
			entities := 0 // operations asking the subgraph's _entities
			for i := range n {
				query, vars := g.Query()
				if strings.Contains(query, " search(") {
					searches++
				}
				if strings.Contains(query, " _entities(") {
					entities++
				}
				if strings.Contains(query, " _service") {
					service++
				}
				ps, pb := serveOnce(t, served, query, vars)
				gs, gb := serveOnce(t, gqlgen, query, vars)
				// Again, now from what the first run kept of its records.
				if again, ab := serveOnce(t, served, query, vars); again != ps || !bytes.Equal(withoutRequestIDs(ab), withoutRequestIDs(pb)) {
					t.Fatalf("operation %d: the engine's second answer differs from its first\n first %d %.500s\n again %d %.500s\n%s\nvariables %v",
						i, ps, pb, again, ab, query, vars)
				}
				if bytes.HasPrefix(gb, []byte(`{"errors"`)) {
					failed++
				}
				if ps != gs || !bytes.Equal(withoutRequestIDs(pb), withoutRequestIDs(gb)) {
					i0 := 0
					for i0 < len(pb) && i0 < len(gb) && pb[i0] == gb[i0] {
						i0++
					}
					lo := max(0, i0-100)
					t.Fatalf("operation %d: the engines differ at byte %d\n engine %d …%.300s\n gqlgen %d …%.300s\n%s\nvariables %v",
						i, i0, ps, pb[lo:], gs, gb[lo:], query, vars)
				}
			}
			if failed == 0 {
				t.Errorf("no operation of %d failed: field errors went untested", n)
			}
			if answered := engine.Answered(); answered < 2*int64(n-service) || answered > 2*int64(n) {
				t.Errorf("the engine answered %d of %d operations, each run twice (%d of them _service); the rest were gqlgen's alone", answered, n, service)
			}
			if entities == 0 || service == 0 {
				t.Errorf("of %d operations, %d asked _entities and %d _service: the subgraph went untested", n, entities, service)
			}
			if searches == 0 {
				t.Errorf("no operation of %d searched: search went untested", n)
			}
		})
	}
}

// differentialCatalogue is a catalogue the differential tests run on,
// with the largest id worth asking for in it.
type differentialCatalogue struct {
	name  string
	snap  *catalogue.Snapshot
	maxID int
}

// differentialCatalogues are the embedded catalogue and the fixture with
// its dangling references.
func differentialCatalogues(t *testing.T) []differentialCatalogue {
	return []differentialCatalogue{{"embedded", embedded(t), 1600}, {"fixture", fixture(t), 8}}
}

// differentialHandlers serve snap through the engine (counting what it
// answers itself) and through gqlgen's executor alone, with limits no
// generated operation meets.
func differentialHandlers(snap *catalogue.Snapshot) (engine *resolvers.Counting, served, gqlgen http.Handler) {
	limits := admission.Limits{MaxComplexity: 1 << 30, MaxDepth: 20, MaxFields: 5000, MaxAliases: 1000,
		MaxDirectives: 1000, MaxResponseBytes: 1 << 30}
	st := storeOf(snap)
	engine = &resolvers.Counting{Executor: resolvers.NewEngine(nil)}
	served = resolvers.NewHandler(st, loader.Options{}, graphqlhttp.Options{Limits: limits, Executor: engine})
	gqlgen = resolvers.NewHandler(st, loader.Options{}, graphqlhttp.Options{Limits: limits, Executor: execution.None})
	return engine, served, gqlgen
}

func serveOnce(t testing.TB, h http.Handler, query string, vars map[string]any) (int, []byte) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

var requestIDs = regexp.MustCompile(`"requestId":"[0-9a-f]+"`)

// withoutRequestIDs blanks the request ids errors carry: each request has
// its own.
func withoutRequestIDs(b []byte) []byte { return requestIDs.ReplaceAll(b, []byte(`"requestId":""`)) }

// TestEnginesAnswerImages: image { url source } on every type that has it
// (items, monsters, world bosses, their loot) is the engine's to answer,
// with gqlgen's bytes, on the embedded catalogue and on the fixture, whose
// monster 2 has no address (a url with no version, a null source).
func TestEnginesAnswerImages(t *testing.T) {
	const query = `{ items(first: 5) { nodes { id image { url source } } }
		monsters(first: 5) { nodes { id image { url source } } }
		worldBosses { nodes { id image { url source } loot { hashedItemId image { url source } } } } }`
	for _, c := range []struct {
		name string
		snap *catalogue.Snapshot
		want []string
	}{
		{"embedded", embedded(t), []string{`"url":"/images/items/1?v=f3e584b82e12bfb3"`, `"/images/world-boss-loot/143cc91285e9d005?v=`}},
		{"fixture", fixture(t), []string{`"url":"/images/monsters/2","source":null`, `"url":"/images/world-boss-loot/ab12?v=`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := storeOf(c.snap)
			engine := &resolvers.Counting{Executor: resolvers.NewEngine(nil)}
			served := resolvers.NewHandler(st, loader.Options{}, graphqlhttp.Options{Executor: engine})
			gqlgen := resolvers.NewHandler(st, loader.Options{}, graphqlhttp.Options{Executor: execution.None})
			ps, pb := serveOnce(t, served, query, nil)
			gs, gb := serveOnce(t, gqlgen, query, nil)
			if ps != 200 || ps != gs || !bytes.Equal(withoutRequestIDs(pb), withoutRequestIDs(gb)) {
				t.Fatalf("the engines differ:\n engine %d %.400s\n gqlgen %d %.400s", ps, pb, gs, gb)
			}
			if engine.Answered() != 1 {
				t.Errorf("the engine answered %d of 1: it declined image", engine.Answered())
			}
			for _, w := range c.want {
				if !bytes.Contains(pb, []byte(w)) {
					t.Errorf("the answer lacks %s: %.600s", w, pb)
				}
			}
		})
	}
}

// incrementalDirectives are @defer and @stream as querygen writes them, to
// write an operation without them.
var incrementalDirectives = regexp.MustCompile(`\s*@(defer|stream)(\([^)]*\))?`)

// TestEnginesAgreeIncrementally: operations generated with @defer and
// @stream, asked for in parts, merge into the answer gqlgen gives the
// same operation without them (errors but for their locations, which
// move with the text); asked as JSON, they are that answer, byte for
// byte.
func TestEnginesAgreeIncrementally(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 60
	}
	for _, c := range differentialCatalogues(t) {
		t.Run(c.name, func(t *testing.T) {
			engine, served, gqlgen := differentialHandlers(c.snap)
			g := querygen.New(schema.Schema(), uint64(len(c.name))+11)
			g.MaxID, g.Incremental = c.maxID, true
			inParts := 0 // operations answered in more than one part
			service := 0 // operations asking the subgraph's _service
			for i := range n {
				query, vars := g.Query()
				if strings.Contains(query, " _service") {
					service++
				}
				plain, plainVars := withoutDirectives(query, vars)
				_, gb := serveOnce(t, gqlgen, plain, plainVars)
				want, err := incrementaltest.Decode(gb)
				if err != nil {
					t.Fatalf("operation %d: gqlgen's answer: %v: %s", i, err, gb)
				}
				// As JSON: the whole answer, as gqlgen gives it.
				ps, pb := serveOnce(t, served, query, vars)
				if gs, gb := serveOnce(t, gqlgen, query, vars); ps != gs || !bytes.Equal(withoutRequestIDs(pb), withoutRequestIDs(gb)) {
					t.Fatalf("operation %d: asked as JSON, the engine's answer differs\n engine %d %.400s\n gqlgen %d %.400s\n%s\nvariables %v",
						i, ps, pb, gs, gb, query, vars)
				}
				accept := "multipart/mixed"
				if i%2 == 1 {
					accept = "multipart/mixed;incrementalSpec=v0.2"
				}
				rec := serveAccepting(t, served, query, vars, accept)
				var got incrementaltest.Result
				if ct := rec.Header().Get("Content-Type"); strings.HasPrefix(ct, "multipart/mixed") {
					payloads, err := incrementaltest.Multipart(ct, rec.Body)
					if err != nil {
						t.Fatalf("operation %d: %v", i, err)
					}
					if len(payloads) > 1 {
						inParts++
					}
					if got, err = incrementaltest.Merge(payloads); err != nil {
						t.Fatalf("operation %d: merging its parts: %v\n%s\n%s\nvariables %v", i, err, bytes.Join(payloads, []byte("\n")), query, vars)
					}
				} else if got, err = incrementaltest.Decode(rec.Body.Bytes()); err != nil {
					t.Fatalf("operation %d: %v", i, err)
				}
				if !reflect.DeepEqual(withoutLocations(got), withoutLocations(want)) {
					t.Fatalf("operation %d: the merged parts differ from gqlgen's answer without the directives\n merged %v\n gqlgen %s\n%s\nvariables %v",
						i, got, gb, query, vars)
				}
			}
			// Each operation was served twice, as JSON and in parts, and the
			// engine answered both but those that ask the subgraph's
			// _service (gqlgen's alone, unless a @skip leaves it out):
			// gqlgen answers only what the engine declines.
			if answered := engine.Answered(); answered < 2*int64(n-service) || answered > 2*int64(n) {
				t.Errorf("the engine answered %d of the %d requests served (%d of them _service, gqlgen's); it declined the rest",
					answered, 2*n, 2*service)
			}
			if inParts < n/4 {
				t.Errorf("only %d of %d operations came in parts: @defer and @stream went untested", inParts, n)
			}
		})
	}
}

// variableDefinitions are an operation's, as querygen writes them.
var variableDefinitions = regexp.MustCompile(`\$(\w+): [\w!\[\]]+(, )?`)

// withoutDirectives is query without its @defer and @stream, and without
// the variables only their if used.
func withoutDirectives(query string, vars map[string]any) (string, map[string]any) {
	plain := incrementalDirectives.ReplaceAllString(query, "")
	out := map[string]any{}
	plain = variableDefinitions.ReplaceAllStringFunc(plain, func(def string) string {
		name := variableDefinitions.FindStringSubmatch(def)[1]
		if strings.Count(plain, "$"+name+")")+strings.Count(plain, "$"+name+",")+strings.Count(plain, "$"+name+" ") == 0 {
			return ""
		}
		out[name] = vars[name]
		return def
	})
	plain = strings.Replace(strings.Replace(plain, ", )", ")", 1), "query Q() ", "query Q ", 1)
	return plain, out
}

// serveAccepting posts query with an Accept header.
func serveAccepting(t *testing.T, h http.Handler, query string, vars map[string]any, accept string) *httptest.ResponseRecorder {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// withoutLocations drops the errors' locations.
func withoutLocations(r incrementaltest.Result) incrementaltest.Result {
	for _, e := range r.Errors {
		if m, ok := e.(map[string]any); ok {
			delete(m, "locations")
		}
	}
	return r
}
