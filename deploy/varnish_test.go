//go:build unix

package deploy_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/graphqlhttp/wstest"
	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
)

// The tests here run deploy/varnish/gateway.vcl in a real varnishd (Debian's
// varnish with varnish-modules, for xkey) in front of two replicas of the
// gateway reading one stand-in upstream. Without varnishd or xkey they are
// skipped, unless GATEWAY_TEST_REQUIRE_VARNISH=1 (as in CI, which installs
// both) makes that a failure.

// chickenFeather is the item whose price the purge test changes: the
// embedded catalogue's 786, dropped by a few monsters and not by most.
const chickenFeather = 786

// TestVarnishCaches replays what a site's pages ask (plain and persisted
// GET queries, REST paths) through Varnish, and checks that after one
// warm-up nearly all of it is answered from the cache, byte for byte what
// a replica answers, while what must not be kept (POST, event streams,
// WebSockets, errors) goes through every time.
func TestVarnishCaches(t *testing.T) {
	varnishd := needVarnish(t)
	bodies := upstreamtest.EmbeddedBodies(t)
	up := upstreamtest.NewPair(t, bodies)
	// A refresh longer than the test: every answer's max-age outlives it,
	// so a miss after warm-up is Varnish's doing, not an expiry.
	replicas := startReplicas(t, up, 2, "-refresh", "2m")
	v := startVarnish(t, varnishd, replicas, "")

	mix := siteMix(t, bodies, replicas)
	client := gatewaytest.NewClient(t)
	gzipped := map[string]string{"Accept-Encoding": "gzip"}

	// Warm-up: each URL once as a browser asks (gzip) and once as a
	// script does (no Accept-Encoding); Varnish keeps gzip and unzips
	// for the second, so both share one object.
	for _, path := range mix.all() {
		for _, h := range []map[string]string{gzipped, nil} {
			if resp, body := v.get(t, client, path, h); resp.StatusCode != http.StatusOK {
				t.Fatalf("warm-up %s: %d %.300s", path, resp.StatusCode, body)
			}
		}
	}

	t.Run("after warm-up at least 95% of the replay is hits, as a replica would answer", func(t *testing.T) {
		const rounds, workers = 20, 4
		type result struct {
			path, cache string
			took        time.Duration
		}
		results := make(chan result, rounds*len(mix.all())*2)
		paths := mix.all()
		var wg sync.WaitGroup
		start := time.Now()
		for w := range workers {
			wg.Go(func() {
				for i := w; i < rounds*len(paths); i += workers {
					path := paths[i%len(paths)]
					h := map[string]string(nil)
					if i%2 == 0 {
						h = gzipped
					}
					began := time.Now()
					resp, body := v.get(t, client, path, h)
					if resp.StatusCode != http.StatusOK {
						t.Errorf("%s: %d %.200s", path, resp.StatusCode, body)
					}
					results <- result{path, resp.Header.Get("X-Cache"), time.Since(began)}
				}
			})
		}
		wg.Wait()
		close(results)
		elapsed := time.Since(start)
		var hits, n int
		var took []time.Duration
		notHit := map[string]string{}
		for r := range results {
			n++
			took = append(took, r.took)
			if r.cache == "HIT" {
				hits++
			} else {
				notHit[r.path] = r.cache
			}
		}
		slices.Sort(took)
		ratio := float64(hits) / float64(n)
		t.Logf("%d of %d requests were hits (%.1f %%) in %s; latency p50 %s, p99 %s",
			hits, n, 100*ratio, elapsed.Round(time.Millisecond),
			took[len(took)/2].Round(time.Microsecond), took[len(took)*99/100].Round(time.Microsecond))
		if ratio < 0.95 {
			t.Errorf("hit ratio %.3f, want at least 0.95; not hits: %v", ratio, notHit)
		}
		// A hit is what a replica answers now, byte for byte.
		for _, path := range mix.all() {
			_, direct := gatewaytest.Get(t, client, replicas[0].URL+path)
			resp, cached := v.get(t, client, path, nil)
			if !bytes.Equal(cached, direct) {
				t.Errorf("%s (%s): Varnish's answer differs from a replica's:\n%.200s\n%.200s", path, resp.Header.Get("X-Cache"), cached, direct)
			}
		}
	})

	t.Run("errors are not kept", func(t *testing.T) {
		unknownHash := strings.Repeat("ab", 32)
		for _, path := range []string{
			"/graphql?" + url.Values{"query": {`{ nosuchfield }`}}.Encode(),
			"/graphql?" + url.Values{"query": {`query Item($id: Int!) { item(id: $id) { name } }`}, "variables": {`{"id":"x"}`}}.Encode(),
			"/graphql?" + url.Values{"extensions": {`{"persistedQuery":{"version":1,"sha256Hash":"` + unknownHash + `"}}`}}.Encode(),
			"/nosuchpath",
		} {
			for i := range 3 {
				resp, body := v.get(t, client, path, nil)
				if cache := resp.Header.Get("X-Cache"); cache == "HIT" || cache == "STALE" {
					t.Errorf("%s, request %d: X-Cache %s, want the error fetched again (%.200s)", path, i, cache, body)
				}
				if resp.StatusCode == http.StatusOK && !bytes.Contains(body, []byte(`"errors"`)) {
					t.Errorf("%s: 200 with no errors: %.200s", path, body)
				}
			}
		}
	})

	t.Run("POST passes through", func(t *testing.T) {
		body := `{"query":"{ item(id: 786) { name } }"}`
		for i := range 3 {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, v.url+"/graphql", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, got := do(t, client, req)
			if resp.StatusCode != http.StatusOK || !bytes.Contains(got, []byte("Chicken Feather")) {
				t.Fatalf("POST %d: %d %.200s", i, resp.StatusCode, got)
			}
			if cache := resp.Header.Get("X-Cache"); cache != "PASS" {
				t.Errorf("POST %d: X-Cache %q, want PASS", i, cache)
			}
		}
	})

	t.Run("event streams pass through, two at once, neither waiting on the other", func(t *testing.T) {
		path := "/graphql?" + url.Values{"query": {`subscription { catalogueChanged { version } }`}}.Encode()
		// Two streams open together: a stream Varnish treated as a fetch
		// to share would hold the second behind the first, which never
		// ends.
		for i := range 2 {
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, v.url+path, nil)
			req.Header.Set("Accept", "text/event-stream")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("stream %d: %v", i, err)
			}
			defer resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
				t.Fatalf("stream %d: %d %s", i, resp.StatusCode, ct)
			}
			if cache := resp.Header.Get("X-Cache"); cache != "PASS" {
				t.Errorf("stream %d: X-Cache %q, want PASS", i, cache)
			}
			// The gateway's opening comment arrives at once, not when the
			// stream ends: Varnish streams it through.
			first := make([]byte, 1)
			if _, err := io.ReadFull(resp.Body, first); err != nil || first[0] != ':' {
				t.Fatalf("stream %d: first byte %q, %v; want the opening comment", i, first, err)
			}
		}
	})

	t.Run("a WebSocket is piped to a replica", func(t *testing.T) {
		ws := wstest.Connect(t, client, v.url+"/graphql")
		defer ws.Conn.CloseNow()
		ws.Subscribe(t, "1", `{ item(id: 786) { name } }`)
		if m := ws.Next(t); m.Type != "next" || !bytes.Contains(m.Payload, []byte("Chicken Feather")) {
			t.Fatalf("got %+v, want the item", m)
		}
		if m := ws.Next(t); m.Type != "complete" {
			t.Fatalf("got %+v, want complete", m)
		}
	})
}

