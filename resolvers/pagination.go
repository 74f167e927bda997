package resolvers

import (
	"context"
	"sync"

	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graph/model"
	"github.com/catalogue-gateway/gateway/loader"
)

// Page sizes: the contract's default and ceiling for first (and last),
// which the cost limit assumes too.
const (
	defaultPageSize = admission.DefaultPageSize
	maxPageSize     = admission.UnknownListLength
)

// pageArgs are a connection field's Relay arguments.
type pageArgs struct {
	first  *int
	after  *string
	last   *int
	before *string
}

// list answers a connection field: the records of collection c that q
// selects, cut to the page args asks for, with facets counted if asked.
func list[T any](ctx context.Context, c catalogue.Collection, table func(*catalogue.Snapshot) *catalogue.Table[T],
	q catalogue.Query, facets []catalogue.FacetField, args pageArgs) (*model.Connection[T], error) {
	if err := args.check(); err != nil {
		return nil, err
	}
	snap, err := loader.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	if snap == nil || snap.Part(c) == nil {
		return nil, unavailable(c)
	}
	// A page, a filter, an order, facets: any change in the collection
	// can change them.
	loader.NoteKeys(ctx, catalogue.CollectionKey(c))
	t := table(snap)
	sel, err := snap.Index(c).Select(q)
	if err != nil {
		return nil, err
	}
	// The scope's digest is made when a cursor is read or written: most
	// pages ask for neither, and it cost a filtered page 4 us.
	scope := sync.OnceValue(func() cursorScope { return newCursorScope(c, q) })
	// locate finds where a cursor's record now stands in the list; if the
	// record is gone (a refresh removed it or it no longer matches), the
	// place it had stands in for it.
	locate := func(cursor string) (int, error) {
		id, place, err := scope().decode(cursor)
		if err != nil {
			return 0, err
		}
		if pos, ok := t.IndexOf(id); ok {
			if i, ok := sel.Find(pos); ok {
				return i, nil
			}
		}
		return sel.Clip(place), nil
	}

	start, end, hasNext, err := args.bounds(sel, locate)
	if err != nil {
		return nil, err
	}

	nodes := make([]*T, end-start)
	positions := make([]int32, end-start)
	for i := range nodes {
		p := sel.At(start + i)
		nodes[i], positions[i] = t.At(p), int32(p)
	}
	cursor := func(i int) string { return scope().encode(t.IDAt(int(positions[i])), start+i) }
	info := model.NewPageInfo(start > 0, hasNext, len(nodes), cursor)
	ix := snap.Index(c)
	if err := ix.CheckFacets(facets); err != nil {
		return nil, err
	}
	return model.NewConnection(sync.OnceValue(sel.Len), nodes, info, cursor).
		WithFacets(func() []catalogue.Facet { return ix.Facets(q, facets) }), nil
}

// check refuses a page size that is negative or over the largest page.
func (args pageArgs) check() error {
	for _, a := range [...]struct {
		name string
		n    *int
	}{{"first", args.first}, {"last", args.last}} {
		if a.n != nil && *a.n < 0 {
			return badInput("%s must not be negative", a.name)
		}
		if a.n != nil && *a.n > maxPageSize {
			return badInput("%s may be at most %d; page through longer lists with after or before", a.name, maxPageSize)
		}
	}
	return nil
}

// bounds returns the page of sel that args ask for, as places [start,
// end), and whether a record follows it; locate finds a cursor's place.
func (args pageArgs) bounds(sel catalogue.Selection, locate func(cursor string) (int, error)) (start, end int, hasNext bool, err error) {
	// Paging forwards, as most callers do, needs the selection only up to
	// the record after the page: a filtered list tests no further, and
	// counts the rest only if totalCount is asked for.
	if args.last == nil && args.before == nil {
		if args.after != nil {
			i, err := locate(*args.after)
			if err != nil {
				return 0, 0, false, err
			}
			start = sel.Clip(i + 1)
		}
		size := defaultPageSize
		if args.first != nil {
			size = *args.first
		}
		end = sel.Clip(start + size)
		return start, end, sel.Clip(end+1) > end, nil
	}
	n := sel.Len()
	end = n
	if args.after != nil {
		i, err := locate(*args.after)
		if err != nil {
			return 0, 0, false, err
		}
		start = min(i+1, n)
	}
	if args.before != nil {
		i, err := locate(*args.before)
		if err != nil {
			return 0, 0, false, err
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
	}
	return start, end, end < n, nil
}
