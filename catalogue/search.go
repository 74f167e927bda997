package catalogue

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Match is how a record's name matched a search, best first.
type Match int8

const (
	// MatchExact: the name is the text, ignoring case.
	MatchExact Match = iota
	// MatchPrefix: the name starts with the text.
	MatchPrefix
	// MatchWord: a later word of the name starts with the text.
	MatchWord
	// MatchSubstring: the name contains the text elsewhere.
	MatchSubstring
	// MatchFuzzy: a word of the name starts with the text but for one
	// typo (a letter wrong, missing, extra, or two letters swapped).
	MatchFuzzy
)

// String names the match as the schema's SearchMatch does.
func (m Match) String() string {
	switch m {
	case MatchExact:
		return "EXACT"
	case MatchPrefix:
		return "PREFIX"
	case MatchWord:
		return "WORD"
	case MatchSubstring:
		return "SUBSTRING"
	}
	return "FUZZY"
}

// MinFuzzyText is the shortest text, in characters, a search forgives a
// typo in: below it one edit away matches nearly every name.
const MinFuzzyText = 3

// Hit is a record a search found.
type Hit struct {
	Collection Collection
	// Position is the record's upstream position in its collection.
	Position int
	Match    Match
	// Name is the record's name as the upstream spells it.
	Name string
	// Suggestion, for a MatchFuzzy hit, is the words of the name that are
	// one typo from the text, lower-cased: what a client offers as "did
	// you mean". Empty for the other matches.
	Suggestion string
}

// searchColumns are what a search reads of a collection's names, made
// once per part: the names as the upstream spells them, and lower-cased
// as runes (flat, record i's at runes[runeAt[i]:runeAt[i+1]]) with the
// rune offsets where its words start (starts[startAt[i]:startAt[i+1]]).
type searchColumns struct {
	display []string
	runes   []rune
	runeAt  []int32
	starts  []int32
	startAt []int32
}

