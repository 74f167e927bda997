package documents

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"maps"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/internal/memory"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// Pinned is one manifest of trusted documents, ready: its documents
// pinned in a Store, by their text and by every id they may be asked by,
// kept whatever other texts come. It is never changed once made, but for
// its charges and its notes.
type Pinned struct {
	// gen names the set among those its documents pinned, for the
	// response cache's version.
	gen string
	// byID holds each document under its manifest id (without a sha256:
	// prefix) and the hex SHA-256 of its text, which clients sending
	// automatic persisted queries' hashes or sha256: document ids send.
	byID   map[string]*PinnedDoc
	byText map[string]*PinnedDoc
	// bytes is what the set holds on the heap: the texts and parses (as
	// the documents' store charges them), the memos (plans, costs), and
	// the maps.
	bytes atomic.Int64
	// noted are the unlisted documents (by SHA-256) logged, in log mode,
	// at most MaxUnlistedNoted.
	noted sync.Map
	nNote atomic.Int64
}

// PinnedDoc is one trusted document: its text, its SHA-256 (which names
// its answers in the response cache, whatever id it is asked by), and the
// document kept of it, pinned (never evicted).
type PinnedDoc struct {
	Text string
	Sum  [sha256.Size]byte
	Doc  *Document
}

// Gen names the set among those its store pinned: the response cache's
// version names it, so that an answer kept under one manifest is not
// given under another.
func (s *Pinned) Gen() string { return s.gen }

// ByText is the document whose text is query, or nil.
func (s *Pinned) ByText(query string) *PinnedDoc { return s.byText[query] }

// ByID is the document id names, or nil: a manifest id or the hex
// SHA-256 of a text, with or without a sha256: prefix.
func (s *Pinned) ByID(id string) *PinnedDoc { return s.byID[strings.TrimPrefix(id, "sha256:")] }

// All yields each document once.
func (s *Pinned) All() iter.Seq[*PinnedDoc] { return maps.Values(s.byText) }

// Unlisted notes the unlisted document named key (its SHA-256), in log
// mode: log reports the first time it is noted while s is the manifest,
// for at most MaxUnlistedNoted documents; past them, full reports the
// first document that is not logged, once.
func (s *Pinned) Unlisted(key string) (log, full bool) {
	if _, seen := s.noted.Load(key); seen {
		return false, false
	}
	if n := s.nNote.Add(1); n > MaxUnlistedNoted {
		return false, n == MaxUnlistedNoted+1
	}
	_, seen := s.noted.LoadOrStore(key, struct{}{})
	return !seen, false
}

// MaxUnlistedNoted bounds the unlisted documents logged once each in log
// mode; past it they are counted only. 1,000 lines tell an operator what
// a manifest misses; more would let a client fill the log.
const MaxUnlistedNoted = 1000

// NewPinned examines each document of m as Lookup would (parse, limits,
// validation), pinned rather than kept in the LRU. It counts its parses.
func (d *Store) NewPinned(m Manifest) (*Pinned, error) {
	s := &Pinned{byID: make(map[string]*PinnedDoc, 2*len(m.Documents)), byText: make(map[string]*PinnedDoc, len(m.Documents))}
	var size int64
	for _, md := range m.Documents {
		td := s.byText[md.Body]
		if td == nil {
			doc, n := d.examine(md.Body)
			d.mu.Lock()
			d.parses++
			d.mu.Unlock()
			if err := d.trustedVerdict(doc, md.Body); err != nil {
				return nil, fmt.Errorf("document %q%s: %w", md.ID, operationNamed(md.Name), err)
			}
			doc.Memo = execution.NewMemo(func(n int64) { d.chargePinned(s, n) })
			td = &PinnedDoc{Text: md.Body, Sum: sha256.Sum256([]byte(md.Body)), Doc: doc}
			s.byText[md.Body] = td
			s.byID[hex.EncodeToString(td.Sum[:])] = td
			// The text is the key of byText, the parse points into it.
			size += n + 2*memory.LRUEntryOverhead(2*ptrSize) + memory.HeapSize(int64(unsafe.Sizeof(PinnedDoc{}))) + memory.HeapSize(2*sha256.Size)
		}
		id := strings.TrimPrefix(md.ID, "sha256:")
		switch other, dup := s.byID[id]; {
		case dup && other != td:
			return nil, fmt.Errorf("document %q: the id also names another document (as its id or its SHA-256)", md.ID)
		case !dup:
			s.byID[id] = td
			size += memory.LRUEntryOverhead(2*ptrSize) + memory.HeapSize(int64(len(id)))
		}
	}
	s.bytes.Store(size)
	return s, nil
}

// trustedVerdict says why a document examined cannot be trusted: it does
// not parse, is refused by a limit, or is not valid. The reasons are
// found again, as gqlgen reports them, for the operator to read.
func (d *Store) trustedVerdict(doc *Document, text string) error {
	switch {
	case doc.Verdict != nil:
		return fmt.Errorf("refused by a limit: %s", doc.Verdict.Message)
	case !doc.Parses:
		_, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: text}, d.limits.MaxTokens)
		return fmt.Errorf("does not parse: %w", err)
	case !doc.Valid:
		parsed, _ := parser.ParseQueryWithTokenLimit(&ast.Source{Input: text}, d.limits.MaxTokens)
		if len(parsed.Operations) == 0 {
			return errors.New("holds no operation")
		}
		if errs := validator.ValidateWithRules(d.schema, parsed, ValidationRules(d.introspection)); len(errs) > 0 {
			return fmt.Errorf("is not valid: %s", errs[0].Message)
		}
		return errors.New("is not valid")
	}
	return nil
}

func operationNamed(name string) string {
	if name == "" {
		return ""
	}
	return " (operation " + name + ")"
}

// Pin makes s the documents pinned, and gives the LRU what
// remains of the documents' share.
func (d *Store) Pin(s *Pinned) {
	s.gen = strconv.FormatUint(d.pins.Add(1), 10)
	d.pinned.Store(s)
	d.fitPinned()
}

// fitPinned bounds the LRU by the documents' share less what the pinned
// documents hold: they are charged to the same share, first.
// chargePinned charges a memo's entry to s, the trusted documents' set
// its document is pinned in, instead of to an LRU entry, and lets others
// go if s is the one serving.
func (d *Store) chargePinned(s *Pinned, n int64) {
	s.bytes.Add(n)
	if d.pinned.Load() == s {
		d.fitPinned()
	}
}

func (d *Store) fitPinned() {
	var held int64
	if s := d.pinned.Load(); s != nil {
		held = s.bytes.Load()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.entries.Resize(max(0, d.share-held))
}

// PinnedStats reports the pinned documents as a store of the memory
// budget, charged to the documents' share.
func (d *Store) PinnedStats() memory.StoreStats {
	s := d.pinned.Load()
	if s == nil {
		return memory.StoreStats{Share: d.share}
	}
	return memory.StoreStats{Bytes: s.bytes.Load(), Share: d.share, Entries: len(s.byText)}
}
