package gateway_test

// End-to-end tests of the gateway in front of a live upstream: the real
// server (serve on a 127.0.0.1:0 listener) reading two stand-in upstreams,
// the base address (every collection but /worldboss) and the world boss
// address (only /worldboss), which fail on demand. They check the
// "Upstream faults" and "REST compatibility" parts of the API contract as a
// caller sees them: through REST, /graphql, /readyz and /metrics.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/internal/buildinfo"
	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
	"github.com/catalogue-gateway/gateway/internal/logtest"
)

// GraphQL queries reading one collection each, whose answers the tests
// compare as bytes.
const (
	itemsQuery       = `{ items(first: 3) { totalCount nodes { id name } } }`
	worldBossesQuery = `{ worldBosses { totalCount nodes { id name } } }`
)

// queryOf returns the GraphQL query reading c.
func queryOf(c catalogue.Collection) string {
	if c == catalogue.WorldBosses {
		return worldBossesQuery
	}
	return itemsQuery
}

// renames change one record's name in a fixture body, for the collections
// whose change the tests watch.
var renames = map[catalogue.Collection]struct{ old, new, name string }{
	catalogue.Items:       {old: `"name":"Copper Ore"`, new: `"name":"Copper Ore (renamed)"`, name: "Copper Ore (renamed)"},
	catalogue.WorldBosses: {old: `"name":"Colossus"`, new: `"name":"Colossus Reborn"`, name: "Colossus Reborn"},
}

// renamed returns body with the first record of c renamed; the new name is
// renames[c].name.
func renamed(t *testing.T, c catalogue.Collection, body []byte) []byte {
	t.Helper()
	r, ok := renames[c]
	if !ok {
		t.Fatalf("no rename for %s", c)
	}
	out := bytes.Replace(body, []byte(r.old), []byte(r.new), 1)
	if bytes.Equal(out, body) {
		t.Fatalf("the %s fixture has no %s to rename", c, r.old)
	}
	return out
}

// upstreams are the two stand-in addresses the gateway reads.
type upstreams struct {
	upstreamtest.Pair
	// bodies are the fixture's bytes, as both stand-ins first serve them.
	bodies map[catalogue.Collection][]byte
}

// newUpstreams starts the two stand-ins on the small fixture catalogue; they
// stop when the test ends, after the gateways the test started.
func newUpstreams(t *testing.T) *upstreams {
	t.Helper()
	return newUpstreamsOf(t, upstreamtest.FixtureBodies(t))
}

// newUpstreamsOf starts the two stand-ins serving bodies.
func newUpstreamsOf(t *testing.T, bodies map[catalogue.Collection][]byte) *upstreams {
	t.Helper()
	return &upstreams{Pair: upstreamtest.NewPair(t, bodies), bodies: bodies}
}

// setFaultAll gives every collection, on both addresses, the fault f.
func (u *upstreams) setFaultAll(f upstreamtest.Fault) {
	u.Base.SetFaultAll(f)
	u.Boss.SetFaultAll(f)
}

// config returns the default gateway configuration, reading the two
// stand-ins. The access log is off: the tests poll, and a line per poll
// would bury the refresher's own lines.
// readyWithin bounds the wait for a gateway's first good snapshot. The
// upstream is on loopback, but under the race detector with the other
// packages' tests on both cores a first read has timed out (2 s) and been
// tried again: readiness then takes a few seconds more.
const readyWithin = 30 * time.Second

func (u *upstreams) config(refresh time.Duration, cacheDir string) config.Config {
	cfg := config.Default()
	cfg.BaseURL, cfg.WorldBossURL = u.Base.URL, u.Boss.URL
	cfg.Refresh, cfg.CacheDir = refresh, cacheDir
	cfg.AccessLog = false
	// A hung upstream costs this per try; the default 30s would make the
	// hang cases the slowest tests here for no more proof.
	cfg.UpstreamTimeout = 2 * time.Second
	// A cold read of the embedded catalogue's 1.2 MB /items, decoded (and,
	// before compression became lazy, compressed three ways) under the
	// race detector beside other tests, has taken more than the default
	// 10 s; a request waiting on it must still get the body.
	cfg.ColdWait = 60 * time.Second
	return cfg
}

// testGateway is a gateway started in process for a test
// (gatewaytest.Start), with a client and the readers the tests share.
type testGateway struct {
	*gatewaytest.Gateway
	client *http.Client
}

// startGateway starts the gateway for cfg on a free loopback port and
// waits until it answers /healthz (not /readyz: some tests start it cold
// on purpose). A nil logger logs to the test's output.
func startGateway(t *testing.T, cfg config.Config, logger *slog.Logger) *testGateway {
	t.Helper()
	gw := gatewaytest.Start(t, gatewaytest.Options{Logger: logger, Configure: func(c *config.Config) { *c = cfg }})
	return &testGateway{Gateway: gw, client: gatewaytest.NewClient(t)}
}

// rest GETs c's REST path.
func (g *testGateway) rest(t *testing.T, c catalogue.Collection) (*http.Response, []byte) {
	t.Helper()
	return gatewaytest.Get(t, g.client, g.URL+c.Path())
}

// restBody GETs c's REST path and fails the test unless it answers 200.
func (g *testGateway) restBody(t *testing.T, c catalogue.Collection) []byte {
	t.Helper()
	resp, body := g.rest(t, c)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, want 200; body %.200s", c.Path(), resp.StatusCode, body)
	}
	return body
}

// graphQLAnswer is a /graphql response.
type graphQLAnswer struct {
	Status int
	Raw    []byte
	Data   json.RawMessage
	Errors []struct {
		Message    string
		Extensions struct{ Code string }
	}
}

