package documents

import (
	"unsafe"

	"github.com/catalogue-gateway/gateway/internal/memory"
	"github.com/vektah/gqlparser/v2/ast"
)

// parseSize estimates the heap a parsed query document keeps, its text
// aside: every node gqlparser allocates (each with its own Position), the
// slices that list them, rounded up as the allocator rounds them. Names
// and other tokens are substrings of the text, so they cost nothing more;
// strings with escapes are copies and are counted. Fragments are walked
// once, where they are defined, so the walk costs no more than the parse.
// Validation only points nodes at the schema's definitions, which the
// schema holds anyway.
//
// A parse weighs 30-100 times its text: a 10 KB query of 1,000 one-token
// fields is about 1 MB. TestParseSizeTracksTheHeap checks the estimate
// against the heap's growth for many documents.
func parseSize(doc *ast.QueryDocument) int64 {
	if doc == nil {
		return 0
	}
	var w astWalker
	w.n += memory.HeapSize(int64(unsafe.Sizeof(*doc))) + w.position(doc.Position) + w.comments(doc.Comment)
	w.n += w.slice(cap(doc.Operations), ptrSize)
	for _, op := range doc.Operations {
		w.n += memory.HeapSize(int64(unsafe.Sizeof(*op))) + w.position(op.Position) + w.comments(op.Comment)
		w.variables(op.VariableDefinitions)
		w.directives(op.Directives)
		w.selections(op.SelectionSet)
	}
	w.n += w.slice(cap(doc.Fragments), ptrSize)
	for _, f := range doc.Fragments {
		w.n += memory.HeapSize(int64(unsafe.Sizeof(*f))) + w.position(f.Position) + w.comments(f.Comment)
		w.variables(f.VariableDefinition)
		w.directives(f.Directives)
		w.selections(f.SelectionSet)
	}
	return w.n
}

const (
	ptrSize   = int64(unsafe.Sizeof(uintptr(0)))
	ifaceSize = 2 * ptrSize
)

var (
	positionSize = memory.HeapSize(int64(unsafe.Sizeof(ast.Position{})))
	fieldSize    = memory.HeapSize(int64(unsafe.Sizeof(ast.Field{})))
	spreadSize   = memory.HeapSize(int64(unsafe.Sizeof(ast.FragmentSpread{})))
	inlineSize   = memory.HeapSize(int64(unsafe.Sizeof(ast.InlineFragment{})))
	argumentSize = memory.HeapSize(int64(unsafe.Sizeof(ast.Argument{})))
	directiveSz  = memory.HeapSize(int64(unsafe.Sizeof(ast.Directive{})))
	valueSize    = memory.HeapSize(int64(unsafe.Sizeof(ast.Value{})))
	childSize    = memory.HeapSize(int64(unsafe.Sizeof(ast.ChildValue{})))
	typeSize     = memory.HeapSize(int64(unsafe.Sizeof(ast.Type{})))
	variableSize = memory.HeapSize(int64(unsafe.Sizeof(ast.VariableDefinition{})))
	commentSize  = memory.HeapSize(int64(unsafe.Sizeof(ast.Comment{})))
	groupSize    = memory.HeapSize(int64(unsafe.Sizeof(ast.CommentGroup{})))
)

type astWalker struct{ n int64 }

func (astWalker) slice(capacity int, elem int64) int64 {
	return memory.HeapSize(int64(capacity) * elem)
}

func (astWalker) position(p *ast.Position) int64 {
	if p == nil {
		return 0
	}
	return positionSize
}

func (w astWalker) comments(g *ast.CommentGroup) int64 {
	if g == nil {
		return 0
	}
	return groupSize + w.slice(cap(g.List), ptrSize) + int64(len(g.List))*(commentSize+positionSize)
}

func (w *astWalker) selections(set ast.SelectionSet) {
	w.n += w.slice(cap(set), ifaceSize)
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			w.n += fieldSize + w.position(s.Position) + w.comments(s.Comment)
			w.arguments(s.Arguments)
			w.directives(s.Directives)
			w.selections(s.SelectionSet)
		case *ast.FragmentSpread:
			w.n += spreadSize + w.position(s.Position) + w.comments(s.Comment)
			w.directives(s.Directives)
		case *ast.InlineFragment:
			w.n += inlineSize + w.position(s.Position) + w.comments(s.Comment)
			w.directives(s.Directives)
			w.selections(s.SelectionSet)
		}
	}
}

func (w *astWalker) arguments(args ast.ArgumentList) {
	w.n += w.slice(cap(args), ptrSize)
	for _, a := range args {
		w.n += argumentSize + w.position(a.Position) + w.comments(a.Comment)
		w.value(a.Value)
	}
}

func (w *astWalker) directives(list ast.DirectiveList) {
	w.n += w.slice(cap(list), ptrSize)
	for _, d := range list {
		w.n += directiveSz + w.position(d.Position)
		w.arguments(d.Arguments)
	}
}

func (w *astWalker) variables(list ast.VariableDefinitionList) {
	w.n += w.slice(cap(list), ptrSize)
	for _, v := range list {
		w.n += variableSize + w.position(v.Position) + w.comments(v.Comment)
		w.typ(v.Type)
		w.value(v.DefaultValue)
		w.directives(v.Directives)
	}
}

func (w *astWalker) typ(t *ast.Type) {
	for ; t != nil; t = t.Elem {
		w.n += typeSize + w.position(t.Position)
	}
}

func (w *astWalker) value(v *ast.Value) {
	if v == nil {
		return
	}
	w.n += valueSize + w.position(v.Position) + w.comments(v.Comment)
	if v.Kind == ast.StringValue || v.Kind == ast.BlockValue {
		// Unescaped, so a copy of the text's bytes.
		w.n += memory.HeapSize(int64(len(v.Raw)))
	}
	w.n += w.slice(cap(v.Children), ptrSize)
	for _, c := range v.Children {
		w.n += childSize + w.position(c.Position) + w.comments(c.Comment)
		w.value(c.Value)
	}
}
