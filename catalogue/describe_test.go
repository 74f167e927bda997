package catalogue_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// TestDescribe checks the words /readyz shows for each way a read fails,
// from errors as the standard library wraps them: none may keep the URL,
// host name or address that the error's own text carries.
func TestDescribe(t *testing.T) {
	const target = "https://upstream.internal.example:8443/api/items"
	wrapped := func(err error) error { return &url.Error{Op: "Get", URL: target, Err: err} }
	opErr := func(errno syscall.Errno) error {
		return &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 8443}, Err: &net.AddrError{Err: errno.Error(), Addr: "10.0.0.7"}}
	}
	fetch := func(kind string, err error) error {
		return &catalogue.FetchError{Collection: catalogue.Items, Kind: kind, Err: err}
	}
	long := strings.Repeat("9", 10_000)
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"status", &catalogue.FetchError{Collection: catalogue.Items, Kind: "status", Status: 503}, "upstream answered 503 Service Unavailable"},
		{"timeout", fetch("timeout", wrapped(context.DeadlineExceeded)), "upstream timed out"},
		{"refused", fetch("connection", wrapped(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED})), "connection refused"},
		{"unreachable", fetch("connection", wrapped(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.EHOSTUNREACH})), "upstream unreachable"},
		{"reset", fetch("connection", wrapped(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET})), "connection closed before an answer"},
		{"no such host", fetch("connection", wrapped(&net.OpError{Op: "dial", Net: "tcp",
			Err: &net.DNSError{Err: "no such host", Name: "upstream.internal.example", Server: "10.96.0.10:53", IsNotFound: true}})),
			"upstream host name not found"},
		{"lookup failed", fetch("connection", wrapped(&net.DNSError{Err: "server misbehaving", Name: "upstream.internal.example", Server: "10.96.0.10:53"})),
			"upstream host name lookup failed"},
		{"certificate", fetch("connection", wrapped(&tls.CertificateVerificationError{Err: x509.HostnameError{Host: "upstream.internal.example", Certificate: &x509.Certificate{}}})),
			"upstream TLS certificate not accepted"},
		{"not TLS", fetch("connection", wrapped(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"})), "TLS handshake failed"},
		{"TLS alert", fetch("connection", wrapped(&net.OpError{Op: "remote error", Err: tls.AlertError(40)})), "TLS handshake failed"},
		{"other connection error", fetch("connection", wrapped(opErr(syscall.EPERM))), "connection failed"},
		{"read", fetch("read", wrapped(fmt.Errorf("reading from 10.0.0.7:8443: %w", syscall.ECONNRESET))), "connection broken while reading the body"},
		{"too large", fetch("too_large", errors.New("body longer than 8388608 bytes")), "body longer than 8388608 bytes"},
		{"redirect", fetch("redirect", wrapped(&catalogue.RedirectError{
			From: &url.URL{Scheme: "https", Host: "upstream.internal.example:8443", Path: "/api/items"},
			To:   &url.URL{Scheme: "http", Host: "169.254.169.254", Path: "/latest/meta-data"}, Reason: "to another scheme"})),
			"redirect refused: to another scheme"},
		{"body", &catalogue.BodyError{Collection: catalogue.Items, Envelope: 0, Record: 3, Field: "id", Problem: "missing"},
			"body rejected: envelope 0: record 3: field id: missing"},
		{"whole body", &catalogue.BodyError{Collection: catalogue.Items, Envelope: -1, Record: -1, Problem: "body is empty"},
			"body rejected: body is empty"},
		{"long body problem", &catalogue.BodyError{Collection: catalogue.Items, Envelope: 0, Record: 0, Field: "id", Problem: "want a whole number (an id), got " + long},
			("body rejected: envelope 0: record 0: field id: want a whole number (an id), got " + long)[:200] + "…"},
		{"anything else", fmt.Errorf("preparing items body from %s: %w", target, errors.New("boom")), "failed (the log has the error)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := catalogue.Describe(tt.err)
			if got != tt.want {
				t.Errorf("Describe(%v)\n got %q\nwant %q", tt.err, got, tt.want)
			}
			for _, secret := range []string{"upstream.internal.example", "8443", "10.0.0.7", "10.96.0.10", "169.254.169.254", "/api/items"} {
				if strings.Contains(got, secret) {
					t.Errorf("Describe(%v) = %q, which names %s", tt.err, got, secret)
				}
			}
		})
	}
}

// TestDescribeRealFailures reads from addresses on 127.0.0.1 that fail
// for real: the descriptions come from the errors Go returns, not from
// errors built to look like them.
func TestDescribeRealFailures(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // its port now refuses connections
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	tlsServer := httptest.NewUnstartedServer(http.NotFoundHandler())
	// Its handshake refused, the server would log it to stderr.
	tlsServer.Config.ErrorLog = log.New(io.Discard, "", 0)
	tlsServer.StartTLS()
	defer tlsServer.Close()
	for _, tt := range []struct {
		name, base, want string
	}{
		{"refused", closed.URL, "connection refused"},
		{"TLS to a plain server", strings.Replace(plain.URL, "http:", "https:", 1), "TLS handshake failed: the upstream answered in plain HTTP"},
		{"untrusted certificate", tlsServer.URL, "upstream TLS certificate not accepted"},
		{"status", plain.URL, "upstream answered 404 Not Found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := &catalogue.Upstream{BaseURL: tt.base, Client: catalogue.NewUpstreamClient()}
			_, err := u.Fetch(t.Context(), catalogue.Items, catalogue.Validators{})
			if err == nil {
				t.Fatal("Fetch succeeded")
			}
			got := catalogue.Describe(err)
			if got != tt.want {
				t.Errorf("Describe(%v) = %q, want %q", err, got, tt.want)
			}
			if strings.Contains(got, "127.0.0.1") || strings.Contains(got, port(t, tt.base)) {
				t.Errorf("Describe(%v) = %q names the address", err, got)
			}
		})
	}
}