func postGraphQL(client *http.Client, base, query string) (graphQLAnswer, error) {
	payload, err := json.Marshal(map[string]string{"query": query})
	if err != nil {
		return graphQLAnswer{}, err
	}
	resp, err := client.Post(base+"/graphql", "application/json", bytes.NewReader(payload))
	if err != nil {
		return graphQLAnswer{}, err
	}
	defer resp.Body.Close()
	var a graphQLAnswer
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return graphQLAnswer{}, fmt.Errorf("reading the answer: %w", err)
	}
	a.Status, a.Raw = resp.StatusCode, buf.Bytes()
	if err := json.Unmarshal(a.Raw, &a); err != nil {
		return graphQLAnswer{}, fmt.Errorf("answer %q: %w", a.Raw, err)
	}
	return a, nil
}

// graphQL POSTs query to /graphql.
func (g *testGateway) graphQL(t *testing.T, query string) graphQLAnswer {
	t.Helper()
	a, err := postGraphQL(g.client, g.URL, query)
	if err != nil {
		t.Fatalf("POST /graphql %s: %v", query, err)
	}
	return a
}

// graphQLOK POSTs query and fails the test unless it is answered with data
// and no errors.
func (g *testGateway) graphQLOK(t *testing.T, query string) graphQLAnswer {
	t.Helper()
	a := g.graphQL(t, query)
	if a.Status != http.StatusOK || len(a.Errors) > 0 {
		t.Fatalf("POST /graphql %s: status %d, answer %s; want 200 without errors", query, a.Status, a.Raw)
	}
	return a
}

// names returns the names of the nodes of a connection answer such as
// itemsQuery's.
func names(t *testing.T, a graphQLAnswer) []string {
	t.Helper()
	var data map[string]struct{ Nodes []struct{ Name string } }
	if err := json.Unmarshal(a.Data, &data); err != nil || len(data) != 1 {
		t.Fatalf("data %s: want one connection (%v)", a.Data, err)
	}
	var out []string
	for _, conn := range data {
		for _, n := range conn.Nodes {
			out = append(out, n.Name)
		}
	}
	return out
}

// readyzBody is the part of /readyz the tests read.
type readyzBody struct {
	Status      string
	Version     string
	Missing     []string
	Collections map[string]struct {
		Ready         bool
		ETag          string
		Source        string
		LastAttemptAt time.Time
		LastOutcome   string
		LastError     string
	}
}

// readyz GETs /readyz and decodes it.
func (g *testGateway) readyz(t *testing.T) (int, readyzBody, []byte) {
	t.Helper()
	resp, body := gatewaytest.Get(t, g.client, g.URL+"/readyz")
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("/readyz Content-Type = %q, want application/json", ct)
	}
	var rd readyzBody
	if err := json.Unmarshal(body, &rd); err != nil {
		t.Fatalf("/readyz body %s: %v", body, err)
	}
	return resp.StatusCode, rd, body
}

// waitReady waits until /readyz answers 200.
func (g *testGateway) waitReady(t *testing.T, within time.Duration) readyzBody {
	t.Helper()
	var rd readyzBody
	gatewaytest.WaitFor(t, within, "/readyz 200", func() (bool, string) {
		var status int
		var raw []byte
		status, rd, raw = g.readyz(t)
		return status == http.StatusOK, fmt.Sprintf("%d %s", status, raw)
	})
	return rd
}

// metrics scrapes /metrics into a map from series, as written (such as
// `catalogue_upstream_requests_total{collection="items",outcome="304"}`),
// to value.
func (g *testGateway) metrics(t *testing.T) map[string]float64 {
	t.Helper()
	resp, body := gatewaytest.Get(t, g.client, g.URL+"/metrics")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics status %d", resp.StatusCode)
	}
	m := map[string]float64{}
	for line := range strings.Lines(string(body)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			t.Fatalf("/metrics line %q is not a sample", line)
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("/metrics line %q is not a sample: %v", line, err)
		}
		m[line[:i]] = v
	}
	return m
}

// Series of /metrics the tests read.
const refreshRounds = "catalogue_refresh_duration_seconds_count"

func upstreamRequests(c catalogue.Collection, outcome string) string {
	return fmt.Sprintf("catalogue_upstream_requests_total{collection=%q,outcome=%q}", c, outcome)
}

// outcome returns the function naming the upstreamRequests series of o.
func outcome(o string) func(catalogue.Collection) string {
	return func(c catalogue.Collection) string { return upstreamRequests(c, o) }
}

func bodiesRejected(c catalogue.Collection) string {
	return fmt.Sprintf("catalogue_upstream_bodies_rejected_total{collection=%q}", c)
}

// awaitRoundAfter waits until every series in signals is positive in
// /metrics, then until a refresh round ends after that. Each signal counts
// only what a fault causes, so the round that ends is one that met every
// fault: either the round under way when the last signal was first seen,
// or a later one.
func (g *testGateway) awaitRoundAfter(t *testing.T, within time.Duration, signals ...string) {
	t.Helper()
	var rounds float64
	gatewaytest.WaitFor(t, within, fmt.Sprintf("/metrics %q > 0", signals), func() (bool, string) {
		m := g.metrics(t)
		rounds = m[refreshRounds]
		var seen []string
		for _, s := range signals {
			if m[s] <= 0 {
				return false, fmt.Sprintf("%s %v (others: %q)", s, m[s], seen)
			}
			seen = append(seen, s)
		}
		return true, ""
	})
	gatewaytest.WaitFor(t, within, "a refresh round to end", func() (bool, string) {
		n := g.metrics(t)[refreshRounds]
		return n > rounds, fmt.Sprintf("%s %v, was %v", refreshRounds, n, rounds)
	})
}

