package catalogue

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Upstream reads collections from the upstream catalogue service: every
// path from BaseURL except /worldboss, which comes from WorldBossURL.
type Upstream struct {
	BaseURL      string
	WorldBossURL string
	// Client makes the requests; NewUpstreamClient makes a suitable one,
	// with timeouts and redirects kept to the upstream's own scheme and
	// host.
	Client *http.Client
	// UserAgent names the gateway and its version to the upstream.
	UserAgent string
	// MaxBodyBytes bounds a body; a longer one is an error. Default
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Timeout bounds one request, body included: a hung upstream costs
	// this, never more. Default DefaultTimeout.
	Timeout time.Duration
}

// Upstream client defaults.
const (
	DefaultMaxBodyBytes = 64 << 20
	DefaultTimeout      = 30 * time.Second
	dialTimeout         = 5 * time.Second
	headerTimeout       = 10 * time.Second
)

// MaxRedirects is how many redirects one upstream request follows, all of
// them within the scheme and host it was sent to. A service that moves a
// path needs one or two; more is a loop.
const MaxRedirects = 5

// NewUpstreamClient returns an HTTP client for the upstream with timeouts
// on connecting, on the response headers and (through the caller's
// context, see Fetch) on the whole exchange. It follows at most
// MaxRedirects redirects, and only to the scheme and host (with its port)
// the request was sent to: a redirect elsewhere is a [*RedirectError].
func NewUpstreamClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext
	tr.TLSHandshakeTimeout = dialTimeout
	tr.ResponseHeaderTimeout = headerTimeout
	tr.MaxIdleConnsPerHost = int(NumCollections)
	return &http.Client{Transport: tr, CheckRedirect: checkRedirect}
}

// RedirectError is a redirect the upstream client refused to follow.
type RedirectError struct {
	// From is the URL the request was first sent to, To where the
	// refused redirect pointed.
	From, To *url.URL
	// Reason says why, with no address in it: "to another scheme", "to
	// another host", "more than 5 redirects".
	Reason string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("refused a redirect from %s to %s: %s", e.From.Redacted(), e.To.Redacted(), e.Reason)
}

// checkRedirect is the upstream client's CheckRedirect. The gateway is
// told where the upstream is; a redirect to anywhere else, followed,
// would let whoever controls an upstream answer (or a path on its host)
// point the gateway at any address it can reach, the cluster's own
// services among them, and have its body served as the catalogue. Plain
// http from https would give away what TLS protects.
func checkRedirect(req *http.Request, via []*http.Request) error {
	from := via[0].URL
	switch {
	case len(via) > MaxRedirects:
		return &RedirectError{From: from, To: req.URL, Reason: fmt.Sprintf("more than %d redirects", MaxRedirects)}
	case !strings.EqualFold(req.URL.Scheme, from.Scheme):
		return &RedirectError{From: from, To: req.URL, Reason: "to another scheme"}
	case hostPort(req.URL) != hostPort(from):
		return &RedirectError{From: from, To: req.URL, Reason: "to another host"}
	}
	return nil
}

// hostPort is u's host and port, the port filled in from the scheme when
// the URL leaves it out, and the host in lower case: the address a request
// to u connects to, as written.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// Validators are what an upstream response said about its body's version,
// sent back on the next request so an unchanged body costs a 304.
type Validators struct {
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"lastModified,omitempty"`
}

// Fetched is one upstream response: a new body, or NotModified.
type Fetched struct {
	NotModified bool
	Body        []byte
	Validators  Validators
}

// FetchError is a failed upstream request. Kind says how it failed, in a
// word fit for a metric label: "status", "timeout", "connection",
// "too_large", "read", "redirect" (a redirect refused, see
// [RedirectError]).
type FetchError struct {
	Collection Collection
	Kind       string
	Status     int // the HTTP status, for Kind "status"
	// RetryAfter is how long the upstream asked to be left alone, by the
	// Retry-After header of a 429 or a 503 (in seconds or as an HTTP
	// date); zero when it asked nothing.
	RetryAfter time.Duration
	Err        error
}

func (e *FetchError) Error() string {
	if e.Kind == "status" {
		return fmt.Sprintf("fetching %s: upstream answered %d %s", e.Collection, e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("fetching %s: %s: %v", e.Collection, e.Kind, e.Err)
}

func (e *FetchError) Unwrap() error { return e.Err }

// Transient reports whether trying again soon may succeed: timeouts,
// broken connections, 5xx and 429 answers.
func (e *FetchError) Transient() bool {
	switch e.Kind {
	case "timeout", "connection", "read":
		return true
	case "status":
		return e.Status >= 500 || e.Status == http.StatusTooManyRequests
	}
	return false
}

// URL returns where the upstream serves collection c.
func (u *Upstream) URL(c Collection) (string, error) {
	base := u.BaseURL
	if c.FromWorldBossAddress() && u.WorldBossURL != "" {
		base = u.WorldBossURL
	}
	return url.JoinPath(base, c.Path())
}

// Fetch reads collection c once, conditionally on v. It does not retry.
func (u *Upstream) Fetch(ctx context.Context, c Collection, v Validators) (Fetched, error) {
	timeout := u.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	target, err := u.URL(c)
	if err != nil {
		return Fetched{}, &FetchError{Collection: c, Kind: "connection", Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return Fetched{}, &FetchError{Collection: c, Kind: "connection", Err: err}
	}
	req.Header.Set("Accept", "application/json")
	if u.UserAgent != "" {
		req.Header.Set("User-Agent", u.UserAgent)
	}
	if v.ETag != "" {
		req.Header.Set("If-None-Match", v.ETag)
	}
	if v.LastModified != "" {
		req.Header.Set("If-Modified-Since", v.LastModified)
	}
	resp, err := u.Client.Do(req)
	if err != nil {
		kind := errorKind(ctx, err)
		if _, ok := errors.AsType[*RedirectError](err); ok {
			kind = "redirect"
		}
		return Fetched{}, &FetchError{Collection: c, Kind: kind, Err: err}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		next := Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}
		if next == (Validators{}) {
			next = v
		}
		return Fetched{NotModified: true, Validators: next}, nil
	case resp.StatusCode != http.StatusOK:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		fe := &FetchError{Collection: c, Kind: "status", Status: resp.StatusCode}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			fe.RetryAfter = retryAfter(resp.Header, time.Now())
		}
		return Fetched{}, fe
	}
	limit := u.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 && resp.ContentLength <= limit {
		buf.Grow(int(resp.ContentLength))
	}
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		kind := errorKind(ctx, err)
		if kind == "connection" {
			kind = "read"
		}
		return Fetched{}, &FetchError{Collection: c, Kind: kind, Err: err}
	}
	if n > limit {
		return Fetched{}, &FetchError{Collection: c, Kind: "too_large", Err: fmt.Errorf("body longer than %d bytes", limit)}
	}
	return Fetched{
		Body:       buf.Bytes(),
		Validators: Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")},
	}, nil
}

// retryAfter is the wait a Retry-After header asks for: a number of
// seconds, or an HTTP date, counted from the response's own Date when it
// has one (so that a clock apart from ours does not change the wait) and
// from now otherwise. A header absent, malformed, or naming a moment
// already past asks for nothing: zero.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(secs) * time.Second
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	if date, err := http.ParseTime(h.Get("Date")); err == nil {
		now = date
	}
	return max(at.Sub(now), 0)
}

// errorKind classifies a transport error.
func errorKind(ctx context.Context, err error) string {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil || errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	if strings.Contains(err.Error(), "timeout") {
		return "timeout"
	}
	return "connection"
}
