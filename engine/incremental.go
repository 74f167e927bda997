package engine

// An answer in parts, as the operation's @defer and @stream ask: the
// catalogue is in memory, so the whole answer is run and written as any
// other, then cut. The first payload holds every field but those selected
// only in deferred fragments, with each streamed list cut to its
// initialCount; each deferred fragment becomes a part holding its fields
// at its object's path, and each streamed list a part holding the rest
// of its items. Merged in order, the parts are the whole answer, which
// the Answer keeps too.

import (
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/vektah/gqlparser/v2/ast"
)

// deliversIncrementally reports whether a selection set, or a fragment it
// spreads, carries a @defer or @stream whose if is true for the
// operation's variables.
func deliversIncrementally(oc *graphql.OperationContext, set ast.SelectionSet, seen map[string]bool) bool {
	for _, sel := range set {
		switch sel := sel.(type) {
		case *ast.Field:
			if _, on := streamOf(sel.Directives, oc.Variables); on || deliversIncrementally(oc, sel.SelectionSet, seen) {
				return true
			}
		case *ast.InlineFragment:
			if _, on := deferOf(sel.Directives, oc.Variables); on || deliversIncrementally(oc, sel.SelectionSet, seen) {
				return true
			}
		case *ast.FragmentSpread:
			if _, on := deferOf(sel.Directives, oc.Variables); on {
				return true
			}
			if seen[sel.Name] {
				continue
			}
			seen[sel.Name] = true
			if def := oc.Doc.Fragments.ForName(sel.Name); def != nil && deliversIncrementally(oc, def.SelectionSet, seen) {
				return true
			}
		}
	}
	return false
}

// deferOf returns the label of an active @defer among directives, and
// whether there is one.
func deferOf(directives ast.DirectiveList, vars map[string]any) (label string, on bool) {
	d := directives.ForName("defer")
	if d == nil || !ifArgument(d, vars) {
		return "", false
	}
	return labelOf(d), true
}

// streamArgs are an active @stream's arguments.
type streamArgs struct {
	label        string
	initialCount int
}

// streamOf returns an active @stream's arguments among directives, and
// whether there is one. A negative initialCount, which validation refuses
// written in the document but a variable may bring, is taken as 0.
func streamOf(directives ast.DirectiveList, vars map[string]any) (streamArgs, bool) {
	d := directives.ForName("stream")
	if d == nil || !ifArgument(d, vars) {
		return streamArgs{}, false
	}
	s := streamArgs{label: labelOf(d)}
	if a := d.Arguments.ForName("initialCount"); a != nil && a.Value != nil {
		if v, err := a.Value.Value(vars); err == nil {
			if n, ok := execution.IntValue(v); ok && n > 0 {
				s.initialCount = int(n)
			}
		}
	}
	return s, true
}

// ifArgument is a @defer's or @stream's if: true when not given.
func ifArgument(d *ast.Directive, vars map[string]any) bool {
	a := d.Arguments.ForName("if")
	if a == nil || a.Value == nil {
		return true
	}
	v, err := a.Value.Value(vars)
	if err != nil {
		return true
	}
	on, ok := v.(bool)
	return !ok || on
}

// labelOf is a directive's label, which validation keeps a literal
// string.
func labelOf(d *ast.Directive) string {
	if a := d.Arguments.ForName("label"); a != nil && a.Value != nil && a.Value.Kind == ast.StringValue {
		return a.Value.Raw
	}
	return ""
}