// TestVarnishPurges changes one item's price at the upstream and checks
// that the replicas' purges, after their refresh, drop from Varnish
// exactly the answers that read the item or a list of items (hard: the
// next GET is a fetch, never the old answer in grace), and nothing else;
// and that a replica whose purge endpoint is down refreshes and answers
// as before, counting the failures.
//
// It needs the gateway's Surrogate-Key headers and its -purge-url, and
// says so in a skip while either is missing.
func TestVarnishPurges(t *testing.T) {
	varnishd := needVarnish(t)
	if _, err := config.Parse([]string{"-base-url", "http://127.0.0.1:1", "-purge-url", "http://127.0.0.1:1"},
		func(string) string { return "" }, io.Discard); err != nil {
		if strings.Contains(err.Error(), "not defined") {
			t.Skipf("the gateway has no -purge-url yet (issue 35, item 3): %v", err)
		}
		t.Fatal(err)
	}
	bodies := upstreamtest.EmbeddedBodies(t)
	up := upstreamtest.NewPair(t, bodies)

	// One recording proxy per replica between it and Varnish: it shows
	// which replica purged what, and whether Varnish took it. Until
	// armed it answers 200 itself, so that what a replica sends while it
	// starts (if anything) cannot reach the cache the test then warms.
	proxies := []*purgeProxy{newPurgeProxy(t), newPurgeProxy(t)}
	const refresh = 2 * time.Second
	var replicas []*gatewaytest.Gateway
	for _, p := range proxies {
		replicas = append(replicas, startReplicas(t, up, 1, "-refresh", refresh.String(), "-purge-url", p.URL)...)
	}
	// A third, outside Varnish, whose purge endpoint is a closed port.
	closed := gatewaytest.Listen(t)
	closedURL := "http://" + closed.Addr().String()
	closed.Close()
	orphan := startReplicas(t, up, 1, "-refresh", refresh.String(), "-purge-url", closedURL)[0]

	client := gatewaytest.NewClient(t)
	probe := "/graphql?" + url.Values{"query": {`{ item(id: 786) { name } }`}}.Encode()
	if resp, _ := gatewaytest.Get(t, client, replicas[0].URL+probe); resp.Header.Get("Surrogate-Key") == "" {
		t.Skip("the gateway's answers carry no Surrogate-Key yet (issue 35, item 2)")
	}

	// Here the kept answers live for an hour in the cache and another in
	// grace, whatever max-age the short refresh gives them: an answer
	// fetched again after the change was then purged, not expired, and
	// one still a hit was not purged, however slowly this machine
	// refreshes; and a soft purge, which leaves the old answer in grace,
	// would show as STALE.
	v := startVarnish(t, varnishd, replicas, `
sub vcl_backend_response {
    if (beresp.ttl > 0s) {
        set beresp.ttl = 1h;
        set beresp.grace = 1h;
    }
}
`)
	for _, p := range proxies {
		p.arm(v.url)
	}

	mix := siteMix(t, bodies, replicas)
	for _, path := range mix.all() {
		for range 2 {
			v.get(t, client, path, nil)
		}
		if resp, body := v.get(t, client, path, nil); resp.StatusCode != http.StatusOK || resp.Header.Get("X-Cache") != "HIT" {
			t.Fatalf("warm-up %s: %d, X-Cache %q, want a 200 hit: %.200s", path, resp.StatusCode, resp.Header.Get("X-Cache"), body)
		}
	}
	oldPrice := priceOf(t, client, replicas[0].URL)

	items, newPrice := withPrice(t, bodies[catalogue.Items], chickenFeather)
	up.Of(catalogue.Items).SetBody(catalogue.Items, items)

	// Both replicas refresh (within one refresh of the change) and purge
	// the item and its collection: waited for, bounded.
	gatewaytest.WaitFor(t, 30*time.Second+4*refresh, "both replicas' purges of the item taken by Varnish", func() (bool, string) {
		var last []string
		done := true
		for i, p := range proxies {
			keys, ok := p.purged()
			if !ok || !slices.Contains(keys, "Item:"+strconv.Itoa(chickenFeather)) || !slices.Contains(keys, "items") {
				done = false
			}
			last = append(last, fmt.Sprintf("replica %d purged %v (all taken: %v)", i, keys, ok))
		}
		return done, strings.Join(last, "; ")
	})
	for i, r := range replicas {
		if p := priceOf(t, client, r.URL); p != newPrice {
			t.Fatalf("replica %d purged, but answers the price %d, want %d", i, p, newPrice)
		}
	}

	t.Run("what read the item or a list of items is fetched again, fresh", func(t *testing.T) {
		for _, path := range mix.affected {
			resp, body := v.get(t, client, path, nil)
			if cache := resp.Header.Get("X-Cache"); cache != "MISS" {
				t.Errorf("%s: X-Cache %q after the purge, want MISS (STALE: a soft purge)", path, cache)
			}
			_, direct := gatewaytest.Get(t, client, replicas[0].URL+path)
			if !bytes.Equal(body, direct) {
				t.Errorf("%s: Varnish's answer differs from the replica's:\n%.200s\n%.200s", path, body, direct)
			}
		}
		if p := priceOf(t, client, v.url); p != newPrice {
			t.Errorf("through Varnish the item costs %d, want %d (was %d)", p, newPrice, oldPrice)
		}
	})

	t.Run("what read neither is still a hit", func(t *testing.T) {
		for _, path := range mix.unaffected {
			if resp, _ := v.get(t, client, path, nil); resp.Header.Get("X-Cache") != "HIT" {
				t.Errorf("%s: X-Cache %q after the purge, want HIT", path, resp.Header.Get("X-Cache"))
			}
		}
	})

	t.Run("a replica whose purge endpoint is down refreshes, answers and counts the failures", func(t *testing.T) {
		gatewaytest.WaitFor(t, 60*time.Second, "the orphan replica's refresh and failed purges", func() (bool, string) {
			failed, err := purgeFailures(orphan.URL)
			if err != nil {
				return false, err.Error()
			}
			price := priceOf(t, client, orphan.URL)
			return price == newPrice && failed > 0, fmt.Sprintf("price %d, failed purges %v", price, failed)
		})
		for _, path := range mix.all() {
			if resp, body := gatewaytest.Get(t, client, orphan.URL+path); resp.StatusCode != http.StatusOK {
				t.Errorf("%s: %d %.200s", path, resp.StatusCode, body)
			}
		}
	})
}

