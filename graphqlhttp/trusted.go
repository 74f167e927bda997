package graphqlhttp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/internal/memory"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// TrustedMode is what an endpoint does with its trusted documents.
type TrustedMode string

const (
	// TrustedOff: no manifest; every valid operation runs, as without one.
	TrustedOff TrustedMode = "off"
	// TrustedLog runs every valid operation, and counts and logs (once
	// per document) those the manifest does not list: the step before
	// enforce, to find what a manifest misses.
	TrustedLog TrustedMode = "log"
	// TrustedEnforce runs only the manifest's documents, asked for by id
	// or by their very text; anything else is refused with
	// PERSISTED_QUERY_NOT_LISTED, and automatic persisted queries
	// register nothing.
	TrustedEnforce TrustedMode = "enforce"
)

// CodeNotListed is the code of an operation refused in enforce mode: its
// text, or the id it was asked by, is not in the manifest.
const CodeNotListed = "PERSISTED_QUERY_NOT_LISTED"

// TrustedDocuments are the documents an endpoint trusts, and its mode.
// Give it to New (Options.TrustedDocuments); Replace swaps in another
// manifest, once it has been checked and made ready (parsed, validated and
// planned) for every endpoint built with it, each endpoint at once: a
// request sees the old manifest or the new one, never some of each.
type TrustedDocuments struct {
	mode TrustedMode

	mu        sync.Mutex
	manifest  Manifest
	endpoints []*endpoint
}

// NewTrustedDocuments returns the trusted documents of m, in mode (log or
// enforce; off makes an endpoint that trusts nothing in particular, as if
// there were none).
func NewTrustedDocuments(mode TrustedMode, m Manifest) *TrustedDocuments {
	return &TrustedDocuments{mode: mode, manifest: m}
}

// Mode is the mode the documents were made with.
func (t *TrustedDocuments) Mode() TrustedMode { return t.mode }

// Replace makes m the manifest of every endpoint built with t. Each of
// its documents is parsed, measured against the limits and validated,
// then planned by the endpoint's Executor (if it is a Preparer), before
// any request sees it; if any document is refused, nothing changes and
// the error names it. Before any endpoint is built with t, m is only
// kept, for the first: check it first (CheckManifest).
func (t *TrustedDocuments) Replace(m Manifest) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	sets := make([]*trustedSet, len(t.endpoints))
	for i, e := range t.endpoints {
		s, err := e.prepareTrusted(m)
		if err != nil {
			return err
		}
		sets[i] = s
	}
	for i, e := range t.endpoints {
		e.docs.pin(sets[i])
	}
	t.manifest = m
	return nil
}

// attach makes t's manifest e's. The manifest was checked when t was
// made (CheckManifest); should it fail here, e trusts no document, so
// that enforce mode fails closed, and the error is logged.
func (t *TrustedDocuments) attach(e *endpoint) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, err := e.prepareTrusted(t.manifest)
	if err != nil {
		e.opts.Logger.Error("trusted documents: the manifest cannot be loaded; no document is trusted", "err", err)
		s = &trustedSet{mode: t.mode, byID: map[string]*trustedDoc{}, byText: map[string]*trustedDoc{}}
	}
	e.docs.pin(s)
	t.endpoints = append(t.endpoints, e)
}

// CheckManifest checks that every document of m is one an endpoint with
// schema, limits and introspection (Options.Introspection) would run: it
// parses, is within the limits (zero fields take their defaults) and is
// valid. The error names the first document that is not, by id and
// operation name.
func CheckManifest(m Manifest, schema *ast.Schema, limits admission.Limits, introspection bool) error {
	docs := newDocuments(schema, limits.WithDefaults(), introspection, 0)
	_, err := docs.trustedSet(m)
	return err
}

