package graphqlhttp

// Incremental delivery: an answer the Executor cut into parts, as the
// operation's @defer and @stream ask (execution.Incremental), written in
// the format and over the transport the client asked for: multipart/mixed
// (POST and GET), an event stream, or a WebSocket's next messages. A
// client that takes only JSON gets the whole answer, and so does every
// client when gqlgen's executor answers (withoutDefer).

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/catalogue-gateway/gateway/graphqlhttp/documents"
	"github.com/catalogue-gateway/gateway/internal/execution"
)

// delivery is how a client asked for an answer in parts.
type delivery uint8

const (
	// wholeAnswer: one JSON answer, parts merged.
	wholeAnswer delivery = iota
	// multipartDefer20220824 and multipartIncrementalV02 are
	// multipart/mixed, in the deferSpec=20220824 format (Apollo's, the
	// default) or graphql-js 17's incrementalSpec=v0.2.
	multipartDefer20220824
	multipartIncrementalV02
	// eventStream and eventStreamV02: each payload an event stream's
	// next event, in the 20220824 format unless the Accept asks for the
	// newer (text/event-stream;incrementalSpec=v0.2).
	eventStream
	eventStreamV02
)

// newer reports a delivery in the incrementalSpec=v0.2 format.
func (d delivery) newer() bool { return d == multipartIncrementalV02 || d == eventStreamV02 }

// events reports a delivery as an event stream.
func (d delivery) events() bool { return d == eventStream || d == eventStreamV02 }

// The multipart/mixed parameters that name a format.
const (
	deferSpec20220824   = "deferSpec=20220824"
	incrementalSpecV02  = "incrementalSpec=v0.2"
	multipartBoundary   = "-"
	multipartPartHeader = "Content-Type: application/json; charset=utf-8\r\n\r\n"
)

// deliveryOf is the delivery an Accept header asks for: multipart/mixed,
// when it names it (in the newer format only when it asks for it by its
// incrementalSpec parameter), before an event stream, before JSON.
func deliveryOf(accept string) delivery {
	// Most requests name neither type, and parsing each media type costs
	// a map: a first look, with no allocation for a lower-case header.
	if lower := strings.ToLower(accept); !strings.Contains(lower, "multipart/mixed") && !strings.Contains(lower, "text/event-stream") {
		return wholeAnswer
	}
	stream := wholeAnswer
	for part := range strings.SplitSeq(accept, ",") {
		mediaType, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mediaType {
		case "multipart/mixed":
			if params["incrementalspec"] == "v0.2" {
				return multipartIncrementalV02
			}
			return multipartDefer20220824
		case "text/event-stream":
			if stream == wholeAnswer {
				stream = eventStream
			}
			if params["incrementalspec"] == "v0.2" {
				stream = eventStreamV02
			}
		}
	}
	return stream
}

// inParts reports whether req may be answered in parts: its client asks
// for them, and takes nothing else or sends a document with @defer or
// @stream. Such an answer is never cached.
func (e *endpoint) inParts(r *http.Request, req *request) bool {
	if req.delivery == wholeAnswer {
		return false
	}
	if !acceptsJSON(r.Header.Get("Accept")) {
		return true
	}
	return req.query != "" && e.docs.Lookup(req.query).InParts
}

