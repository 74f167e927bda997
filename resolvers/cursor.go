package resolvers

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// cursorScope is what a cursor is valid for: one collection, one ordering
// and one filter. Cursors carry it, so a cursor used on another list is
// refused rather than silently misread.
//
// A cursor names a record by id and by its place in the list. It depends
// only on the data and the query, never on the process, so every replica
// behind a load balancer accepts every other's cursors. A checksum makes a
// hand-edited cursor an error rather than a jump to an arbitrary place; it
// is not a secret, and a cursor grants nothing a query could not ask for.
type cursorScope struct {
	collection catalogue.Collection
	order      string // "" for upstream order, else "field.asc" or "field.desc"
	filter     string // digest of the filter
}

func newCursorScope(c catalogue.Collection, q catalogue.Query) cursorScope {
	s := cursorScope{collection: c}
	if q.OrderBy != "" {
		s.order = q.OrderBy + ".asc"
		if q.Descending {
			s.order = q.OrderBy + ".desc"
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "name=%q", strings.ToLower(q.NameContains))
	for _, k := range slices.Sorted(maps.Keys(q.Equal)) {
		fmt.Fprintf(&b, ";%s=%q", k, q.Equal[k])
	}
	for _, k := range slices.Sorted(maps.Keys(q.AtLeast)) {
		fmt.Fprintf(&b, ";%s>=%v", k, q.AtLeast[k])
	}
	for _, k := range slices.Sorted(maps.Keys(q.AtMost)) {
		fmt.Fprintf(&b, ";%s<=%v", k, q.AtMost[k])
	}
	sum := sha256.Sum256([]byte(b.String()))
	s.filter = hex.EncodeToString(sum[:6])
	return s
}

const cursorVersion = "c1"

// encode returns the cursor of the record with the given id at place i.
func (s cursorScope) encode(id int64, i int) string {
	payload := strings.Join([]string{cursorVersion, s.collection.String(), s.order, s.filter,
		strconv.FormatInt(id, 10), strconv.Itoa(i)}, "|")
	return base64.RawURLEncoding.EncodeToString([]byte(payload + "|" + checksum(payload)))
}

func checksum(payload string) string {
	sum := sha256.Sum256([]byte(payload))
	return hex.EncodeToString(sum[:6])
}

// decode reads a cursor of this scope, refusing any other.
func (s cursorScope) decode(cursor string) (id int64, place int, err error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, 0, badInput("invalid cursor %s", quoteShort(cursor))
	}
	parts := strings.Split(string(raw), "|")
	if len(parts) != 7 || parts[0] != cursorVersion {
		return 0, 0, badInput("invalid cursor %s", quoteShort(cursor))
	}
	if checksum(strings.Join(parts[:6], "|")) != parts[6] {
		return 0, 0, badInput("invalid cursor %s: it was altered", quoteShort(cursor))
	}
	if parts[1] != s.collection.String() {
		return 0, 0, badInput("the cursor belongs to the %s list, not to %s", parts[1], s.collection)
	}
	if parts[2] != s.order {
		return 0, 0, badInput("the cursor was made for another orderBy; page with the orderBy it was made for")
	}
	if parts[3] != s.filter {
		return 0, 0, badInput("the cursor was made for another filter; page with the filter it was made for")
	}
	id, err1 := strconv.ParseInt(parts[4], 10, 64)
	place, err2 := strconv.Atoi(parts[5])
	if err1 != nil || err2 != nil || place < 0 {
		return 0, 0, badInput("invalid cursor %s", quoteShort(cursor))
	}
	return id, place, nil
}

// quoteShort quotes a caller's value for an error message, cut short so a
// huge argument is not echoed back.
func quoteShort(s string) string {
	const max = 40
	if len(s) > max {
		s = s[:max] + "…"
	}
	return strconv.Quote(s)
}
