package graphqlhttp_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/graphqlhttp/documents"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/catalogue-gateway/gateway/graphqlhttp/answers"

	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/graphqlhttp/wstest"
	"github.com/catalogue-gateway/gateway/internal/memory"
)

// The documents of the tests' manifest, and one it does not list.
const (
	listedItem    = `query Item($id: Int!) { item(id: $id) { id name } }`
	listedMonster = `query Monster { monster(id: 1) { id name } }`
	unlistedQuery = `{ item(id: 2) { name } }`
	listedChanges = changesSubscription
)

func sha(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// testManifest lists its documents, as Apollo's manifest does, by the
// SHA-256 of each, but for the monster, listed by an id of its own.
func testManifest(bodies ...string) documents.Manifest {
	m := documents.Manifest{Format: documents.FormatApollo}
	for _, b := range bodies {
		id := sha(b)
		if b == listedMonster {
			id = "monster-page"
		}
		m.Documents = append(m.Documents, documents.ManifestDocument{ID: id, Body: b})
	}
	return m
}

// trustObserver counts the trusted documents' outcomes and the refusals.
type trustObserver struct {
	graphqlhttp.Observer
	mu       sync.Mutex
	outcomes map[string]int
	rejected map[string]int
}

func newTrustObserver() *trustObserver {
	return &trustObserver{Observer: nopObserver{}, outcomes: map[string]int{}, rejected: map[string]int{}}
}

func (o *trustObserver) Trusted(outcome string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.outcomes[outcome]++
}

func (o *trustObserver) Rejected(limit string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.rejected[limit]++
}

func (o *trustObserver) count(outcome string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.outcomes[outcome]
}

// nopObserver is an Observer that counts nothing.
type nopObserver struct{}

func (nopObserver) Request(string, string, time.Duration, int) {}
func (nopObserver) StreamEnded(string, string, time.Duration)  {}
func (nopObserver) Rejected(string)                            {}
func (nopObserver) Streams(int)                                {}
func (nopObserver) Executed(string)                            {}
func (nopObserver) Declined(string)                            {}
func (nopObserver) Cached(bool)                                {}

// getTrusted is a GET of /graphql with params.
func getTrusted(t *testing.T, endpoint string, params map[string]string, header ...string) answer {
	t.Helper()
	v := url.Values{}
	for k, x := range params {
		v.Set(k, x)
	}
	req, err := http.NewRequest(http.MethodGet, endpoint+"?"+v.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return send(t, client, req)
}

func postObject(t *testing.T, endpoint string, body map[string]any) answer {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return postJSON(t, endpoint, string(b))
}

func wantData(t *testing.T, what string, a answer, want string) {
	t.Helper()
	if a.status != http.StatusOK || string(a.body) != want {
		t.Errorf("%s: %d %s, want 200 %s", what, a.status, a.body, want)
	}
}

func wantRefused(t *testing.T, what string, a answer, status int, code string) {
	t.Helper()
	r := decode(t, a)
	if a.status != status || len(r.Errors) != 1 || r.Errors[0].code() != code || r.Data != nil {
		t.Errorf("%s: %d %s, want %d with %s and no data", what, a.status, a.body, status, code)
	}
}

func persisted(hash string) map[string]any {
	return map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}
}

const (
	itemAnswer    = `{"data":{"item":{"id":1,"name":"Copper Ore"}}}`
	monsterAnswer = `{"data":{"monster":{"id":1,"name":"Goblin"}}}`
	unlistedAns   = `{"data":{"item":{"name":"Bronze Bar"}}}`
)

// TestTrustedDocumentModes: off is today's endpoint; log runs anything,
// counting what the manifest does not list; enforce runs only listed
// documents, asked by id (the APQ hash, documentId with or without
// sha256:, the manifest's own id) or by their text, by POST and GET, and
// refuses anything else with PERSISTED_QUERY_NOT_LISTED: 422 as JSON,
// 400 as application/graphql-response+json. In enforce mode a persisted
// query cannot be registered.
func TestTrustedDocumentModes(t *testing.T) {
	m := testManifest(listedItem, listedMonster)
	itemVars := map[string]any{"id": 1}

	t.Run("off", func(t *testing.T) {
		for _, td := range []*graphqlhttp.TrustedDocuments{nil, graphqlhttp.NewTrustedDocuments(graphqlhttp.TrustedOff, m)} {
			srv := newServer(t, graphqlhttp.Options{TrustedDocuments: td})
			wantData(t, "unlisted", postQuery(t, srv.URL, unlistedQuery, nil), unlistedAns)
			wantRefused(t, "documentId is not read", postObject(t, srv.URL, map[string]any{"documentId": "monster-page"}),
				http.StatusBadRequest, graphqlhttp.CodeBadRequest)
		}
	})

	t.Run("log", func(t *testing.T) {
		obs := newTrustObserver()
		logs := &logRecorder{}
		srv := newServer(t, graphqlhttp.Options{Observer: obs, Logger: slog.New(logs),
			TrustedDocuments: graphqlhttp.NewTrustedDocuments(graphqlhttp.TrustedLog, m)})
		for range 3 {
			wantData(t, "unlisted", postQuery(t, srv.URL, unlistedQuery, nil), unlistedAns)
		}
		wantData(t, "listed by text", postQuery(t, srv.URL, listedItem, itemVars), itemAnswer)
		wantData(t, "listed by id", postObject(t, srv.URL, map[string]any{"documentId": "monster-page"}), monsterAnswer)
		// An unlisted query may still be registered as an automatic
		// persisted query, and asked by its hash, as without a manifest.
		wantData(t, "APQ registration", postObject(t, srv.URL, map[string]any{"query": unlistedQuery, "extensions": persisted(sha(unlistedQuery))}), unlistedAns)
		wantData(t, "APQ by hash", postObject(t, srv.URL, map[string]any{"extensions": persisted(sha(unlistedQuery))}), unlistedAns)
		if n, l := obs.count("unlisted"), obs.count("listed"); n != 5 || l != 2 {
			t.Errorf("counted %d unlisted and %d listed, want 5 and 2", n, l)
		}
		// Logged once per document, with its hash and operation.
		lines := logs.matching("the manifest does not list")
		if len(lines) != 1 || lines[0].attrs["sha256"] != sha(unlistedQuery) || lines[0].level != slog.LevelWarn {
			t.Errorf("logged %+v, want one warning naming the document's hash", lines)
		}
	})

	t.Run("enforce", func(t *testing.T) {
		obs := newTrustObserver()
		srv := newServer(t, graphqlhttp.Options{Observer: obs,
			TrustedDocuments: graphqlhttp.NewTrustedDocuments(graphqlhttp.TrustedEnforce, m)})
		vars := `{"id":1}`
		for _, c := range []struct {
			name string
			ask  func() answer
			want string
		}{
			{"text, POST", func() answer { return postQuery(t, srv.URL, listedItem, itemVars) }, itemAnswer},
			{"text, GET", func() answer {
				return getTrusted(t, srv.URL, map[string]string{"query": listedItem, "variables": vars})
			}, itemAnswer},
			{"APQ hash, POST", func() answer {
				return postObject(t, srv.URL, map[string]any{"extensions": persisted(sha(listedItem)), "variables": itemVars})
			}, itemAnswer},
			{"APQ hash and text", func() answer {
				return postObject(t, srv.URL, map[string]any{"query": listedItem, "extensions": persisted(sha(listedItem)), "variables": itemVars})
			}, itemAnswer},
			{"documentId sha256:, POST", func() answer {
				return postObject(t, srv.URL, map[string]any{"documentId": "sha256:" + sha(listedItem), "variables": itemVars})
			}, itemAnswer},
			{"documentId without prefix, GET", func() answer {
				return getTrusted(t, srv.URL, map[string]string{"documentId": sha(listedItem), "variables": vars})
			}, itemAnswer},
			{"the manifest's own id, as documentId", func() answer {
				return postObject(t, srv.URL, map[string]any{"documentId": "monster-page"})
			}, monsterAnswer},
			{"the manifest's own id, as the APQ hash (Apollo Client's persisted query link)", func() answer {
				return postObject(t, srv.URL, map[string]any{"extensions": persisted("monster-page")})
			}, monsterAnswer},
			{"the text's SHA-256 of a document listed under another id", func() answer {
				return getTrusted(t, srv.URL, map[string]string{"documentId": "sha256:" + sha(listedMonster)})
			}, monsterAnswer},
		} {
			wantData(t, c.name, c.ask(), c.want)
		}

		for _, c := range []struct {
			name   string
			ask    func() answer
			status int
		}{
			{"text", func() answer { return postQuery(t, srv.URL, unlistedQuery, nil) }, http.StatusUnprocessableEntity},
			{"text, GET", func() answer { return getTrusted(t, srv.URL, map[string]string{"query": unlistedQuery}) }, http.StatusUnprocessableEntity},
			{"text, graphql-response+json", func() answer {
				return getTrusted(t, srv.URL, map[string]string{"query": unlistedQuery}, "Accept", "application/graphql-response+json")
			}, http.StatusBadRequest},
			{"an unknown documentId", func() answer {
				return postObject(t, srv.URL, map[string]any{"documentId": "sha256:" + sha("nothing")})
			}, http.StatusUnprocessableEntity},
			{"a listed text with one character more", func() answer { return postQuery(t, srv.URL, listedItem+" ", itemVars) }, http.StatusUnprocessableEntity},
			{"APQ registration", func() answer {
				return postObject(t, srv.URL, map[string]any{"query": unlistedQuery, "extensions": persisted(sha(unlistedQuery))})
			}, http.StatusUnprocessableEntity},
			{"APQ hash after the registration", func() answer {
				return postObject(t, srv.URL, map[string]any{"extensions": persisted(sha(unlistedQuery))})
			}, http.StatusUnprocessableEntity},
		} {
			wantRefused(t, c.name, c.ask(), c.status, graphqlhttp.CodeNotListed)
		}
		wantRefused(t, "a documentId beside a query", postObject(t, srv.URL, map[string]any{"documentId": "monster-page", "query": listedMonster}),
			http.StatusBadRequest, graphqlhttp.CodeBadRequest)
		if n := obs.count("refused"); n != 7 || obs.rejected["trusted_documents"] != 7 {
			t.Errorf("counted %d refused (%d rejected), want 7", n, obs.rejected["trusted_documents"])
		}
	})
}

// TestTrustedDocumentsCachedByAnyID: a trusted document's answer is one
// response cache entry whichever way it is asked for: by the manifest's
// own id over GET or POST, by its SHA-256 as a documentId, or by text.
// An answer from the cache is counted listed or unlisted as a run would
// be, so log mode's counts see every request.
func TestTrustedDocumentsCachedByAnyID(t *testing.T) {
	cached := &cacheObserver{}
	obs := newTrustObserver()
	obs.Observer = cached
	srv := newServer(t, graphqlhttp.Options{Observer: obs, Cache: answers.NewCache(1 << 20), MaxAge: time.Minute,
		TrustedDocuments: graphqlhttp.NewTrustedDocuments(graphqlhttp.TrustedLog, testManifest(listedItem, listedMonster))})
	for i, c := range []struct {
		name string
		ask  func() answer
	}{
		{"the manifest's id, GET", func() answer { return getTrusted(t, srv.URL, map[string]string{"documentId": "monster-page"}) }},
		{"the manifest's id again, GET", func() answer { return getTrusted(t, srv.URL, map[string]string{"documentId": "monster-page"}) }},
		{"the manifest's id, POST", func() answer { return postObject(t, srv.URL, map[string]any{"documentId": "monster-page"}) }},
		{"the text's SHA-256", func() answer {
			return getTrusted(t, srv.URL, map[string]string{"documentId": "sha256:" + sha(listedMonster)})
		}},
		{"the text", func() answer { return postQuery(t, srv.URL, listedMonster, nil) }},
	} {
		wantData(t, c.name, c.ask(), monsterAnswer)
		if hits, misses := cached.hits.Load(), cached.misses.Load(); hits != int64(i) || misses != 1 {
			t.Errorf("after %s: %d hits and %d misses, want %d and 1", c.name, hits, misses, i)
		}
	}
	for range 3 {
		wantData(t, "unlisted", postQuery(t, srv.URL, unlistedQuery, nil), unlistedAns)
	}
	if hits := cached.hits.Load(); hits != 6 {
		t.Errorf("%d hits in all, want 6: the unlisted query's last two from the cache", hits)
	}
	if l, u := obs.count("listed"), obs.count("unlisted"); l != 5 || u != 3 {
		t.Errorf("counted %d listed and %d unlisted, want 5 and 3: answers from the cache count too", l, u)
	}
}

// TestTrustedDocumentsOverStreams: an event stream (POST and GET) and a
// WebSocket are held to the manifest as POST is: a listed subscription
// opens, by text or by id; an unlisted one is refused with
// PERSISTED_QUERY_NOT_LISTED and takes no place.
func TestTrustedDocumentsOverStreams(t *testing.T) {
	td := graphqlhttp.NewTrustedDocuments(graphqlhttp.TrustedEnforce, testManifest(listedItem, listedChanges))
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 10, TrustedDocuments: td})
	const unlistedSub = `subscription Other { catalogueChanged { version } }`

	for method, open := range streamOpeners {
		for name, body := range map[string]map[string]any{
			"by text":       {"query": listedChanges},
			"by documentId": {"documentId": "sha256:" + sha(listedChanges)},
		} {
			s := open(t, client, srv.URL, body)
			if s.resp.StatusCode != http.StatusOK || !strings.HasPrefix(s.resp.Header.Get("Content-Type"), "text/event-stream") {
				t.Errorf("%s %s: %d %s, want a stream", method, name, s.resp.StatusCode, s.resp.Header.Get("Content-Type"))
			}
			s.close()
		}
		s := open(t, client, srv.URL, map[string]any{"query": unlistedSub}, "Accept", "application/json, text/event-stream")
		var r gqlResponse
		json.NewDecoder(s.resp.Body).Decode(&r)
		if s.resp.StatusCode != http.StatusUnprocessableEntity || len(r.Errors) != 1 || r.Errors[0].code() != graphqlhttp.CodeNotListed {
			t.Errorf("%s unlisted: %d %+v, want 422 %s", method, s.resp.StatusCode, r.Errors, graphqlhttp.CodeNotListed)
		}
	}

	ws := wstest.Connect(t, http.DefaultClient, srv.URL)
	for id, payload := range map[string]map[string]any{
		"text": {"query": listedItem, "variables": map[string]any{"id": 1}},
		"doc":  {"documentId": "sha256:" + sha(listedItem), "variables": map[string]any{"id": 1}},
		"apq":  {"extensions": persisted(sha(listedItem)), "variables": map[string]any{"id": 1}},
	} {
		b, _ := json.Marshal(payload)
		ws.Send(t, wstest.Message{Type: "subscribe", ID: id, Payload: b})
		if m := ws.Next(t); m.Type != "next" || m.ID != id || string(m.Payload) != itemAnswer {
			t.Errorf("WebSocket, %s: %+v, want %s", id, m, itemAnswer)
		}
		if m := ws.Next(t); m.Type != "complete" {
			t.Errorf("WebSocket, %s: %+v, want complete", id, m)
		}
	}
	b, _ := json.Marshal(map[string]any{"query": unlistedSub})
	ws.Send(t, wstest.Message{Type: "subscribe", ID: "x", Payload: b})
	if m := ws.Next(t); m.Type != "error" || m.ID != "x" || !strings.Contains(string(m.Payload), graphqlhttp.CodeNotListed) {
		t.Errorf("WebSocket, unlisted: %+v, want an error %s", m, graphqlhttp.CodeNotListed)
	}
}

