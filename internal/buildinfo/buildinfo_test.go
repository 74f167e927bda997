package buildinfo

import (
	"strings"
	"testing"
)

// TestBuildUnstamped: a build with nothing stamped says dev.
func TestBuildUnstamped(t *testing.T) {
	if b := Get(); b.Version != "dev" || !strings.HasPrefix(b.String(), "catalogue-gateway dev") {
		t.Errorf("an unstamped test binary says %+v (%s), want dev", b, b)
	}
}
