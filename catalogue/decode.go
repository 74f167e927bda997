package catalogue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// BodyError reports an upstream body that is not JSON of the shape the
// upstream description gives. Such a body never becomes part of a snapshot.
type BodyError struct {
	Collection Collection
	// Envelope is the index of the envelope object at fault, or -1 when the
	// body as a whole is.
	Envelope int
	// Record is the index of the record within the envelope's results (or
	// world_bosses), or -1 when the envelope itself is at fault.
	Record int
	// Field is the path of the offending field inside the record or the
	// envelope, such as "crafting.materials[2].itemId"; empty when the
	// record, envelope or body as a whole is at fault.
	Field string
	// Problem says what is wrong, such as "missing" or "want string, got number".
	Problem string
}

func (e *BodyError) Error() string {
	return e.Collection.String() + ": " + e.detail()
}

// decodeBody checks raw against the shape of collection c and decodes its
// records, concatenating the results of every envelope object. The result is
// a []T of the collection's record type.
func decodeBody(c Collection, raw []byte) (any, error) {
	top, err := parseJSON(raw)
	if err != nil {
		return nil, &BodyError{Collection: c, Envelope: -1, Record: -1, Problem: err.Error()}
	}
	switch c {
	case Items:
		return decodeEnvelopes[Item](c, top)
	case Monsters:
		return decodeEnvelopes[Monster](c, top)
	case SecretRares:
		return decodeEnvelopes[SecretRare](c, top)
	case WorldBosses:
		return decodeWorldBosses(top)
	case Quests:
		return decodeEnvelopes[Quest](c, top)
	case BaseCamps:
		return decodeEnvelopes[BaseCamp](c, top)
	case Discovery:
		return decodeEnvelopes[DiscoveryLocation](c, top)
	case Mining:
		return decodeEnvelopes[MiningRock](c, top)
	case Cooking:
		return decodeEnvelopes[CookingRecipe](c, top)
	case Farming:
		return decodeEnvelopes[FarmingSeed](c, top)
	case Forestry:
		return decodeEnvelopes[ForestryTree](c, top)
	case Fletching:
		return decodeEnvelopes[FletchingRecipe](c, top)
	case Events:
		return decodeEnvelopes[EventChest](c, top)
	}
	return nil, fmt.Errorf("decoding %s: unknown collection", c)
}

// parseJSON parses one JSON value, numbers kept as their literals, and
// refuses anything after it.
func parseJSON(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("body is empty")
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("body is not valid JSON: truncated")
		}
		return nil, fmt.Errorf("body is not valid JSON: %w", err)
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("body is not valid JSON: data after the top-level value at offset %d", d.InputOffset())
	}
	return v, nil
}

// envelopeField is a required field of an envelope object and its JSON type.
type envelopeField struct{ name, jsonType string }

// envelopes checks that top is a non-empty array of objects each holding the
// listed fields, and returns the objects.
func envelopes(c Collection, top any, fields ...envelopeField) ([]map[string]any, error) {
	arr, ok := top.([]any)
	if !ok {
		return nil, &BodyError{Collection: c, Envelope: -1, Record: -1,
			Problem: "want an array of envelope objects, got " + jsonType(top)}
	}
	if len(arr) == 0 {
		return nil, &BodyError{Collection: c, Envelope: -1, Record: -1, Problem: "no envelope object"}
	}
	out := make([]map[string]any, len(arr))
	for i, e := range arr {
		obj, ok := e.(map[string]any)
		if !ok {
			return nil, &BodyError{Collection: c, Envelope: i, Record: -1,
				Problem: "want an envelope object, got " + jsonType(e)}
		}
		for _, f := range fields {
			name, want := f.name, f.jsonType
			if got := jsonType(obj[name]); obj[name] == nil || got != want {
				p := "missing"
				if _, present := obj[name]; present {
					p = "want " + want + ", got " + got
				}
				return nil, &BodyError{Collection: c, Envelope: i, Record: -1, Field: name, Problem: p}
			}
		}
		out[i] = obj
	}
	return out, nil
}

func decodeEnvelopes[T any](c Collection, top any) ([]T, error) {
	envs, err := envelopes(c, top, envelopeField{"total", "number"}, envelopeField{"results", "array"})
	if err != nil {
		return nil, err
	}
	var d decoder
	// Sized once: grown by append, the records of a large body (15,000
	// items at 10x) would keep up to a quarter more room than they use.
	n := 0
	for _, env := range envs {
		n += len(env["results"].([]any))
	}
	all := make([]T, 0, n)
	for i, env := range envs {
		for j, rec := range env["results"].([]any) {
			var t T
			if err := d.record(reflect.ValueOf(&t).Elem(), rec); err != nil {
				return nil, &BodyError{Collection: c, Envelope: i, Record: j, Field: err.field(), Problem: err.problem}
			}
			all = append(all, t)
		}
	}
	return all, nil
}

