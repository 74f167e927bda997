package catalogue

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"unicode/utf8"
)

// maxDescription bounds a description's length: a body's problem may
// quote a value from the body, which can be as long as the body.
const maxDescription = 200

// Describe says what went wrong in err, an error of Upstream.Fetch or of
// Decode, in a few words fit for anyone to read: "upstream answered 503
// Service Unavailable", "upstream timed out", "connection refused",
// "body rejected: envelope 0: record 3: field id: missing". It never
// holds a URL, a host name or an address, which Go's own errors carry and
// which tell a stranger where the upstream is and what the gateway can
// reach; the full error is for the log.
func Describe(err error) string {
	if err == nil {
		return ""
	}
	var d string
	if fe, ok := errors.AsType[*FetchError](err); ok {
		d = fe.describe()
	} else if be, ok := errors.AsType[*BodyError](err); ok {
		d = "body rejected: " + be.detail()
	} else {
		d = "failed (the log has the error)"
	}
	if len(d) > maxDescription {
		cut := maxDescription
		for cut > 0 && !utf8.RuneStart(d[cut]) {
			cut--
		}
		d = d[:cut] + "…"
	}
	return d
}

// describe is Describe of a failed request: made of the kind, the status
// and the types in Err, never of Err's text, which names the URL.
func (e *FetchError) describe() string {
	switch e.Kind {
	case "status":
		return fmt.Sprintf("upstream answered %d %s", e.Status, http.StatusText(e.Status))
	case "timeout":
		return "upstream timed out"
	case "read":
		return "connection broken while reading the body"
	case "too_large":
		return e.Err.Error() // Fetch's own words, the bound: no address
	case "redirect":
		if re, ok := errors.AsType[*RedirectError](e.Err); ok {
			return "redirect refused: " + re.Reason
		}
		return "redirect refused"
	}
	return describeConnection(e.Err)
}

// describeConnection names the way a connection failed, by the errors the
// standard library wraps.
func describeConnection(err error) string {
	if dns, ok := errors.AsType[*net.DNSError](err); ok {
		if dns.IsNotFound {
			return "upstream host name not found"
		}
		return "upstream host name lookup failed"
	}
	if _, ok := errors.AsType[*tls.CertificateVerificationError](err); ok {
		return "upstream TLS certificate not accepted"
	}
	if _, ok := errors.AsType[tls.RecordHeaderError](err); ok {
		return "TLS handshake failed"
	}
	if _, ok := errors.AsType[tls.AlertError](err); ok {
		return "TLS handshake failed"
	}
	// net/http says so in words only, in place of the RecordHeaderError.
	if strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") {
		return "TLS handshake failed: the upstream answered in plain HTTP"
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "upstream unreachable"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed before an answer"
	}
	return "connection failed"
}

// detail is the error without the collection's name, which the caller
// already shows beside it.
func (e *BodyError) detail() string {
	var b strings.Builder
	if e.Envelope >= 0 {
		fmt.Fprintf(&b, "envelope %d: ", e.Envelope)
	}
	if e.Record >= 0 {
		fmt.Fprintf(&b, "record %d: ", e.Record)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, "field %s: ", e.Field)
	}
	b.WriteString(e.Problem)
	return b.String()
}
