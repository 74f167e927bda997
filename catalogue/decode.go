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
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
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
//
// It reads the body twice. The first pass checks its syntax, so that a body
// that is not JSON is refused as a whole whatever its first records hold,
// and counts its records. The second reads it token by token straight into
// a slice of that many records. No generic tree of the body is built, and
// no record is moved once decoded: on the generator's 10x catalogue the
// tree was most of the time to ready, and growing the slice of 15,000
// items allocated five times their size, each byte a page fault on a
// fresh heap and each copy behind the collector's write barrier.
func decodeBody(c Collection, raw []byte) (any, error) {
	list := "results"
	if c == WorldBosses {
		list = "world_bosses"
	}
	records, err := scan(raw, list)
	if err != nil {
		return nil, &BodyError{Collection: c, Envelope: -1, Record: -1, Problem: err.Error()}
	}
	d := &decoder{
		in:      jsontext.NewDecoder(bytes.NewBuffer(raw), readOptions...),
		records: records,
		size:    len(raw),
		fields:  make(map[reflect.Type]*recordFields),
		seen:    make(map[string]string),
		scratch: make(map[reflect.Type]reflect.Value),
	}
	if c == WorldBosses {
		return decodeWorldBosses(d) // its envelopes are shaped otherwise
	}
	return decodeRecords(d, c) // collections_gen.go, from the schema
}

// scanOptions: bytes that are not UTF-8 become U+FFFD, as encoding/json
// (which the upstream's other clients use) has them. An object naming a
// member twice is refused: which of its values is meant is anyone's guess.
var scanOptions = []jsontext.Options{jsontext.AllowInvalidUTF8(true)}

// readOptions are scanOptions without the check for names given twice,
// which scan made: it costs a tenth of the reading.
var readOptions = []jsontext.Options{jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)}

// scan reports whether raw is one JSON value and nothing else, and counts
// the elements of the arrays named list in the objects of a top-level
// array: the records, if the body has the shape of its collection.
func scan(raw []byte, list string) (records int, err error) {
	s := scanner{in: jsontext.NewDecoder(bytes.NewBuffer(raw), scanOptions...)}
	if s.in.PeekKind() != '[' {
		s.skip()
	} else {
		for s.token(); s.more(); {
			if s.in.PeekKind() != '{' {
				s.skip()
				continue
			}
			for s.token(); s.more(); {
				if s.name() != list || s.in.PeekKind() != '[' {
					s.skip()
					continue
				}
				for s.token(); s.more(); records++ {
					s.skip()
				}
				s.token()
			}
			s.token()
		}
		s.token()
	}
	if s.err != nil {
		var se *jsontext.SyntacticError
		switch {
		case errors.Is(s.err, io.EOF):
			return 0, errors.New("body is empty")
		case errors.Is(s.err, io.ErrUnexpectedEOF):
			return 0, errors.New("body is not valid JSON: truncated")
		case errors.As(s.err, &se):
			return 0, fmt.Errorf("body is not valid JSON: %w at offset %d", se.Err, se.ByteOffset)
		}
		return 0, fmt.Errorf("body is not valid JSON: %w", s.err)
	}
	if s.in.PeekKind() != jsontext.KindInvalid || !errors.Is(s.in.SkipValue(), io.EOF) {
		return 0, fmt.Errorf("body is not valid JSON: data after the top-level value at offset %d", s.in.InputOffset())
	}
	return records, nil
}

// scanner reads JSON keeping its first error: once it has one, it reads
// nothing more, and more reports false.
type scanner struct {
	in  *jsontext.Decoder
	err error
}

func (s *scanner) token() {
	if s.err == nil {
		_, s.err = s.in.ReadToken()
	}
}

func (s *scanner) skip() {
	if s.err == nil {
		s.err = s.in.SkipValue()
	}
}

// name reads an object member's name, as written.
func (s *scanner) name() string {
	if s.err != nil {
		return ""
	}
	v, err := s.in.ReadValue()
	s.err = err
	if err != nil {
		return ""
	}
	return string(v[1 : len(v)-1])
}

// more reports whether the object or array being read has another member.
func (s *scanner) more() bool {
	if s.err != nil {
		return false
	}
	switch s.in.PeekKind() {
	case '}', ']':
		return false
	case jsontext.KindInvalid:
		s.err = s.in.SkipValue() // the error PeekKind met
		return false
	}
	return true
}

// envelope describes the envelope objects of a body: the field holding
// their records, and the one other field each must hold, with its kind.
type envelope struct {
	list, other string
	otherKind   jsontext.Kind
	// otherFirst: the description lists the other field before the list,
	// so its absence is reported first.
	otherFirst bool
}