// trustedSet is one manifest, ready: its documents pinned in the
// endpoint's documents, by their text and by every id they may be asked
// by. It is never changed once made, but for its charges and its notes.
type trustedSet struct {
	mode TrustedMode
	// gen names the set among those its documents pinned, for the
	// response cache's version.
	gen string
	// byID holds each document under its manifest id (without a sha256:
	// prefix) and the hex SHA-256 of its text, which clients sending
	// automatic persisted queries' hashes or sha256: document ids send.
	byID   map[string]*trustedDoc
	byText map[string]*trustedDoc
	// bytes is what the set holds on the heap: the texts and parses (as
	// the documents' store charges them), the memos (plans, costs), and
	// the maps.
	bytes atomic.Int64
	// noted are the unlisted documents (by SHA-256) logged, in log mode,
	// at most maxUnlistedNoted.
	noted sync.Map
	nNote atomic.Int64
}

// trustedDoc is one trusted document: its text, its SHA-256 (which names
// its answers in the response cache, whatever id it is asked by), and the
// document kept of it, pinned (never evicted).
type trustedDoc struct {
	text string
	sum  [sha256.Size]byte
	doc  *document
}

// maxUnlistedNoted bounds the unlisted documents logged once each in log
// mode; past it they are counted only. 1,000 lines tell an operator what
// a manifest misses; more would let a client fill the log.
const maxUnlistedNoted = 1000