// withoutDefer is oc for gqlgen's executor: its operation and fragments
// copied without @defer, which gqlgen's generated code would answer in
// parts of its own format (and only its first part, where the endpoint
// reads one response). gqlgen ignores @stream. The document itself is
// shared, and read only: what changes is copied.
func withoutDefer(oc *graphql.OperationContext) *graphql.OperationContext {
	if !documents.HasDeferOrStream(oc.Doc) {
		return oc
	}
	drop := func(list ast.DirectiveList) ast.DirectiveList {
		if list.ForName("defer") == nil {
			return list
		}
		out := make(ast.DirectiveList, 0, len(list)-1)
		for _, d := range list {
			if d.Name != "defer" {
				out = append(out, d)
			}
		}
		return out
	}
	var copySet func(set ast.SelectionSet) ast.SelectionSet
	copySet = func(set ast.SelectionSet) ast.SelectionSet {
		if set == nil {
			return nil
		}
		out := make(ast.SelectionSet, len(set))
		for i, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				f := *sel
				f.SelectionSet = copySet(sel.SelectionSet)
				out[i] = &f
			case *ast.InlineFragment:
				f := *sel
				f.Directives = drop(sel.Directives)
				f.SelectionSet = copySet(sel.SelectionSet)
				out[i] = &f
			case *ast.FragmentSpread:
				f := *sel
				f.Directives = drop(sel.Directives)
				out[i] = &f
			default:
				out[i] = sel
			}
		}
		return out
	}
	doc := &ast.QueryDocument{Position: oc.Doc.Position, Comment: oc.Doc.Comment}
	var op *ast.OperationDefinition
	for _, o := range oc.Doc.Operations {
		c := *o
		c.SelectionSet = copySet(o.SelectionSet)
		doc.Operations = append(doc.Operations, &c)
		if o == oc.Operation {
			op = &c
		}
	}
	for _, f := range oc.Doc.Fragments {
		c := *f
		c.SelectionSet = copySet(f.SelectionSet)
		doc.Fragments = append(doc.Fragments, &c)
	}
	return &graphql.OperationContext{
		RawQuery:               oc.RawQuery,
		Variables:              oc.Variables,
		OperationName:          oc.OperationName,
		Doc:                    doc,
		Extensions:             oc.Extensions,
		Headers:                oc.Headers,
		Operation:              op,
		DisableIntrospection:   oc.DisableIntrospection,
		RecoverFunc:            oc.RecoverFunc,
		ResolverMiddleware:     oc.ResolverMiddleware,
		RootResolverMiddleware: oc.RootResolverMiddleware,
		Stats:                  oc.Stats,
	}
}

// payloads are an answer in parts as the JSON payloads a format sends, in
// order; ctx is the request's, for its id in the errors.
func (e *endpoint) payloads(ctx context.Context, inc *execution.Incremental, format delivery) [][]byte {
	out := make([][]byte, 0, len(inc.Parts)+1)
	last := len(inc.Parts) - 1
	hasNext := func(b []byte, next bool) []byte {
		return append(strconv.AppendBool(append(b, `,"hasNext":`...), next), '}')
	}
	// The newer format announces each part with its parent: children
	// lists them, by their parent's index plus one (0: the first payload).
	var children [][]int
	if format.newer() {
		children = make([][]int, len(inc.Parts)+1)
		for i, p := range inc.Parts {
			children[p.Parent+1] = append(children[p.Parent+1], i)
		}
	}
	// MaxErrors holds for the answer: the parts' errors are capped by
	// what the first payload's left.
	budget := max(e.opts.MaxErrors-len(inc.Errors), 0)
	whole := e.withErrors(ctx, execution.Answer{Body: inc.Body, Errors: inc.Errors})
	first := append([]byte(nil), whole[:len(whole)-1]...) // without its }
	if format.newer() {
		first = pending(first, inc, children[0])
	}
	out = append(out, hasNext(first, last >= 0))
	for i, p := range inc.Parts {
		// The entry's members: the newer format names the part by its
		// pending id, the older by its path (a stream's, with the index
		// of its first item) and label.
		var entry [][]byte
		if format.newer() {
			entry = append(entry, strconv.AppendQuote([]byte(`"id":`), strconv.Itoa(i)))
		}
		if p.Stream {
			entry = append(entry, append([]byte(`"items":`), p.Data...))
		} else {
			entry = append(entry, append([]byte(`"data":`), p.Data...))
		}
		if !format.newer() {
			path := p.Path
			if p.Stream {
				path = append(path[:len(path):len(path)], ast.PathIndex(p.Start))
			}
			entry = append(entry, append([]byte(`"path":`), marshal(pathOrEmpty(path))...))
			if p.Label != "" {
				entry = append(entry, append([]byte(`"label":`), marshal(p.Label)...))
			}
		}
		if len(p.Errors) > 0 {
			entry = append(entry, append([]byte(`"errors":`), marshal(e.partErrors(ctx, p.Errors, &budget))...))
		}
		b := append([]byte(`{"incremental":[{`), bytes.Join(entry, []byte{','})...)
		b = append(b, "}]"...)
		if format.newer() {
			b = pending(b, inc, children[i+1])
			b = strconv.AppendQuote(append(b, `,"completed":[{"id":`...), strconv.Itoa(i))
			b = append(b, "}]"...)
		}
		out = append(out, hasNext(b, i < last))
	}
	return out
}

