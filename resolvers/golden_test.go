package resolvers_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/catalogue-gateway/gateway/loader"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden with the current responses")

// goldenDir holds the golden queries: NAME.graphql is a query document,
// NAME.vars.json (optional) its variables, NAME.json the expected response.
var goldenDir = filepath.Join("testdata", "golden")

// TestGolden posts every query under testdata/golden to the real /graphql
// handler over the embedded catalogue and compares the response, indented,
// byte for byte with its golden file. They are the queries a frontend
// writes, so a change to what a frontend sees shows up here as a diff to
// review; refresh with
//
//	go test ./resolvers/ -run TestGolden -update
//
// A response with GraphQL errors, or a status other than 200, fails unless
// the file's name starts with "error_": -update must never bless a broken
// answer as the expected one.
func TestGolden(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join(goldenDir, "*.graphql"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatalf("no *.graphql under %s", goldenDir)
	}
	// A golden whose query was renamed or removed would otherwise linger
	// unchecked.
	others, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range others {
		base := strings.TrimSuffix(strings.TrimSuffix(f, ".json"), ".vars")
		if _, err := os.Stat(base + ".graphql"); err != nil {
			t.Errorf("%s has no query %s.graphql; remove it or add the query", f, base)
		}
	}
	srv := serve(t, storeOf(embedded(t)), loader.Options{})

	for _, doc := range docs {
		name := strings.TrimSuffix(filepath.Base(doc), ".graphql")
		t.Run(name, func(t *testing.T) {
			query, err := os.ReadFile(doc)
			if err != nil {
				t.Fatal(err)
			}
			vars := goldenVars(t, filepath.Join(goldenDir, name+".vars.json"))

			r := post(t, srv, string(query), vars)
			if !strings.HasPrefix(name, "error_") && (r.status != http.StatusOK || len(r.Errors) > 0) {
				t.Fatalf("got status %d or errors, want 200 and no errors (a golden of an error is named error_*):\n%s", r.status, r.raw)
			}
			var buf bytes.Buffer
			if err := json.Indent(&buf, r.raw, "", "  "); err != nil {
				t.Fatalf("indenting the response: %v\n%s", err, r.raw)
			}
			buf.WriteByte('\n')
			got := buf.Bytes()

			golden := filepath.Join(goldenDir, name+".json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("golden file %s is missing; run: go test ./resolvers/ -run TestGolden -update", golden)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("response differs from %s (-want +got):\n%s\nIf the change is intended, run: go test ./resolvers/ -run TestGolden -update",
					golden, cmp.Diff(string(want), string(got)))
			}
		})
	}
}

// goldenVars reads a query's variables; a query without a vars file has
// none. Numbers are kept as written, so a variable beyond 53 bits reaches
// the server unchanged.
func goldenVars(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var vars map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&vars); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return vars
}

// TestGoldenQueriesDocumented keeps docs/queries.md, the examples the
// README points to, from drifting (TestDocsExamples runs them too): every golden query must appear there
// word for word, so each documented example is one the gateway is tested
// to answer.
func TestGoldenQueriesDocumented(t *testing.T) {
	docs, err := os.ReadFile(filepath.Join("..", "docs", "queries.md"))
	if err != nil {
		t.Fatal(err)
	}
	queries, err := filepath.Glob(filepath.Join(goldenDir, "*.graphql"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		raw, err := os.ReadFile(q)
		if err != nil {
			t.Fatal(err)
		}
		// The leading # comment says what the query is for; the docs say
		// it in prose.
		var body []string
		for line := range strings.Lines(string(raw)) {
			if !strings.HasPrefix(line, "#") {
				body = append(body, line)
			}
		}
		if !bytes.Contains(docs, []byte(strings.Join(body, ""))) {
			t.Errorf("docs/queries.md lacks the query of %s, as written there", q)
		}
	}
}