// trustedSet examines each document of m as lookup would (parse, limits,
// validation), pinned rather than kept in the LRU. It counts its parses.
func (d *documents) trustedSet(m Manifest) (*trustedSet, error) {
	s := &trustedSet{byID: make(map[string]*trustedDoc, 2*len(m.Documents)), byText: make(map[string]*trustedDoc, len(m.Documents))}
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
			doc.memo = execution.NewMemo(func(n int64) { d.chargePinned(s, n) })
			td = &trustedDoc{text: md.Body, sum: sha256.Sum256([]byte(md.Body)), doc: doc}
			s.byText[md.Body] = td
			s.byID[hex.EncodeToString(td.sum[:])] = td
			// The text is the key of byText, the parse points into it.
			size += n + 2*memory.LRUEntryOverhead(2*ptrSize) + memory.HeapSize(int64(unsafe.Sizeof(trustedDoc{}))) + memory.HeapSize(2*sha256.Size)
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
func (d *documents) trustedVerdict(doc *document, text string) error {
	switch {
	case doc.verdict != nil:
		return fmt.Errorf("refused by a limit: %s", doc.verdict.Message)
	case !doc.parses:
		_, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: text}, d.limits.MaxTokens)
		return fmt.Errorf("does not parse: %w", err)
	case !doc.valid:
		parsed, _ := parser.ParseQueryWithTokenLimit(&ast.Source{Input: text}, d.limits.MaxTokens)
		if len(parsed.Operations) == 0 {
			return errors.New("holds no operation")
		}
		if errs := validator.ValidateWithRules(d.schema, parsed, d.rules()); len(errs) > 0 {
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

// pin makes s the documents pinned (nil: none), and gives the LRU what
// remains of the documents' share.
func (d *documents) pin(s *trustedSet) {
	s.gen = strconv.FormatUint(d.pins.Add(1), 10)
	d.pinned.Store(s)
	d.fitPinned()
}

// fitPinned bounds the LRU by the documents' share less what the pinned
// documents hold: they are charged to the same share, first.
// chargePinned charges a memo's entry to s, the trusted documents' set
// its document is pinned in, instead of to an LRU entry, and lets others
// go if s is the one serving.
func (d *documents) chargePinned(s *trustedSet, n int64) {
	s.bytes.Add(n)
	if d.pinned.Load() == s {
		d.fitPinned()
	}
}

func (d *documents) fitPinned() {
	var held int64
	if s := d.pinned.Load(); s != nil {
		held = s.bytes.Load()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.entries.Resize(max(0, d.share-held))
}

// trustedStats reports the pinned documents as a store of the memory
// budget, charged to the documents' share.
func (d *documents) trustedStats() memory.StoreStats {
	s := d.pinned.Load()
	if s == nil {
		return memory.StoreStats{Share: d.share}
	}
	return memory.StoreStats{Bytes: s.bytes.Load(), Share: d.share, Entries: len(s.byText)}
}

// maxPreparedPlans bounds the plans prepared per operation: one for each
// combination of its Boolean variables' values (a plan holds the fields
// @skip and @include leave in), the first 16; others are made on their
// first request.
const maxPreparedPlans = 16

// prepareTrusted makes m ready for e: its documents examined, and each of
// their operations planned by the Executor, for the operation name a
// client sends (and none, for a document of one operation) and each
// combination of Boolean variables.
func (e *endpoint) prepareTrusted(m Manifest) (*trustedSet, error) {
	s, err := e.docs.trustedSet(m)
	if err != nil {
		return nil, err
	}
	s.mode = e.opts.TrustedDocuments.mode
	p, ok := e.opts.Executor.(execution.Preparer)
	if !ok {
		return s, nil
	}
	for _, td := range s.byText {
		doc := td.doc.parsed
		for _, op := range doc.Operations {
			if op.Operation != ast.Query {
				continue // the engine runs queries only
			}
			names := []string{op.Name}
			if len(doc.Operations) == 1 && op.Name != "" {
				names = append(names, "")
			}
			for _, name := range names {
				for _, vars := range booleanCombinations(op) {
					prepare(p, &graphql.OperationContext{RawQuery: td.text,
						Doc: doc, Operation: op, OperationName: name, Variables: vars}, td.doc.memo)
				}
			}
		}
	}
	return s, nil
}

// prepare asks p to prepare oc. A panic (a bug, which the operation's
// Execute meets again, and reports as a decline with its stack) leaves
// nothing prepared.
func prepare(p execution.Preparer, oc *graphql.OperationContext, memo *execution.Memo) {
	defer func() { _ = recover() }()
	p.Prepare(oc, memo)
}

// booleanCombinations are the values of op's Boolean variables a plan may
// be made for, true and false each, at most maxPreparedPlans.
func booleanCombinations(op *ast.OperationDefinition) []map[string]any {
	out := []map[string]any{{}}
	for _, v := range op.VariableDefinitions {
		if v.Type.NamedType != "Boolean" || v.Type.Elem != nil {
			continue
		}
		var next []map[string]any
		for _, vars := range out {
			for _, b := range []bool{true, false} {
				if len(next) == maxPreparedPlans {
					break
				}
				c := make(map[string]any, len(vars)+1)
				for k, x := range vars {
					c[k] = x
				}
				c[v.Variable] = b
				next = append(next, c)
			}
		}
		out = next
	}
	return out
}

// trustCheck is the gqlgen extension that holds every operation, over
// every transport, to the trusted documents: it runs before automatic
// persisted queries, so that a hash a manifest lists is answered from
// it, and, in enforce mode, a query it does not list is refused before
// it could be registered.
type trustCheck struct{ e *endpoint }

func (trustCheck) ExtensionName() string                   { return "TrustedDocuments" }
func (trustCheck) Validate(graphql.ExecutableSchema) error { return nil }

func (c trustCheck) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	s := c.e.docs.pinned.Load() // once: the whole check sees one manifest
	if s == nil {
		return nil
	}
	hash := persistedHash(p.Extensions)
	var td *trustedDoc
	switch {
	case p.Query != "":
		td = s.byText[p.Query]
	case hash != "":
		td = s.byID[strings.TrimPrefix(hash, "sha256:")]
		if td != nil {
			p.Query = td.text
		}
	default:
		return nil // no query: gqlgen reports it
	}
	if td != nil {
		if hash != "" {
			// Answered from the manifest: no hash to look up, nothing
			// to register, whatever id the manifest gave it.
			p.Extensions = withoutPersistedQuery(p.Extensions)
		}
		c.e.trusted(ctx, "listed")
		return nil
	}
	if s.mode == TrustedEnforce {
		c.e.trusted(ctx, "refused")
		c.e.opts.Observer.Rejected("trusted_documents")
		msg := "this server runs only its trusted documents, and this query is not one of them"
		if p.Query == "" {
			msg = "no trusted document has this id"
		}
		err := &gqlerror.Error{Message: msg}
		errcode.Set(err, CodeNotListed)
		return err
	}
	c.e.trusted(ctx, "unlisted")
	c.e.noteUnlisted(ctx, s, p)
	return nil
}

// trusted counts an operation checked against the trusted documents, if
// the Observer counts them.
func (e *endpoint) trusted(_ context.Context, outcome string) {
	if o, ok := e.opts.Observer.(TrustObserver); ok {
		o.Trusted(outcome)
	}
}

// outcome is what the check (trustCheck) of req, a request whose answer
// the cache holds under s, found: "listed", or "unlisted" (an answer kept
// in log mode; in enforce mode an unlisted operation never runs, so its
// answer is never kept).
func (s *trustedSet) outcome(req *request) string {
	if req.query != "" && s.byText[req.query] != nil ||
		req.query == "" && s.byID[strings.TrimPrefix(persistedHash(req.extensions), "sha256:")] != nil {
		return "listed"
	}
	return "unlisted"
}

// TrustObserver is an Observer told of the trusted documents' checks;
// the endpoint asks its Observer for it, so that Observers that do not
// count them need not say so.
type TrustObserver interface {
	// Trusted reports an operation checked against the manifest:
	// "listed", "unlisted" (not listed, and run: log mode) or "refused"
	// (not listed: enforce mode).
	Trusted(outcome string)
}

// noteUnlisted logs an unlisted document, once per document while s is
// the manifest, at most maxUnlistedNoted of them: its hash, its
// operation's name, and the start of its text, for the manifest's owner.
func (e *endpoint) noteUnlisted(ctx context.Context, s *trustedSet, p *graphql.RawParams) {
	key := persistedHash(p.Extensions)
	if p.Query != "" {
		sum := sha256.Sum256([]byte(p.Query))
		key = hex.EncodeToString(sum[:])
	}
	if _, seen := s.noted.Load(key); seen {
		return
	}
	if n := s.nNote.Add(1); n > maxUnlistedNoted {
		if n == maxUnlistedNoted+1 {
			e.opts.Logger.WarnContext(ctx, "trusted documents: more unlisted documents than are logged; they are still counted",
				"logged", maxUnlistedNoted)
		}
		return
	}
	if _, seen := s.noted.LoadOrStore(key, struct{}{}); seen {
		return
	}
	text := p.Query
	if len(text) > 512 {
		text = strings.ToValidUTF8(text[:512], "") + "…"
	}
	e.opts.Logger.WarnContext(ctx, "trusted documents: an operation the manifest does not list ran",
		"request_id", RequestID(ctx), "operation", p.OperationName, "sha256", key, "query", text)
}

// persistedHash is the sha256Hash of an automatic persisted query's
// extension, or "".
func persistedHash(ext map[string]any) string {
	pq, _ := ext["persistedQuery"].(map[string]any)
	hash, _ := pq["sha256Hash"].(string)
	return hash
}

// withoutPersistedQuery is ext without its persistedQuery, copied: the
// request's own map is left as it was read.
func withoutPersistedQuery(ext map[string]any) map[string]any {
	out := make(map[string]any, len(ext))
	for k, v := range ext {
		if k != "persistedQuery" {
			out[k] = v
		}
	}
	return out
}

// documentIDExtension is a document id (GraphQL over HTTP's persisted
// documents, documentId) as the automatic persisted query extension that
// names a document by its hash, which trustCheck resolves from the
// manifest: one way in for both. A sha256: id becomes its hex payload, so
// that the response cache keys it as the same document sent by text.
func documentIDExtension(ext map[string]any, documentID string) map[string]any {
	out := make(map[string]any, len(ext)+1)
	for k, v := range ext {
		out[k] = v
	}
	out["persistedQuery"] = map[string]any{"version": 1, "sha256Hash": strings.TrimPrefix(documentID, "sha256:")}
	return out
}