// needVarnish returns varnishd's path, and checks that it can compile a
// VCL importing xkey; otherwise it skips the test (or, with
// GATEWAY_TEST_REQUIRE_VARNISH=1, fails it).
func needVarnish(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts varnishd and two gateways")
	}
	missing := func(what string) {
		t.Helper()
		if os.Getenv("GATEWAY_TEST_REQUIRE_VARNISH") == "1" {
			t.Fatalf("%s, and GATEWAY_TEST_REQUIRE_VARNISH=1", what)
		}
		t.Skipf("%s (Debian: apt-get install varnish varnish-modules)", what)
	}
	varnishd, err := exec.LookPath("varnishd")
	if err != nil {
		varnishd = "/usr/sbin/varnishd"
		if _, err := os.Stat(varnishd); err != nil {
			missing("varnishd not found")
		}
	}
	dir := t.TempDir()
	vcl := filepath.Join(dir, "xkey.vcl")
	os.WriteFile(vcl, []byte("vcl 4.1;\nimport xkey;\nbackend none none;\n"), 0o644)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, varnishd, "-C", "-j", "none", "-n", filepath.Join(dir, "n"), "-f", vcl).CombinedOutput()
	if err != nil {
		if bytes.Contains(out, []byte("Could not find VMOD xkey")) {
			missing("varnishd has no xkey vmod")
		}
		t.Fatalf("varnishd -C: %v\n%s", err, tailOf(out))
	}
	return varnishd
}

