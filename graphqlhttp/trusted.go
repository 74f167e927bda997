package graphqlhttp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/catalogue-gateway/gateway/graphqlhttp/admission"
	"github.com/catalogue-gateway/gateway/graphqlhttp/documents"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
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
	manifest  documents.Manifest
	endpoints []*endpoint
}

// NewTrustedDocuments returns the trusted documents of m, in mode (log or
// enforce; off makes an endpoint that trusts nothing in particular, as if
// there were none).
func NewTrustedDocuments(mode TrustedMode, m documents.Manifest) *TrustedDocuments {
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
func (t *TrustedDocuments) Replace(m documents.Manifest) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	sets := make([]*documents.Pinned, len(t.endpoints))
	for i, e := range t.endpoints {
		s, err := e.prepareTrusted(m)
		if err != nil {
			return err
		}
		sets[i] = s
	}
	for i, e := range t.endpoints {
		e.docs.Pin(sets[i])
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
		s, _ = e.docs.NewPinned(documents.Manifest{})
	}
	e.docs.Pin(s)
	t.endpoints = append(t.endpoints, e)
}

// CheckManifest checks that every document of m is one an endpoint with
// schema, limits and introspection (Options.Introspection) would run: it
// parses, is within the limits (zero fields take their defaults) and is
// valid. The error names the first document that is not, by id and
// operation name.
func CheckManifest(m documents.Manifest, schema *ast.Schema, limits admission.Limits, introspection bool) error {
	docs := documents.NewStore(schema, limits.WithDefaults(), introspection, 0)
	_, err := docs.NewPinned(m)
	return err
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
func (e *endpoint) prepareTrusted(m documents.Manifest) (*documents.Pinned, error) {
	s, err := e.docs.NewPinned(m)
	if err != nil {
		return nil, err
	}
	p, ok := e.opts.Executor.(execution.Preparer)
	if !ok {
		return s, nil
	}
	for td := range s.All() {
		doc := td.Doc.Parsed
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
					prepare(p, &graphql.OperationContext{RawQuery: td.Text,
						Doc: doc, Operation: op, OperationName: name, Variables: vars}, td.Doc.Memo)
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
	s := c.e.docs.Pinned() // once: the whole check sees one manifest
	if s == nil {
		return nil
	}
	hash := persistedHash(p.Extensions)
	var td *documents.PinnedDoc
	switch {
	case p.Query != "":
		td = s.ByText(p.Query)
	case hash != "":
		td = s.ByID(hash)
		if td != nil {
			p.Query = td.Text
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
	if c.e.opts.TrustedDocuments.mode == TrustedEnforce {
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
func outcome(s *documents.Pinned, req *request) string {
	if req.query != "" && s.ByText(req.query) != nil ||
		req.query == "" && s.ByID(persistedHash(req.extensions)) != nil {
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
// the manifest, at most documents.MaxUnlistedNoted of them: its hash, its
// operation's name, and the start of its text, for the manifest's owner.
func (e *endpoint) noteUnlisted(ctx context.Context, s *documents.Pinned, p *graphql.RawParams) {
	key := persistedHash(p.Extensions)
	if p.Query != "" {
		sum := sha256.Sum256([]byte(p.Query))
		key = hex.EncodeToString(sum[:])
	}
	log, full := s.Unlisted(key)
	if full {
		e.opts.Logger.WarnContext(ctx, "trusted documents: more unlisted documents than are logged; they are still counted",
			"logged", documents.MaxUnlistedNoted)
	}
	if !log {
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