// split cuts answer, the whole answer to oc, into the parts its @defer
// and @stream ask for; types are the object types of its unions' values
// by offset (runState.types). The first payload and the parts together
// may not be larger than maxBytes.
func split(oc *graphql.OperationContext, answer execution.Answer, types map[int]string, maxBytes int) (*execution.Incremental, error) {
	root := parseJSON(answer.Body)
	data := root.get("data")
	if data == nil || data.kind != '{' {
		// null: no object to deliver any part under.
		return &execution.Incremental{Body: answer.Body, Errors: answer.Errors}, nil
	}
	s := &splitter{oc: oc, body: answer.Body, types: types, errs: answer.Errors, cur: -1,
		written: map[*jsonNode]map[string]bool{}, listLen: map[*jsonNode]int{}}
	s.placeErrors(data)
	first := append([]byte(nil), `{"data":`...)
	first = s.object(first, data, []ast.SelectionSet{oc.Operation.SelectionSet}, "Query", "Query", nil)
	first = append(first, '}')
	out := &execution.Incremental{Body: first}
	size := len(first)
	for i := 0; i < len(s.records); i++ {
		// A copy: writing it may add records, and move them.
		r := s.records[i]
		s.cur = i
		var b []byte
		if r.part.Stream {
			b = append(b, '[')
			for j := r.part.Start; j < len(r.node.vals); j++ {
				if j > r.part.Start {
					b = append(b, ',')
				}
				b = s.value(b, r.node.vals[j], r.sets, r.static, nil, appendPath(r.part.Path, ast.PathIndex(j)))
			}
			b = append(b, ']')
		} else {
			b = s.object(b, r.node, r.sets, r.typ, r.static, r.part.Path)
		}
		s.records[i].part.Data = b
		if size += len(b); size > maxBytes {
			return nil, execution.ErrResponseTooLarge
		}
	}
	out.Parts = make([]execution.Part, len(s.records))
	for i := range s.records {
		out.Parts[i] = s.records[i].part
	}
	for i, owner := range s.owner {
		if owner < 0 {
			out.Errors = append(out.Errors, answer.Errors[i])
		} else {
			out.Parts[owner].Errors = append(out.Parts[owner].Errors, answer.Errors[i])
		}
	}
	return out, nil
}

// splitter cuts one answer.
type splitter struct {
	oc    *graphql.OperationContext
	body  []byte
	types map[int]string
	// records are the parts found so far, each with what writes it; cur
	// is the one being written (-1: the first payload).
	records []record
	cur     int
	// errs are the answer's errors; errAt, the indexes of those whose
	// null is written at a path (the path's key, see pathKey); owner,
	// the part that first writes each (-1: the first payload).
	errs  []execution.FieldError
	errAt map[string][]int
	owner []int
	// written notes the keys of each object some part wrote; listLen,
	// how many items of each list the first part that wrote it wrote.
	// What a part sends, the client has for the parts after it: a later
	// part leaves out the leaves sent already, and writes a list as long
	// as the client has it.
	written map[*jsonNode]map[string]bool
	listLen map[*jsonNode]int
}

// record is a part and what writes its data: a deferred fragment's
// object, with the fragment's selection (or the object of a list's item
// that a part selects more of than the list's first writer), or a
// streamed list, with the field's selections.
type record struct {
	part        execution.Part
	node        *jsonNode
	sets        []ast.SelectionSet
	typ, static string
}

// placeErrors finds where each error's null is written: at its path, or
// at the nearest ancestor a non-null field's null reached.
func (s *splitter) placeErrors(data *jsonNode) {
	s.owner = make([]int, len(s.errs))
	if len(s.errs) == 0 {
		return
	}
	s.errAt = map[string][]int{}
	for i, fe := range s.errs {
		s.owner[i] = -2 // not written yet
		n, depth := data, 0
		for _, el := range fe.Path {
			var next *jsonNode
			switch el := el.(type) {
			case ast.PathName:
				next = n.get(string(el))
			case ast.PathIndex:
				if n.kind == '[' && int(el) < len(n.vals) {
					next = n.vals[el]
				}
			}
			if next == nil {
				break
			}
			n, depth = next, depth+1
		}
		key := pathKey(fe.Path[:depth])
		s.errAt[key] = append(s.errAt[key], i)
	}
}

// noteErrors gives the part being written the errors whose null is at
// path, unless an earlier one wrote it.
func (s *splitter) noteErrors(path ast.Path) {
	if len(s.errAt) == 0 {
		return
	}
	for _, i := range s.errAt[pathKey(path)] {
		if s.owner[i] == -2 {
			s.owner[i] = s.cur
		}
	}
}

func pathKey(p ast.Path) string {
	var b strings.Builder
	for _, el := range p {
		switch el := el.(type) {
		case ast.PathName:
			b.WriteString(string(el))
		case ast.PathIndex:
			b.WriteString(strconv.Itoa(int(el)))
		}
		b.WriteByte('/')
	}
	return b.String()
}

