package catalogue_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
)

// TestFetchReadsRetryAfter checks the wait a 429 or 503 asks for, in
// seconds or as an HTTP date counted from the answer's Date, and that
// nothing else asks for one.
func TestFetchReadsRetryAfter(t *testing.T) {
	date := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name       string
		status     int
		retryAfter string
		want       time.Duration
	}{
		{"429 seconds", http.StatusTooManyRequests, "120", 120 * time.Second},
		{"503 seconds", http.StatusServiceUnavailable, " 5 ", 5 * time.Second},
		{"503 date", http.StatusServiceUnavailable, date.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"date past", http.StatusServiceUnavailable, date.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"zero", http.StatusTooManyRequests, "0", 0},
		{"negative", http.StatusTooManyRequests, "-1", 0},
		{"not a number", http.StatusTooManyRequests, "soon", 0},
		{"none", http.StatusServiceUnavailable, "", 0},
		{"500 ignores it", http.StatusInternalServerError, "120", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Date", date.Format(http.TimeFormat))
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				w.WriteHeader(tt.status)
			}))
			defer srv.Close()
			u := &catalogue.Upstream{BaseURL: srv.URL, Client: catalogue.NewUpstreamClient(), Timeout: 10 * time.Second}
			_, err := u.Fetch(context.Background(), catalogue.Items, catalogue.Validators{})
			fe, ok := errors.AsType[*catalogue.FetchError](err)
			if !ok || fe.Status != tt.status {
				t.Fatalf("Fetch: %v, want a FetchError of status %d", err, tt.status)
			}
			if fe.RetryAfter != tt.want {
				t.Errorf("RetryAfter %s, want %s", fe.RetryAfter, tt.want)
			}
		})
	}
}

// retryAfterFixture is newFixture's refresher, made again with interval,
// retries and the upstream timeout (which bounds how long a round waits on
// a Retry-After) as a test needs them.
func retryAfterFixture(t *testing.T, interval time.Duration, retries int, timeout time.Duration) *fixture {
	t.Helper()
	f := newFixture(t, "")
	f.upstream.Timeout = timeout
	f.refresher = catalogue.NewRefresher(f.store, catalogue.RefresherConfig{
		Upstream:  f.upstream,
		Interval:  interval,
		Retries:   retries,
		RetryBase: 10 * time.Millisecond,
		Observer:  f.observer,
	})
	return f
}

// gaps returns the time between each request of c and the one before.
func gaps(f *fixture, c catalogue.Collection) []time.Duration {
	times := f.server(c).RequestTimes(c)
	var out []time.Duration
	for i := 1; i < len(times); i++ {
		out = append(out, times[i].Sub(times[i-1]))
	}
	return out
}

// TestRetryAfterWithinARound checks that a 429 or 503 with Retry-After is
// tried again after the wait it asks for, not after the refresher's own
// backoff (10 ms here), and never after more than the refresh interval
// allows. The stand-in notes when each request arrived; the waits are a
// second or two, and only their lower bounds are asserted.
func TestRetryAfterWithinARound(t *testing.T) {
	const c = catalogue.FarmingSeeds
	for _, tt := range []struct {
		name       string
		fault      upstreamtest.Fault
		retryAfter func() string
		interval   time.Duration
		// atLeast is the least gap wanted between two requests.
		atLeast time.Duration
	}{
		{name: "429 in seconds", fault: upstreamtest.Status429, retryAfter: func() string { return "1" },
			interval: time.Hour, atLeast: time.Second},
		// The date has whole seconds, as does the stand-in's Date, and is
		// written before the first request, which a loaded machine may
		// send a few seconds later: four seconds ahead leaves at least one
		// second's wait when the request comes within two, and stays
		// within the 5 s a round waits.
		{name: "503 as a date", fault: upstreamtest.Status503,
			retryAfter: func() string { return time.Now().Add(4 * time.Second).UTC().Format(http.TimeFormat) },
			interval:   time.Hour, atLeast: time.Second},
		// An hour asked for, a 1.2 s interval: the wait is 9/10 of the
		// interval, within what a round holds, so the retry comes in the
		// round (an hour's wait would end the round with one request).
		{name: "bounded by the interval", fault: upstreamtest.Status429, retryAfter: func() string { return "3600" },
			interval: 1200 * time.Millisecond, atLeast: time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := retryAfterFixture(t, tt.interval, 1, 5*time.Second)
			f.base.SetFault(c, tt.fault)
			f.base.SetRetryAfter(c, tt.retryAfter())
			f.refresh(t)
			g := gaps(f, c)
			if len(g) != 1 {
				t.Fatalf("%d requests, want 2 (1 + 1 retry)", len(g)+1)
			}
			if g[0] < tt.atLeast {
				t.Errorf("asked again after %s, want at least %s", g[0], tt.atLeast)
			}
			// Without Retry-After, the refresher's own backoff, and the
			// same number of tries.
			other := catalogue.CookingRecipes
			f.base.SetFault(other, upstreamtest.Status503)
			f.refresh(t)
			if n := f.base.Requests(other); n != 3 {
				t.Errorf("%s, a 503 without Retry-After: %d requests in two rounds, want 3 (1, then 1 + 1 retry)", other, n)
			}
		})
	}
}

// TestRetryAfterAcrossRounds checks a wait longer than a round holds a
// collection (the upstream timeout, 1 s here): the round ends, rounds
// within the wait ask nothing, and once it is over the collection is
// asked again. Rounds are run back to back until it loads, and every gap
// between two requests must be at least the 3 s asked for: a lower bound,
// which load only lengthens.
func TestRetryAfterAcrossRounds(t *testing.T) {
	const c = catalogue.MiningRocks
	const asked = 3 * time.Second
	f := retryAfterFixture(t, time.Hour, 2, time.Second)
	f.base.SetFault(c, upstreamtest.Status429)
	f.base.SetRetryAfter(c, "3")
	f.refresh(t)
	if n := f.base.Requests(c); n != 1 {
		t.Fatalf("first round: %d requests, want 1 (the 3 s asked for is more than a round holds)", n)
	}
	before := f.refresher.States()[c]

	// A round while more than the hold is left asks nothing and leaves
	// the state as it was. (On a machine so loaded that the first round
	// outlasted the margin, the round may wait instead: not asserted.)
	if since := time.Since(f.base.RequestTimes(c)[0]); since < asked-time.Second-500*time.Millisecond {
		f.refresh(t)
		if n := f.base.Requests(c); n != 1 {
			t.Errorf("a round %s into the %s wait: %d requests, want still 1", since.Round(time.Millisecond), asked, n)
		}
		if st := f.refresher.States()[c]; st != before {
			t.Errorf("a round that asked nothing changed the state: %+v, was %+v", st, before)
		}
	} else {
		t.Logf("the first round took until %s into the wait; the round within it is not checked", since)
	}

	f.base.SetFault(c, upstreamtest.None)
	deadline := time.Now().Add(20 * time.Second)
	for f.store.Current() == nil || f.store.Current().Body(c) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("not loaded within 20 s of the upstream healing; requests at gaps %v", gaps(f, c))
		}
		f.refresh(t)
	}
	for i, g := range gaps(f, c) {
		if g < asked {
			t.Errorf("request %d came %s after the one before, want at least the %s asked for", i+2, g, asked)
		}
	}
}
