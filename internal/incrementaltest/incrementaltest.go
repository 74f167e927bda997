// Package incrementaltest reads answers delivered in parts (@defer and
// @stream), for tests: the parts of a multipart/mixed body or of an event
// stream, and the whole answer they merge into, as a client merges them,
// in either format (deferSpec=20220824 or incrementalSpec=v0.2). It
// imports nothing of this module.
package incrementaltest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"strings"
)

// Multipart reads the JSON parts of a multipart/mixed body of the given
// Content-Type, checking each part's own.
func Multipart(contentType string, body io.Reader) ([][]byte, error) {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil || mediaType != "multipart/mixed" || params["boundary"] == "" {
		return nil, fmt.Errorf("not multipart/mixed with a boundary: %q", contentType)
	}
	r := multipart.NewReader(body, params["boundary"])
	var parts [][]byte
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return parts, nil
		}
		if err != nil {
			return parts, fmt.Errorf("reading part %d: %w", len(parts), err)
		}
		if ct := p.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			return parts, fmt.Errorf("part %d: Content-Type %q", len(parts), ct)
		}
		b, err := io.ReadAll(p)
		if err != nil {
			return parts, fmt.Errorf("reading part %d: %w", len(parts), err)
		}
		parts = append(parts, b)
	}
}

// Events reads the data of an event stream's next events, up to its
// complete event.
func Events(body io.Reader) ([][]byte, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 64<<20)
	var out [][]byte
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
			if event == "complete" {
				return out, nil
			}
		case strings.HasPrefix(line, "data: ") && event == "next":
			out = append(out, []byte(strings.TrimPrefix(line, "data: ")))
		}
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	return out, fmt.Errorf("the stream ended without complete after %d events", len(out))
}

// Result is an answer, merged: its data and errors decoded (numbers as
// json.Number).
type Result struct {
	Data   any
	Errors []any
}