// partErrors are a part's errors, presented, at most *budget of them, and
// a last one saying how many were left out; *budget is reduced by those
// given.
func (e *endpoint) partErrors(ctx context.Context, errs []execution.FieldError, budget *int) gqlerror.List {
	given := min(len(errs), *budget)
	*budget -= given
	out := make(gqlerror.List, 0, given+1)
	for _, fe := range errs[:given] {
		out = append(out, e.presentErrorAt(ctx, fe.Path, fe.Err))
	}
	if left := len(errs) - given; left > 0 {
		out = append(out, &gqlerror.Error{Message: fmt.Sprintf("%d more errors left out", left),
			Extensions: map[string]any{"code": CodeTooManyErrors}})
	}
	return out
}

// pending appends the newer format's pending entries of the parts ids.
func pending(b []byte, inc *execution.Incremental, ids []int) []byte {
	if len(ids) == 0 {
		return b
	}
	b = append(b, `,"pending":[`...)
	for n, i := range ids {
		if n > 0 {
			b = append(b, ',')
		}
		p := inc.Parts[i]
		b = append(b, `{"id":`...)
		b = strconv.AppendQuote(b, strconv.Itoa(i))
		b = append(b, `,"path":`...)
		b = append(b, marshal(pathOrEmpty(p.Path))...)
		if p.Label != "" {
			b = append(b, `,"label":`...)
			b = append(b, marshal(p.Label)...)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// pathOrEmpty is p, written [] rather than null when it is the root's.
func pathOrEmpty(p ast.Path) ast.Path {
	if p == nil {
		return ast.Path{}
	}
	return p
}

// writeIncremental writes an answer in parts as multipart/mixed or an
// event stream, flushing each part as it goes, and returns the bytes
// written. Each part must be taken within the WebSocket's write timeout,
// and all of them within the request's time budget: a client that stops
// reading, or reads too slowly, is cut off, as a WebSocket's is.
func (e *endpoint) writeIncremental(w http.ResponseWriter, r *http.Request, payloads [][]byte, format delivery) int {
	h := w.Header()
	h.Add("Vary", "Accept")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	switch {
	case format.events():
		h.Set("Content-Type", "text/event-stream")
	case format.newer():
		h.Set("Content-Type", `multipart/mixed; boundary="`+multipartBoundary+`"; `+incrementalSpecV02)
	default:
		h.Set("Content-Type", `multipart/mixed; boundary="`+multipartBoundary+`"; `+deferSpec20220824)
	}
	rc := http.NewResponseController(w)
	w.WriteHeader(http.StatusOK)
	var buf bytes.Buffer
	n := 0
	end := time.Now().Add(e.opts.RequestTimeout)
	send := func() bool {
		deadline := time.Now().Add(e.opts.WebSocketWriteTimeout)
		if deadline.After(end) {
			deadline = end
		}
		rc.SetWriteDeadline(deadline)
		m, err := w.Write(buf.Bytes())
		n += m
		buf.Reset()
		if err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if format.events() {
		for _, p := range payloads {
			buf.WriteString("event: next\ndata: ")
			buf.Write(p)
			buf.WriteString("\n\n")
			if !send() {
				return n
			}
		}
		buf.WriteString("event: complete\n\n")
		send()
		return n
	}
	// As graphql-helix and Apollo Router write it: a delimiter before
	// each part, and the close delimiter after the last.
	buf.WriteString("\r\n--" + multipartBoundary)
	for _, p := range payloads {
		buf.WriteString("\r\n" + multipartPartHeader)
		buf.Write(p)
		buf.WriteString("\r\n--" + multipartBoundary)
		if !send() {
			return n
		}
	}
	buf.WriteString("--\r\n")
	send()
	return n
}