// envelopeReader is told what eachEnvelope meets in each envelope object.
type envelopeReader interface {
	// records reads the envelope's record list, an array not yet opened.
	records(env int) *BodyError
	// other is given the envelope's other field's value.
	other(v jsontext.Value)
	// end is told the envelope is read and valid.
	end()
}

// eachEnvelope walks a syntactically valid body's envelope objects and
// checks each holds its two fields, with the right kinds.
func (d *decoder) eachEnvelope(c Collection, e envelope, r envelopeReader) *BodyError {
	if k := d.in.PeekKind(); k != '[' {
		return &BodyError{Collection: c, Envelope: -1, Record: -1,
			Problem: "want an array of envelope objects, got " + kindName(k)}
	}
	d.in.ReadToken()
	env := 0
	for ; d.in.PeekKind() != ']'; env++ {
		if k := d.in.PeekKind(); k != '{' {
			return &BodyError{Collection: c, Envelope: env, Record: -1,
				Problem: "want an envelope object, got " + kindName(k)}
		}
		d.in.ReadToken()
		sawList, sawOther := false, false
		for d.in.PeekKind() != '}' {
			name := string(d.name())
			k := d.in.PeekKind()
			switch name {
			case e.list:
				if k != '[' {
					return &BodyError{Collection: c, Envelope: env, Record: -1, Field: name, Problem: "want array, got " + kindName(k)}
				}
				if err := r.records(env); err != nil {
					return err
				}
				sawList = true
			case e.other:
				if k != e.otherKind {
					return &BodyError{Collection: c, Envelope: env, Record: -1, Field: name,
						Problem: "want " + kindName(e.otherKind) + ", got " + kindName(k)}
				}
				v, _ := d.in.ReadValue()
				r.other(v)
				sawOther = true
			default:
				d.in.SkipValue()
			}
		}
		d.in.ReadToken()
		missing := ""
		switch {
		case !sawOther && (e.otherFirst || sawList):
			missing = e.other
		case !sawList:
			missing = e.list
		}
		if missing != "" {
			return &BodyError{Collection: c, Envelope: env, Record: -1, Field: missing, Problem: "missing"}
		}
		r.end()
	}
	if env == 0 {
		return &BodyError{Collection: c, Envelope: -1, Record: -1, Problem: "no envelope object"}
	}
	return nil
}

// recordList reads the records of every envelope into one slice.
type recordList[T any] struct {
	d          *decoder
	collection Collection
	all        []T
}

func (l *recordList[T]) records(env int) *BodyError {
	if l.all == nil {
		l.all = make([]T, 0, l.d.capacity(reflect.TypeFor[T]()))
	}
	l.d.in.ReadToken()
	for j := 0; l.d.in.PeekKind() != ']'; j++ {
		l.all = append(l.all, *new(T))
		if err := l.d.value(reflect.ValueOf(&l.all[len(l.all)-1]).Elem()); err != nil {
			return &BodyError{Collection: l.collection, Envelope: env, Record: j, Field: err.field(), Problem: err.problem}
		}
	}
	l.d.in.ReadToken()
	return nil
}

func (l *recordList[T]) other(jsontext.Value) {}
func (l *recordList[T]) end()                 {}

func decodeEnvelopes[T any](d *decoder, c Collection) ([]T, error) {
	l := &recordList[T]{d: d, collection: c}
	if err := d.eachEnvelope(c, envelope{list: "results", other: "total", otherKind: '0', otherFirst: true}, l); err != nil {
		return nil, err
	}
	return l.all, nil
}

// bossList reads world bosses, giving each its envelope's update time,
// which may come before or after the list it applies to.
type bossList struct {
	recordList[WorldBoss]
	first     int // the first boss of the envelope being read
	updatesAt string
}

func (l *bossList) other(v jsontext.Value) { l.updatesAt = l.d.stringOf(v) }

func (l *bossList) end() {
	for i := l.first; i < len(l.all); i++ {
		l.all[i].EndpointUpdatesAt = l.updatesAt
	}
	l.first = len(l.all)
}

func decodeWorldBosses(d *decoder) ([]WorldBoss, error) {
	l := &bossList{recordList: recordList[WorldBoss]{d: d, collection: WorldBosses}}
	if err := d.eachEnvelope(WorldBosses, envelope{list: "world_bosses", other: "endpoint_updates_at", otherKind: '"'}, l); err != nil {
		return nil, err
	}
	return l.all, nil
}

