package answers_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/contentcoding"
	"github.com/catalogue-gateway/gateway/graphqlhttp/answers"
)

// TestCacheVersions: an answer is given back under its version only, and
// the first request for a new version empties the cache.
func TestCacheVersions(t *testing.T) {
	c := answers.NewCache(1 << 20)
	k := answers.Key{1}
	c.Put("v1", answers.New(c, k, []byte(`{"data":{}}`), "", ""))
	if a := c.Get("v1", k); a == nil || string(a.Body()) != `{"data":{}}` {
		t.Fatalf("Get under the version it was put: %v", a)
	}
	if a := c.Get("v2", k); a != nil {
		t.Error("an answer of v1 was given under v2")
	}
	if a := c.Get("v1", k); a != nil {
		t.Error("v1's answers outlived a request for v2")
	}
	if st := c.Stats(); st.Entries != 0 || st.Bytes != 0 || st.Evictions != 1 {
		t.Errorf("after the version changed: %+v, want empty with 1 eviction", st)
	}
}

// TestCacheBounded: answers are charged their bodies and variants and the
// oldest go past the bound; one over an eighth of it is never kept.
func TestCacheBounded(t *testing.T) {
	const share = 64 << 10
	c := answers.NewCache(share)
	body := bytes.Repeat([]byte(`{"name":"Feather"},`), 100) // about 1.9 KB
	for i := range 100 {
		a := answers.New(c, answers.Key{byte(i)}, body, "", "")
		a.CompressFast(contentcoding.NewCompressor(), contentcoding.Gzip)
		c.Put("v", a)
		if st := c.Stats(); st.Bytes > share {
			t.Fatalf("after %d answers: %d bytes, over the share of %d", i+1, st.Bytes, share)
		}
	}
	if c.Get("v", answers.Key{0}) != nil || c.Get("v", answers.Key{99}) == nil {
		t.Error("want the oldest answer gone and the newest kept")
	}
	c.Put("v", answers.New(c, answers.Key{200}, make([]byte, share/8+1), "", ""))
	if c.Get("v", answers.Key{200}) != nil {
		t.Error("an answer over an eighth of the cache was kept")
	}
	if answers.NewCache(0) != nil {
		t.Error("a cache of no bytes is not nil")
	}
}

// TestCacheOnce: callers asking for one key at the same time run it once
// and share what it made; exactly one of them is the leader.
func TestCacheOnce(t *testing.T) {
	c := answers.NewCache(1 << 20)
	var (
		mu      sync.Mutex
		runs    int
		leaders int
		wg      sync.WaitGroup
		start   = make(chan struct{})
		release = make(chan struct{})
	)
	for range 8 {
		wg.Go(func() {
			<-start
			v, leader := c.Once("v", answers.Key{7}, func() any {
				mu.Lock()
				runs++
				mu.Unlock()
				<-release
				return "made"
			})
			mu.Lock()
			defer mu.Unlock()
			if leader {
				leaders++
			}
			if v != "made" {
				t.Errorf("got %v, want what the run made", v)
			}
		})
	}
	close(start)
	// The first run holds on until the others have had time to ask: they
	// wait for it rather than run again.
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if leaders != runs || runs < 1 || runs == 8 {
		t.Errorf("8 callers at once: %d runs and %d leaders, want fewer runs than callers and one leader per run", runs, leaders)
	}
}

// TestKeysCharged: an answer's entity keys are kept with it, as given and
// comma-separated, and charged to the cache with it.
func TestKeysCharged(t *testing.T) {
	keys := strings.TrimSpace(strings.Repeat("Item:12345 ", 100))
	body := []byte(`{"data":{}}`)
	plain, keyed := answers.NewCache(1<<20), answers.NewCache(1<<20)
	plain.Put("v", answers.New(plain, answers.Key{1}, body, "", ""))
	keyed.Put("v", answers.New(keyed, answers.Key{1}, body, "", keys))
	if extra := keyed.Stats().Bytes - plain.Stats().Bytes; extra < int64(2*len(keys)) {
		t.Errorf("keys of %d bytes, kept twice, charged %d more bytes", len(keys), extra)
	}
	a := keyed.Get("v", answers.Key{1})
	if k, tags := a.Keys(); len(k) != 1 || k[0] != keys || len(tags) != 1 || tags[0] != strings.ReplaceAll(keys, " ", ",") {
		t.Errorf("Keys() = %.40q, %.40q", k, tags)
	}
}