// appendPath is path and el, in a slice of its own: parts keep theirs.
func appendPath(path ast.Path, el ast.PathElement) ast.Path {
	return append(path[:len(path):len(path)], el)
}

// collected is a response key's field, merged over the selections that
// select it.
type collected struct {
	key    string
	def    *ast.FieldDefinition
	sets   []ast.SelectionSet
	stream *streamArgs
}

// deferred is a fragment whose fields come in a part of their own.
type deferred struct {
	label string
	set   ast.SelectionSet
}

// collect gathers the fields sets select on an object of type typ, at a
// position of type static (a union, or typ itself), as CollectFields
// does, but for the fields of deferred fragments, which it returns apart.
func (s *splitter) collect(sets []ast.SelectionSet, typ, static string) ([]collected, []deferred) {
	var fields []collected
	var defers []deferred
	visited := map[string]bool{}
	vars := s.oc.Variables
	applies := func(cond string) bool { return cond == "" || cond == typ || cond == static }
	var walk func(set ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				if !included(sel.Directives, vars) {
					continue
				}
				i := 0
				for i < len(fields) && fields[i].key != sel.Alias {
					i++
				}
				if i == len(fields) {
					fields = append(fields, collected{key: sel.Alias, def: sel.Definition})
				}
				fields[i].sets = append(fields[i].sets, sel.SelectionSet)
				if a, on := streamOf(sel.Directives, vars); on && fields[i].stream == nil {
					fields[i].stream = &a
				}
			case *ast.InlineFragment:
				if !included(sel.Directives, vars) || !applies(sel.TypeCondition) {
					continue
				}
				if label, on := deferOf(sel.Directives, vars); on {
					defers = append(defers, deferred{label: label, set: sel.SelectionSet})
					continue
				}
				walk(sel.SelectionSet)
			case *ast.FragmentSpread:
				def := s.oc.Doc.Fragments.ForName(sel.Name)
				if def == nil || !included(sel.Directives, vars) || !applies(def.TypeCondition) {
					continue
				}
				if label, on := deferOf(sel.Directives, vars); on {
					defers = append(defers, deferred{label: label, set: def.SelectionSet})
					continue
				}
				if visited[sel.Name] {
					continue
				}
				visited[sel.Name] = true
				walk(def.SelectionSet)
			}
		}
	}
	for _, set := range sets {
		walk(set)
	}
	return fields, defers
}

// included applies @skip and @include, as CollectFields does.
func included(directives ast.DirectiveList, vars map[string]any) bool {
	for _, d := range directives {
		if d.Name != "skip" && d.Name != "include" {
			continue
		}
		a := d.Arguments.ForName("if")
		if a == nil {
			continue
		}
		v, _ := a.Value.Value(vars)
		if on, _ := v.(bool); on == (d.Name == "skip") {
			return false
		}
	}
	return true
}

// object writes the object n, of type typ at a position of type static,
// as sets select it in the part being written, leaving out the leaves an
// earlier part wrote; each deferred fragment applying to it becomes a
// part.
func (s *splitter) object(buf []byte, n *jsonNode, sets []ast.SelectionSet, typ, static string, path ast.Path) []byte {
	fields, defers := s.collect(sets, typ, static)
	for _, d := range defers {
		s.records = append(s.records, record{
			part: execution.Part{Parent: s.cur, Label: d.label, Path: path[:len(path):len(path)]},
			node: n, sets: []ast.SelectionSet{d.set}, typ: typ, static: static})
	}
	written := s.written[n]
	if written == nil {
		written = map[string]bool{}
		s.written[n] = written
	}
	buf = append(buf, '{')
	first := true
	for _, f := range fields {
		v := n.get(f.key)
		if v == nil || v.kind == 0 && written[f.key] {
			continue
		}
		written[f.key] = true
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = strconv.AppendQuote(buf, f.key)
		buf = append(buf, ':')
		fieldType := ""
		if f.def != nil {
			fieldType = f.def.Type.Name()
		}
		buf = s.value(buf, v, f.sets, fieldType, f.stream, appendPath(path, ast.PathName(f.key)))
	}
	return append(buf, '}')
}