// decoder fills record structs from a JSON body, token by token, checking
// every field against the struct's shape as it goes. The struct is the
// single statement of the shape: a field tagged omitempty is optional, any
// other is required. It keeps the fields of each struct type it has seen,
// so a body of many records reflects over each type once.
type decoder struct {
	in *jsontext.Decoder
	// records is the number of records scan counted, and size the body's
	// length in bytes.
	records, size int
	fields        map[reflect.Type]*recordFields
	// seen keeps the first copy of each short string and number literal,
	// so that records share one: a rarity, a type, an area name or a
	// literal such as "1" repeats across thousands of records (on the
	// generator's 10x catalogue, 5 of the snapshot's 48 MiB of live heap).
	seen map[string]string
	// unescaped holds a string being unescaped.
	unescaped []byte
	// scratch holds, per slice type, the elements of a list being read.
	scratch map[reflect.Type]reflect.Value
}

// capacity returns the room to make for the body's records of type t: the
// number scan counted, but never more than a body of this size could hold
// if every record were valid, so that a hostile body of empty objects
// cannot make it reserve more than a real one would use.
func (d *decoder) capacity(t reflect.Type) int {
	return min(d.records, d.size/d.minBytes(t))
}

// minBytes returns the length of the shortest JSON a valid value of type t
// can be written in.
func (d *decoder) minBytes(t reflect.Type) int {
	switch t {
	case numberType:
		return 1 // 0
	case jsonValueType:
		return 1 // 0
	}
	switch t.Kind() {
	case reflect.Int64:
		return 1 // 0
	case reflect.String, reflect.Slice:
		return 2 // "" or []
	case reflect.Bool:
		return 4 // true
	case reflect.Pointer:
		return d.minBytes(t.Elem())
	case reflect.Struct:
		n, required := 2, 0 // {}
		for _, f := range d.fieldsOf(t).list {
			if !f.optional {
				n += len(f.name) + 3 + d.minBytes(t.FieldByIndex(f.index).Type) // "name":value
				required++
			}
		}
		return n + max(required-1, 0) // and the commas between
	}
	return 1
}

// maxShared bounds the strings the decoder shares: longer ones (names,
// descriptions) rarely repeat, and would only grow the map.
const maxShared = 48

// shared returns the decoder's copy of the string b holds, the first it
// made; b is not kept.
func (d *decoder) shared(b []byte) string {
	if len(b) > maxShared {
		return string(b)
	}
	if s, ok := d.seen[string(b)]; ok {
		return s
	}
	s := string(b)
	d.seen[s] = s
	return s
}

// stringOf returns the string a JSON string literal v holds.
func (d *decoder) stringOf(v jsontext.Value) string {
	return d.shared(d.unquote(v))
}

// unquote returns the bytes a JSON string literal holds: v's own when it
// has no escape and is valid UTF-8 (nearly every string), else the
// decoder's scratch. Either is only valid until the next read.
func (d *decoder) unquote(v jsontext.Value) []byte {
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner
	}
	// The body's syntax was checked, so v is a string literal.
	d.unescaped, _ = jsontext.AppendUnquote(d.unescaped[:0], v)
	return d.unescaped
}

// name reads an object member's name. Its bytes are only valid until the
// next read.
func (d *decoder) name() []byte {
	v, _ := d.in.ReadValue()
	return d.unquote(v)
}

// recordFields are the JSON fields of a record struct.
type recordFields struct {
	list   []recordField
	byName map[string]int // index into list
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

// value reads the next JSON value into dst, which must be of a record's
// field type.
func (d *decoder) value(dst reflect.Value) *fieldError {
	k := d.in.PeekKind()
	switch dst.Type() {
	case numberType:
		if k != '0' {
			return mismatch("number", k)
		}
		v, _ := d.in.ReadValue()
		dst.SetString(d.shared(v))
		return nil
	case jsonValueType:
		v, _ := d.in.ReadValue()
		b, err := compactSorted(v)
		if err != nil {
			return &fieldError{problem: "cannot re-encode value: " + err.Error()}
		}
		dst.SetBytes(b)
		return nil
	}
	switch dst.Kind() {
	case reflect.Int64:
		if k != '0' {
			return mismatch("number", k)
		}
		v, _ := d.in.ReadValue()
		i, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return &fieldError{problem: "want a whole number (an id), got " + string(v)}
		}
		dst.SetInt(i)
	case reflect.String:
		if k != '"' {
			return mismatch("string", k)
		}
		v, _ := d.in.ReadValue()
		dst.SetString(d.stringOf(v))
	case reflect.Bool:
		if k != 't' && k != 'f' {
			return mismatch("boolean", k)
		}
		d.in.ReadToken()
		dst.SetBool(k == 't')
	case reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		if err := d.value(p.Elem()); err != nil {
			return err
		}
		dst.Set(p)
	case reflect.Slice:
		return d.slice(dst, k)
	case reflect.Struct:
		return d.object(dst, k)
	default:
		// Only reachable through a record type this file does not know
		// how to decode: a programming error, caught by the tests.
		panic(fmt.Sprintf("catalogue: cannot decode into %s", dst.Type()))
	}
	return nil
}