// TestUpstreamFaults breaks a ready gateway's upstream in each way a service
// fails, on both addresses at once (/items on the base address, /worldboss
// on the world boss address), with new data behind the fault, and checks
// that the gateway keeps serving the last good bodies and says what went
// wrong.
//
// The cases run at once, each from its own goroutine, rather than under
// t.Parallel: the hang case alone takes over 30s (three tries, each given
// up after the upstream client's 10s response header timeout), and
// -parallel, GOMAXPROCS by default, could queue it behind the others.
func TestUpstreamFaults(t *testing.T) {
	t.Parallel()
	faulty := []catalogue.Collection{catalogue.Items, catalogue.WorldBosses}
	var cases sync.WaitGroup
	defer cases.Wait()
	for _, tt := range []struct {
		fault upstreamtest.Fault
		// outcome is the faulty collections' lastOutcome in /readyz.
		outcome string
		// signal returns the /metrics series the fault makes positive.
		signal func(catalogue.Collection) string
		within time.Duration
	}{
		{fault: upstreamtest.Hang, outcome: "error", signal: outcome("timeout"), within: 60 * time.Second},
		{fault: upstreamtest.Status500, outcome: "error", signal: outcome("status_500"), within: 10 * time.Second},
		{fault: upstreamtest.Status503, outcome: "error", signal: outcome("status_503"), within: 10 * time.Second},
		{fault: upstreamtest.Close, outcome: "error", signal: outcome("connection"), within: 10 * time.Second},
		{fault: upstreamtest.Malformed, outcome: "rejected", signal: bodiesRejected, within: 10 * time.Second},
		{fault: upstreamtest.Truncated, outcome: "rejected", signal: bodiesRejected, within: 10 * time.Second},
		{fault: upstreamtest.WrongShape, outcome: "rejected", signal: bodiesRejected, within: 10 * time.Second},
		{fault: upstreamtest.Empty, outcome: "rejected", signal: bodiesRejected, within: 10 * time.Second},
	} {
		cases.Go(func() {
			t.Run(string(tt.fault), func(t *testing.T) {
				up := newUpstreams(t)
				g := startGateway(t, up.config(time.Second, ""), nil)
				before := g.waitReady(t, readyWithin)

				type good struct {
					body, answer []byte
					etag         string
				}
				goods := map[catalogue.Collection]good{}
				requested := map[catalogue.Collection]int{}
				var signals []string
				for _, c := range faulty {
					resp, body := g.rest(t, c)
					if resp.StatusCode != http.StatusOK || !bytes.Equal(body, up.bodies[c]) {
						t.Fatalf("before the fault: GET %s = %d, %d bytes; want 200 with the %d upstream bytes",
							c.Path(), resp.StatusCode, len(body), len(up.bodies[c]))
					}
					goods[c] = good{body: body, answer: g.graphQLOK(t, queryOf(c)).Raw, etag: resp.Header.Get("ETag")}

					srv := up.Of(c)
					srv.SetBody(c, renamed(t, c, up.bodies[c]))
					srv.SetFault(c, tt.fault)
					requested[c] = srv.Requests(c) // later requests meet the fault
					signals = append(signals, tt.signal(c))
				}

				if tt.fault == upstreamtest.Hang {
					gatewaytest.WaitFor(t, 10*time.Second, "requests hanging at both addresses", func() (bool, string) {
						for _, c := range faulty {
							if n := up.Of(c).Requests(c); n <= requested[c] {
								return false, fmt.Sprintf("%d requests of %s, %d before the fault", n, c.Path(), requested[c])
							}
						}
						return true, ""
					})
					// A refresh round is now stuck on the upstream; callers
					// must not be.
					for i := range 3 {
						for _, c := range faulty {
							start := time.Now()
							g.restBody(t, c)
							g.graphQLOK(t, queryOf(c))
							if d := time.Since(start); d > time.Second {
								t.Errorf("%s, try %d: REST and GraphQL took %s while the upstream hangs, want well under 1s", c, i, d)
							}
						}
					}
				}

				g.awaitRoundAfter(t, tt.within, signals...)

				status, rd, raw := g.readyz(t)
				if status != http.StatusOK {
					t.Errorf("/readyz status %d, want 200: %s", status, raw)
				}
				if rd.Version != before.Version {
					t.Errorf("snapshot version %s, want the last good %s", rd.Version, before.Version)
				}
				m := g.metrics(t)
				for _, c := range faulty {
					t.Run(c.String(), func(t *testing.T) {
						resp, body := g.rest(t, c)
						if resp.StatusCode != http.StatusOK || !bytes.Equal(body, goods[c].body) {
							t.Errorf("GET %s = %d with %d bytes, want 200 with the last good %d bytes; got %.200s",
								c.Path(), resp.StatusCode, len(body), len(goods[c].body), body)
						}
						if etag := resp.Header.Get("ETag"); etag != goods[c].etag {
							t.Errorf("ETag = %s, want the last good %s", etag, goods[c].etag)
						}
						if a := g.graphQLOK(t, queryOf(c)); !bytes.Equal(a.Raw, goods[c].answer) {
							t.Errorf("GraphQL answer changed (-want +got):\n-%s\n+%s", goods[c].answer, a.Raw)
						}
						if cr := rd.Collections[c.String()]; !cr.Ready || cr.LastOutcome != tt.outcome || cr.LastError == "" {
							t.Errorf("/readyz %s: %+v; want ready, lastOutcome %q and a lastError", c, cr, tt.outcome)
						}
						if tt.outcome == "rejected" && m[bodiesRejected(c)] < 1 {
							t.Errorf("/metrics %s = %v, want ≥ 1", bodiesRejected(c), m[bodiesRejected(c)])
						}
					})
				}
				g.Stop()
			})
		})
	}
}