// value writes the value n of a field of named type static, as sets
// select it; a streamed list (stream not nil) is cut to its initialCount,
// and the rest of its items become a part.
func (s *splitter) value(buf []byte, n *jsonNode, sets []ast.SelectionSet, static string, stream *streamArgs, path ast.Path) []byte {
	s.noteErrors(path)
	switch {
	case n.kind == '[':
		count := len(n.vals)
		if l, seen := s.listLen[n]; seen {
			// Written by an earlier part, and streamed from there: as
			// long as that part wrote it, and what this one selects of
			// each later item in a part of its own, after the stream's.
			count = l
			if hasSelections(sets) {
				for i := l; i < len(n.vals); i++ {
					if item := n.vals[i]; item.kind == '{' {
						typ := static
						if t, ok := s.types[item.start]; ok {
							typ = t
						}
						s.records = append(s.records, record{part: execution.Part{Parent: s.cur, Path: appendPath(path, ast.PathIndex(i))},
							node: item, sets: sets, typ: typ, static: static})
					}
				}
			}
		} else if stream != nil && stream.initialCount < count {
			count = stream.initialCount
			s.records = append(s.records, record{
				part: execution.Part{Parent: s.cur, Label: stream.label, Path: path[:len(path):len(path)], Stream: true, Start: count},
				node: n, sets: sets, static: static})
		}
		s.listLen[n] = count
		buf = append(buf, '[')
		for i := range count {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = s.value(buf, n.vals[i], sets, static, nil, appendPath(path, ast.PathIndex(i)))
		}
		return append(buf, ']')
	case n.kind == '{' && hasSelections(sets):
		typ := static
		if t, ok := s.types[n.start]; ok {
			typ = t
		}
		return s.object(buf, n, sets, typ, static, path)
	default:
		// A leaf (a JSON scalar's object too): its bytes as written.
		return append(buf, s.body[n.start:n.end]...)
	}
}

func hasSelections(sets []ast.SelectionSet) bool {
	for _, set := range sets {
		if len(set) > 0 {
			return true
		}
	}
	return false
}

// jsonNode is a value of a written answer: its bytes' span, and for an
// object or an array, what it holds.
type jsonNode struct {
	start, end int
	kind       byte // '{', '[', or 0 for anything else
	keys       []string
	vals       []*jsonNode
}

// get is an object's value under key; nil for none.
func (n *jsonNode) get(key string) *jsonNode {
	if n == nil || n.kind != '{' {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// parseJSON reads an answer the engine wrote: compact, valid JSON.
func parseJSON(b []byte) *jsonNode {
	p := jsonParser{b: b}
	return p.value()
}

type jsonParser struct {
	b   []byte
	pos int
}

func (p *jsonParser) value() *jsonNode {
	p.space()
	n := &jsonNode{start: p.pos}
	switch p.b[p.pos] {
	case '{':
		n.kind = '{'
		p.pos++
		for p.space(); p.b[p.pos] != '}'; p.space() {
			start := p.pos
			p.skipString()
			key := string(p.b[start+1 : p.pos-1])
			if strings.IndexByte(key, '\\') >= 0 {
				key, _ = strconv.Unquote(string(p.b[start:p.pos]))
			}
			p.space()
			p.pos++ // ':'
			n.keys = append(n.keys, key)
			n.vals = append(n.vals, p.value())
			p.space()
			if p.b[p.pos] == ',' {
				p.pos++
			}
		}
		p.pos++
	case '[':
		n.kind = '['
		p.pos++
		for p.space(); p.b[p.pos] != ']'; p.space() {
			n.vals = append(n.vals, p.value())
			p.space()
			if p.b[p.pos] == ',' {
				p.pos++
			}
		}
		p.pos++
	case '"':
		p.skipString()
	default:
		for p.pos < len(p.b) && !strings.ContainsRune(",}] \t\r\n", rune(p.b[p.pos])) {
			p.pos++
		}
	}
	n.end = p.pos
	return n
}

func (p *jsonParser) space() {
	for p.pos < len(p.b) && (p.b[p.pos] == ' ' || p.b[p.pos] == '\t' || p.b[p.pos] == '\r' || p.b[p.pos] == '\n') {
		p.pos++
	}
}

// skipString moves past the string that starts at p.pos.
func (p *jsonParser) skipString() {
	p.pos++
	for p.b[p.pos] != '"' {
		if p.b[p.pos] == '\\' {
			p.pos++
		}
		p.pos++
	}
	p.pos++
}