// varnish is a running varnishd.
type varnish struct{ url string }

// startVarnish runs varnishd in the foreground, in its own process group
// (stopped when the test ends), on a free loopback port, with
// deploy/varnish/gateway.vcl and a backends.vcl naming replicas. prelude,
// if any, is VCL of the test's own that runs before gateway.vcl's.
func startVarnish(t *testing.T, varnishd string, replicas []*gatewaytest.Gateway, prelude string) *varnish {
	t.Helper()
	dir := t.TempDir()
	deployVCL, err := filepath.Abs("varnish")
	if err != nil {
		t.Fatal(err)
	}
	var backends strings.Builder
	for i, r := range replicas {
		host, port, _ := net.SplitHostPort(r.Addr)
		fmt.Fprintf(&backends, "backend replica%d { .host = %q; .port = %q; }\n", i, host, port)
	}
	backends.WriteString("sub vcl_init {\n    new gateways = directors.round_robin();\n")
	for i := range replicas {
		fmt.Fprintf(&backends, "    gateways.add_backend(replica%d);\n", i)
	}
	backends.WriteString("}\n")
	vcl := "vcl 4.1;\n" + prelude + "include \"gateway.vcl\";\n"
	for name, text := range map[string]string{"backends.vcl": backends.String(), "test.vcl": vcl} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ln := gatewaytest.Listen(t)
	addr := ln.Addr().String()
	ln.Close()

	cmd := exec.Command(varnishd,
		"-F",         // in the foreground: this test is its parent
		"-j", "none", // as the test's user, in the test's own directories
		"-n", filepath.Join(dir, "n"),
		"-a", addr,
		"-T", "none", // no management port: nothing here needs one
		"-s", "malloc,64m",
		"-p", "vcl_path="+dir+":"+deployVCL,
		"-p", "vsl_space=1M", // the shared log, unread here: the least it may be
		"-f", filepath.Join(dir, "test.vcl"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		// The manager and its child: the whole group.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		if t.Failed() {
			t.Logf("varnishd:\n%s", tailOf([]byte(out.String())))
		}
	})
	v := &varnish{url: "http://" + addr}
	// Compiling the VCL takes a C compiler's while.
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(v.url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return v
			}
		}
		select {
		case <-exited:
			t.Fatalf("varnishd exited: %s", tailOf([]byte(out.String())))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("varnishd did not answer within 60s: %v\n%s", err, tailOf([]byte(out.String())))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// get GETs path through Varnish with the headers given.
func (v *varnish) get(t *testing.T, client *http.Client, path string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, v.url+path, nil)
	for k, val := range header {
		req.Header.Set(k, val)
	}
	return do(t, client, req)
}

