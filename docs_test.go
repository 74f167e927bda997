package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
)

// The documents a reader is sent to: every GraphQL example in them runs in
// TestDocsExamples, and every link in them resolves in TestDocsLinks.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md", "CONTRIBUTING.md"}, files...)
}

// A fence is one fenced code block of a Markdown file.
type fence struct {
	file string
	line int    // of the opening fence, 1-based
	info string // the info string: "graphql", "json", "graphql expect-error=CODE", …
	body string
	// headingBefore says whether a heading stands between the previous
	// fence and this one: variables are read only from a json block in
	// the same section as its query.
	headingBefore bool
}

func (f fence) lang() string {
	lang, _, _ := strings.Cut(f.info, " ")
	return lang
}

// attr returns the value of key=value in the fence's info string.
func (f fence) attr(key string) (string, bool) {
	for _, field := range strings.Fields(f.info)[1:] {
		if k, v, ok := strings.Cut(field, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

func (f fence) String() string { return fmt.Sprintf("%s:%d", f.file, f.line) }

// fences reads a Markdown file's fenced blocks (``` only, as our docs
// write them; indented fences inside list items count too), and the text
// outside them, with code spans left in, for the link check.
func fences(t *testing.T, file string) (blocks []fence, prose []string) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cur *fence
	var indent string
	heading := false
	for i, line := range strings.Split(string(raw), "\n") {
		trimmed := strings.TrimLeft(line, " ")
		// As CommonMark has it: an opening fence's info string holds no
		// backtick, and a closing fence holds nothing but backticks.
		opens := strings.HasPrefix(trimmed, "```") && !strings.Contains(strings.TrimLeft(trimmed, "`"), "`")
		closes := strings.HasPrefix(trimmed, "```") && strings.Trim(trimmed, "` ") == ""
		switch {
		case cur == nil && opens:
			cur = &fence{file: file, line: i + 1, info: strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), headingBefore: heading}
			indent = line[:len(line)-len(trimmed)]
			heading = false
		case cur != nil && closes:
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.body += strings.TrimPrefix(line, indent) + "\n"
		default:
			if strings.HasPrefix(line, "#") {
				heading = true
			}
			prose = append(prose, line)
		}
	}
	if cur != nil {
		t.Fatalf("%s: fence never closed", cur)
	}
	return blocks, prose
}

// TestDocsExamples runs every ```graphql block of README.md,
// CONTRIBUTING.md and docs/*.md through the gateway's real handler on the
// embedded catalogue, with the variables of the ```json block that
// follows it in the same section, if any. Each operation must answer 200
// with data and no errors; a block fenced "graphql expect-error=CODE" must
// answer an error with that code instead; a subscription is validated
// against the schema, not run. Schema snippets are fenced
// ```graphql-schema and are not run; a ```graphql block that does not
// parse as operations fails, so that none is skipped by mistake.
func TestDocsExamples(t *testing.T) {
	g := gatewaytest.New(t, gatewaytest.Options{Logger: slog.New(slog.DiscardHandler)})
	h := g.Handler()
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()

	ran := 0
	for _, file := range docFiles(t) {
		blocks, _ := fences(t, file)
		var answered []byte // the answer to the last operation run in this file
		for i, b := range blocks {
			if b.info == "json answer" {
				checkDocAnswer(t, b, answered)
				continue
			}
			if b.lang() != "graphql" {
				continue
			}
			var vars map[string]any
			if i+1 < len(blocks) && blocks[i+1].info == "json" && !blocks[i+1].headingBefore {
				if err := json.Unmarshal([]byte(blocks[i+1].body), &vars); err != nil {
					t.Errorf("%s: the variables after the query are not a JSON object: %v", blocks[i+1], err)
					continue
				}
			}
			doc, perr := parser.ParseQuery(&ast.Source{Input: b.body})
			if perr != nil {
				t.Errorf("%s: a ```graphql block must hold operations (fence schema text as ```graphql-schema): %v", b, perr)
				continue
			}
			for _, op := range doc.Operations {
				name := fmt.Sprintf("%s/%s", b, op.Name)
				t.Run(name, func(t *testing.T) {
					if op.Operation == ast.Subscription {
						if _, errs := gqlparser.LoadQueryWithRules(schema, b.body, nil); len(errs) > 0 {
							t.Errorf("%s: does not validate: %v", b, errs)
						}
						return
					}
					code, want := b.attr("expect-error")
					answered = checkDocOperation(t, h, b, op.Name, vars, code, want)
				})
				ran++
			}
		}
	}
	if ran < 10 {
		t.Errorf("ran %d documented operations; the docs hold more than that, so the fences were misread", ran)
	}
}

func checkDocOperation(t *testing.T, h http.Handler, b fence, opName string, vars map[string]any, wantCode string, wantError bool) []byte {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": b.body, "operationName": opName, "variables": vars})
	req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var resp struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message    string `json:"message"`
			Extensions struct {
				Code string `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		t.Fatalf("%s: answer is not JSON (%d): %v\n%s", b, rec.Code, err, rec.Body)
	}
	if wantError {
		for _, e := range resp.Errors {
			if e.Extensions.Code == wantCode {
				return rec.Body.Bytes()
			}
		}
		t.Errorf("%s: documented as an example of %s, got status %d and %s", b, wantCode, rec.Code, rec.Body)
		return rec.Body.Bytes()
	}
	if rec.Code != http.StatusOK || len(resp.Errors) > 0 || len(resp.Data) == 0 || string(resp.Data) == "null" {
		t.Errorf("%s: want 200 with data and no errors, got %d:\n%.2000s", b, rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

// answerMember is one "key":value of an answer shown in the docs, a string
// or a number, as the gateway writes it (compact JSON).
var answerMember = regexp.MustCompile(`"[^"]+":(?:"[^"]*"|-?[0-9][0-9.eE+-]*)`)

// checkDocAnswer holds an answer the docs show, fenced "json answer" and
// often cut short with "…", to the real one: every "key":value in it must
// be in the answer to the operation run just before it.
func checkDocAnswer(t *testing.T, b fence, answered []byte) {
	t.Helper()
	if answered == nil {
		t.Errorf("%s: an answer shown with no operation run before it", b)
		return
	}
	members := answerMember.FindAllString(b.body, -1)
	if len(members) == 0 {
		t.Errorf("%s: an answer with no \"key\":value in it", b)
	}
	for _, m := range members {
		if !bytes.Contains(answered, []byte(m)) {
			t.Errorf("%s: the answer shown has %s, the real one does not:\n%.2000s", b, m, answered)
		}
	}
}

var (
	mdLink     = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]+)\)`)
	boldLabel  = regexp.MustCompile(`^\*\*([^*]+)\*\*`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	webAddress = regexp.MustCompile(`(?i)\bhttps?://`)
	headingRe  = regexp.MustCompile(`^#+\s+(.*)$`)
	slugDrop   = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// slug is the anchor GitHub gives a heading.
func slug(heading string) string {
	s := strings.ToLower(strings.TrimSpace(heading))
	s = slugDrop.ReplaceAllString(s, "")
	return strings.ReplaceAll(s, " ", "-")
}

// labels are the slugs of the bold words that open a paragraph of file
// ("**Tracing.** The gateway…"): a name a reader may link to, that has no
// anchor.
func labels(t *testing.T, file string) []string {
	t.Helper()
	_, prose := fences(t, file)
	var out []string
	for _, line := range prose {
		if m := boldLabel.FindStringSubmatch(line); m != nil {
			out = append(out, slug(m[1]))
		}
	}
	return out
}

func anchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	_, prose := fences(t, file)
	out := map[string]bool{}
	for _, line := range prose {
		if m := headingRe.FindStringSubmatch(line); m != nil {
			out[slug(m[1])] = true
		}
	}
	return out
}

// TestDocsLinks keeps the docs' links inside the repository: every link
// is relative and stays in its folder or below (the browser apps' READMEs
// included), names a file that exists, and, with a #fragment, a heading
// of that file. A link whose text names a heading or a paragraph's bold
// label of its file lands on that heading (a label must become a heading
// to be linked to), not on the section around it. Addresses on the web
// appear only as code (an example value), never as links.
func TestDocsLinks(t *testing.T) {
	apps, err := filepath.Glob(filepath.Join("web", "*", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range append(docFiles(t), apps...) {
		_, prose := fences(t, file)
		for i, line := range prose {
			if webAddress.MatchString(codeSpan.ReplaceAllString(line, "")) {
				t.Errorf("%s: a web address outside code (links stay in the repository): %q", file, line)
			}
			for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
				text, target := m[1], m[2]
				path, frag, _ := strings.Cut(target, "#")
				if strings.HasPrefix(path, "../") {
					// Read where the file is shown alone (a folder's page,
					// a package's docs), a link up the tree leads nowhere:
					// name the file instead.
					t.Errorf("%s (prose line %d): link %s climbs out of its folder; name the file in code instead", file, i+1, target)
					continue
				}
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), path)
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s (prose line %d): link to %s: %v", file, i+1, target, err)
						continue
					}
				}
				if frag != "" && !anchors(t, dest)[frag] {
					t.Errorf("%s (prose line %d): link to %s: %s has no heading #%s", file, i+1, target, dest, frag)
				}
				named := slug(text)
				if named == "" || named == frag {
					continue
				}
				if frag != "" && anchors(t, dest)[named] { // with none, a file's title is its top
					t.Errorf("%s (prose line %d): [%s](%s) lands on #%s, not on its heading #%s", file, i+1, text, target, frag, named)
				}
				for _, label := range labels(t, dest) {
					if label == named || strings.HasPrefix(label, named+"-") {
						t.Errorf("%s (prose line %d): [%s](%s) lands on #%s, not on the paragraph %q names; make it a heading", file, i+1, text, target, frag, text)
					}
				}
			}
		}
	}
}