// Merge merges payloads, an answer's parts in order, into the whole
// answer as a client would, checking what each format promises: hasNext
// on every payload, true but on the last; each part's path within the
// data delivered before it; in the newer format, each id pending before it
// is delivered and completed once.
func Merge(payloads [][]byte) (Result, error) {
	if len(payloads) == 0 {
		return Result{}, fmt.Errorf("no payloads")
	}
	var res Result
	pending := map[string][]any{} // the newer format's ids, by path
	for i, p := range payloads {
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(p))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			return res, fmt.Errorf("payload %d: %w: %s", i, err, p)
		}
		next, ok := m["hasNext"].(bool)
		if !ok && len(payloads) > 1 {
			return res, fmt.Errorf("payload %d has no hasNext: %s", i, p)
		}
		if next != (i < len(payloads)-1) {
			return res, fmt.Errorf("payload %d of %d: hasNext %t", i, len(payloads), next)
		}
		if errs, ok := m["errors"].([]any); ok {
			res.Errors = append(res.Errors, errs...)
		}
		if i == 0 {
			data, ok := m["data"]
			if !ok {
				return res, fmt.Errorf("the first payload has no data: %s", p)
			}
			res.Data = data
		} else if _, ok := m["data"]; ok {
			return res, fmt.Errorf("payload %d has data of its own: %s", i, p)
		}
		for _, pe := range list(m["pending"]) {
			pe, _ := pe.(map[string]any)
			id, _ := pe["id"].(string)
			if _, dup := pending[id]; dup || id == "" {
				return res, fmt.Errorf("payload %d: pending id %q again, or empty", i, id)
			}
			pending[id] = list(pe["path"])
		}
		for _, inc := range list(m["incremental"]) {
			inc, _ := inc.(map[string]any)
			path := list(inc["path"])
			if id, ok := inc["id"].(string); ok {
				base, known := pending[id]
				if !known {
					return res, fmt.Errorf("payload %d: id %q not pending", i, id)
				}
				path = append(append([]any(nil), base...), list(inc["subPath"])...)
				if _, items := inc["items"]; items {
					// The newer format's items come after those there.
					target, err := at(res.Data, path)
					if err != nil {
						return res, fmt.Errorf("payload %d: %w", i, err)
					}
					path = append(path, json.Number(fmt.Sprint(len(list(target)))))
				}
			}
			if errs, ok := inc["errors"].([]any); ok {
				res.Errors = append(res.Errors, errs...)
			}
			if items, ok := inc["items"].([]any); ok {
				if len(path) == 0 {
					return res, fmt.Errorf("payload %d: items with no path", i)
				}
				listAt, err := at(res.Data, path[:len(path)-1])
				if err != nil {
					return res, fmt.Errorf("payload %d: %w", i, err)
				}
				start, _ := path[len(path)-1].(json.Number).Int64()
				l := list(listAt)
				if int(start) != len(l) {
					return res, fmt.Errorf("payload %d: items from %d onto a list of %d", i, start, len(l))
				}
				if err := set(&res.Data, path[:len(path)-1], append(l, items...)); err != nil {
					return res, fmt.Errorf("payload %d: %w", i, err)
				}
				continue
			}
			target, err := at(res.Data, path)
			if err != nil {
				return res, fmt.Errorf("payload %d: %w", i, err)
			}
			merged := deepMerge(target, inc["data"])
			if err := set(&res.Data, path, merged); err != nil {
				return res, fmt.Errorf("payload %d: %w", i, err)
			}
		}
		for _, c := range list(m["completed"]) {
			c, _ := c.(map[string]any)
			id, _ := c["id"].(string)
			if _, known := pending[id]; !known {
				return res, fmt.Errorf("payload %d: completed %q, not pending", i, id)
			}
			delete(pending, id)
		}
	}
	if len(pending) > 0 {
		return res, fmt.Errorf("%d pending ids never completed", len(pending))
	}
	return res, nil
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// at is the value at path in data.
func at(data any, path []any) (any, error) {
	for _, el := range path {
		switch el := el.(type) {
		case string:
			m, ok := data.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("path %v: no object at %q", path, el)
			}
			if data, ok = m[el]; !ok {
				return nil, fmt.Errorf("path %v: no %q", path, el)
			}
		case json.Number:
			i, _ := el.Int64()
			l, ok := data.([]any)
			if !ok || int(i) >= len(l) {
				return nil, fmt.Errorf("path %v: no element %d", path, i)
			}
			data = l[i]
		}
	}
	return data, nil
}

// set puts v at path in *data.
func set(data *any, path []any, v any) error {
	if len(path) == 0 {
		*data = v
		return nil
	}
	parent, err := at(*data, path[:len(path)-1])
	if err != nil {
		return err
	}
	switch el := path[len(path)-1].(type) {
	case string:
		parent.(map[string]any)[el] = v
	case json.Number:
		i, _ := el.Int64()
		parent.([]any)[i] = v
	}
	return nil
}

// deepMerge merges b's objects into a's, and its lists' items into
// a's, by index, as Apollo Client merges a part.
func deepMerge(a, b any) any {
	if al, ok := a.([]any); ok {
		if bl, ok := b.([]any); ok {
			for i, v := range bl {
				if i < len(al) {
					al[i] = deepMerge(al[i], v)
				} else {
					al = append(al, v)
				}
			}
			return al
		}
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		return b
	}
	for k, v := range bm {
		if old, ok := am[k]; ok {
			am[k] = deepMerge(old, v)
		} else {
			am[k] = v
		}
	}
	return am
}

// Decode decodes a whole JSON answer, as Merge leaves one.
func Decode(b []byte) (Result, error) {
	var m struct {
		Data   any   `json:"data"`
		Errors []any `json:"errors"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	err := dec.Decode(&m)
	return Result{Data: m.Data, Errors: m.Errors}, err
}
