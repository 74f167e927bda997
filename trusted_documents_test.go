package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
)

// apolloManifest is an Apollo persisted query manifest of bodies, each
// listed under an id of its own ("op0", "op1", …).
func apolloManifest(t *testing.T, bodies ...string) []byte {
	t.Helper()
	type op struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Type string `json:"type"`
		Body string `json:"body"`
	}
	ops := []op{}
	for i, b := range bodies {
		ops = append(ops, op{ID: "op" + string(rune('0'+i)), Type: "query", Body: b})
	}
	out, err := json.Marshal(map[string]any{"format": "apollo-persisted-query-manifest", "version": 1, "operations": ops})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	// Written beside and renamed, as a deploy replaces a file: a reload
	// never reads half of it.
	if err := os.WriteFile(path+".new", data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
}

// TestRunRefusesBadTrustedDocuments: a manifest that cannot be read, is
// of neither format, or lists a document the gateway would not run stops
// the start as a bad flag does: one line naming the file and what is
// wrong, exit status 2. So does a manifest that lists no documents (in
// enforce mode it would refuse every operation), and a mode that needs a
// file without one.
func TestRunRefusesBadTrustedDocuments(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{name: "missing file", args: []string{"-trusted-documents", filepath.Join(dir, "none.json")}, want: "none.json: no such file"},
		{name: "not JSON", args: []string{"-trusted-documents", file("broken.json", `{"format":`)}, want: "broken.json: not JSON"},
		{name: "another format", env: map[string]string{"GATEWAY_TRUSTED_DOCUMENTS": file("relay.json", `{"format":"relay"}`)}, want: `relay.json: "format" is "relay"`},
		{name: "a document the schema refuses", args: []string{"-trusted-documents", file("invalid.json",
			string(apolloManifest(t, `{ item(id: 1) { id } }`, `{ nope }`)))}, want: `invalid.json: document "op1": is not valid`},
		{name: "a document over a limit", args: []string{"-max-depth", "1", "-trusted-documents", file("deep.json",
			string(apolloManifest(t, `{ item(id: 1) { droppedByMonsters { id } } }`)))}, want: `deep.json: document "op0": refused by a limit`},
		{name: "an empty object", args: []string{"-trusted-documents", file("empty.json", `{}`)}, want: "empty.json: it lists no documents"},
		{name: "no operations", args: []string{"-trusted-documents", file("none-listed.json",
			`{"format":"apollo-persisted-query-manifest","version":1,"operations":[]}`)}, want: "none-listed.json: it lists no documents"},
		{name: "enforce with no file", args: []string{"-trusted-documents-mode", "enforce"}, want: "needs -trusted-documents"},
		{name: "an unknown mode", env: map[string]string{"GATEWAY_TRUSTED_DOCUMENTS_MODE": "strict"}, want: `invalid -trusted-documents-mode "strict"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := run(t.Context(), append([]string{"-addr", "127.0.0.1:0"}, tt.args...), envOf(tt.env), io.Discard, &stderr); code != 2 {
				t.Errorf("exit status %d, want 2; stderr:\n%s", code, stderr.String())
			}
			out := stderr.String()
			if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "gateway: ") || !strings.Contains(out, tt.want) {
				t.Errorf("stderr = %q, want one gateway: line saying %q", out, tt.want)
			}
		})
	}
}

// TestTrustedDocumentsReloadedOnSIGHUP: the real process, in enforce
// mode, runs the manifest's documents only; on SIGHUP it reads the file
// again and runs the new one's; a file refused on reload (a document it
// cannot run, or no documents at all) leaves the last good manifest in force, with an ERROR in the log and the refusal
// counted in /metrics; SIGTERM still shuts it down cleanly.
func TestTrustedDocumentsReloadedOnSIGHUP(t *testing.T) {
	const first, second = `{ item(id: 1) { name } }`, `{ monster(id: 1) { name } }`
	manifest := filepath.Join(t.TempDir(), "manifest.json")
	writeFile(t, manifest, apolloManifest(t, first))
	g := gatewaytest.Start(t, gatewaytest.Options{Binary: gatewaytest.Build(t),
		Args: []string{"-access-log=false", "-trusted-documents", manifest}})

	refused := 0 // the refusals this test saw, which /metrics must count
	status := func(query string) int {
		t.Helper()
		body, _ := json.Marshal(map[string]string{"query": query})
		resp, err := http.Post(g.URL+"/graphql", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusUnprocessableEntity {
			refused++
		}
		return resp.StatusCode
	}
	// waitFor polls until ok, or fails the test after 10 s.
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 10 s", what)
			}
		}
	}
	if a, b := status(first), status(second); a != http.StatusOK || b != http.StatusUnprocessableEntity {
		t.Fatalf("before the reload: listed %d, unlisted %d; want 200 and 422", a, b)
	}

	writeFile(t, manifest, apolloManifest(t, second))
	if err := g.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor("the new manifest in force", func() bool {
		return status(second) == http.StatusOK && status(first) == http.StatusUnprocessableEntity
	})

	writeFile(t, manifest, []byte(`{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id":"x"}]}`))
	if err := g.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor("the refused reload logged", func() bool {
		return strings.Contains(g.Logs.String(), `"level":"ERROR","msg":"trusted documents: reload refused; the previous manifest stays"`)
	})
	if a, b := status(second), status(first); a != http.StatusOK || b != http.StatusUnprocessableEntity {
		t.Errorf("after a refused reload: %d, %d; want the last good manifest (200, 422)", a, b)
	}
	// An emptied file is refused too: in force, it would refuse everything.
	writeFile(t, manifest, []byte(`{}`))
	if err := g.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor("the empty manifest refused", func() bool { return strings.Contains(g.Logs.String(), "it lists no documents") })
	if a, b := status(second), status(first); a != http.StatusOK || b != http.StatusUnprocessableEntity {
		t.Errorf("after an empty manifest: %d, %d; want the last good manifest (200, 422)", a, b)
	}
	resp, err := http.Get(g.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`gateway_trusted_documents_reloads_total{result="ok"} 1`,
		`gateway_trusted_documents_reloads_total{result="error"} 2`,
		fmt.Sprintf(`graphql_trusted_documents_total{outcome="refused"} %d`, refused), // polls included
		`gateway_store_entries{store="trusted_documents"} 1`,
		"gateway_trusted_documents_reload_failed 1",
	} {
		if !bytes.Contains(metrics, []byte(want)) {
			t.Errorf("/metrics has no %s", want)
		}
	}

	if err := g.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.Exited:
		if g.WaitErr != nil {
			t.Errorf("after SIGTERM: %v, want exit status 0", g.WaitErr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no exit within 20 s of SIGTERM")
	}
}
