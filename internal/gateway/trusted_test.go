package gateway_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gateway"
)

// TestEmptyManifestOnlyWhenAllowed: a manifest listing no documents is
// refused, naming the flag that accepts it, and accepted with that flag.
func TestEmptyManifestOnlyWhenAllowed(t *testing.T) {
	for _, content := range []string{`{}`, `{"format":"apollo-persisted-query-manifest","version":1,"operations":[]}`} {
		file := filepath.Join(t.TempDir(), "manifest.json")
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := config.Default()
		cfg.TrustedDocuments = file
		_, err := gateway.ReadTrustedDocuments(cfg)
		if err == nil || !strings.Contains(err.Error(), "-trusted-documents-allow-empty") {
			t.Errorf("%s: %v, want a refusal naming -trusted-documents-allow-empty", content, err)
		}
		cfg.TrustedDocumentsAllowEmpty = true
		if m, err := gateway.ReadTrustedDocuments(cfg); err != nil || len(m.Documents) != 0 {
			t.Errorf("%s, allowed: %d documents, %v; want none and no error", content, len(m.Documents), err)
		}
	}
}
