package refgraph

import (
	"embed"
	"fmt"
	"strconv"
	"strings"
	"text/template"
)

// The generated Go files are text/template templates, as gqlgen's own
// plugins write theirs: a file reads as the code it writes. What goes into
// them is worked out in Go (the views each file's function builds); the
// output is gofmt'ed before it is written, so a template's indentation
// need not be exact.

//go:embed *.gotpl
var templateFiles embed.FS

var fileTemplates = template.Must(template.New("refgraph").Funcs(template.FuncMap{
	"quote": strconv.Quote,
}).ParseFS(templateFiles, "*.gotpl"))

// render executes the template of a file on its view.
func render(name string, view any) string {
	var b strings.Builder
	if err := fileTemplates.ExecuteTemplate(&b, name, view); err != nil {
		// The views are built here and the templates embedded: an error is
		// a bug of this package, which its tests would show.
		panic(fmt.Sprintf("refgraph: %s: %v", name, err))
	}
	return b.String()
}