// TestUpstreamChanges changes data at a healthy upstream and checks that the
// next refresh brings it to REST and GraphQL.
func TestUpstreamChanges(t *testing.T) {
	t.Parallel()
	for _, c := range []catalogue.Collection{catalogue.Items, catalogue.WorldBosses} {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			up := newUpstreams(t)
			g := startGateway(t, up.config(time.Second, ""), nil)
			before := g.waitReady(t, readyWithin)
			if got := names(t, g.graphQLOK(t, queryOf(c))); slices.Contains(got, renames[c].name) {
				t.Fatalf("names %q before the change already hold %q", got, renames[c].name)
			}

			changed := renamed(t, c, up.bodies[c])
			up.Of(c).SetBody(c, changed)
			gatewaytest.WaitFor(t, 10*time.Second, "the changed body on "+c.Path(), func() (bool, string) {
				body := g.restBody(t, c)
				return bytes.Equal(body, changed), fmt.Sprintf("%.120s", body)
			})
			if got := names(t, g.graphQLOK(t, queryOf(c))); !slices.Contains(got, renames[c].name) {
				t.Errorf("GraphQL names %q, want %q among them", got, renames[c].name)
			}
			status, rd, raw := g.readyz(t)
			if status != http.StatusOK || rd.Version == before.Version {
				t.Errorf("/readyz %d, version %s (was %s): want 200 and a new version; %s", status, rd.Version, before.Version, raw)
			}
			// 304 if a further round has confirmed the change meanwhile.
			if cr := rd.Collections[c.String()]; cr.Source != "upstream" || cr.LastError != "" ||
				cr.LastOutcome != "200" && cr.LastOutcome != "304" {
				t.Errorf("/readyz %s: %+v, want lastOutcome 200 (or 304) from the upstream", c, cr)
			}
			g.Stop()
		})
	}
}

// TestUpstreamNotModified checks that refreshes of unchanged data are
// conditional requests answered 304, which change nothing.
func TestUpstreamNotModified(t *testing.T) {
	t.Parallel()
	up := newUpstreams(t)
	g := startGateway(t, up.config(time.Second, ""), nil)
	before := g.waitReady(t, readyWithin)
	var notModified [catalogue.NumCollections]int
	for c := range catalogue.NumCollections {
		notModified[c] = up.Of(c).NotModified(c)
	}
	rounds := g.metrics(t)[refreshRounds]
	gatewaytest.WaitFor(t, 15*time.Second, "three more refresh rounds", func() (bool, string) {
		n := g.metrics(t)[refreshRounds]
		return n >= rounds+3, fmt.Sprintf("%s %v, was %v", refreshRounds, n, rounds)
	})

	m := g.metrics(t)
	_, rd, _ := g.readyz(t)
	for c := range catalogue.NumCollections {
		if n := up.Of(c).NotModified(c); n < notModified[c]+2 {
			t.Errorf("%s: the upstream answered 304 %d times, %d before three rounds; want at least 2 more", c, n, notModified[c])
		}
		if n := m[upstreamRequests(c, "304")]; n < 2 {
			t.Errorf("/metrics %s = %v, want ≥ 2", upstreamRequests(c, "304"), n)
		}
		if n := m[upstreamRequests(c, "200")]; n != 1 {
			t.Errorf("/metrics %s = %v, want 1: only the first read is a full one", upstreamRequests(c, "200"), n)
		}
		if cr := rd.Collections[c.String()]; cr.LastOutcome != "304" || cr.ETag != before.Collections[c.String()].ETag {
			t.Errorf("/readyz %s: %+v, want lastOutcome 304 and the ETag %s", c, cr, before.Collections[c.String()].ETag)
		}
	}
	if rd.Version != before.Version {
		t.Errorf("snapshot version %s after 304s, want %s unchanged", rd.Version, before.Version)
	}
	g.Stop()
}

