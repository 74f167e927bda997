package answers

import (
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// Hint is how long an answer may be kept without asking again, and by
// whom: the schema's @cacheControl hints, as Apollo Server reads them.
type Hint struct {
	// MaxAge is the answer's max-age; 0 keeps it only to revalidate.
	MaxAge time.Duration
	// Private keeps it in the asker's own cache (a browser's), never in
	// a shared one (a CDN's).
	Private bool
}

// cacheControl is the directive that declares a hint on a type or field:
//
//	directive @cacheControl(maxAge: Int, scope: CacheControlScope) on FIELD_DEFINITION | OBJECT | INTERFACE | UNION
const cacheControl = "cacheControl"

// HintOf is the most restrictive hint among the fields oc's operation
// reads, @skip and @include applied: the least max-age, and private if
// any field is. A field's hint is its own @cacheControl, else that of the
// type it returns; a field with neither takes defaultAge if it returns an
// object (or is a root field), and its parent's max-age if it returns a
// scalar or an enum, as Apollo Server's cache control does. A union's or
// interface's selection is hinted by each type it may be.
func HintOf(oc *graphql.OperationContext, schema *ast.Schema, defaultAge time.Duration) Hint {
	w := hintWalk{oc: oc, schema: schema, def: defaultAge, hint: Hint{MaxAge: defaultAge}}
	root := schema.Query
	switch oc.Operation.Operation {
	case ast.Mutation:
		root = schema.Mutation
	case ast.Subscription:
		root = schema.Subscription
	}
	if root != nil {
		w.selection(oc.Operation.SelectionSet, root, defaultAge)
	}
	return w.hint
}

type hintWalk struct {
	oc     *graphql.OperationContext
	schema *ast.Schema
	def    time.Duration
	hint   Hint
}

func (w *hintWalk) selection(set ast.SelectionSet, on *ast.Definition, parentAge time.Duration) {
	types := []*ast.Definition{on}
	if on.IsAbstractType() {
		types = w.schema.GetPossibleTypes(on)
	}
	for _, t := range types {
		for _, f := range graphql.CollectFields(w.oc, set, []string{t.Name}) {
			w.field(f, t, parentAge)
		}
	}
}

func (w *hintWalk) field(f graphql.CollectedField, parent *ast.Definition, parentAge time.Duration) {
	fd := parent.Fields.ForName(f.Name)
	if fd == nil {
		return // __typename, or introspection: described by the schema alone
	}
	ret := w.schema.Types[fd.Type.Name()]
	age, private, hinted := readHint(fd.Directives)
	if !hinted && ret != nil {
		age, private, hinted = readHint(ret.Directives)
	}
	composite := ret != nil && (ret.Kind == ast.Object || ret.Kind == ast.Interface || ret.Kind == ast.Union)
	switch {
	case hinted && age < 0: // scope alone: the age is inherited or defaulted
		age = parentAge
		if composite {
			age = w.def
		}
	case !hinted && composite:
		age = w.def
	case !hinted:
		age = parentAge
	}
	w.hint.MaxAge = min(w.hint.MaxAge, age)
	w.hint.Private = w.hint.Private || private
	if composite && len(f.Selections) > 0 {
		w.selection(f.Selections, ret, age)
	}
}

// HintOfType is the hint of an answer that reads records of type def
// alone (a REST body of its collection): def's own, with defaultAge for
// what it does not say.
func HintOfType(def *ast.Definition, defaultAge time.Duration) Hint {
	age, private, ok := readHint(def.Directives)
	if !ok || age < 0 {
		age = defaultAge
	}
	return Hint{MaxAge: age, Private: private}
}

// readHint reads a @cacheControl among ds: its max-age (-1 when it gives
// none) and scope, and whether there is one.
func readHint(ds ast.DirectiveList) (age time.Duration, private, ok bool) {
	d := ds.ForName(cacheControl)
	if d == nil {
		return 0, false, false
	}
	age = -1
	if a := d.Arguments.ForName("maxAge"); a != nil && a.Value != nil {
		if n, err := strconv.Atoi(a.Value.Raw); err == nil && n >= 0 {
			age = time.Duration(n) * time.Second
		}
	}
	if a := d.Arguments.ForName("scope"); a != nil && a.Value != nil {
		private = strings.EqualFold(a.Value.Raw, "PRIVATE")
	}
	return age, private, true
}

// CacheControl is the Cache-Control of a complete GET answer with hint h:
// a shared cache may keep a public one for its max-age, then serve it
// while it asks again for as long as staleWhileRevalidate, or while the
// gateway fails for as long as staleIfError (RFC 5861); a private one
// only the asker may keep. A max-age of 0 asks every cache to revalidate.
func (h Hint) CacheControl(staleWhileRevalidate, staleIfError time.Duration) string {
	switch {
	case h.Private && h.MaxAge <= 0:
		return "private, no-cache"
	case h.Private:
		return "private, max-age=" + seconds(h.MaxAge)
	case h.MaxAge <= 0:
		return "no-cache"
	}
	cc := "public, max-age=" + seconds(h.MaxAge)
	if staleWhileRevalidate > 0 {
		cc += ", stale-while-revalidate=" + seconds(staleWhileRevalidate)
	}
	if staleIfError > 0 {
		cc += ", stale-if-error=" + seconds(staleIfError)
	}
	return cc
}

func seconds(d time.Duration) string { return strconv.Itoa(int(d / time.Second)) }