func do(t *testing.T, client *http.Client, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", req.Method, req.URL, err)
	}
	return resp, body
}

// startReplicas starts n gateways in process reading up, with args, and
// waits until each is ready.
func startReplicas(t *testing.T, up upstreamtest.Pair, n int, args ...string) []*gatewaytest.Gateway {
	t.Helper()
	var gs []*gatewaytest.Gateway
	for range n {
		g := gatewaytest.Start(t, gatewaytest.Options{Args: append([]string{
			"-base-url", up.Base.URL, "-worldboss-url", up.Boss.URL,
			"-access-log=false", "-cold-wait", "60s"}, args...)})
		gs = append(gs, g)
	}
	client := gatewaytest.NewClient(t)
	for _, g := range gs {
		gatewaytest.WaitFor(t, 60*time.Second, g.URL+" ready", func() (bool, string) {
			resp, err := client.Get(g.URL + "/readyz")
			if err != nil {
				return false, err.Error()
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK, resp.Status
		})
	}
	return gs
}

// mix is what a site's pages ask, by what it read: affected answers read
// the chicken feather or a list of items, unaffected ones neither.
type mix struct{ affected, unaffected []string }

func (m mix) all() []string { return slices.Concat(m.affected, m.unaffected) }

// siteMix builds the replay: GET queries, plain and persisted (registered
// on every replica, since each keeps its own), and REST paths.
func siteMix(t *testing.T, bodies map[catalogue.Collection][]byte, replicas []*gatewaytest.Gateway) mix {
	t.Helper()
	plain := func(query string, vars string) string {
		q := url.Values{"query": {query}}
		if vars != "" {
			q.Set("variables", vars)
		}
		return "/graphql?" + q.Encode()
	}
	client := gatewaytest.NewClient(t)
	persisted := func(query string, vars string) string {
		sum := sha256.Sum256([]byte(query))
		ext := `{"persistedQuery":{"version":1,"sha256Hash":"` + hex.EncodeToString(sum[:]) + `"}}`
		for _, r := range replicas {
			body, _ := json.Marshal(map[string]any{"query": query, "variables": json.RawMessage(vars), "extensions": json.RawMessage(ext)})
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, r.URL+"/graphql", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			if resp, got := do(t, client, req); resp.StatusCode != http.StatusOK || bytes.Contains(got, []byte(`"errors"`)) {
				t.Fatalf("registering %q: %d %.200s", query, resp.StatusCode, got)
			}
		}
		return "/graphql?" + url.Values{"variables": {vars}, "extensions": {ext}}.Encode()
	}
	const (
		itemPage    = `query Item($id: Int!) { item(id: $id) { name rarity value droppedByMonsters { name } } }`
		monsterPage = `query Monster($id: Int!) { monster(id: $id) { name combatLevel drops { baseChance item { name value } } } }`
	)
	feather := fmt.Sprintf(`{"id":%d}`, chickenFeather)
	var m mix
	m.affected = []string{
		plain(`{ item(id: 786) { name value } }`, ""),
		plain(itemPage, feather),
		persisted(itemPage, feather),
		plain(`{ items(first: 5) { nodes { id name } } }`, ""), // a list of items, without the feather
		plain(`query Page($after: String) { items(first: 20, after: $after, orderBy: {field: VALUE, direction: DESC}) { nodes { name value } } }`, `{"after":null}`),
		"/items",
	}
	for _, id := range droppers(t, bodies, chickenFeather, true)[:2] {
		vars := fmt.Sprintf(`{"id":%d}`, id)
		m.affected = append(m.affected, plain(monsterPage, vars), persisted(monsterPage, vars))
	}
	m.unaffected = []string{
		plain(`{ monsters(first: 10) { nodes { id name combatLevel } } }`, ""),
		plain(`{ quests(first: 10) { nodes { questName } } }`, ""),
		plain(`{ worldBosses(first: 5) { nodes { name } } }`, ""),
		"/monsters", "/quests", "/worldboss", "/cooking",
	}
	for _, id := range droppers(t, bodies, chickenFeather, false)[:4] {
		vars := fmt.Sprintf(`{"id":%d}`, id)
		m.unaffected = append(m.unaffected, plain(monsterPage, vars), persisted(monsterPage, vars))
	}
	return m
}

// droppers are the ids of the monsters that drop item (drop true) or
// that have drops and drop it not (drop false), read from the upstream's
// bytes.
func droppers(t *testing.T, bodies map[catalogue.Collection][]byte, item int64, drop bool) []int64 {
	t.Helper()
	var envelopes []struct {
		Results []struct {
			ID    int64
			Drops []struct{ ItemID int64 }
		}
	}
	if err := json.Unmarshal(bodies[catalogue.Monsters], &envelopes); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, e := range envelopes {
		for _, m := range e.Results {
			drops := slices.ContainsFunc(m.Drops, func(d struct{ ItemID int64 }) bool { return d.ItemID == item })
			if len(m.Drops) > 0 && drops == drop {
				ids = append(ids, m.ID)
			}
		}
	}
	if len(ids) < 4 {
		t.Fatalf("only %d monsters with drop=%v for item %d", len(ids), drop, item)
	}
	return ids
}

// withPrice returns the items body with item's value one more, and that
// value: the one change a refresh finds.
func withPrice(t *testing.T, body []byte, item int) ([]byte, int) {
	t.Helper()
	at := bytes.Index(body, []byte(fmt.Sprintf(`{"id":%d,`, item)))
	if at < 0 {
		t.Fatalf("item %d is not in the body", item)
	}
	key := []byte(`"value":`)
	v := at + bytes.Index(body[at:], key) + len(key)
	end := v + bytes.IndexFunc(body[v:], func(r rune) bool { return r < '0' || r > '9' })
	old, err := strconv.Atoi(string(body[v:end]))
	if err != nil {
		t.Fatal(err)
	}
	changed := slices.Concat(body[:v], []byte(strconv.Itoa(old+1)), body[end:])
	return changed, old + 1
}

// priceOf is the chicken feather's value as base answers it.
func priceOf(t *testing.T, client *http.Client, base string) int {
	t.Helper()
	q := url.Values{"query": {fmt.Sprintf(`{ item(id: %d) { value } }`, chickenFeather)}}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/graphql", strings.NewReader(`{"query":`+strconv.Quote(q.Get("query"))+`}`))
	req.Header.Set("Content-Type", "application/json")
	resp, body := do(t, client, req)
	var r struct {
		Data struct{ Item struct{ Value int } }
	}
	if err := json.Unmarshal(body, &r); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %.200s", base, resp.StatusCode, body)
	}
	return r.Data.Item.Value
}

