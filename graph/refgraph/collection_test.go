package refgraph

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// module is the gateway's import path, which the copy keeps.
const module = "github.com/catalogue-gateway/gateway"

// TestACollectionIsOneTypeAway is the proof of CONTRIBUTING.md's "To add a
// collection": on a copy of the packages the generator writes to, with a
// 14th collection added as that walkthrough adds one (its schema,
// testdata/collection/records.graphqls and schema.graphqls, and its
// record struct, records.go.txt, and nothing else), the generator runs as go generate runs
// it and everything it emits compiles: the collection's constant, decoder,
// table and accessor, its entity, loader, connection, filters, root and
// entity resolvers. It rebuilds neither the embedded catalogue nor the
// browser apps.
func TestACollectionIsOneTypeAway(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a copy of the gateway's packages")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyPackages(t, root, dir)
	copyFile(t, "testdata/collection/records.go.txt", filepath.Join(dir, "catalogue/pets.go"))
	// gqlgen ends by building what it wrote (graph, graph/model and the
	// resolvers, so the catalogue and the loaders too): the compile this
	// test asks for. Unoptimised, it costs half as much in a fresh
	// directory, where nothing of the module's is in the build cache.
	appendFile(t, "testdata/collection/gqlgen.yml", filepath.Join(dir, "gqlgen.yml"))
	for _, name := range []string{"records.graphqls", "schema.graphqls"} {
		appendFile(t, filepath.Join("testdata/collection", name), filepath.Join(dir, "graph", name))
	}

	t.Chdir(dir)
	start := time.Now()
	if err := Generate("gqlgen.yml", Layout(module)); err != nil {
		t.Fatalf("generating with a 14th collection: %v", err)
	}
	t.Logf("generated in %v", time.Since(start).Round(time.Millisecond))
	// The collection reached every list the walkthrough says is derived,
	// and no resolver was left as gqlgen's stub.
	for file, want := range map[string][]string{
		"catalogue/collections_gen.go":   {"\tPets\n", `case Pets:` + "\n\t\treturn \"pets\"", "decodeEnvelopes[Pet](d, c)", "func (s *Snapshot) Pets() *Table[Pet]", "func (Pet) IsEntity() {}"},
		"catalogue/refgraph_gen.go":      {"PetKind", `collectionNamed("pets")`, "func (s *Snapshot) PetNamed("},
		"catalogue/filters_gen.go":       {"case petRecords:"},
		"graph/model/connections_gen.go": {"PetConnection = Connection[catalogue.Pet]", "PetEdge       = Edge[catalogue.Pet]"},
		"loader/kinds_gen.go":            {"func Pet(ctx context.Context, id int64) (*catalogue.Pet, error)"},
		"resolvers/entities_gen.go":      {`"Pet": {catalogue.Pets, byKind(catalogue.PetKind), bindings.Pet}`},
		"resolvers/schema.resolvers.go":  {"return list(ctx, catalogue.Pets, (*catalogue.Snapshot).Pets, petQuery(filter, orderBy), petFacets(), pageArgs{first, after, last, before})", "return lookup(ctx, catalogue.Pets, loader.Pet, id)"},
		"resolvers/entity.resolvers.go":  {`return entities[catalogue.Pet](ctx, "Pet", reps)`},
		"resolvers/roots_gen.go":         {`"pets": {`, `"pet": {`},
	} {
		src := readFile(t, filepath.Join(dir, file))
		for _, w := range want {
			if !strings.Contains(strings.Join(strings.Fields(src), " "), strings.Join(strings.Fields(w), " ")) {
				t.Errorf("%s lacks %q", file, w)
			}
		}
		if strings.Contains(src, "not implemented") {
			t.Errorf("%s has a resolver left unimplemented", file)
		}
	}
	var lists map[string]Description
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "web/explorer/src/filters.gen.json"))), &lists); err != nil {
		t.Fatal(err)
	}
	if d := lists["pets"]; d.Type != "Pet" || d.Order == nil || len(d.Order.Values) != 3 {
		t.Errorf("the explorer's description of pets is %+v", d)
	}

	// The vet of what is generated from the collections alone (gqlgen
	// has built everything above).
	start = time.Now()
	cmd := exec.Command("go", "vet", "./catalogue/", "./graph/model/", "./loader/")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet: %v\n%s", err, out)
	}
	t.Logf("vetted in %v", time.Since(start).Round(time.Millisecond))
}

// copyPackages copies to dir the module's files the generator reads and
// the packages it writes need to build: go.mod, go.sum, gqlgen.yml, the
// schema, and the non-test Go files (and embedded files) of every package
// of the module that the resolvers and the generator depend on.
func copyPackages(t *testing.T, root, dir string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f",
		`{{if and .Module .Module.Main}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{range .EmbedFiles}} {{.}}{{end}}{{end}}`,
		"./resolvers/", "./graph/gqlgen/")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	files := []string{"go.mod", "go.sum", "gqlgen.yml"}
	schema, err := filepath.Glob(filepath.Join(root, "graph", "*.graphqls"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range schema {
		files = append(files, filepath.Join("graph", filepath.Base(s)))
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		rel, err := filepath.Rel(root, fields[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fields[1:] {
			files = append(files, filepath.Join(rel, f))
		}
	}
	for _, f := range files {
		copyFile(t, filepath.Join(root, f), filepath.Join(dir, f))
	}
	if err := os.MkdirAll(filepath.Join(dir, "web/explorer/src"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// appendFile appends the file from to the file to.
func appendFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.WriteFile(to, []byte(readFile(t, to)+"\n"+readFile(t, from)), 0o644); err != nil {
		t.Fatal(err)
	}
}
