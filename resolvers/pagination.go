package resolvers

import (
	"context"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graph/model"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/loader"
)

// Page sizes: the contract's default and ceiling for first (and last),
// which the cost limit assumes too.
const (
	defaultPageSize = graphqlhttp.DefaultPageSize
	maxPageSize     = graphqlhttp.UnknownListLength
)

// pageArgs are a connection field's Relay arguments.
type pageArgs struct {
	first  *int
	after  *string
	last   *int
	before *string
}

// list answers a connection field: the records of collection c that q
// selects, cut to the page args asks for.
func list[T any](ctx context.Context, c catalogue.Collection, table func(*catalogue.Snapshot) *catalogue.Table[T],
	q catalogue.Query, args pageArgs) (*model.Connection[T], error) {
	for _, a := range [...]struct {
		name string
		n    *int
	}{{"first", args.first}, {"last", args.last}} {
		name, n := a.name, a.n
		if n != nil && *n < 0 {
			return nil, badInput("%s must not be negative", name)
		}
		if n != nil && *n > maxPageSize {
			return nil, badInput("%s may be at most %d; page through longer lists with after or before", name, maxPageSize)
		}
	}
	snap, err := loader.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	if snap == nil || snap.Part(c) == nil {
		return nil, unavailable(c)
	}
	t := table(snap)
	sel, err := snap.Index(c).Select(q)
	if err != nil {
		return nil, err
	}
	scope := newCursorScope(c, q)
	// locate finds where a cursor's record now stands in the list; if the
	// record is gone (a refresh removed it or it no longer matches), the
	// place it had stands in for it.
	locate := func(cursor string) (int, error) {
		id, place, err := scope.decode(cursor)
		if err != nil {
			return 0, err
		}
		if pos, ok := t.IndexOf(id); ok {
			if i, ok := sel.Find(pos); ok {
				return i, nil
			}
		}
		return min(place, sel.Len()), nil
	}

	n := sel.Len()
	start, end := 0, n
	if args.after != nil {
		i, err := locate(*args.after)
		if err != nil {
			return nil, err
		}
		start = min(i+1, n)
	}
	if args.before != nil {
		i, err := locate(*args.before)
		if err != nil {
			return nil, err
		}
		end = i
	}
	end = max(end, start)
	switch {
	case args.first != nil:
		end = min(end, start+*args.first)
		if args.last != nil {
			start = max(start, end-*args.last)
		}
	case args.last != nil:
		start = max(start, end-*args.last)
	default:
		end = min(end, start+defaultPageSize)
	}

	nodes := make([]*T, end-start)
	for i := range nodes {
		nodes[i] = t.At(sel.At(start + i))
	}
	cursor := func(i int) string { return scope.encode(t.IDAt(sel.At(start+i)), start+i) }
	info := model.NewPageInfo(start > 0, end < n, len(nodes), cursor)
	return model.NewConnection(n, nodes, info, cursor), nil
}
