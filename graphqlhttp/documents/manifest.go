package documents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Manifest is a list of the operations an app ships, read from one of
// the files the ecosystem's tools write (see ParseManifest): the trusted
// documents an endpoint may be told to run alone (TrustedDocuments).
type Manifest struct {
	// Format is the format it was read from: FormatApollo or
	// FormatCodegen.
	Format string
	// Documents are its documents, in the order of their ids.
	Documents []ManifestDocument
}

// ManifestDocument is one trusted document: the id clients send for it,
// its operation's name when the manifest gives one, and its text.
type ManifestDocument struct {
	ID, Name, Body string
}

// The manifest formats ParseManifest reads.
const (
	// FormatApollo is Apollo's persisted query manifest, as
	// @apollo/generate-persisted-query-manifest writes it:
	// {"format":"apollo-persisted-query-manifest","version":1,
	// "operations":[{"id","name","type","body"}]}.
	FormatApollo = "apollo-persisted-query-manifest"
	// FormatCodegen is GraphQL Code Generator's persisted documents (the
	// client preset's persistedDocuments): one JSON object of id → text.
	FormatCodegen = "graphql-codegen-persisted-documents"
)

// ParseManifest reads a manifest, telling its format from its content:
// an object with "format" is Apollo's manifest, which must be that
// format's version 1; any other object must map each id to a document's
// text, as GraphQL Code Generator writes it. It checks the file's shape
// only; whether each document is one the endpoint can run is checked when
// it is loaded (CheckManifest, TrustedDocuments). The error says what is
// wrong, and where, with no file name: the caller knows it.
func ParseManifest(data []byte) (Manifest, error) {
	var top map[string]json.RawMessage
	if err := strictObject(data, &top); err != nil {
		return Manifest{}, fmt.Errorf("not JSON of either format: %w", err)
	}
	if raw, ok := top["format"]; ok {
		var format string
		if json.Unmarshal(raw, &format) != nil || format != FormatApollo {
			return Manifest{}, fmt.Errorf("\"format\" is %s; the one format with a \"format\" field read here is %q", compact(raw), FormatApollo)
		}
		return parseApollo(data)
	}
	m := Manifest{Format: FormatCodegen}
	for id, raw := range top {
		var body string
		if err := json.Unmarshal(raw, &body); err != nil {
			return Manifest{}, fmt.Errorf("neither Apollo's persisted query manifest (no \"format\") nor GraphQL Code Generator's persisted documents: the value of %q is not a string", id)
		}
		if id == "" || strings.TrimSpace(body) == "" {
			return Manifest{}, fmt.Errorf("GraphQL Code Generator's persisted documents: an empty id or document (id %q)", id)
		}
		m.Documents = append(m.Documents, ManifestDocument{ID: id, Body: body})
	}
	slices.SortFunc(m.Documents, func(a, b ManifestDocument) int { return strings.Compare(a.ID, b.ID) })
	return m, nil
}

func parseApollo(data []byte) (Manifest, error) {
	var file struct {
		Format     string           `json:"format"`
		Version    *int             `json:"version"`
		Operations *[]apolloEntries `json:"operations"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return Manifest{}, fmt.Errorf("Apollo's persisted query manifest: %w", err)
	}
	switch {
	case file.Version == nil:
		return Manifest{}, errors.New("Apollo's persisted query manifest: no \"version\"")
	case *file.Version != 1:
		return Manifest{}, fmt.Errorf("Apollo's persisted query manifest: version %d; only version 1 is read", *file.Version)
	case file.Operations == nil:
		return Manifest{}, errors.New("Apollo's persisted query manifest: no \"operations\" list")
	}
	m := Manifest{Format: FormatApollo}
	ids := map[string]string{}
	for i, op := range *file.Operations {
		switch {
		case op.ID == "":
			return Manifest{}, fmt.Errorf("Apollo's persisted query manifest: operation %d has no \"id\"", i)
		case strings.TrimSpace(op.Body) == "":
			return Manifest{}, fmt.Errorf("Apollo's persisted query manifest: operation %d (id %q) has no \"body\"", i, op.ID)
		case op.Type != "" && op.Type != "query" && op.Type != "mutation" && op.Type != "subscription":
			return Manifest{}, fmt.Errorf("Apollo's persisted query manifest: operation %d (id %q) has type %q; want query, mutation or subscription", i, op.ID, op.Type)
		}
		if body, dup := ids[op.ID]; dup && body != op.Body {
			return Manifest{}, fmt.Errorf("Apollo's persisted query manifest: the id %q names two different documents", op.ID)
		}
		ids[op.ID] = op.Body
		m.Documents = append(m.Documents, ManifestDocument{ID: op.ID, Name: op.Name, Body: op.Body})
	}
	slices.SortStableFunc(m.Documents, func(a, b ManifestDocument) int { return strings.Compare(a.ID, b.ID) })
	m.Documents = slices.CompactFunc(m.Documents, func(a, b ManifestDocument) bool { return a.ID == b.ID })
	return m, nil
}

// apolloEntries is one operation of Apollo's manifest.
type apolloEntries struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	Body string `json:"body"`
}

// strictObject decodes one JSON object, and nothing after it.
func strictObject(data []byte, v *map[string]json.RawMessage) error {
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return errors.New("the file must hold one JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return fmt.Errorf("%v (at byte %d)", err, syntax.Offset)
		}
		return err
	}
	if *v == nil {
		return errors.New("null")
	}
	if dec.More() {
		return errors.New("more after the object")
	}
	return nil
}

// compact is a JSON value for a message, cut short.
func compact(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 60 {
		s = strings.ToValidUTF8(s[:60], "") + "…"
	}
	return s
}
