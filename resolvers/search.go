package resolvers

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/graph/model"
	"github.com/catalogue-gateway/gateway/loader"
)

// defaultSearchSize is search's first when not given, as the schema says.
const defaultSearchSize = 10

// maxSearchSkip bounds where an after cursor may start a page: far beyond
// the catalogue's names, so it only refuses a forged place, and keeps a
// request's ranking to what a first of that size would cost.
const maxSearchSkip = 1 << 20

// search answers the search field: the best first records of the given
// kinds (every kind when none) whose names match text, after the result
// an after cursor names (see catalogue.Snapshot.SearchIn).
func search(ctx context.Context, text string, first *int, after *string, kinds []model.SearchKind) ([]*model.SearchResult, error) {
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
	var cs []catalogue.Collection
	for _, k := range kinds {
		c, ok := kindCollection(k)
		if !ok {
			return nil, badInput("unknown kind %s", quoteShort(string(k)))
		}
		if !slices.Contains(cs, c) {
			cs = append(cs, c)
		}
	}
	slices.Sort(cs)
	scope := searchScope(text, cs)
	skip := 0
	if after != nil {
		place, err := decodeSearchCursor(*after, scope)
		if err != nil {
			return nil, err
		}
		skip = place + 1
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
		if snap.Searched(c) && (len(cs) == 0 || slices.Contains(cs, c)) {
			loader.NoteKeys(ctx, catalogue.CollectionKey(c))
		}
	}
	hits := snap.SearchIn(text, cs, skip+size)
	hits = hits[min(skip, len(hits)):]
	out := make([]*model.SearchResult, len(hits))
	for i, h := range hits {
		out[i] = &model.SearchResult{Match: model.SearchMatch(h.Match.String()), Name: h.Name,
			Record: snap.Record(h.Collection, h.Position), Cursor: encodeSearchCursor(scope, skip+i)}
		if h.Suggestion != "" {
			out[i].Suggestion = &h.Suggestion
		}
	}
	return out, nil
}

// kindCollection is the collection of a SearchKind: its value is its
// record type's name in capitals, words split by underscores
// (SECRET_RARE for SecretRare).
func kindCollection(k model.SearchKind) (catalogue.Collection, bool) {
	var b strings.Builder
	for w := range strings.SplitSeq(strings.ToLower(string(k)), "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return catalogue.CollectionOfType(b.String())
}

// A search cursor names a result's place in the answer to one text (as
// the search reads it: trimmed, any case) and one set of kinds, with a
// checksum like a list's (see cursorScope), so that a cursor of another
// search is refused rather than read as a place in this one.
const searchCursorVersion = "s1"

func searchScope(text string, cs []catalogue.Collection) string {
	var b strings.Builder
	b.WriteString(strconv.Quote(strings.ToLower(strings.TrimSpace(text))))
	for _, c := range cs {
		b.WriteString(";" + c.String())
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:6])
}

func encodeSearchCursor(scope string, place int) string {
	payload := searchCursorVersion + "|" + scope + "|" + strconv.Itoa(place)
	return base64.RawURLEncoding.EncodeToString([]byte(payload + "|" + checksum(payload)))
}

func decodeSearchCursor(cursor, scope string) (int, error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	parts := strings.Split(string(raw), "|")
	if err != nil || len(parts) != 4 || parts[0] != searchCursorVersion {
		return 0, badInput("invalid cursor %s", quoteShort(cursor))
	}
	if checksum(strings.Join(parts[:3], "|")) != parts[3] {
		return 0, badInput("invalid cursor %s: it was altered", quoteShort(cursor))
	}
	if parts[1] != scope {
		return 0, badInput("the cursor was made for another search; page with the text and kinds it was made for")
	}
	place, err := strconv.Atoi(parts[2])
	if err != nil || place < 0 || place >= maxSearchSkip {
		return 0, badInput("invalid cursor %s", quoteShort(cursor))
	}
	return place, nil
}
