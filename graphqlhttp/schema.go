package graphqlhttp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"

	"github.com/catalogue-gateway/gateway/contentcoding"
)

// SchemaHandler serves schema as an SDL document, with its descriptions,
// for code generators (GraphQL Code Generator, genqlient, gqlgenc) and
// people to read: text/plain, printed, tagged and compressed once, here,
// so that every request is a lookup. The tag is a digest of the text, the
// same on every replica of one build; Cache-Control asks caches to check
// it on each use, since a deploy may change the schema at any time.
func SchemaHandler(schema *ast.Schema) (http.Handler, error) {
	var sdl bytes.Buffer
	f := formatter.NewFormatter(&sdl, formatter.WithIndent("  "))
	f.FormatSchema(withoutUndeclared(schema))
	// The printer leaves out the directives every GraphQL server knows;
	// @defer is not one of them, and a generator reading a document that
	// uses it must find it declared: printed here when only the parser's
	// prelude declares it (a schema that declares it is printed with it).
	if d := schema.Directives["defer"]; d != nil && d.Position != nil && d.Position.Src != nil && d.Position.Src.BuiltIn {
		declared := *d
		declared.Position = nil // not the prelude's: printed
		f.FormatSchemaDocument(&ast.SchemaDocument{Directives: ast.DirectiveDefinitionList{&declared}})
	}
	sum := sha256.Sum256(sdl.Bytes())
	base := "sdl-" + hex.EncodeToString(sum[:16])
	var bodies [contentcoding.NumEncodings][]byte
	for enc := range contentcoding.NumEncodings {
		body, err := contentcoding.Compress(enc, sdl.Bytes())
		if err != nil {
			return nil, fmt.Errorf("compressing the schema's SDL: %w", err)
		}
		bodies[enc] = body
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		enc := contentcoding.Negotiate(r.Header.Get("Accept-Encoding"))
		etag := contentcoding.ETag(base, enc, contentcoding.Dense)
		h := w.Header()
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		h.Add("Vary", "Accept-Encoding")
		h.Set("ETag", etag)
		if inm := r.Header.Get("If-None-Match"); inm != "" && contentcoding.NoneMatch(inm, etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if enc != contentcoding.Identity {
			h.Set("Content-Encoding", enc.Token())
		}
		h.Set("Content-Length", strconv.Itoa(len(bodies[enc])))
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			w.Write(bodies[enc])
		}
	}), nil
}

// withoutUndeclared returns a copy of schema whose types, fields,
// arguments and enum values carry only the directives schema declares:
// build-time ones (the reference graph's and the filters', which the
// served schema does not declare) would make the document invalid to any
// tool that reads it.
func withoutUndeclared(schema *ast.Schema) *ast.Schema {
	keep := func(list ast.DirectiveList) ast.DirectiveList {
		var out ast.DirectiveList
		for _, d := range list {
			if _, declared := schema.Directives[d.Name]; declared {
				out = append(out, d)
			}
		}
		return out
	}
	s := *schema
	s.Types = make(map[string]*ast.Definition, len(schema.Types))
	for name, def := range schema.Types {
		d := *def
		d.Directives = keep(def.Directives)
		d.Fields = make(ast.FieldList, len(def.Fields))
		for i, fd := range def.Fields {
			f := *fd
			f.Directives = keep(fd.Directives)
			f.Arguments = make(ast.ArgumentDefinitionList, len(fd.Arguments))
			for j, ad := range fd.Arguments {
				a := *ad
				a.Directives = keep(ad.Directives)
				f.Arguments[j] = &a
			}
			d.Fields[i] = &f
		}
		d.EnumValues = make(ast.EnumValueList, len(def.EnumValues))
		for i, ev := range def.EnumValues {
			v := *ev
			v.Directives = keep(ev.Directives)
			d.EnumValues[i] = &v
		}
		s.Types[name] = &d
	}
	// The root operation types are read from Types by the printer, but
	// keep the schema's own pointers consistent with the copies.
	if schema.Query != nil {
		s.Query = s.Types[schema.Query.Name]
	}
	if schema.Mutation != nil {
		s.Mutation = s.Types[schema.Mutation.Name]
	}
	if schema.Subscription != nil {
		s.Subscription = s.Types[schema.Subscription.Name]
	}
	return &s
}