// TestReadmeTestCommandIsCI keeps the README's promise that its test
// command is what .ci/run runs.
func TestReadmeTestCommandIsCI(t *testing.T) {
	blocks, _ := fences(t, "README.md")
	var cmd string
	for _, b := range blocks {
		for line := range strings.Lines(b.body) {
			if strings.Contains(line, "gotestsum") {
				cmd, _, _ = strings.Cut(line, "#")
				cmd = strings.TrimSpace(cmd)
				break
			}
		}
		if cmd != "" {
			break
		}
	}
	if cmd == "" {
		t.Fatal("README.md shows no test command (a gotestsum line in a code block)")
	}
	ci, err := os.ReadFile(filepath.Join(".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(ci)) {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") && strings.HasSuffix(strings.TrimSpace(line), cmd) {
			return
		}
	}
	t.Errorf(".ci/run does not run the README's test command %q", cmd)
}

// TestFlagsDocumented keeps the full flags table (docs/operations.md,
// Flags) whole: every flag -h lists has its row there, with its variable
// and its real default (as -h states it, from config.Default, which takes
// the packages' own defaults). The README and docs/api.md show only some
// flags, each with the table's name, variable and default.
func TestFlagsDocumented(t *testing.T) {
	var usage bytes.Buffer
	if _, err := config.Parse([]string{"-h"}, envOf(nil), &usage); err == nil {
		t.Fatal("-h: no error, want flag.ErrHelp")
	}
	flagLine := regexp.MustCompile(`(?m)^  -(\S+)(?:.*\n)(?:.*\(env (\w+)\)(?: \(default (.*)\))?)?`)
	rows := flagLine.FindAllStringSubmatch(usage.String(), -1)
	if len(rows) < 20 {
		t.Fatalf("-h listed %d flags; the usage text was misread:\n%s", len(rows), usage.String())
	}
	table, err := os.ReadFile(filepath.Join("docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	api, err := os.ReadFile(filepath.Join("docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rows {
		name, env, def := m[1], m[2], m[3]
		row := fmt.Sprintf("| `-%s` | `%s` |", name, env)
		if env == "" {
			t.Errorf("-%s: -h names no environment variable", name)
			continue
		}
		if !bytes.Contains(table, []byte(row)) {
			t.Errorf("docs/operations.md's flags table has no row %q", row)
		}
		for _, doc := range []struct {
			file string
			text []byte
		}{{"docs/operations.md", table}, {"README.md", readme}, {"docs/api.md", api}} {
			for line := range strings.Lines(string(doc.text)) {
				if !strings.HasPrefix(line, fmt.Sprintf("| `-%s` |", name)) {
					continue
				}
				if !strings.HasPrefix(line, row) {
					t.Errorf("%s's row of -%s differs from the flags table: %q", doc.file, name, line)
					continue
				}
				if got := documentedDefault(line[len(row):]); !sameDefault(got, def) {
					t.Errorf("%s: -%s's default is documented as %q; -h (the real default) says %q", doc.file, name, got, def)
				}
			}
		}
	}
}

// sameDefault reports whether a documented default and -h's are one
// value: the same text, or the same duration (5m is 5m0s).
func sameDefault(documented, real string) bool {
	d, err1 := time.ParseDuration(documented)
	r, err2 := time.ParseDuration(real)
	return documented == real || err1 == nil && err2 == nil && d == r
}

// documentedDefault is the default a row's default cell states, written
// as -h writes it: the cell's first code span, "" for a zero value (which
// -h leaves out) or for prose with no code ("empty", "the base URL": a
// default derived at run time).
func documentedDefault(rest string) string {
	cell, _, _ := strings.Cut(strings.TrimSpace(rest), " | ")
	m := regexp.MustCompile("^`([^`]*)`").FindStringSubmatch(cell)
	if m == nil {
		return ""
	}
	switch m[1] {
	case "0", "0s", "false":
		return ""
	}
	return m[1]
}

// publishedFigures are the measured figures the docs quote in more than
// one place, each stated once, here: a figure remeasured is changed here
// and in every place that quotes it, or this test names the places left.
// A quote is the text just before the figure, whitespace folded.
var publishedFigures = []struct {
	name, value string
	quotes      []figureQuote
}{
	{"embedded catalogue, resident once ready", "34–37 MiB", []figureQuote{
		{"README.md", "| embedded catalogue: ready, resident | 0.05–0.07 s, "},
		{"docs/speed.md", "**0.05–0.07 s** after exec and **"},
		{"docs/speed.md", "| embedded | 1.6 MiB | 0.05–0.07 s | "},
		{"CHANGELOG.md", "The embedded catalogue: "},
	}},
	{"10× catalogue, resident over its JSON", "4.8", []figureQuote{
		{"README.md", "| 0.32–0.38 s, 79 MiB ("},
		{"docs/speed.md", "| 0.32–0.38 s | 79 MiB | "},
		{"CHANGELOG.md", "is ready in 0.32–0.38 s (was 1.5–1.7 s) at "},
	}},
	{"nested queries against Mercurius", "3.1–8.2×", []figureQuote{
		{"README.md", "| nested queries, engine alone (response cache off) | "},
		{"docs/speed.md", "**Nested queries, engine alone** (Q2–Q4): "},
	}},
	{"nested queries against Apollo", "14.7–35.6×", []figureQuote{
		{"README.md", "Mercurius with graphql-jit, "},
		{"docs/speed.md", "1.7–4.0× before the kept records; target 1.7×) and "},
	}},
	{"REST /items, identity, against nginx's sendfile", "0.78–1.02×", []figureQuote{
		{"README.md", "| REST `/items` (1.3 MB) | "},
		{"docs/speed.md", "over the runs of 2026-11-24, "},
	}},
	{"REST /items, gzipped, against nginx", "0.54–0.77×", []figureQuote{
		{"README.md", "nginx with `sendfile`, identity; "},
		{"docs/speed.md", "nginx for the identity body and "},
	}},
	{"filtered and ordered page, random terms, against plain, by CPU per request", "0.97–1.02×", []figureQuote{
		{"docs/speed.md", "against 32,934–34,105 req/s) and **"},
		{"CHANGELOG.md", "A filtered and ordered page costs about what the same page plain does (**"},
	}},
	{"a cross-subgraph query through the router, against the gateway's part of it", "26–34×", []figureQuote{
		{"docs/speed.md", "merging the entities, answers **"},
		{"docs/graphql.md", "([speed.md](speed.md#through-a-federation-router)): the router answers "},
	}},
	{"one record (Q1), engine alone, against Mercurius since the GC floor", "1.09–1.54×", []figureQuote{
		{"README.md", "| one record (Q1), engine alone | "},
		{"docs/speed.md", "**A single record** (Q1): 1.08–1.62× Mercurius ("},
		{"docs/speed.md", "Over the sixteen runs since the GC floor (the four above included), Q1 is at "},
	}},
	{"REST /items in the kit since the GC floor", "1.05–1.47×", []figureQuote{
		{"README.md", "gzipped ("},
		{"docs/speed.md", "**REST** `/items`: "},
	}},
}

// figureQuote is where a doc quotes a figure: the text just before it.
type figureQuote struct{ file, before string }

// TestPublishedFiguresAgree: every doc quoting a published figure quotes
// the same value.
func TestPublishedFiguresAgree(t *testing.T) {
	texts := map[string]string{}
	for _, f := range publishedFigures {
		for _, q := range f.quotes {
			text, ok := texts[q.file]
			if !ok {
				b, err := os.ReadFile(q.file)
				if err != nil {
					t.Fatal(err)
				}
				text = strings.Join(strings.Fields(string(b)), " ")
				texts[q.file] = text
			}
			before := strings.Join(strings.Fields(q.before), " ")
			_, after, found := strings.Cut(text, before)
			if !found {
				t.Errorf("%s: %s: no longer quoted after %q (moved? update publishedFigures)", q.file, f.name, q.before)
				continue
			}
			if after = strings.TrimPrefix(after, " "); !strings.HasPrefix(after, f.value) {
				got, _, _ := strings.Cut(after, " ")
				t.Errorf("%s quotes %s as %q, want %q (docs_test.go's publishedFigures holds it)", q.file, f.name, got, f.value)
			}
		}
	}
}