// TestTrustedDocumentsReplaced: Replace swaps the manifest at once for
// every request, the answers the response cache kept under the old one
// included; a manifest that does not check is refused whole, and the old
// one stays. Requests racing the swaps see one manifest or the other:
// each is answered or refused whole, never with another document's
// answer or an internal error.
func TestTrustedDocumentsReplaced(t *testing.T) {
	td := graphqlhttp.NewTrustedDocuments(graphqlhttp.TrustedEnforce, testManifest(listedItem))
	mem := memory.NewBudget(64 << 20)
	cache := answers.NewCache(1 << 20)
	srv := newServer(t, graphqlhttp.Options{TrustedDocuments: td, Memory: mem, Cache: cache,
		Version: func(context.Context) (string, bool) { return "v1", true }})
	item := map[string]any{"id": 1}

	wantData(t, "listed", postQuery(t, srv.URL, listedItem, item), itemAnswer)
	wantData(t, "listed, from the cache", postQuery(t, srv.URL, listedItem, item), itemAnswer)
	if err := td.Replace(testManifest(listedMonster)); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, "no longer listed (its answer cached before)", postQuery(t, srv.URL, listedItem, item), http.StatusUnprocessableEntity, graphqlhttp.CodeNotListed)
	wantData(t, "newly listed", postObject(t, srv.URL, map[string]any{"documentId": "monster-page"}), monsterAnswer)

	bad := testManifest(listedItem, `{ nope }`)
	if err := td.Replace(bad); err == nil || !strings.Contains(err.Error(), sha(`{ nope }`)) {
		t.Errorf("Replace with an invalid document: %v, want an error naming it", err)
	}
	wantData(t, "the old manifest stays", postObject(t, srv.URL, map[string]any{"documentId": "monster-page"}), monsterAnswer)

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; !stop.Load(); i++ {
			m := testManifest(listedMonster)
			if i%2 == 0 {
				m = testManifest(listedItem)
			}
			if err := td.Replace(m); err != nil {
				t.Error(err)
				return
			}
		}
	})
	answered := map[string]int{}
	for range 200 {
		for _, body := range []map[string]any{
			{"extensions": persisted(sha(listedItem)), "variables": item},
			{"documentId": "monster-page"},
		} {
			a := postObject(t, srv.URL, body)
			r := decode(t, a)
			switch {
			case string(a.body) == itemAnswer || string(a.body) == monsterAnswer:
				want := itemAnswer
				if body["documentId"] != nil {
					want = monsterAnswer
				}
				if string(a.body) != want {
					t.Fatalf("%v answered %s", body, a.body)
				}
				answered[want]++
			case a.status == http.StatusUnprocessableEntity && len(r.Errors) == 1 && r.Errors[0].code() == graphqlhttp.CodeNotListed:
				answered["refused"]++
			default:
				t.Fatalf("%v during the swaps: %d %s", body, a.status, a.body)
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("during the swaps: %v", answered)

	var pinned memory.StoreStats
	for _, s := range mem.Stats() {
		if s.Store == "trusted_documents" {
			pinned = s
		}
	}
	if pinned.Entries != 1 || pinned.Bytes <= 0 || pinned.Share != mem.Shares().Documents {
		t.Errorf("the trusted documents' store: %+v, want 1 entry charged to the documents' share", pinned)
	}
}

// TestManifestsTheToolsWrote: the manifests @apollo/generate-persisted-query-manifest
// and GraphQL Code Generator's client preset wrote from e2e/trusted/src
// (copied here from e2e/trusted/generated: CI regenerates them there) are
// read, with every document, and check against the served schema.
func TestManifestsTheToolsWrote(t *testing.T) {
	for file, want := range map[string]struct {
		format string
		docs   int
	}{
		"apollo-persisted-query-manifest.json": {documents.FormatApollo, 3},
		"codegen-persisted-documents.json":     {documents.FormatCodegen, 2},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "trusted", file))
		if err != nil {
			t.Fatal(err)
		}
		m, err := documents.ParseManifest(data)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if m.Format != want.format || len(m.Documents) != want.docs {
			t.Errorf("%s: %s with %d documents, want %s with %d", file, m.Format, len(m.Documents), want.format, want.docs)
		}
		if err := graphqlhttp.CheckManifest(m, graph.ServedSchema(), admission.Limits{}, true); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// TestParseManifestRefusesMalformed: a file of neither format, or of one
// but broken, is refused with a message that says what is wrong.
func TestParseManifestRefusesMalformed(t *testing.T) {
	for _, c := range []struct{ name, file, want string }{
		{"empty", ``, "one JSON object"},
		{"an array", `[{"id":"a","body":"{ a }"}]`, "one JSON object"},
		{"broken JSON", `{"a": "{ a }"`, "unexpected"},
		{"two objects", `{} {}`, "more after"},
		{"another format", `{"format":"relay","version":1}`, `"format" is "relay"`},
		{"Apollo, no version", `{"format":"apollo-persisted-query-manifest","operations":[]}`, `no "version"`},
		{"Apollo, version 2", `{"format":"apollo-persisted-query-manifest","version":2,"operations":[]}`, "version 2"},
		{"Apollo, no operations", `{"format":"apollo-persisted-query-manifest","version":1}`, `no "operations"`},
		{"Apollo, an operation with no id", `{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"name":"A","type":"query","body":"{ a }"}]}`, `operation 0 has no "id"`},
		{"Apollo, an operation with no body", `{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id":"x","type":"query"}]}`, `no "body"`},
		{"Apollo, a bad type", `{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id":"x","type":"fragment","body":"{ a }"}]}`, `type "fragment"`},
		{"Apollo, one id for two documents", `{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id":"x","body":"{ a }"},{"id":"x","body":"{ b }"}]}`, "two different documents"},
		{"Code Generator, not a string", `{"sha256:ab": {"query": "{ a }"}}`, `the value of "sha256:ab" is not a string`},
		{"Code Generator, an empty document", `{"sha256:ab": " "}`, "empty"},
	} {
		_, err := documents.ParseManifest([]byte(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestCheckManifestNamesTheDocument: a document the endpoint would not
// run (it does not parse, is refused by a limit, or is not valid) makes
// the manifest refused, naming the document by id and operation.
func TestCheckManifestNamesTheDocument(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`query Broken { item(id: 1) {`, "does not parse"},
		{`query Deep { item(id: 1) { droppedByMonsters { drops { item { droppedByMonsters { id } } } } } }`, "refused by a limit"},
		{`query Wrong { nope }`, `Cannot query field "nope"`},
		{`fragment F on Item { id }`, "holds no operation"},
	} {
		m := documents.Manifest{Documents: []documents.ManifestDocument{{ID: "d1", Name: "Op", Body: c.body}}}
		err := graphqlhttp.CheckManifest(m, graph.ServedSchema(), admission.Limits{MaxDepth: 3}, true)
		if err == nil || !strings.Contains(err.Error(), `document "d1" (operation Op)`) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming the document and saying %q", c.body, err, c.want)
		}
	}
	m := documents.Manifest{Documents: []documents.ManifestDocument{{ID: "d1", Body: `{ __schema { types { name } } }`}}}
	if err := graphqlhttp.CheckManifest(m, graph.ServedSchema(), admission.Limits{}, false); err == nil || !strings.Contains(err.Error(), "introspection") {
		t.Errorf("introspection with introspection off: %v, want it refused", err)
	}
}

// TestEnforcedUnlistedCostNothing: in enforce mode, distinct unlisted
// queries by every transport are refused before anything parses them:
// the documents' store keeps no parse and no verdict of them.
func TestEnforcedUnlistedCostNothing(t *testing.T) {
	mem := memory.NewBudget(64 << 20)
	td := graphqlhttp.NewTrustedDocuments(graphqlhttp.TrustedEnforce, testManifest(listedItem))
	srv, _ := streamServer(t, graphqlhttp.Options{MaxStreams: 10, Memory: mem, TrustedDocuments: td})
	ws := wstest.Connect(t, http.DefaultClient, srv.URL)
	for i := range 50 {
		query := fmt.Sprintf(`{ item(id: %d) { name } }`, i)
		wantRefused(t, "POST", postQuery(t, srv.URL, query, nil), http.StatusUnprocessableEntity, graphqlhttp.CodeNotListed)
		wantRefused(t, "GET", getTrusted(t, srv.URL, map[string]string{"query": query}), http.StatusUnprocessableEntity, graphqlhttp.CodeNotListed)
		s := openStreamWith(t, client, srv.URL, map[string]any{"query": "subscription S" + fmt.Sprint(i) + " { catalogueChanged { version } }"})
		if ev, ok := s.next(t, 10*time.Second); !ok || ev.event != "next" || !strings.Contains(ev.data, graphqlhttp.CodeNotListed) {
			t.Fatalf("event stream: %+v, want the refusal as its one event", ev)
		}
		b, _ := json.Marshal(map[string]any{"query": query})
		ws.Send(t, wstest.Message{Type: "subscribe", ID: fmt.Sprint(i), Payload: b})
		if m := ws.Next(t); m.Type != "error" || !strings.Contains(string(m.Payload), graphqlhttp.CodeNotListed) {
			t.Fatalf("WebSocket: %+v, want the refusal", m)
		}
	}
	for _, s := range mem.Stats() {
		if s.Store == "documents" && (s.Entries != 0 || s.Bytes != 0) {
			t.Errorf("the documents' store holds %+v after refused texts, want nothing", s)
		}
	}
}

// TestTrustedDocumentsStillBounded: a listed document asked by id is held
// to every limit its request can change, as a text is: its cost, priced
// with the variables sent, and its variables' coercion.
func TestTrustedDocumentsStillBounded(t *testing.T) {
	const pages = `query Pages($n: Int!) { items(first: $n) { nodes { droppedByMonsters { drops { item { name } } } } } }`
	td := graphqlhttp.NewTrustedDocuments(graphqlhttp.TrustedEnforce, testManifest(pages))
	srv := newServer(t, graphqlhttp.Options{TrustedDocuments: td, Limits: admission.Limits{MaxComplexity: 2000}})
	id := "sha256:" + sha(pages)
	if a := postObject(t, srv.URL, map[string]any{"documentId": id, "variables": map[string]any{"n": 1}}); a.status != http.StatusOK || len(decode(t, a).Errors) != 0 {
		t.Errorf("a small page: %d %s", a.status, a.body)
	}
	wantRefused(t, "a page too costly", postObject(t, srv.URL, map[string]any{"documentId": id, "variables": map[string]any{"n": 1000}}),
		http.StatusUnprocessableEntity, admission.CodeTooComplex)
	if r := decode(t, postObject(t, srv.URL, map[string]any{"documentId": id, "variables": map[string]any{"n": "many"}})); len(r.Errors) != 1 || r.Errors[0].code() != "GRAPHQL_VALIDATION_FAILED" {
		t.Errorf("variables that do not coerce: %+v, want GRAPHQL_VALIDATION_FAILED", r.Errors)
	}
}