func newSearchColumns[T any](t *Table[T], name func(*T) string, lower []string) *searchColumns {
	n := t.Len()
	total := 0
	for i := range n {
		total += utf8.RuneCountInString(lower[i])
	}
	// Sized at once: the columns live as long as the part.
	sc := &searchColumns{display: make([]string, n), runes: make([]rune, 0, total),
		runeAt: make([]int32, n+1), startAt: make([]int32, n+1)}
	for i := range n {
		sc.display[i] = name(t.At(i))
		base := len(sc.runes)
		sc.runes = append(sc.runes, []rune(lower[i])...)
		word := sc.runes[base:]
		for j, r := range word {
			if isWordRune(r) && (j == 0 || !isWordRune(word[j-1])) {
				sc.starts = append(sc.starts, int32(j))
			}
		}
		sc.runeAt[i+1], sc.startAt[i+1] = int32(len(sc.runes)), int32(len(sc.starts))
	}
	return sc
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// direct classifies name i (lower-cased) against text (lower-cased, and
// as runes) when it contains the text: false when it does not.
func (sc *searchColumns) direct(i int, lowerName, text string, textRunes []rune) (Match, bool) {
	switch {
	case lowerName == text:
		return MatchExact, true
	case strings.HasPrefix(lowerName, text):
		return MatchPrefix, true
	case strings.Contains(lowerName, text):
		name := sc.runes[sc.runeAt[i]:sc.runeAt[i+1]]
		for _, s := range sc.starts[sc.startAt[i]:sc.startAt[i+1]] {
			if hasPrefix(name[s:], textRunes) {
				return MatchWord, true
			}
		}
		return MatchSubstring, true
	}
	return 0, false
}

// fuzzy reports whether a word of name i starts with text but for one
// typo: whether a prefix of a word (of one rune fewer to one more than
// the text) is within one edit of it.
func (sc *searchColumns) fuzzy(i int, textRunes []rune) bool {
	_, ok := sc.fuzzyAt(i, textRunes)
	return ok
}

// fuzzyAt is fuzzy, also returning the name's runes from the word start
// that matched to the end of the word the match ends in.
func (sc *searchColumns) fuzzyAt(i int, textRunes []rune) ([]rune, bool) {
	name := sc.runes[sc.runeAt[i]:sc.runeAt[i+1]]
	k := len(textRunes)
	for _, s := range sc.starts[sc.startAt[i]:sc.startAt[i+1]] {
		word := name[s:]
		for l := k - 1; l <= k+1 && l <= len(word); l++ {
			if withinOneEdit(textRunes, word[:l]) {
				end := l
				for end < len(word) && isWordRune(word[end]) {
					end++
				}
				return word[:end], true
			}
		}
	}
	return nil, false
}

func hasPrefix(s, prefix []rune) bool {
	return len(s) >= len(prefix) && slices.Equal(s[:len(prefix)], prefix)
}

// withinOneEdit reports whether a and b are at most one edit apart, an
// edit being a rune substituted, inserted, deleted, or two adjacent runes
// swapped (the optimal string alignment distance, Damerau-Levenshtein's
// restricted form, at most 1). It reads each once, allocating nothing.
func withinOneEdit(a, b []rune) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)-len(b) > 1 {
		return false
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(b) {
		return true // equal, or a has one rune more at the end
	}
	if len(a) == len(b) {
		// A substitution at i, or a swap of i and i+1.
		if slices.Equal(a[i+1:], b[i+1:]) {
			return true
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && slices.Equal(a[i+2:], b[i+2:])
	}
	return slices.Equal(a[i+1:], b[i:]) // a's rune at i deleted
}

// MaxSearchText is the longest text, in bytes, a search takes: longer
// than any name in the catalogue, so a longer text matches nothing, and a
// request's work over every name stays bounded by it.
const MaxSearchText = 100

// Searched reports whether Search looks among the names of collection c.
func (s *Snapshot) Searched(c Collection) bool {
	ix := s.indexes[c]
	return ix != nil && ix.search != nil
}

// Search finds the records of every collection whose name matches text,
// ignoring case, and returns the best limit of them: exact names first,
// then names starting with the text, then a later word starting with
// it, then names containing it, then names with a word starting with it
// but for one typo (texts of MinFuzzyText characters or more). Within a
// kind of match, shorter names come first, then by name, then by
// collection and upstream order. Text is trimmed; an empty one finds
// nothing. Everything it reads of the names was made when the snapshot's
// parts were decoded.
func (s *Snapshot) Search(text string, limit int) []Hit {
	return s.SearchIn(text, nil, limit)
}

// SearchIn is Search among the collections in kinds only, or every one
// when kinds is empty.
func (s *Snapshot) SearchIn(text string, kinds []Collection, limit int) []Hit {
	var skip [NumCollections]bool
	if len(kinds) > 0 {
		for c := range NumCollections {
			skip[c] = !slices.Contains(kinds, c)
		}
	}
	text = strings.ToLower(strings.TrimSpace(text))
	if text == "" || limit <= 0 || !utf8.ValidString(text) {
		return []Hit{}
	}
	textRunes, need := []rune(text), bigrams(text)
	// Candidates by kind of match, each a collection and a position: the
	// names containing the text first, in one pass (the names' letter
	// pairs rule most out unread); the typos only if those are too few.
	var found [MatchFuzzy + 1][]candidate
	n := 0
	for c := range NumCollections {
		ix := s.indexes[c]
		if ix == nil || ix.search == nil || skip[c] {
			continue
		}
		for i, lower := range ix.names {
			if ix.grams[i]&need != need || lower == "" {
				continue
			}
			if m, ok := ix.search.direct(i, lower, text, textRunes); ok {
				found[m] = append(found[m], candidate{c, int32(i)})
				n++
			}
		}
	}
	if n < limit && len(textRunes) >= MinFuzzyText {
		for c := range NumCollections {
			ix := s.indexes[c]
			if ix == nil || ix.search == nil || skip[c] {
				continue
			}
			for i, lower := range ix.names {
				if lower == "" || ix.grams[i]&need == need && strings.Contains(lower, text) {
					continue // found above
				}
				if ix.search.fuzzy(i, textRunes) {
					found[MatchFuzzy] = append(found[MatchFuzzy], candidate{c, int32(i)})
				}
			}
		}
	}
	out := []Hit{}
	for m, cands := range found {
		if len(out) >= limit {
			break
		}
		slices.SortFunc(cands, func(a, b candidate) int { return s.compareNames(a, b) })
		for _, cd := range cands[:min(len(cands), limit-len(out))] {
			sc := s.indexes[cd.c].search
			h := Hit{Collection: cd.c, Position: int(cd.pos), Match: Match(m), Name: sc.display[cd.pos]}
			if h.Match == MatchFuzzy {
				// Only for the hits returned: a page's worth.
				words, _ := sc.fuzzyAt(int(cd.pos), textRunes)
				h.Suggestion = string(words)
			}
			out = append(out, h)
		}
	}
	return out
}

// candidate is a record a search found: its collection and position.
type candidate struct {
	c   Collection
	pos int32
}

// compareNames orders two candidates of one kind of match: shorter names
// first, then by name ignoring case, then exactly, then by collection and
// upstream position.
func (s *Snapshot) compareNames(a, b candidate) int {
	ia, ib := s.indexes[a.c], s.indexes[b.c]
	da, db := ia.search.display[a.pos], ib.search.display[b.pos]
	if c := cmp.Compare(len(da), len(db)); c != 0 {
		return c
	}
	if c := strings.Compare(ia.names[a.pos], ib.names[b.pos]); c != 0 {
		return c
	}
	if c := strings.Compare(da, db); c != 0 {
		return c
	}
	return cmp.Or(cmp.Compare(a.c, b.c), cmp.Compare(a.pos, b.pos))
}

// Record returns the record at upstream position i of collection c (a
// *Item, a *Monster, …), or nil when the snapshot does not hold c.
func (s *Snapshot) Record(c Collection, i int) any {
	p := s.parts[c]
	if p == nil {
		return nil
	}
	return p.table.(interface{ record(int) any }).record(i)
}
