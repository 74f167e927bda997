package documents

import (
	"strconv"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator/core"
)

// incrementalDelivery is the incremental delivery proposal's validation
// of @defer and @stream, which gqlparser does not know: @stream only on a
// list field, a literal initialCount of at least 0, each label a literal
// string used once in the document, and neither directive in a
// subscription unless its if is false or a variable (graphql-js's
// DeferStreamDirectiveOnValidOperationsRule: a subscription's events are
// one payload each).
func incrementalDelivery() core.Rule {
	return core.Rule{Name: "IncrementalDelivery", RuleFunc: func(observers *core.Events, addError core.AddErrFunc) {
		// A fragment's directives are walked once for each operation
		// that spreads it and once more on their own: a label is a
		// duplicate only on another directive.
		labels := map[string]*ast.Directive{}
		observers.OnField(func(_ *core.Walker, f *ast.Field) {
			d := f.Directives.ForName("stream")
			if d == nil || f.Definition == nil || f.Definition.Type.Elem != nil {
				return
			}
			addError(core.Message(`Directive "@stream" cannot be used on the non-list field %s.`, strconv.Quote(f.Name)), core.At(d.Position))
		})
		observers.OnDirective(func(w *core.Walker, d *ast.Directive) {
			if d.Name != "defer" && d.Name != "stream" {
				return
			}
			if label := d.Arguments.ForName("label"); label != nil && label.Value != nil {
				switch {
				case label.Value.Kind != ast.StringValue:
					addError(core.Message(`Argument "label" of "@%s" must be a static string.`, d.Name), core.At(label.Position))
				case labels[label.Value.Raw] == nil:
					labels[label.Value.Raw] = d
				case labels[label.Value.Raw] != d:
					addError(core.Message(`The label %s of "@%s" is used twice; each label must be unique.`, strconv.Quote(label.Value.Raw), d.Name), core.At(label.Position))
				}
			}
			if n := d.Arguments.ForName("initialCount"); n != nil && n.Value != nil && n.Value.Kind == ast.IntValue {
				if v, err := strconv.ParseInt(n.Value.Raw, 10, 64); err == nil && v < 0 {
					addError(core.Message(`Argument "initialCount" of "@stream" must be 0 or more.`), core.At(n.Position))
				}
			}
			if op := w.CurrentOperation; op != nil && op.Operation == ast.Subscription {
				if cond := d.Arguments.ForName("if"); cond == nil || cond.Value == nil ||
					cond.Value.Kind != ast.Variable && cond.Value.Raw != "false" {
					addError(core.Message(`"@%s" is not allowed in a subscription; disable it with "if: false".`, d.Name), core.At(d.Position))
				}
			}
		})
	}}
}

// HasDeferOrStream reports whether a document carries @defer or @stream
// anywhere: an operation to be delivered in parts, if its directives'
// if allow, and that gqlgen must run without them.
func HasDeferOrStream(doc *ast.QueryDocument) bool {
	if doc == nil {
		return false
	}
	var in func(set ast.SelectionSet) bool
	in = func(set ast.SelectionSet) bool {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				if sel.Directives.ForName("stream") != nil || in(sel.SelectionSet) {
					return true
				}
			case *ast.InlineFragment:
				if sel.Directives.ForName("defer") != nil || in(sel.SelectionSet) {
					return true
				}
			case *ast.FragmentSpread:
				if sel.Directives.ForName("defer") != nil {
					return true
				}
			}
		}
		return false
	}
	for _, op := range doc.Operations {
		if in(op.SelectionSet) {
			return true
		}
	}
	for _, f := range doc.Fragments {
		if in(f.SelectionSet) {
			return true
		}
	}
	return false
}
