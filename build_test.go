package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/internal/buildinfo"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
)

// TestBuildStamped builds the gateway as the container does, with a
// version and commit, and finds them where an operator looks: -version,
// the start-up log line, /readyz and gateway_build_info. A plain build says
// dev.
func TestBuildStamped(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "gateway")
	cmd := exec.Command("sh", "deploy/build.sh", bin)
	cmd.Env = append(os.Environ(), "VERSION=9.8.7", "COMMIT=abcdef123456")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("deploy/build.sh: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-version").Output()
	if err != nil || !strings.HasPrefix(string(out), "catalogue-gateway 9.8.7 (commit abcdef123456) go") {
		t.Errorf("-version: %q, %v", out, err)
	}

	g := gatewaytest.Start(t, gatewaytest.Options{Binary: bin, Cold: true})
	if log := g.Logs.String(); !strings.Contains(log, `"version":"9.8.7","commit":"abcdef123456"`) {
		t.Errorf("the start-up line does not name the build: %s", log)
	}
	get := func(path string) []byte {
		resp, err := http.Get("http://" + g.Addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	var rd struct{ Build buildinfo.Info }
	body := get("/readyz")
	if err := json.Unmarshal(body, &rd); err != nil || rd.Build.Version != "9.8.7" || rd.Build.Commit != "abcdef123456" {
		t.Errorf("/readyz build = %+v (%v): %s", rd.Build, err, body)
	}
	if m := string(get("/metrics")); !strings.Contains(m, `gateway_build_info{commit="abcdef123456",goversion="go`) ||
		!strings.Contains(m, `version="9.8.7"} 1`) {
		t.Errorf("/metrics has no gateway_build_info for the build")
	}
}

// TestRunVersion: -version prints the build on stdout and serves nothing,
// alone or beside other flags.
func TestRunVersion(t *testing.T) {
	for _, args := range [][]string{{"-version"}, {"--version"}, {"-addr", "127.0.0.1:1", "-version"}, {"-version", "-log-format", "text"}} {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), args, envOf(nil), &stdout, &stderr); code != 0 {
			t.Errorf("run(%q) = %d, want 0; stderr: %s", args, code, stderr.String())
		}
		if want := buildinfo.Get().String() + "\n"; stdout.String() != want || stderr.Len() != 0 {
			t.Errorf("run(%q): stdout %q, stderr %q; want stdout %q and nothing on stderr", args, stdout.String(), stderr.String(), want)
		}
	}
}
