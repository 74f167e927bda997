package main

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/internal/config"
)

// TestDockerfile keeps the container recipe honest where no container
// engine runs: the environment it sets is the gateway's and valid, its
// health check is the gateway's own, and it builds with deploy/build.sh,
// which CI runs too.
func TestDockerfile(t *testing.T) {
	raw, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	// Join continued lines, so that each instruction is one line.
	text := strings.ReplaceAll(string(raw), "\\\n", " ")

	var usage bytes.Buffer
	run(t.Context(), []string{"-h"}, envOf(nil), io.Discard, &usage)
	known := map[string]bool{}
	for _, m := range regexp.MustCompile(`\(env ([A-Z_]+)\)`).FindAllStringSubmatch(usage.String(), -1) {
		known[m[1]] = true
	}
	env := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, "ENV ")
		if !ok {
			continue
		}
		for _, kv := range strings.Fields(rest) {
			name, value, _ := strings.Cut(kv, "=")
			if !known[name] {
				t.Errorf("the Dockerfile sets %s, which is no flag's variable", name)
			}
			env[name] = value
		}
	}
	if len(env) == 0 {
		t.Fatal("the Dockerfile sets no environment")
	}
	if _, err := config.Parse(nil, envOf(env), &bytes.Buffer{}); err != nil {
		t.Errorf("the Dockerfile's environment is refused: %v", err)
	}
	for _, want := range []string{
		`RUN VERSION="$VERSION" COMMIT="$COMMIT" sh deploy/build.sh /out/gateway`,
		`org.opencontainers.image.version="$VERSION"`,
		`org.opencontainers.image.revision="$COMMIT"`,
		`org.opencontainers.image.licenses="MIT"`,
		`CMD ["/gateway", "healthcheck"]`,
		`ENTRYPOINT ["/gateway"]`,
		"FROM scratch",
		"USER 65532:65532",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}
	build, err := os.ReadFile("deploy/build.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(build, []byte("CGO_ENABLED=0 go build -trimpath")) {
		t.Error("deploy/build.sh does not build a static, trimmed binary")
	}
	if !bytes.Contains(build, []byte("stamp=github.com/catalogue-gateway/gateway/internal/buildinfo\n")) ||
		!bytes.Contains(build, []byte("-X $stamp.version=")) || !bytes.Contains(build, []byte("-X $stamp.commit=")) {
		t.Error("deploy/build.sh does not stamp the version and commit")
	}
}
