package catalogue_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
)

// countingObserver records what a refresher reports.
type countingObserver struct {
	mu       sync.Mutex
	outcomes map[string]int // "collection outcome"
	rejected map[catalogue.Collection]int
	rounds   int
}

func newCountingObserver() *countingObserver {
	return &countingObserver{outcomes: map[string]int{}, rejected: map[catalogue.Collection]int{}}
}

func (o *countingObserver) UpstreamRequest(c catalogue.Collection, outcome string, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.outcomes[c.String()+" "+outcome]++
}

func (o *countingObserver) BodyRejected(c catalogue.Collection) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.rejected[c]++
}

func (o *countingObserver) RefreshDone(time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.rounds++
}

// attempts is how many requests for c the refresher has made (and
// reported), whatever their outcome.
func (o *countingObserver) attempts(c catalogue.Collection) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for k, v := range o.outcomes {
		if strings.HasPrefix(k, c.String()+" ") {
			n += v
		}
	}
	return n
}

func (o *countingObserver) count(c catalogue.Collection, outcome string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.outcomes[c.String()+" "+outcome]
}

type fixture struct {
	base, boss *upstreamtest.Server
	upstream   *catalogue.Upstream
	store      *catalogue.Store
	refresher  *catalogue.Refresher
	observer   *countingObserver
	cacheDir   string
}

// newFixture starts two stand-in upstreams, the base address serving every
// collection but /worldboss and the world boss address serving only it, and
// a refresher reading them with short timeouts.
func newFixture(t *testing.T, cacheDir string) *fixture {
	t.Helper()
	bodies := upstreamtest.FixtureBodies(t)
	boss := map[catalogue.Collection][]byte{catalogue.WorldBosses: bodies[catalogue.WorldBosses]}
	delete(bodies, catalogue.WorldBosses)
	f := &fixture{
		base:     upstreamtest.New(t, bodies),
		boss:     upstreamtest.New(t, boss),
		store:    &catalogue.Store{},
		observer: newCountingObserver(),
		cacheDir: cacheDir,
	}
	f.upstream = &catalogue.Upstream{
		BaseURL:      f.base.URL,
		WorldBossURL: f.boss.URL,
		Client:       catalogue.NewUpstreamClient(),
		UserAgent:    "catalogue-gateway-test",
		Timeout:      time.Second,
	}
	cfg := catalogue.RefresherConfig{
		Upstream:  f.upstream,
		Interval:  time.Hour,
		RetryBase: 10 * time.Millisecond,
		Observer:  f.observer,
	}
	if cacheDir != "" {
		cfg.Cache = &catalogue.DiskCache{Dir: cacheDir}
	}
	f.refresher = catalogue.NewRefresher(f.store, cfg)
	return f
}

func (f *fixture) server(c catalogue.Collection) *upstreamtest.Server {
	if c == catalogue.WorldBosses {
		return f.boss
	}
	return f.base
}

func (f *fixture) refresh(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f.refresher.Refresh(ctx)
}

func TestRefreshLoadsEveryCollectionFromItsAddress(t *testing.T) {
	f := newFixture(t, "")
	// The requests are counted: none may time out and be tried again,
	// however loaded the machine. Nothing here hangs.
	f.upstream.Timeout = 20 * time.Second
	f.refresh(t)
	snap := f.store.Current()
	if snap == nil || len(snap.Missing()) > 0 {
		t.Fatalf("after one refresh, missing %v", snap.Missing())
	}
	for c := range catalogue.NumCollections {
		if want := upstreamtest.FixtureBodies(t)[c]; !bytes.Equal(snap.Body(c).Raw(), want) {
			t.Errorf("%s: body differs from the upstream's", c)
		}
		if got := f.server(c).Requests(c); got != 1 {
			t.Errorf("%s: %d requests to its address, want 1", c, got)
		}
		if st := f.refresher.States()[c]; st.Source != "upstream" || st.LastOutcome != "200" || st.CheckedAt.IsZero() {
			t.Errorf("%s: state %+v", c, st)
		}
	}
	if f.base.Requests(catalogue.WorldBosses) != 0 {
		t.Error("/worldboss was asked of the base address")
	}
}