// TestColdStartCoalesces fires many requests at a gateway whose first
// upstream reads are slow, and checks that all are answered from that one
// read of each collection.
func TestColdStartCoalesces(t *testing.T) {
	t.Parallel()
	up := newUpstreams(t)
	up.setFaultAll(upstreamtest.Slow)
	// A long interval, so that no second round runs during the test.
	g := startGateway(t, up.config(time.Minute, ""), nil)

	const n = 50
	type result struct {
		path   string
		status int
		body   []byte
		err    error
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			// Half REST, spread over the 13 paths; half GraphQL, on
			// both addresses' collections.
			r := &results[i]
			if i%2 == 1 {
				query := itemsQuery
				if i%4 == 1 {
					query = worldBossesQuery
				}
				r.path = "/graphql " + query
				a, err := postGraphQL(g.client, g.URL, query)
				if err == nil && len(a.Errors) > 0 {
					err = fmt.Errorf("answer %s", a.Raw)
				}
				r.status, r.body, r.err = a.Status, a.Raw, err
				return
			}
			c := catalogue.Collection(i / 2 % int(catalogue.NumCollections))
			r.path = c.Path()
			resp, err := g.client.Get(g.URL + c.Path())
			if err != nil {
				r.err = err
				return
			}
			defer resp.Body.Close()
			var buf bytes.Buffer
			_, r.err = buf.ReadFrom(resp.Body)
			r.status, r.body = resp.StatusCode, buf.Bytes()
		})
	}
	wg.Wait()

	for c := range catalogue.NumCollections {
		if got := up.Of(c).Requests(c); got != 1 {
			t.Errorf("the upstream had %d requests of %s, want 1", got, c.Path())
		}
	}
	if got := up.Base.Requests(catalogue.WorldBosses); got != 0 {
		t.Errorf("the base address had %d requests of /worldboss, want 0", got)
	}
	if got := up.Boss.TotalRequests(); got != 1 {
		t.Errorf("the world boss address had %d requests, want 1", got)
	}

	g.waitReady(t, readyWithin) // costs no upstream request
	want := map[string][]byte{
		"/graphql " + itemsQuery:       g.graphQLOK(t, itemsQuery).Raw,
		"/graphql " + worldBossesQuery: g.graphQLOK(t, worldBossesQuery).Raw,
	}
	for c := range catalogue.NumCollections {
		want[c.Path()] = up.bodies[c]
	}
	for i, r := range results {
		switch {
		case r.err != nil:
			t.Errorf("request %d, %s: %v", i, r.path, r.err)
		case r.status != http.StatusOK:
			t.Errorf("request %d, %s: status %d, want 200; body %.200s", i, r.path, r.status, r.body)
		case !bytes.Equal(r.body, want[r.path]):
			t.Errorf("request %d, %s: %.200s, want %.200s", i, r.path, r.body, want[r.path])
		}
	}
	g.Stop()
}

// TestColdStartUpstreamDown starts a gateway, with no disk cache, while the
// upstream is down: it must say it is not ready and why, answer errors
// rather than empty data, and recover once the upstream does.
func TestColdStartUpstreamDown(t *testing.T) {
	t.Parallel()
	for _, fault := range []upstreamtest.Fault{upstreamtest.Status503, upstreamtest.Close} {
		t.Run(string(fault), func(t *testing.T) {
			t.Parallel()
			up := newUpstreams(t)
			up.setFaultAll(fault)
			g := startGateway(t, up.config(time.Second, ""), nil)

			var rd readyzBody
			gatewaytest.WaitFor(t, 10*time.Second, "/readyz naming every collection's error", func() (bool, string) {
				var status int
				var raw []byte
				status, rd, raw = g.readyz(t)
				for c := range catalogue.NumCollections {
					if rd.Collections[c.String()].LastError == "" {
						return false, fmt.Sprintf("%d %s", status, raw)
					}
				}
				if status != http.StatusServiceUnavailable {
					t.Fatalf("/readyz status %d, want 503: %s", status, raw)
				}
				return true, ""
			})
			if rd.Status != "unavailable" {
				t.Errorf("/readyz status %q, want unavailable", rd.Status)
			}
			var all []string
			for c := range catalogue.NumCollections {
				all = append(all, c.String())
				if cr := rd.Collections[c.String()]; cr.Ready || cr.LastOutcome != "error" {
					t.Errorf("/readyz %s: %+v, want not ready, lastOutcome error", c, cr)
				}
			}
			if !slices.Equal(rd.Missing, all) {
				t.Errorf("/readyz missing %q, want %q", rd.Missing, all)
			}

			t.Run("rest", func(t *testing.T) {
				for c := range catalogue.NumCollections {
					t.Run(c.String(), func(t *testing.T) {
						resp, body := g.rest(t, c)
						if resp.StatusCode != http.StatusServiceUnavailable {
							t.Errorf("status %d, want 503", resp.StatusCode)
						}
						if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
							t.Errorf("Content-Type %q, want application/json", ct)
						}
						var e struct {
							Error struct{ Code, Message string }
						}
						if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != "SNAPSHOT_UNAVAILABLE" || e.Error.Message == "" {
							t.Errorf("body %q, want a JSON error with code SNAPSHOT_UNAVAILABLE and a message (%v)", body, err)
						}
					})
				}
			})

			t.Run("graphql", func(t *testing.T) {
				start := time.Now()
				a := g.graphQL(t, `{ items { totalCount } }`)
				if len(a.Errors) == 0 || a.Errors[0].Extensions.Code != "SNAPSHOT_UNAVAILABLE" {
					t.Errorf("answer %s, want an error with extensions.code SNAPSHOT_UNAVAILABLE", a.Raw)
				}
				if d := time.Since(start); d > 12*time.Second {
					t.Errorf("the answer took %s, want at most the 10s wait for a round in flight", d)
				}
			})

			up.setFaultAll(upstreamtest.None)
			g.waitReady(t, 15*time.Second)
			for c := range catalogue.NumCollections {
				if body := g.restBody(t, c); !bytes.Equal(body, up.bodies[c]) {
					t.Errorf("after healing, GET %s = %.200s, want the upstream bytes", c.Path(), body)
				}
			}
			if got := names(t, g.graphQLOK(t, itemsQuery)); !slices.Contains(got, "Copper Ore") {
				t.Errorf("after healing, GraphQL item names %q, want Copper Ore among them", got)
			}
			g.Stop()
		})
	}
}

