package gateway_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
)

// purgeEndpoint stands for a cache in front of the gateway: it records
// the PURGE requests it is sent, and answers the first fail of them 500.
type purgeEndpoint struct {
	*httptest.Server
	mu       sync.Mutex
	fail     int
	requests []http.Header // every PURGE's header, failed ones too
	answered []int
}

func newPurgeEndpoint(t *testing.T, fail int) *purgeEndpoint {
	t.Helper()
	p := &purgeEndpoint{fail: fail}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "PURGE" {
			http.Error(w, "PURGE only", http.StatusMethodNotAllowed)
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		p.requests = append(p.requests, r.Header.Clone())
		if len(p.requests) <= p.fail {
			p.answered = append(p.answered, http.StatusInternalServerError)
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		p.answered = append(p.answered, http.StatusOK)
	}))
	t.Cleanup(p.Close)
	return p
}

// purged returns the keys of the PURGEs answered 200, in order, and the
// headers of every PURGE.
func (p *purgeEndpoint) purged() (keys []string, headers []http.Header) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, h := range p.requests {
		if p.answered[i] == http.StatusOK {
			keys = append(keys, strings.Fields(h.Get("Surrogate-Key"))...)
		}
	}
	return keys, slices.Clone(p.requests)
}

// waitPurged waits for the PURGEs answered 200 to name n keys.
func (p *purgeEndpoint) waitPurged(t *testing.T, n int) ([]string, []http.Header) {
	t.Helper()
	gatewaytest.WaitFor(t, readyWithin, fmt.Sprintf("%d keys purged", n), func() (bool, string) {
		keys, _ := p.purged()
		return len(keys) >= n, fmt.Sprintf("%d keys: %.200q", len(keys), keys)
	})
	return p.purged()
}

// repriced returns the items body with Bronze Bar's (item 2's) value
// changed.
func repriced(t *testing.T, body []byte) []byte {
	t.Helper()
	out := bytes.Replace(body, []byte(`"value":12.75`), []byte(`"value":13.5`), 1)
	if bytes.Equal(out, body) {
		t.Fatal("the items fixture has no Bronze Bar at 12.75")
	}
	return out
}

// TestPurgeOnRefresh: a refresh that changes one item's price purges
// exactly that item's key and its collection's, with the configured
// header; start-up purged nothing; a purge answered 500 is tried again.
func TestPurgeOnRefresh(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		fail int // PURGEs answered 500 first
	}{
		{"sent at once", 0},
		{"500 then 200: tried again", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cache := newPurgeEndpoint(t, tt.fail)
			up := newUpstreams(t)
			cfg := up.config(time.Second, "")
			cfg.PurgeURLs = []string{cache.URL + "/purge"}
			cfg.PurgeHeaders = http.Header{"X-Purge-Token": {"s3cret"}}
			g := startGateway(t, cfg, nil)
			g.waitReady(t, readyWithin)

			up.Of(catalogue.Items).SetBody(catalogue.Items, repriced(t, up.bodies[catalogue.Items]))
			keys, headers := cache.waitPurged(t, 2)
			if want := []string{"Item:2", "items"}; !slices.Equal(keys, want) {
				t.Errorf("purged keys %q, want %q (start-up purges nothing)", keys, want)
			}
			if len(headers) != tt.fail+1 {
				t.Errorf("%d PURGEs, want %d", len(headers), tt.fail+1)
			}
			for i, h := range headers {
				if got := h.Get("X-Purge-Token"); got != "s3cret" {
					t.Errorf("PURGE %d: X-Purge-Token %q, want s3cret", i, got)
				}
				if got := h.Get("Surrogate-Key"); got != "Item:2 items" {
					t.Errorf("PURGE %d: Surrogate-Key %q, want the same keys each try", i, got)
				}
			}
			gatewaytest.WaitFor(t, readyWithin, "the purge counted", func() (bool, string) {
				m := g.metrics(t)
				return m[`gateway_purge_requests_total{outcome="sent"}`] == 1 && m[`gateway_purge_keys_total{outcome="sent"}`] == 2,
					fmt.Sprint(m[`gateway_purge_requests_total{outcome="sent"}`], m[`gateway_purge_keys_total{outcome="sent"}`])
			})
			if m := g.metrics(t); m[`gateway_purge_requests_total{outcome="failed"}`] != 0 {
				t.Errorf("failed purges %v, want 0", m[`gateway_purge_requests_total{outcome="failed"}`])
			}
		})
	}
}