// purgeFailures is the sum of base's /metrics series about purges that
// failed: a metric named for purges whose name or labels say so.
func purgeFailures(base string) (float64, error) {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	var sum float64
	found := false
	for line := range strings.Lines(string(text)) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || !strings.Contains(line, "purge") {
			continue
		}
		sp := strings.LastIndexByte(line, ' ')
		series := line[:sp]
		if !strings.Contains(series, "fail") && !strings.Contains(series, "error") {
			continue
		}
		if strings.Contains(series, "_bucket") || strings.Contains(series, "_sum") {
			continue
		}
		if v, err := strconv.ParseFloat(line[sp+1:], 64); err == nil {
			sum += v
			found = true
		}
	}
	if !found {
		return 0, errors.New("no purge failure series in /metrics")
	}
	return sum, nil
}

// purgeProxy stands between one replica and Varnish and records the
// replica's purges.
type purgeProxy struct {
	*httptest.Server
	mu      sync.Mutex
	target  string // Varnish; empty until armed
	keys    []string
	refused int
}

func newPurgeProxy(t *testing.T) *purgeProxy {
	p := &purgeProxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

// arm sends every purge from now on to target, and forgets those before.
func (p *purgeProxy) arm(target string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.target, p.keys, p.refused = target, nil, 0
}

// purged returns the keys purged since arm, sorted, and whether Varnish
// took every purge.
func (p *purgeProxy) purged() ([]string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	keys := slices.Clone(p.keys)
	sort.Strings(keys)
	return slices.Compact(keys), p.refused == 0 && len(keys) > 0
}

func (p *purgeProxy) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	target := p.target
	p.mu.Unlock()
	if target == "" {
		return // 200: taken, and dropped
	}
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, target+r.URL.RequestURI(), r.Body)
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	p.mu.Lock()
	if r.Method == "PURGE" && resp.StatusCode == http.StatusOK {
		for _, h := range r.Header.Values("Surrogate-Key") {
			p.keys = append(p.keys, strings.Fields(h)...)
		}
	} else {
		p.refused++
	}
	p.mu.Unlock()
	w.WriteHeader(resp.StatusCode)
}

// lockedBuffer is varnishd's output, written by its pipes' copiers and
// read when the test fails.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func tailOf(b []byte) string {
	if len(b) > 4<<10 {
		return "…" + string(b[len(b)-4<<10:])
	}
	return string(b)
}