// TestRestartFromDiskCache checks that a gateway restarted with -cache-dir
// while the upstream is down serves the last good bodies at once, and that
// a damaged cache file is reported and left out rather than served.
func TestRestartFromDiskCache(t *testing.T) {
	t.Parallel()
	// fromCache bounds how long a restart takes to serve from the cache:
	// long enough for decoding it on a loaded machine under -race. The
	// hung upstream is then given far longer (hungFor), so that a gateway
	// that waited for it before serving the cache cannot pass.
	const fromCache, hungFor = 20 * time.Second, time.Minute
	up := newUpstreams(t)
	dir := t.TempDir()

	first := startGateway(t, up.config(time.Second, dir), nil)
	first.waitReady(t, readyWithin)
	first.Stop()
	for c := range catalogue.NumCollections {
		if _, err := os.Stat(filepath.Join(dir, c.String()+".cache")); err != nil {
			t.Errorf("after a ready gateway stopped: %v", err)
		}
	}

	t.Run("upstream healthy", func(t *testing.T) {
		var notModified [catalogue.NumCollections]int
		for c := range catalogue.NumCollections {
			notModified[c] = up.Of(c).NotModified(c)
		}
		g := startGateway(t, up.config(time.Second, dir), nil)
		g.waitReady(t, fromCache)
		// The cached validators go with the first read: the upstream
		// confirms the cached bodies rather than sending them again.
		gatewaytest.WaitFor(t, 10*time.Second, "every cached body revalidated", func() (bool, string) {
			_, rd, raw := g.readyz(t)
			for c := range catalogue.NumCollections {
				if rd.Collections[c.String()].LastOutcome != "304" {
					return false, string(raw)
				}
			}
			return true, ""
		})
		m := g.metrics(t)
		for c := range catalogue.NumCollections {
			if n := m[upstreamRequests(c, "200")]; n != 0 {
				t.Errorf("/metrics %s = %v, want 0: the cached body needs no full read", upstreamRequests(c, "200"), n)
			}
			if n := up.Of(c).NotModified(c); n <= notModified[c] {
				t.Errorf("%s: the upstream answered 304 %d times, as before the restart", c, n)
			}
		}
		g.Stop()
	})

	t.Run("upstream hanging", func(t *testing.T) {
		up.setFaultAll(upstreamtest.Hang)
		cfg := up.config(time.Second, dir)
		cfg.UpstreamTimeout = hungFor
		g := startGateway(t, cfg, nil)
		rd := g.waitReady(t, fromCache)
		for c := range catalogue.NumCollections {
			if cr := rd.Collections[c.String()]; cr.Source != "cache" {
				t.Errorf("/readyz %s: %+v, want source cache", c, cr)
			}
			if body := g.restBody(t, c); !bytes.Equal(body, up.bodies[c]) {
				t.Errorf("GET %s = %.200s, want the cached upstream bytes", c.Path(), body)
			}
		}
		g.Stop()
	})

	t.Run("damaged file", func(t *testing.T) {
		name := filepath.Join(dir, "items.cache")
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		raw[len(raw)-1] ^= 0x20 // in the body: the checksum no longer matches
		if err := os.WriteFile(name, raw, 0o644); err != nil {
			t.Fatal(err)
		}

		up.setFaultAll(upstreamtest.Status503)
		logs := &logtest.Buffer{}
		g := startGateway(t, up.config(time.Second, dir), slog.New(slog.NewJSONHandler(logs, nil)))
		defer func() {
			if t.Failed() {
				t.Logf("gateway log:\n%s", logs)
			}
		}()
		gatewaytest.WaitFor(t, fromCache, "every collection but items from the cache", func() (bool, string) {
			status, rd, raw := g.readyz(t)
			return status == http.StatusServiceUnavailable && slices.Equal(rd.Missing, []string{"items"}),
				fmt.Sprintf("%d %s", status, raw)
		})
		for c := range catalogue.NumCollections {
			resp, body := g.rest(t, c)
			switch {
			case c == catalogue.Items && resp.StatusCode != http.StatusServiceUnavailable:
				t.Errorf("GET /items with its cache file damaged: status %d, want 503", resp.StatusCode)
			case c != catalogue.Items && (resp.StatusCode != http.StatusOK || !bytes.Equal(body, up.bodies[c])):
				t.Errorf("GET %s = %d, %.200s; want 200 with the cached upstream bytes", c.Path(), resp.StatusCode, body)
			}
		}

		var reported bool
		for line := range strings.Lines(logs.String()) {
			var rec struct{ Level, Collection, Err string }
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Level == "WARN" &&
				rec.Collection == "items" && strings.Contains(rec.Err, "items.cache") {
				reported = true
			}
		}
		if !reported {
			t.Errorf("no WARN log line names the damaged items.cache:\n%s", logs)
		}
		g.Stop()
	})
}

// TestUpstreamUserAgent checks, through a proxy in front of each stand-in,
// that the gateway names itself to the upstream.
func TestUpstreamUserAgent(t *testing.T) {
	t.Parallel()
	up := newUpstreams(t)
	var mu sync.Mutex
	seen := map[string][]string{} // path → User-Agents
	front := func(target string) *httptest.Server {
		u, err := url.Parse(target)
		if err != nil {
			t.Fatal(err)
		}
		proxy := httputil.NewSingleHostReverseProxy(u)
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[r.URL.Path] = append(seen[r.URL.Path], r.UserAgent())
			mu.Unlock()
			proxy.ServeHTTP(w, r)
		}))
		t.Cleanup(s.Close)
		return s
	}
	cfg := up.config(time.Minute, "")
	cfg.BaseURL, cfg.WorldBossURL = front(up.Base.URL).URL, front(up.Boss.URL).URL
	g := startGateway(t, cfg, nil)
	g.waitReady(t, readyWithin)
	g.Stop()

	mu.Lock()
	defer mu.Unlock()
	for c := range catalogue.NumCollections {
		agents := seen[c.Path()]
		if len(agents) == 0 {
			t.Errorf("no request of %s reached the upstream", c.Path())
		}
		for _, ua := range agents {
			if !strings.HasPrefix(ua, "catalogue-gateway/") || ua != buildinfo.Get().UserAgent() {
				t.Errorf("%s: User-Agent %q, want %q", c.Path(), ua, buildinfo.Get().UserAgent())
			}
		}
	}
}