// TestPurgeEndpointDown: purges to an endpoint that refuses connections
// are counted as failed, and refreshes and answers go on as without it.
func TestPurgeEndpointDown(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String() + "/"
	ln.Close() // nothing listens there now
	up := newUpstreams(t)
	cfg := up.config(time.Second, "")
	cfg.PurgeURLs = []string{down}
	g := startGateway(t, cfg, nil)
	g.waitReady(t, readyWithin)

	changed := repriced(t, up.bodies[catalogue.Items])
	up.Of(catalogue.Items).SetBody(catalogue.Items, changed)
	gatewaytest.WaitFor(t, readyWithin, "the new items served", func() (bool, string) {
		body := g.restBody(t, catalogue.Items)
		return bytes.Equal(body, changed), fmt.Sprintf("%.100s", body)
	})
	// Tried again and again, then given up: within the purge's bound.
	gatewaytest.WaitFor(t, 90*time.Second, "the purge counted as failed", func() (bool, string) {
		m := g.metrics(t)
		return m[`gateway_purge_requests_total{outcome="failed"}`] == 1 && m[`gateway_purge_keys_total{outcome="failed"}`] == 2,
			fmt.Sprint(m[`gateway_purge_requests_total{outcome="failed"}`], m[`gateway_purge_keys_total{outcome="failed"}`])
	})
	// Another change is read and served while purges fail.
	again := bytes.Replace(changed, []byte(`"value":13.5`), []byte(`"value":14`), 1)
	up.Of(catalogue.Items).SetBody(catalogue.Items, again)
	gatewaytest.WaitFor(t, readyWithin, "the next items served", func() (bool, string) {
		body := g.restBody(t, catalogue.Items)
		return bytes.Equal(body, again), fmt.Sprintf("%.100s", body)
	})
	if a := g.graphQL(t, `{ item(id: 2) { name } }`); a.Status != http.StatusOK || !strings.Contains(string(a.Raw), "Bronze Bar") {
		t.Errorf("GraphQL answer %d %s while purges fail", a.Status, a.Raw)
	}
}

// TestPurgeSplitsKeys: when many records change, their keys go in as many
// PURGEs as keep each Surrogate-Key header line within 8 KB, and together
// name every record and the collection once.
func TestPurgeSplitsKeys(t *testing.T) {
	t.Parallel()
	const n = 2000 // "Item:1000 " is 10 bytes: about 20 KB of keys
	bodies := upstreamtest.FixtureBodies(t)
	bodies[catalogue.Items] = manyItems(t, bodies[catalogue.Items], n, "1")
	cache := newPurgeEndpoint(t, 0)
	up := newUpstreamsOf(t, bodies)
	cfg := up.config(time.Second, "")
	cfg.PurgeURLs = []string{cache.URL}
	g := startGateway(t, cfg, nil)
	g.waitReady(t, readyWithin)

	up.Of(catalogue.Items).SetBody(catalogue.Items, manyItems(t, up.bodies[catalogue.Items], n, "2"))
	keys, headers := cache.waitPurged(t, n+1)
	if len(headers) < 3 {
		t.Errorf("%d PURGEs for %d keys, want at least 3", len(headers), len(keys))
	}
	for i, h := range headers {
		if line := len("Surrogate-Key: ") + len(h.Get("Surrogate-Key")); line > 8<<10 {
			t.Errorf("PURGE %d: a Surrogate-Key line of %d bytes, over 8 KB", i, line)
		}
	}
	want := []string{"items"}
	for id := 1; id <= n; id++ {
		want = append(want, fmt.Sprintf("Item:%d", id))
	}
	slices.Sort(want)
	slices.Sort(keys)
	if !slices.Equal(keys, want) {
		t.Errorf("purged %d keys, want %d: Item:1 to Item:%d and items, each once", len(keys), len(want), n)
	}
}

// manyItems is an items body of n copies of the fixture's Bronze Bar,
// with ids 1 to n and the given value.
func manyItems(t *testing.T, fixture []byte, n int, value string) []byte {
	t.Helper()
	var envelopes []struct {
		Results []map[string]json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(fixture, &envelopes); err != nil {
		t.Fatal(err)
	}
	var bar map[string]json.RawMessage
	for _, e := range envelopes {
		for _, r := range e.Results {
			if string(r["id"]) == "2" {
				bar = r
			}
		}
	}
	if bar == nil {
		t.Fatal("no item 2 in the fixture")
	}
	records := make([]map[string]json.RawMessage, n)
	for i := range records {
		r := maps.Clone(bar)
		r["id"] = json.RawMessage(fmt.Sprint(i + 1))
		r["value"] = json.RawMessage(value)
		records[i] = r
	}
	out, err := json.Marshal([]any{map[string]any{"total": n, "results": records}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