func TestRefreshOfUnchangedDataIsConditional(t *testing.T) {
	f := newFixture(t, "")
	f.refresh(t)
	before := f.store.Current()
	f.refresh(t)
	if f.store.Current() != before {
		t.Error("an unchanged upstream produced a new snapshot")
	}
	for c := range catalogue.NumCollections {
		if got := f.server(c).NotModified(c); got != 1 {
			t.Errorf("%s: %d 304s, want 1", c, got)
		}
		if got := f.observer.count(c, "304"); got != 1 {
			t.Errorf("%s: observer saw %d 304s, want 1", c, got)
		}
	}
	// An upstream without validators sends the body again; the same
	// bytes still make no new snapshot and no decoding.
	f.base.SetFault(catalogue.Items, upstreamtest.NoValidator)
	f.refresh(t)
	if f.store.Current() != before {
		t.Error("a resent, unchanged body produced a new snapshot")
	}
	if st := f.refresher.States()[catalogue.Items]; st.LastOutcome != "unchanged" {
		t.Errorf("items outcome %q, want unchanged", st.LastOutcome)
	}
}

func TestRefreshPicksUpChangedData(t *testing.T) {
	f := newFixture(t, "")
	f.refresh(t)
	old := f.store.Current()
	body := upstreamtest.FixtureBodies(t)[catalogue.MiningRocks]
	changed := bytes.Replace(body, []byte(`"miningExp":`), []byte(`"extra":1,"miningExp":`), 1)
	f.base.SetBody(catalogue.MiningRocks, changed)
	f.refresh(t)
	snap := f.store.Current()
	if !bytes.Equal(snap.Body(catalogue.MiningRocks).Raw(), changed) {
		t.Fatal("the changed mining body is not served")
	}
	if snap.Version() == old.Version() {
		t.Error("the version did not change with the data")
	}
	if snap.Part(catalogue.Items) != old.Part(catalogue.Items) {
		t.Error("an unchanged collection was decoded again")
	}
}

// TestRefreshKeepsLastGoodOnFaults gives one path of each address each
// fault in turn: the collection keeps its last good body and records, the
// others still update, and the state says what went wrong.
func TestRefreshKeepsLastGoodOnFaults(t *testing.T) {
	faults := []struct {
		fault   upstreamtest.Fault
		outcome string
		// lastError begins the state's LastError.
		lastError string
	}{
		{upstreamtest.Status500, "error", "upstream answered 500 Internal Server Error"},
		{upstreamtest.Status503, "error", "upstream answered 503 Service Unavailable"},
		{upstreamtest.Hang, "error", "upstream timed out"},
		{upstreamtest.Close, "error", "connection closed before an answer"},
		{upstreamtest.Malformed, "rejected", "body rejected: body is not valid JSON: invalid character"},
		{upstreamtest.Truncated, "rejected", "body rejected: body is not valid JSON: truncated"},
		{upstreamtest.WrongShape, "rejected", "body rejected: "},
		{upstreamtest.Empty, "rejected", "body rejected: body is empty"},
	}
	for _, c := range []catalogue.Collection{catalogue.Items, catalogue.WorldBosses} {
		for _, ft := range faults {
			t.Run(c.String()+"/"+string(ft.fault), func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, "")
				if ft.fault != upstreamtest.Hang {
					// Only a hang needs the fixture's short timeout: any
					// other fault must be seen as itself, however
					// loaded the machine.
					f.upstream.Timeout = 20 * time.Second
				}
				f.refresh(t)
				good := f.store.Current()

				// The faulty path also has new data behind the fault,
				// and another collection changes for real.
				body := upstreamtest.FixtureBodies(t)[c]
				f.server(c).SetBody(c, append(bytes.Clone(body), ' '))
				f.server(c).SetFault(c, ft.fault)
				other := catalogue.Quests
				ob := upstreamtest.FixtureBodies(t)[other]
				f.base.SetBody(other, append(bytes.Clone(ob), '\n'))

				before := f.observer.attempts(c)
				start := time.Now()
				f.refresh(t)
				t.Logf("the round took %s", time.Since(start)) // the machine's load, not asserted
				snap := f.store.Current()
				if snap.Part(c) != good.Part(c) {
					t.Fatalf("%s: the last good part was replaced", c)
				}
				if !bytes.Equal(snap.Body(c).Raw(), body) {
					t.Fatalf("%s: the served body changed", c)
				}
				if !bytes.Equal(snap.Body(other).Raw(), append(bytes.Clone(ob), '\n')) {
					t.Fatalf("%s: another collection did not update", other)
				}
				st := f.refresher.States()[c]
				if st.LastOutcome != ft.outcome || !strings.HasPrefix(st.LastError, ft.lastError) {
					t.Errorf("state %+v, want outcome %q with an error beginning %q", st, ft.outcome, ft.lastError)
				}
				// The state is shown to anyone: no address in it.
				if addr := f.server(c).Listener.Addr().String(); strings.Contains(st.LastError, "127.0.0.1") ||
					strings.Contains(st.LastError, port(t, "http://"+addr)) {
					t.Errorf("lastError %q names the upstream's address %s", st.LastError, addr)
				}
				if st.Source != "upstream" {
					t.Errorf("source %q, want upstream", st.Source)
				}
				// What bounds the round: each attempt has the upstream
				// timeout, and there are at most 1 + Retries of them.
				// (Counted as the refresher made them: the HTTP client may
				// retry a closed connection beneath one.)
				if n := f.observer.attempts(c) - before; n < 1 || n > 3 {
					t.Errorf("%d attempts for %s in the round, want 1 to 3 (one, and at most two retries)", n, c)
				}
				if ft.outcome == "rejected" && f.observer.rejected[c] == 0 {
					t.Error("the observer was not told of the rejected body")
				}
			})
		}
	}
}