// TestColdStartWhileLoadingCache asks for a collection the disk cache lacks
// while a restarted gateway is still loading the cache, with the upstream
// healthy: the request should wait for the first upstream read, as a cold
// request does during a refresh round, rather than fail at once.
//
// Refresher.Run opens the first round's flights before it loads the cache
// (decoding and compressing every cached body, about a second for the
// embedded catalogue under -race), so the request waits on them.
func TestColdStartWhileLoadingCache(t *testing.T) {
	t.Parallel()
	up := newUpstreamsOf(t, upstreamtest.EmbeddedBodies(t))
	dir := t.TempDir()
	first := startGateway(t, up.config(time.Minute, dir), nil)
	first.waitReady(t, readyWithin)
	first.Stop()
	if err := os.Remove(filepath.Join(dir, "items.cache")); err != nil {
		t.Fatal(err)
	}

	g := startGateway(t, up.config(time.Minute, dir), nil)
	resp, body := g.rest(t, catalogue.Items)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, up.bodies[catalogue.Items]) {
		t.Errorf("GET /items at start, upstream healthy: %d %.200s; want 200 with the upstream bytes", resp.StatusCode, body)
	}
	if a := g.graphQL(t, itemsQuery); len(a.Errors) > 0 {
		t.Errorf("items at start, upstream healthy: %s; want data", a.Raw)
	}
	g.Stop()
}

// TestUpstreamBodyBound: -max-upstream-bytes bounds what the gateway reads
// of one upstream body. A body one byte over it is refused (and said so in
// /metrics); at the bound it is served.
func TestUpstreamBodyBound(t *testing.T) {
	t.Parallel()
	up := newUpstreams(t)
	size := int64(len(up.bodies[catalogue.Items]))
	for _, tt := range []struct {
		name  string
		bound int64
		ready bool
	}{
		{"one byte short", size - 1, false},
		{"exactly", size, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := up.config(time.Second, "")
			cfg.MaxUpstreamBytes = tt.bound
			g := startGateway(t, cfg, nil)
			if tt.ready {
				g.waitReady(t, readyWithin)
				if body := g.restBody(t, catalogue.Items); !bytes.Equal(body, up.bodies[catalogue.Items]) {
					t.Errorf("/items is not the upstream body")
				}
				return
			}
			gatewaytest.WaitFor(t, 10*time.Second, "items refused as too large", func() (bool, string) {
				m := g.metrics(t)
				key := `catalogue_upstream_requests_total{collection="items",outcome="too_large"}`
				return m[key] > 0, fmt.Sprint(m[key])
			})
			status, rd, raw := g.readyz(t)
			if status != http.StatusServiceUnavailable || rd.Collections["items"].Ready {
				t.Errorf("/readyz %d %s, want 503 with items not ready", status, raw)
			}
			if resp, _ := g.rest(t, catalogue.Monsters); resp.StatusCode != http.StatusOK {
				t.Errorf("/monsters %d, want 200: the bound is per body", resp.StatusCode)
			}
		})
	}
}