// slice reads a JSON array into dst, a slice of a record's field type.
func (d *decoder) slice(dst reflect.Value, k jsontext.Kind) *fieldError {
	if k != '[' {
		return mismatch("array", k)
	}
	d.in.ReadToken()
	// Elements are read into the decoder's scratch for the type, then
	// copied into a slice of their exact number (never nil: a list
	// that is present, even empty, is served as []).
	t := dst.Type()
	s := d.scratch[t]
	if !s.IsValid() {
		s = reflect.MakeSlice(t, 0, 8)
	}
	d.scratch[t] = reflect.Value{} // in use, should t ever nest in itself
	n := 0
	for ; d.in.PeekKind() != ']'; n++ {
		if n == s.Cap() {
			s = reflect.AppendSlice(s.Slice(0, n), reflect.MakeSlice(t, n, n))
		}
		s = s.Slice(0, n+1)
		e := s.Index(n)
		e.SetZero()
		if err := d.value(e); err != nil {
			return err.at("[" + strconv.Itoa(n) + "]")
		}
	}
	d.in.ReadToken()
	out := reflect.MakeSlice(t, n, n)
	reflect.Copy(out, s)
	d.scratch[t] = s.Slice(0, 0)
	dst.Set(out)
	return nil
}

// object reads a JSON object into dst, a record (or a struct within one):
// its fields by name, unknown names skipped, a required field missing or
// null refused.
func (d *decoder) object(dst reflect.Value, k jsontext.Kind) *fieldError {
	if k != '{' {
		return mismatch("object", k)
	}
	d.in.ReadToken()
	fs := d.fieldsOf(dst.Type())
	var present uint64 // by index into fs.list
	for d.in.PeekKind() != '}' {
		i, known := fs.byName[string(d.name())]
		if !known {
			d.in.SkipValue()
			continue
		}
		f := fs.list[i]
		if d.in.PeekKind() == 'n' {
			d.in.ReadToken()
			if !f.optional {
				return (&fieldError{problem: "is null"}).at(f.name)
			}
			// A repeated name keeps its last value, even null.
			dst.FieldByIndex(f.index).SetZero()
			continue
		}
		if err := d.value(dst.FieldByIndex(f.index)); err != nil {
			return err.at(f.name)
		}
		present |= 1 << i
	}
	d.in.ReadToken()
	for i, f := range fs.list {
		if !f.optional && present&(1<<i) == 0 {
			return (&fieldError{problem: "missing"}).at(f.name)
		}
	}
	return nil
}

// compactSorted returns a JSON value compacted, with object members in
// name order and numbers as written: the form a JSONValue is kept in, so
// two upstream bodies that differ only in layout give the same value.
func compactSorted(v jsontext.Value) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var tree any
	if err := d.Decode(&tree); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// fieldsOf lists the JSON fields of a record struct, embedded structs'
// fields included, as encoding/json would see them.
func (d *decoder) fieldsOf(t reflect.Type) *recordFields {
	if fs, ok := d.fields[t]; ok {
		return fs
	}
	fs := &recordFields{byName: make(map[string]int)}
	for _, sf := range reflect.VisibleFields(t) {
		if sf.Anonymous || !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || name == "" {
			continue
		}
		fs.byName[name] = len(fs.list)
		fs.list = append(fs.list, recordField{name: name, index: sf.Index, optional: opts == "omitempty"})
	}
	if len(fs.list) > 64 {
		// value keeps which fields it met in a uint64.
		panic(fmt.Sprintf("catalogue: %s has more than 64 JSON fields", t))
	}
	d.fields[t] = fs
	return fs
}

// mismatch reports a value of kind got where a want was expected.
func mismatch(want string, got jsontext.Kind) *fieldError {
	return &fieldError{problem: "want " + want + ", got " + kindName(got)}
}

// kindName names a JSON kind as the upstream description does.
func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean"
	case '0':
		return "number"
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	return k.String()
}