func TestTransientFailuresAreRetriedWithinARound(t *testing.T) {
	f := newFixture(t, "")
	f.upstream.Timeout = 20 * time.Second // requests are counted; nothing hangs
	f.base.SetFault(catalogue.FarmingSeeds, upstreamtest.Status503)
	f.refresh(t)
	if got := f.base.Requests(catalogue.FarmingSeeds); got != 3 {
		t.Errorf("farming: %d requests for a 503, want 3 (1 + 2 retries)", got)
	}
	f.base.SetFault(catalogue.FarmingSeeds, upstreamtest.None)
	f.refresh(t)
	if f.store.Current().Body(catalogue.FarmingSeeds) == nil {
		t.Fatal("farming still missing after the upstream healed")
	}
	// A refused body is not retried: the upstream said what it had.
	f.base.SetFault(catalogue.CookingRecipes, upstreamtest.Malformed)
	n := f.base.Requests(catalogue.CookingRecipes)
	f.refresh(t)
	if got := f.base.Requests(catalogue.CookingRecipes) - n; got != 1 {
		t.Errorf("cooking: %d requests for a malformed body, want 1", got)
	}
}

func TestColdStartWithUpstreamDownThenUp(t *testing.T) {
	f := newFixture(t, "")
	f.base.SetFaultAll(upstreamtest.Status500)
	f.boss.SetFaultAll(upstreamtest.Close)
	f.refresh(t)
	if snap := f.store.Current(); snap != nil && len(snap.Missing()) != int(catalogue.NumCollections) {
		t.Fatalf("a failed cold start published data: missing %v", snap.Missing())
	}
	for c, st := range f.refresher.States() {
		if st.LastOutcome != "error" || st.LastError == "" {
			t.Errorf("%s: state %+v", catalogue.Collection(c), st)
		}
	}
	f.base.SetFaultAll(upstreamtest.None)
	f.boss.SetFaultAll(upstreamtest.None)
	f.refresh(t)
	if snap := f.store.Current(); snap == nil || len(snap.Missing()) != 0 {
		t.Fatal("not whole once the upstream is up")
	}
}

