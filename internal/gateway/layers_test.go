package gateway_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/catalogue-gateway/gateway"

// imports lists each package of the module with the module's packages it
// imports (not its tests'), as go list reads them.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		m[pkg] = nil
		for _, imp := range fields[1:] {
			if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				m[pkg] = append(m[pkg], rest)
			}
		}
	}
	return m
}

// TestLayers holds the module's layering: the executor's contract, the
// memory budget and client addressing are leaves, graphqlhttp's
// admission, documents and answers import only what is below them, and
// nothing below the wiring imports the transport. The engine implements the contract without knowing who calls
// it; the wiring (package main, this package, the configuration and the
// metrics that observe the endpoint) and the resolvers' NewHandler build
// the transport.
func TestLayers(t *testing.T) {
	m := imports(t)
	for _, leaf := range []string{"internal/execution", "internal/memory", "internal/clientaddr"} {
		if _, ok := m[leaf]; !ok {
			t.Fatalf("go list does not name %s", leaf)
		}
		if len(m[leaf]) > 0 {
			t.Errorf("%s is a leaf, but imports %v", leaf, m[leaf])
		}
	}
	transportUsers := []string{"", "internal/gateway", "internal/config", "internal/telemetry", "resolvers", "graphqlhttp/wstest"}
	for pkg, deps := range m {
		if slices.Contains(deps, "graphqlhttp") && !slices.Contains(transportUsers, pkg) {
			t.Errorf("%s imports graphqlhttp, the transport: only the wiring may (%q)", pkg, transportUsers)
		}
	}
	// graphqlhttp's parts below the transport import leaves, contentcoding
	// and each other downwards (documents measures with admission): the
	// transport asks them, never the other way.
	below := map[string][]string{
		"graphqlhttp/admission": {"internal/execution", "internal/memory"},
		"graphqlhttp/answers":   {"contentcoding", "internal/memory"},
		"graphqlhttp/documents": {"graphqlhttp/admission", "internal/execution", "internal/memory"},
	}
	for pkg, allowed := range below {
		if _, ok := m[pkg]; !ok {
			t.Fatalf("go list does not name %s", pkg)
		}
		for _, dep := range m[pkg] {
			if !slices.Contains(allowed, dep) {
				t.Errorf("%s imports %s; it may import only %v", pkg, dep, allowed)
			}
		}
	}
	if !slices.Contains(m["engine"], "internal/execution") {
		t.Errorf("the engine no longer implements internal/execution's contract: it imports %v", m["engine"])
	}
}
