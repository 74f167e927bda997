package resolvers

import (
	"context"
	"unicode/utf8"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graph/model"
	"github.com/catalogue-gateway/gateway/loader"
)

// defaultSearchSize is search's first when not given, as the schema says.
const defaultSearchSize = 10

// search answers the search field: the best first records of every
// kind whose names match text (see catalogue.Snapshot.Search).
func search(ctx context.Context, text string, first *int) ([]*model.SearchResult, error) {
	size := defaultSearchSize
	if first != nil {
		size = *first
	}
	switch {
	case size < 0:
		return nil, badInput("first must not be negative")
	case size > maxPageSize:
		return nil, badInput("first may be at most %d", maxPageSize)
	case len(text) > catalogue.MaxSearchText:
		return nil, badInput("text may be at most %d bytes; names are shorter", catalogue.MaxSearchText)
	case !utf8.ValidString(text):
		return nil, badInput("text must be UTF-8")
	}
	snap, err := loader.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	if snap == nil {
		return nil, unavailable(catalogue.Items)
	}
	// Every collection searched: a name added anywhere can change the
	// hits.
	for c := range catalogue.NumCollections {
		if snap.Searched(c) {
			loader.NoteKeys(ctx, catalogue.CollectionKey(c))
		}
	}
	hits := snap.Search(text, size)
	out := make([]*model.SearchResult, len(hits))
	for i, h := range hits {
		out[i] = &model.SearchResult{Match: model.SearchMatch(h.Match.String()), Name: h.Name, Record: snap.Record(h.Collection, h.Position)}
	}
	return out, nil
}
