package graphqlhttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// postBody is a POST body's GraphQL request (GraphQL over HTTP, section
// 5), as decodeBody reads it.
type postBody struct {
	query, operationName, documentID string
	// variables holds numbers as json.Number, as gqlgen's transports
	// decode them; nil when absent or null.
	variables map[string]any
	// extensions, as variables: an object, or nil when absent or null.
	extensions map[string]any
}

// errNotRequest says a body is valid JSON but not a GraphQL request: a
// member of the wrong type.
var errNotRequest = errors.New("the request body is not a GraphQL request")

// bodyOptions read a body as encoding/json reads one: invalid UTF-8 is
// replaced with U+FFFD, and of a name given twice the last wins.
var bodyOptions = []jsontext.Options{jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)}

// decodeBody reads a POST body that begins with '{'. It reads as
// encoding/json's Unmarshal into the request's struct does (member names
// matched in any case, null leaving a string empty, a syntax error
// anywhere outranking a member of the wrong type, nothing but space after
// the object), which a fuzz test holds it to, in one pass and with a
// fifth of the work: json.Unmarshal scans the body twice and reflects on
// every member, which was a tenth of a filtered page's cost.
//
// A syntax error is returned as jsontext reports it (a
// *jsontext.SyntacticError or io.ErrUnexpectedEOF); a member of the wrong
// type as errNotRequest.
func decodeBody(body []byte) (postBody, error) {
	var b postBody
	var shape error
	dec := jsontext.NewDecoder(bytes.NewBuffer(body), bodyOptions...)
	if _, err := dec.ReadToken(); err != nil {
		return b, err
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return b, err
		}
		var ok bool
		switch n := name.String(); {
		case strings.EqualFold(n, "query"):
			ok, err = readString(dec, &b.query)
		case strings.EqualFold(n, "operationName"):
			ok, err = readString(dec, &b.operationName)
		case strings.EqualFold(n, "documentId"):
			ok, err = readString(dec, &b.documentID)
		case strings.EqualFold(n, "variables"):
			ok, err = readObject(dec, &b.variables)
		case strings.EqualFold(n, "extensions"):
			ok, err = readObject(dec, &b.extensions)
		default:
			ok, err = true, dec.SkipValue()
		}
		if err != nil {
			return b, err
		}
		if !ok && shape == nil {
			shape = errNotRequest
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return b, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			err = &jsontext.SyntacticError{Err: errors.New("more after the request's object")}
		}
		return b, err
	}
	return b, shape
}

// readString reads a member that holds a string into s; null leaves s as
// it was. ok is false, and the value skipped, for any other type.
func readString(dec *jsontext.Decoder, s *string) (ok bool, err error) {
	switch dec.PeekKind() {
	case '"':
		tok, err := dec.ReadToken()
		*s = tok.String()
		return true, err
	case 'n':
		_, err := dec.ReadToken()
		return true, err
	}
	return false, dec.SkipValue()
}

// readObject reads a member that holds an object (the variables, the
// extensions), or null for none. ok is false, and the value skipped, for
// any other type.
func readObject(dec *jsontext.Decoder, vars *map[string]any) (ok bool, err error) {
	switch dec.PeekKind() {
	case '{':
		v, err := readAny(dec)
		*vars, _ = v.(map[string]any)
		return true, err
	case 'n':
		*vars = nil
		_, err := dec.ReadToken()
		return true, err
	}
	return false, dec.SkipValue()
}

// readAny reads one JSON value as encoding/json decodes it into an any
// with UseNumber: objects as map[string]any, arrays as []any, numbers as
// json.Number spelled as sent.
func readAny(dec *jsontext.Decoder) (any, error) {
	switch dec.PeekKind() {
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String() // before the next read, which reuses tok
			v, err := readAny(dec)
			if err != nil {
				return nil, err
			}
			m[name] = v
		}
		_, err := dec.ReadToken()
		return m, err
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		s := []any{}
		for dec.PeekKind() != ']' {
			v, err := readAny(dec)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		_, err := dec.ReadToken()
		return s, err
	case '0':
		v, err := dec.ReadValue()
		return json.Number(v), err
	}
	tok, err := dec.ReadToken()
	switch tok.Kind() {
	case '"':
		return tok.String(), err
	case 't', 'f':
		return tok.Bool(), err
	}
	return nil, err
}

// decodeObject reads a GET request's variables or extensions, as a POST
// body's are read: a JSON object, numbers as json.Number, or nil for null
// or nothing. Anything else, or anything after the object, is an error.
func decodeObject(raw []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := jsontext.NewDecoder(bytes.NewBuffer(raw), bodyOptions...)
	var m map[string]any
	ok, err := readObject(dec, &m)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, errors.New("not a JSON object")
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, errors.New("more after the object")
	}
	return m, nil
}