func decodeWorldBosses(top any) ([]WorldBoss, error) {
	envs, err := envelopes(WorldBosses, top,
		envelopeField{"world_bosses", "array"}, envelopeField{"endpoint_updates_at", "string"})
	if err != nil {
		return nil, err
	}
	var d decoder
	n := 0
	for _, env := range envs {
		n += len(env["world_bosses"].([]any))
	}
	all := make([]WorldBoss, 0, n)
	for i, env := range envs {
		updatesAt := env["endpoint_updates_at"].(string)
		for j, rec := range env["world_bosses"].([]any) {
			var b WorldBoss
			if err := d.record(reflect.ValueOf(&b).Elem(), rec); err != nil {
				return nil, &BodyError{Collection: WorldBosses, Envelope: i, Record: j, Field: err.field(), Problem: err.problem}
			}
			b.EndpointUpdatesAt = updatesAt
			all = append(all, b)
		}
	}
	return all, nil
}

// decoder fills record structs from parsed JSON, checking every field
// against the struct's shape as it goes. The struct is the single statement
// of the shape: a field tagged omitempty is optional, any other is required.
// It keeps the fields of each struct type it has seen, so a body of many
// records reflects over each type once.
type decoder struct {
	fields map[reflect.Type][]recordField
	// seen keeps the first copy of each short string and number literal,
	// so that records share one: a rarity, a type, an area name or a
	// literal such as "1" repeats across thousands of records, and the
	// parser makes a copy of each occurrence (on the generator's 10x
	// catalogue, 5 of the snapshot's 48 MiB of live heap).
	seen map[string]string
}

// maxShared bounds the strings the decoder shares: longer ones (names,
// descriptions) rarely repeat, and would only grow the map.
const maxShared = 48

// shared returns the decoder's copy of s, the first it was given.
func (d *decoder) shared(s string) string {
	if len(s) > maxShared {
		return s
	}
	if d.seen == nil {
		d.seen = make(map[string]string)
	}
	if t, ok := d.seen[s]; ok {
		return t
	}
	d.seen[s] = s
	return s
}

type recordField struct {
	name     string
	index    []int
	optional bool
}

// fieldError is a problem at a path inside one record.
type fieldError struct {
	path    []string // innermost last; joined only when reported
	problem string
}

func (e *fieldError) field() string {
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		if seg := e.path[i]; strings.HasPrefix(seg, "[") || b.Len() == 0 {
			b.WriteString(seg)
		} else {
			b.WriteString("." + seg)
		}
	}
	return b.String()
}

func (e *fieldError) at(seg string) *fieldError {
	e.path = append(e.path, seg)
	return e
}

var (
	numberType    = reflect.TypeFor[Number]()
	jsonValueType = reflect.TypeFor[JSONValue]()
)

func (d *decoder) record(dst reflect.Value, v any) *fieldError {
	return d.value(dst, v)
}

func (d *decoder) value(dst reflect.Value, v any) *fieldError {
	switch dst.Type() {
	case numberType:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch("number", v)
		}
		dst.SetString(d.shared(string(n)))
		return nil
	case jsonValueType:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return &fieldError{problem: "cannot re-encode value: " + err.Error()}
		}
		dst.SetBytes(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
		return nil
	}
	switch dst.Kind() {
	case reflect.Int64:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch("number", v)
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return &fieldError{problem: "want a whole number (an id), got " + string(n)}
		}
		dst.SetInt(i)
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return mismatch("string", v)
		}
		dst.SetString(d.shared(s))
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return mismatch("boolean", v)
		}
		dst.SetBool(b)
	case reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		if err := d.value(p.Elem(), v); err != nil {
			return err
		}
		dst.Set(p)
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return mismatch("array", v)
		}
		s := reflect.MakeSlice(dst.Type(), len(arr), len(arr))
		for i, e := range arr {
			if err := d.value(s.Index(i), e); err != nil {
				return err.at("[" + strconv.Itoa(i) + "]")
			}
		}
		dst.Set(s)
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return mismatch("object", v)
		}
		for _, f := range d.fieldsOf(dst.Type()) {
			fv, present := obj[f.name]
			if fv == nil {
				if f.optional {
					continue
				}
				if present {
					return (&fieldError{problem: "is null"}).at(f.name)
				}
				return (&fieldError{problem: "missing"}).at(f.name)
			}
			if err := d.value(dst.FieldByIndex(f.index), fv); err != nil {
				return err.at(f.name)
			}
		}
	default:
		// Only reachable through a record type this file does not know
		// how to decode: a programming error, caught by the tests.
		panic(fmt.Sprintf("catalogue: cannot decode into %s", dst.Type()))
	}
	return nil
}

// fieldsOf lists the JSON fields of a record struct, embedded structs'
// fields included, as encoding/json would see them.
func (d *decoder) fieldsOf(t reflect.Type) []recordField {
	if fs, ok := d.fields[t]; ok {
		return fs
	}
	var fs []recordField
	for _, sf := range reflect.VisibleFields(t) {
		if sf.Anonymous || !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || name == "" {
			continue
		}
		fs = append(fs, recordField{name: name, index: sf.Index, optional: opts == "omitempty"})
	}
	if d.fields == nil {
		d.fields = make(map[reflect.Type][]recordField)
	}
	d.fields[t] = fs
	return fs
}

func mismatch(want string, got any) *fieldError {
	return &fieldError{problem: "want " + want + ", got " + jsonType(got)}
}

// jsonType names the JSON type of a parsed value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