// TestSubscriptionSeesUpstreamChange: a client subscribed to
// catalogueChanged hears of a change the refresher reads from the upstream,
// and the server's shutdown ends the stream cleanly rather than waiting for
// the client to leave.
func TestSubscriptionSeesUpstreamChange(t *testing.T) {
	t.Parallel()
	up := newUpstreams(t)
	g := startGateway(t, up.config(time.Second, ""), nil)
	before := g.waitReady(t, readyWithin)

	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, g.URL+"/graphql",
		strings.NewReader(`{"query":"subscription { catalogueChanged { version collections keys } }"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", resp.StatusCode)
	}
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	// nextEvent returns the next event's kind and data, skipping keep-alives.
	nextEvent := func() (event, data string) {
		t.Helper()
		timeout := time.After(15 * time.Second)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					return "", ""
				}
				if v, ok := strings.CutPrefix(line, "event: "); ok {
					event = v
				}
				if v, ok := strings.CutPrefix(line, "data: "); ok {
					data = v
				}
				if line == "" && event != "" {
					return event, data
				}
			case <-timeout:
				t.Fatal("no event within 15s")
			}
		}
	}

	up.Of(catalogue.WorldBosses).SetBody(catalogue.WorldBosses, renamed(t, catalogue.WorldBosses, up.bodies[catalogue.WorldBosses]))
	event, data := nextEvent()
	var got struct {
		Data struct {
			CatalogueChanged struct {
				Version     string
				Collections []string
				Keys        []string
			}
		}
	}
	if err := json.Unmarshal([]byte(data), &got); event != "next" || err != nil {
		t.Fatalf("event %q, data %s (%v): want a next event", event, data, err)
	}
	c := got.Data.CatalogueChanged
	if !slices.Equal(c.Collections, []string{"worldboss"}) || c.Version == before.Version {
		t.Errorf("change %+v, want collections [worldboss] and a version other than %s", c, before.Version)
	}
	// Colossus, world boss 1, is the one record renamed: its key, then
	// its collection's, the keys a purge names.
	if want := []string{"WorldBoss:1", "worldboss"}; !slices.Equal(c.Keys, want) {
		t.Errorf("keys %q, want %q", c.Keys, want)
	}
	if open := g.metrics(t)["graphql_subscriptions_open"]; open != 1 {
		t.Errorf("graphql_subscriptions_open %v with one stream open, want 1", open)
	}
	if _, rd, _ := g.readyz(t); rd.Version != c.Version {
		t.Errorf("the event's version %s is not the served one, %s", c.Version, rd.Version)
	}

	stopped := make(chan struct{})
	go func() { defer close(stopped); g.Stop() }()
	if event, _ := nextEvent(); event != "complete" {
		t.Errorf("event %q at shutdown, want complete", event)
	}
	select {
	case <-stopped:
	case <-time.After(20 * time.Second):
		t.Fatal("the gateway did not stop within 20s with a stream open")
	}
}

// streamFor opens a subscription stream (GET, named Changes), holds it open
// for d, leaves, and waits until /metrics has timed it.
func (g *testGateway) streamFor(t *testing.T, d time.Duration) {
	t.Helper()
	const ended = `graphql_stream_duration_seconds_count{outcome="ok"}`
	before := g.metrics(t)[ended]
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		g.URL+"/graphql?query="+url.QueryEscape(`subscription Changes { catalogueChanged { version } }`)+"&operationName=Changes", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stream status %d, want 200", resp.StatusCode)
	}
	time.Sleep(d)
	cancel() // the client leaves
	resp.Body.Close()
	for deadline := time.Now().Add(10 * time.Second); g.metrics(t)[ended] == before; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s still %v 10s after the client left", ended, before)
		}
	}
}

// TestStreamsTimedApartFromAnswers: a subscription stream's lifetime goes
// to graphql_stream_duration_seconds, not to the answers' latency, whose
// quantiles (and the p99 alert) it would stretch to minutes; it still
// counts as a request.
func TestStreamsTimedApartFromAnswers(t *testing.T) {
	g := startGateway(t, config.Default(), nil)
	const (
		streamOK  = `graphql_stream_duration_seconds_count{outcome="ok"}`
		streamSum = `graphql_stream_duration_seconds_sum{outcome="ok"}`
		answersOK = `graphql_request_duration_seconds_count{outcome="ok"}`
		requests  = `graphql_requests_total{operation="Changes",outcome="ok"}`
	)
	before := g.metrics(t)
	g.streamFor(t, 300*time.Millisecond)
	after := g.metrics(t)
	if d := after[streamOK] - before[streamOK]; d != 1 {
		t.Errorf("%s grew by %v, want 1", streamOK, d)
	}
	if d := after[streamSum] - before[streamSum]; d < 0.3 {
		t.Errorf("%s grew by %vs, want the stream's 0.3s or more", streamSum, d)
	}
	if d := after[answersOK] - before[answersOK]; d != 0 {
		t.Errorf("%s grew by %v: the stream was timed as an answer", answersOK, d)
	}
	if d := after[requests] - before[requests]; d != 1 {
		t.Errorf("%s grew by %v, want 1", requests, d)
	}
}

// TestOperationsByExecutor: /metrics tells how many operations the engine
// answered and how many it left to gqlgen's executor, and why.
func TestOperationsByExecutor(t *testing.T) {
	cfg := config.Default()
	cfg.AccessLog, cfg.ResponseCacheBytes = false, 0
	g := startGateway(t, cfg, nil)
	engine, gqlgen := `graphql_operations_total{executor="engine"}`, `graphql_operations_total{executor="gqlgen"}`
	introspection, panics := `graphql_engine_declines_total{reason="introspection"}`, `graphql_engine_declines_total{reason="panic"}`
	before := g.metrics(t)
	if _, ok := before[panics]; !ok {
		t.Errorf("/metrics has no %s before any panic", panics)
	}
	g.graphQLOK(t, `{ item(id: 1) { name } }`)
	g.graphQLOK(t, `{ item(id: 2) { name } }`)
	g.graphQLOK(t, `{ __schema { queryType { name } } }`) // introspection: gqlgen's
	g.graphQLOK(t, `{ __type(name: "Item") { name } }`)   // and again
	after := g.metrics(t)
	if d := after[engine] - before[engine]; d != 2 {
		t.Errorf("%s grew by %v, want 2", engine, d)
	}
	if d := after[gqlgen] - before[gqlgen]; d != 2 {
		t.Errorf("%s grew by %v, want 2", gqlgen, d)
	}
	if d := after[introspection] - before[introspection]; d != 2 {
		t.Errorf("%s grew by %v, want 2", introspection, d)
	}
}

// TestLastModifiedFromTheUpstream: the upstream's Last-Modified of each
// body is the REST body's, and the newest of them a GET answer's; a
// conditional GET at that date is answered 304 on both, as every replica
// reading that upstream would answer it.
func TestLastModifiedFromTheUpstream(t *testing.T) {
	up := newUpstreams(t)
	g := startGateway(t, up.config(time.Hour, ""), nil)
	g.waitReady(t, 30*time.Second)
	const date = "Sun, 22 Nov 2026 12:00:00 GMT" // the stand-in upstream's
	for _, path := range []string{catalogue.Items.Path(), "/graphql?query=" + url.QueryEscape("{ item(id: 1) { name } }")} {
		resp, _ := gatewaytest.Get(t, g.client, g.URL+path)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Last-Modified") != date {
			t.Errorf("GET %s: %d, Last-Modified %q, want 200 and %q", path, resp.StatusCode, resp.Header.Get("Last-Modified"), date)
		}
		req, _ := http.NewRequest(http.MethodGet, g.URL+path, nil)
		req.Header.Set("If-Modified-Since", date)
		resp, err := g.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotModified {
			t.Errorf("GET %s If-Modified-Since its date: %d, want 304", path, resp.StatusCode)
		}
	}
}