func TestRunRetriesSoonWhileCold(t *testing.T) {
	f := newFixture(t, "")
	f.base.SetFault(catalogue.Items, upstreamtest.Status500)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.refresher.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	// The interval is an hour; a cold collection is tried again after
	// about a second, so healing the upstream shows within seconds.
	deadline := time.Now().Add(10 * time.Second)
	for f.base.Requests(catalogue.Items) < 3 {
		if time.Now().After(deadline) {
			t.Fatal("items not retried while cold")
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.base.SetFault(catalogue.Items, upstreamtest.None)
	for {
		if snap := f.store.Current(); snap != nil && snap.Body(catalogue.Items) != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("items not loaded after the upstream healed")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDiskCacheServesARestartWhileTheUpstreamIsDown(t *testing.T) {
	dir := t.TempDir()
	first := newFixture(t, dir)
	first.refresh(t)
	want := first.store.Current()

	second := newFixture(t, dir)
	second.base.SetFaultAll(upstreamtest.Hang)
	second.boss.SetFaultAll(upstreamtest.Hang)
	second.refresher.LoadCache()
	got := second.store.Current()
	if got == nil || len(got.Missing()) != 0 {
		t.Fatal("the disk cache did not restore every collection")
	}
	if got.Version() != want.Version() {
		t.Error("the restored snapshot differs from the saved one")
	}
	for c, st := range second.refresher.States() {
		if st.Source != "cache" {
			t.Errorf("%s: source %q, want cache", catalogue.Collection(c), st.Source)
		}
	}

	// Once the upstream is back, the cache revalidates: 304s, no decoding.
	second.base.SetFaultAll(upstreamtest.None)
	second.boss.SetFaultAll(upstreamtest.None)
	second.refresh(t)
	if second.store.Current() != got {
		t.Error("revalidating the cached snapshot replaced it")
	}
	if n := second.base.NotModified(catalogue.Items); n != 1 {
		t.Errorf("items: %d 304s on revalidating the cache, want 1", n)
	}
}

func TestDamagedDiskCacheFilesAreIgnored(t *testing.T) {
	dir := t.TempDir()
	first := newFixture(t, dir)
	first.refresh(t)

	damage := map[string]func([]byte) []byte{
		"items.cache":    func(b []byte) []byte { b[len(b)-10] ^= 0xff; return b },                // a flipped byte
		"monsters.cache": func(b []byte) []byte { return b[:len(b)/2] },                           // cut short
		"quests.cache":   func([]byte) []byte { return []byte("not a cache file") },               // garbage
		"mining.cache":   func(b []byte) []byte { return bytes.Replace(b, []byte("\n"), nil, 1) }, // no header line
	}
	for name, fn := range damage {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, fn(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	second := newFixture(t, dir)
	second.refresher.LoadCache()
	snap := second.store.Current()
	for _, c := range []catalogue.Collection{catalogue.Items, catalogue.Monsters, catalogue.Quests, catalogue.MiningRocks} {
		if snap.Body(c) != nil {
			t.Errorf("%s: a damaged cache file was served", c)
		}
	}
	if snap.Body(catalogue.CookingRecipes) == nil {
		t.Error("an intact cache file was not served")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// TestAwaitFlight: requests for a cold collection wait for the request
// under way instead of asking the upstream themselves.
func TestAwaitFlight(t *testing.T) {
	f := newFixture(t, "")
	f.upstream.Timeout = 20 * time.Second // requests are counted (see above)
	f.base.SetFault(catalogue.Items, upstreamtest.Slow)
	done := make(chan struct{})
	go func() { f.refresh(t); close(done) }()

	// Wait until the flight for items is under way.
	deadline := time.Now().Add(5 * time.Second)
	for f.base.Requests(catalogue.Items) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no request for items")
		}
		time.Sleep(time.Millisecond)
	}
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			f.refresher.AwaitFlight(ctx, catalogue.Items)
			if f.store.Current() == nil || f.store.Current().Body(catalogue.Items) == nil {
				t.Error("a waiter woke before items were loaded")
			}
		})
	}
	wg.Wait()
	<-done
	if got := f.base.Requests(catalogue.Items); got != 1 {
		t.Errorf("items: %d upstream requests for 50 waiters, want 1", got)
	}
}

// TestAwaitFlightBeforeFirstRound: a request arriving after the server
// listens but before the refresher's first round has begun (Run starts in
// its own goroutine, and loads the disk cache first) waits for that round
// rather than finding no flight and answering 503 at once.
func TestAwaitFlightBeforeFirstRound(t *testing.T) {
	f := newFixture(t, "")
	woke := make(chan bool, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		f.refresher.AwaitFlight(ctx, catalogue.Items)
		woke <- f.store.Current() != nil && f.store.Current().Body(catalogue.Items) != nil
	}()
	select {
	case <-woke:
		t.Fatal("a waiter returned before any round began: no flight was open")
	case <-time.After(50 * time.Millisecond):
	}
	f.refresh(t)
	select {
	case loaded := <-woke:
		if !loaded {
			t.Error("the waiter woke without items loaded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not wake when the first round landed")
	}
}

// TestHungPathDelaysOnlyItself: a collection is published as soon as it is
// read, so a path that hangs does not hold back the others' new data.
func TestHungPathDelaysOnlyItself(t *testing.T) {
	f := newFixture(t, "")
	f.refresh(t)
	f.base.SetFault(catalogue.Items, upstreamtest.Hang)
	changed := append(bytes.Clone(upstreamtest.FixtureBodies(t)[catalogue.Monsters]), '\n')
	f.base.SetBody(catalogue.Monsters, changed)

	done := make(chan struct{})
	go func() { f.refresh(t); close(done) }()
	deadline := time.Now().Add(5 * time.Second)
	for !bytes.Equal(f.store.Current().Body(catalogue.Monsters).Raw(), changed) {
		select {
		case <-done:
			t.Fatal("the round ended before the new monsters were published")
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the new monsters were not published while items hung")
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case <-done:
		t.Fatal("items was not still hanging: the test proves nothing")
	default:
	}
	<-done
}

// TestRefreshFollowsRedirectsOnlyWithinTheUpstream: a redirect to the same
// scheme and host is followed; one anywhere else, or one too many, is
// refused before any request is sent there, and the collection keeps its
// last good body although new data waits behind the redirect.
func TestRefreshFollowsRedirectsOnlyWithinTheUpstream(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    catalogue.Collection
		// location is where the path of c redirects; other is a further
		// stand-in, on another port of 127.0.0.1, serving new data.
		location func(f *fixture, other *upstreamtest.Server) string
		// reason is in a refusal's error; "" when the redirect is
		// followed.
		reason string
		// requests is how many requests the path of c gets in the round.
		requests int
	}{
		{
			name:     "same host",
			c:        catalogue.Items,
			location: func(*fixture, *upstreamtest.Server) string { return catalogue.Items.Path() + "?moved" },
			requests: 2,
		},
		{
			name:     "same host, absolute",
			c:        catalogue.WorldBosses,
			location: func(f *fixture, _ *upstreamtest.Server) string { return f.boss.URL + "/worldboss?moved" },
			requests: 2,
		},
		{
			name:     "another host",
			c:        catalogue.Items,
			location: func(_ *fixture, other *upstreamtest.Server) string { return other.URL + "/items" },
			reason:   "to another host",
			requests: 1,
		},
		{
			name: "the same address by another name",
			c:    catalogue.Items,
			location: func(f *fixture, _ *upstreamtest.Server) string {
				return "http://localhost:" + port(t, f.base.URL) + "/items?moved"
			},
			reason:   "to another host",
			requests: 1,
		},
		{
			name:     "the other upstream address",
			c:        catalogue.WorldBosses,
			location: func(f *fixture, _ *upstreamtest.Server) string { return f.base.URL + "/worldboss" },
			reason:   "to another host",
			requests: 1,
		},
		{
			name: "another scheme",
			c:    catalogue.Items,
			location: func(f *fixture, _ *upstreamtest.Server) string {
				return "https://127.0.0.1:" + port(t, f.base.URL) + "/items?moved"
			},
			reason:   "to another scheme",
			requests: 1,
		},
		{
			name:     "a loop",
			c:        catalogue.Items,
			location: func(*fixture, *upstreamtest.Server) string { return "/items" },
			reason:   "more than 5 redirects",
			requests: 1 + catalogue.MaxRedirects,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "")
			// The requests are counted: none may time out and be tried
			// again, however loaded the machine. Nothing here hangs.
			f.upstream.Timeout = 20 * time.Second
			f.refresh(t)
			good := f.store.Current()

			changed := append(bytes.Clone(upstreamtest.FixtureBodies(t)[tt.c]), ' ')
			other := upstreamtest.New(t, map[catalogue.Collection][]byte{tt.c: changed})
			f.server(tt.c).SetBody(tt.c, changed)
			f.server(tt.c).SetRedirect(tt.c, tt.location(f, other))
			before := f.server(tt.c).Requests(tt.c)
			f.refresh(t)

			if got := f.server(tt.c).Requests(tt.c) - before; got != tt.requests {
				t.Errorf("%d requests of %s in the round, want %d", got, tt.c.Path(), tt.requests)
			}
			if n := other.TotalRequests(); n != 0 {
				t.Errorf("the other host had %d requests, want none", n)
			}
			st := f.refresher.States()[tt.c]
			got := f.store.Current().Body(tt.c).Raw()
			if tt.reason == "" {
				if st.LastOutcome != "200" || !bytes.Equal(got, changed) {
					t.Errorf("state %+v, %d bytes served; want the new %d bytes, outcome 200", st, len(got), len(changed))
				}
				return
			}
			if f.store.Current().Part(tt.c) != good.Part(tt.c) {
				t.Error("the last good part was replaced")
			}
			if st.LastOutcome != "error" || !strings.Contains(st.LastError, tt.reason) {
				t.Errorf("state %+v, want outcome error and a lastError saying %q", st, tt.reason)
			}
			// Refused is final: trying again would be refused again.
			if n := f.observer.count(tt.c, "redirect"); n != 1 {
				t.Errorf("observer saw %d refused redirects, want 1", n)
			}
		})
	}
}

// port returns the port of rawURL.
func port(t *testing.T, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil || u.Port() == "" {
		t.Fatalf("no port in %q (%v)", rawURL, err)
	}
	return u.Port()
}

// TestColdStartLogsOneLinePerRound: with the upstream down and nothing
// read yet, a round logs one line naming what is missing, not a warning
// per collection about keeping a last good body there is not; once a body
// is served, a failed read of it warns as before.
func TestColdStartLogsOneLinePerRound(t *testing.T) {
	f := newFixture(t, "")
	f.upstream.Timeout = 20 * time.Second
	var logs bytes.Buffer
	f.refresher = catalogue.NewRefresher(f.store, catalogue.RefresherConfig{
		Upstream: f.upstream, Interval: time.Hour, RetryBase: time.Millisecond, Retries: 1,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	f.base.SetFaultAll(upstreamtest.Status503)
	f.boss.SetFaultAll(upstreamtest.Status503)

	f.refresh(t)
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "no body read from the upstream yet") ||
		!strings.Contains(lines[0], `"missing":13`) || !strings.Contains(lines[0], "503") {
		t.Errorf("a cold round with the upstream down logged:\n%s\nwant one line naming the 13 missing collections and the error", logs.String())
	}

	// Everything but /items comes back: the round says items is missing;
	// then /items fails once it has been served, a warning of its own.
	logs.Reset()
	f.base.SetFaultAll(upstreamtest.None)
	f.boss.SetFaultAll(upstreamtest.None)
	f.base.SetFault(catalogue.Items, upstreamtest.Status503)
	f.refresh(t)
	if got := logs.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, `"collections":"items"`) {
		t.Errorf("with only /items failing, logged:\n%s", got)
	}
	logs.Reset()
	f.base.SetFault(catalogue.Items, upstreamtest.None)
	f.refresh(t)
	f.base.SetFault(catalogue.Items, upstreamtest.Status503)
	f.refresh(t)
	if got := logs.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "keeping the last good body") {
		t.Errorf("a served collection failing logged:\n%s", got)
	}
}

// TestStoppedRoundIsNotAFailure: a round cut short by its context (the
// gateway shutting down while reads are in flight) logs one line, not a
// warning per collection, and records no error for the reads it stopped.
func TestStoppedRoundIsNotAFailure(t *testing.T) {
	f := newFixture(t, "")
	f.upstream.Timeout = 20 * time.Second
	var logs bytes.Buffer
	f.refresher = catalogue.NewRefresher(f.store, catalogue.RefresherConfig{
		Upstream: f.upstream, Interval: time.Hour, RetryBase: time.Millisecond,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Observer: f.observer,
	})
	f.refresh(t) // every collection served: a failure would warn
	logs.Reset()
	f.base.SetFaultAll(upstreamtest.Hang)
	f.boss.SetFaultAll(upstreamtest.Hang)
	before := f.base.TotalRequests() + f.boss.TotalRequests()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.refresher.Refresh(ctx); close(done) }()
	// Cancel once every read is in flight, held by the hung upstream.
	deadline := time.Now().Add(5 * time.Second)
	for f.base.TotalRequests()+f.boss.TotalRequests()-before < int(catalogue.NumCollections) {
		if time.Now().After(deadline) {
			t.Fatal("the reads never reached the upstream")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Refresh did not return after its context ended")
	}
	got := logs.String()
	if strings.Count(got, "\n") != 1 || strings.Contains(got, "WARN") || !strings.Contains(got, "stopped before the round ended") {
		t.Errorf("a round stopped by its context logged:\n%s\nwant one info line", got)
	}
	for c, s := range f.refresher.States() {
		if s.LastOutcome == "error" {
			t.Errorf("%s: a stopped read recorded as an error: %q", catalogue.Collection(c), s.LastError)
		}
	}
	f.observer.mu.Lock()
	defer f.observer.mu.Unlock()
	for key, n := range f.observer.outcomes {
		if !strings.HasSuffix(key, " 200") && !strings.HasSuffix(key, " 304") {
			t.Errorf("a stopped read counted as an upstream outcome: %q × %d", key, n)
		}
	}
}
