package graphqlhttp

import (
	"unsafe"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"
	"github.com/catalogue-gateway/gateway/graphqlhttp/answers"
	"github.com/catalogue-gateway/gateway/internal/memory"
)

// hasHints reports whether any type or field of schema has a
// @cacheControl hint: without one, every answer has the default
// Cache-Control, and no operation is walked for it.
func hasHints(schema *ast.Schema) bool {
	for _, def := range schema.Types {
		if def.Directives.ForName("cacheControl") != nil {
			return true
		}
		for _, f := range def.Fields {
			if f.Directives.ForName("cacheControl") != nil {
				return true
			}
		}
	}
	return false
}

// hintKey names, in a document's memo, the Cache-Control of one of its
// operations: fixed for the document when no @skip or @include of it
// takes a variable.
type hintKey struct{ operation string }

// skipsByVariableKey names, in a document's memo, whether a @skip or
// @include of it takes a variable.
type skipsByVariableKey struct{}

// cacheControlOf is the Cache-Control of a complete GET answer to oc: the
// default, or what the schema's hints among the fields it reads make it,
// worked out once per document and operation where the fields read do
// not depend on the variables.
func (e *endpoint) cacheControlOf(oc *graphql.OperationContext) string {
	if !e.hinted {
		return e.cacheControl
	}
	memo := e.docs.ForOperation(oc)
	if memo != nil {
		skips, ok := memo.Load(skipsByVariableKey{})
		if !ok {
			skips = readsVariablesInSkip(oc.Doc)
			memo.Store(skipsByVariableKey{}, skips, 8)
		}
		if skips.(bool) {
			memo = nil
		}
	}
	key := hintKey{oc.OperationName}
	if memo != nil {
		if cc, ok := memo.Load(key); ok {
			return cc.(string)
		}
	}
	hint := answers.HintOf(oc, e.docs.Schema(), e.opts.MaxAge)
	cc := e.cacheControl
	if hint != (answers.Hint{MaxAge: e.opts.MaxAge}) {
		cc = hint.CacheControl(e.opts.StaleWhileRevalidate, e.opts.StaleIfError)
	}
	if memo != nil {
		memo.Store(key, cc, memory.HeapSize(int64(unsafe.Sizeof(key))+int64(len(key.operation)))+memory.HeapSize(int64(len(cc)))+16)
	}
	return cc
}

// readsVariablesInSkip reports whether a @skip or @include of the
// operation or of a fragment in doc takes a variable: then which fields
// an operation reads, and so its hint, depends on the request.
func readsVariablesInSkip(doc *ast.QueryDocument) bool {
	var walk func(ast.SelectionSet) bool
	directives := admission.SkipsByVariable
	walk = func(set ast.SelectionSet) bool {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				if directives(sel.Directives) || walk(sel.SelectionSet) {
					return true
				}
			case *ast.InlineFragment:
				if directives(sel.Directives) || walk(sel.SelectionSet) {
					return true
				}
			case *ast.FragmentSpread:
				if directives(sel.Directives) {
					return true
				}
			}
		}
		return false
	}
	for _, op := range doc.Operations {
		if walk(op.SelectionSet) {
			return true
		}
	}
	for _, f := range doc.Fragments {
		if walk(f.SelectionSet) {
			return true
		}
	}
	return false
}
