package collector

import (
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/augur-dev/augur/trace"
)

// A TypeError reports a Go type that cannot be exposed as a state.
type TypeError struct {
	Type  reflect.Type // the exposed type
	Field string       // path of the offending field, e.g. Peers[].Conn; "" for the type itself
	Msg   string
}

// Error renders the error as "collector: cannot expose T: field F: msg".
func (e *TypeError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("collector: cannot expose %s: %s", e.Type, e.Msg)
	}
	return fmt.Sprintf("collector: cannot expose %s: field %s: %s", e.Type, e.Field, e.Msg)
}

// codecKind says how a Go value becomes a trace value.
type codecKind uint8

const (
	codecInvalid   codecKind = iota
	codecBool                // bool
	codecInt                 // signed integers: int64
	codecSmallUint           // uint8, uint16, uint32: int64
	codecUint                // uint, uint64, uintptr: uint64
	codecFloat               // float32, float64: float64
	codecString              // string: utf8
	codecBytes               // []byte and [N]byte: utf8, lower-case hex
	codecTime                // time.Time: int64 nanoseconds since the Unix epoch; the zero time is null
	codecStringer            // a field tagged augur:",string": utf8 from its String method
	codecPtr                 // pointer: null when nil, else the value pointed to
	codecList                // slices and arrays: list<T>
	codecMap                 // maps with string or integer keys: map<utf8, T>
	codecStruct              // struct: struct<…>, or the columns at the top level
)

// A codec turns values of one Go type into trace values. Codecs are
// immutable once built and shared by all goroutines.
type codec struct {
	kind   codecKind
	typ    arrow.DataType
	elem   *codec        // codecPtr, codecList, codecMap: the element or item
	keyInt bool          // codecMap: integer keys, written in decimal
	fields []structField // codecStruct
}

// structField is a field of a struct codec, maybe promoted from embedded
// structs.
type structField struct {
	name  string
	index []int // for reflect.Value.FieldByIndex
	c     *codec
}

// A plan is the codec of an exposed struct type: its fields are the
// state variables.
type plan struct {
	typ    reflect.Type
	root   *codec
	schema trace.Schema
}

var (
	plans      sync.Map // reflect.Type → *planEntry
	timeType   = reflect.TypeFor[time.Time]()
	stringerIf = reflect.TypeFor[fmt.Stringer]()
)

type planEntry struct {
	p   *plan
	err error
}

// planFor returns the plan for t, building it on first use. An error is
// cached as well.
func planFor(t reflect.Type) (*plan, error) {
	if e, ok := plans.Load(t); ok {
		e := e.(*planEntry)
		return e.p, e.err
	}
	p, err := buildPlan(t)
	e, _ := plans.LoadOrStore(t, &planEntry{p, err})
	return e.(*planEntry).p, e.(*planEntry).err
}

// stateValue returns the struct value of an exposed state and its plan.
func stateValue(state any) (reflect.Value, *plan, error) {
	v := reflect.ValueOf(state)
	if !v.IsValid() {
		return v, nil, fmt.Errorf("collector: cannot expose a nil state")
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return v, nil, fmt.Errorf("collector: cannot expose a nil %s", v.Type())
		}
		v = v.Elem()
	}
	p, err := planFor(v.Type())
	return v, p, err
}

func buildPlan(t reflect.Type) (*plan, error) {
	if t.Kind() != reflect.Struct || t == timeType {
		return nil, &TypeError{Type: t, Msg: "a state must be a struct or a pointer to one (its fields are the state variables)"}
	}
	pb := planBuilder{top: t, active: map[reflect.Type]bool{}}
	root, err := pb.structCodec(t, "", true)
	if err != nil {
		return nil, err
	}
	p := &plan{typ: t, root: root}
	for _, f := range root.fields {
		p.schema = append(p.schema, trace.Column{Name: f.name, Type: f.c.typ})
	}
	return p, nil
}

type planBuilder struct {
	top    reflect.Type
	active map[reflect.Type]bool // structs being built, to reject recursive types
}

func (pb *planBuilder) errorf(field, format string, args ...any) error {
	return &TypeError{Type: pb.top, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// codec builds the codec of t, found at field path path.
func (pb *planBuilder) codec(t reflect.Type, path string) (*codec, error) {
	if t == timeType {
		return &codec{kind: codecTime, typ: arrow.PrimitiveTypes.Int64}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &codec{kind: codecBool, typ: arrow.FixedWidthTypes.Boolean}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &codec{kind: codecInt, typ: arrow.PrimitiveTypes.Int64}, nil
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return &codec{kind: codecSmallUint, typ: arrow.PrimitiveTypes.Int64}, nil
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return &codec{kind: codecUint, typ: arrow.PrimitiveTypes.Uint64}, nil
	case reflect.Float32, reflect.Float64:
		return &codec{kind: codecFloat, typ: arrow.PrimitiveTypes.Float64}, nil
	case reflect.String:
		return &codec{kind: codecString, typ: arrow.BinaryTypes.String}, nil
	case reflect.Pointer:
		if t.Elem().Kind() == reflect.Pointer {
			return nil, pb.errorf(path, "pointer to pointer %s is not supported", t)
		}
		elem, err := pb.codec(t.Elem(), path)
		if err != nil {
			return nil, err
		}
		return &codec{kind: codecPtr, typ: elem.typ, elem: elem}, nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return &codec{kind: codecBytes, typ: arrow.BinaryTypes.String}, nil
		}
		elem, err := pb.codec(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		return &codec{kind: codecList, typ: arrow.ListOf(elem.typ), elem: elem}, nil
	case reflect.Map:
		c := &codec{kind: codecMap}
		switch t.Key().Kind() {
		case reflect.String:
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			c.keyInt = true
		default:
			return nil, pb.errorf(path, "map key type %s is not a string or an integer", t.Key())
		}
		elem, err := pb.codec(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		c.elem, c.typ = elem, arrow.MapOf(arrow.BinaryTypes.String, elem.typ)
		return c, nil
	case reflect.Struct:
		return pb.structCodec(t, path, false)
	case reflect.Interface:
		return nil, pb.errorf(path, "interface type %s: a state needs static types (use a concrete type, or tag the field augur:\"-\")", t)
	}
	return nil, pb.errorf(path, "unsupported type %s", t)
}

// structCodec builds the codec of struct type t. At the top level its
// fields become columns, whose names must not be reserved.
func (pb *planBuilder) structCodec(t reflect.Type, path string, top bool) (*codec, error) {
	if pb.active[t] {
		return nil, pb.errorf(path, "recursive type %s", t)
	}
	pb.active[t] = true
	defer delete(pb.active, t)
	c := &codec{kind: codecStruct}
	seen := map[string]string{} // name → Go field path, for duplicates
	if err := pb.fields(t, path, nil, top, c, seen); err != nil {
		return nil, err
	}
	if !top && len(c.fields) == 0 {
		return nil, pb.errorf(path, "struct %s has no exported fields", t)
	}
	var afs []arrow.Field
	for _, f := range c.fields {
		afs = append(afs, arrow.Field{Name: f.name, Type: f.c.typ, Nullable: true})
	}
	c.typ = arrow.StructOf(afs...)
	return c, nil
}

// fields adds the fields of struct type t, reached through index, to c.
// Fields of embedded structs without a name tag are promoted, as
// encoding/json does.
func (pb *planBuilder) fields(t reflect.Type, path string, index []int, top bool, c *codec, seen map[string]string) error {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("augur")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		idx := append(slices.Clip(index), i)
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct && f.Type != timeType {
			if pb.active[f.Type] {
				return pb.errorf(join(path, f.Name), "recursive type %s", f.Type)
			}
			pb.active[f.Type] = true
			err := pb.fields(f.Type, path, idx, top, c, seen)
			delete(pb.active, f.Type)
			if err != nil {
				return err
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fpath := join(path, f.Name)
		if top {
			if err := checkVarName(name); err != nil || name == eventColumn {
				return pb.errorf(fpath, "name %q is reserved for the columns node, ts and %s (rename it with an augur:\"name\" tag)", name, eventColumn)
			}
		}
		if prev, dup := seen[name]; dup {
			return pb.errorf(fpath, "name %q is also the name of field %s", name, prev)
		}
		seen[name] = fpath
		var fc *codec
		var err error
		switch opts {
		case "":
			fc, err = pb.codec(f.Type, fpath)
		case "string":
			if !f.Type.Implements(stringerIf) {
				return pb.errorf(fpath, "tagged augur:\",string\" but %s has no String method", f.Type)
			}
			fc = &codec{kind: codecStringer, typ: arrow.BinaryTypes.String}
		default:
			return pb.errorf(fpath, "unknown augur tag option %q (want \"string\")", opts)
		}
		if err != nil {
			return err
		}
		c.fields = append(c.fields, structField{name: name, index: idx, c: fc})
	}
	return nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// field returns the value of field f of struct value v.
func (f *structField) field(v reflect.Value) reflect.Value {
	if len(f.index) == 1 {
		return v.Field(f.index[0])
	}
	return v.FieldByIndex(f.index)
}

// timeOf returns the time.Time in v without allocating when v is
// addressable.
func timeOf(v reflect.Value) time.Time {
	if v.CanAddr() {
		return *v.Addr().Interface().(*time.Time)
	}
	return v.Interface().(time.Time)
}

// validString replaces invalid UTF-8, which Arrow's utf8 may not hold.
func validString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// mapKeys returns the keys of map value v as strings, sorted, with the
// reflect keys in the same order.
func (c *codec) mapKeys(v reflect.Value) ([]string, []reflect.Value) {
	keys := v.MapKeys()
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = c.keyString(k)
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	sn, sk := make([]string, len(keys)), make([]reflect.Value, len(keys))
	for i, o := range order {
		sn[i], sk[i] = names[o], keys[o]
	}
	return sn, sk
}

func (c *codec) keyString(k reflect.Value) string {
	if !c.keyInt {
		return validString(k.String())
	}
	if k.CanInt() {
		return strconv.FormatInt(k.Int(), 10)
	}
	return strconv.FormatUint(k.Uint(), 10)
}

// appendArrow appends v to b, a builder of c.typ.
func (c *codec) appendArrow(b array.Builder, v reflect.Value) {
	switch c.kind {
	case codecBool:
		b.(*array.BooleanBuilder).Append(v.Bool())
	case codecInt:
		b.(*array.Int64Builder).Append(v.Int())
	case codecSmallUint:
		b.(*array.Int64Builder).Append(int64(v.Uint()))
	case codecUint:
		b.(*array.Uint64Builder).Append(v.Uint())
	case codecFloat:
		b.(*array.Float64Builder).Append(v.Float())
	case codecString:
		b.(*array.StringBuilder).Append(validString(v.String()))
	case codecBytes:
		b.(*array.StringBuilder).Append(bytesHex(v))
	case codecTime:
		tm := timeOf(v)
		if tm.IsZero() {
			b.AppendNull()
			return
		}
		b.(*array.Int64Builder).Append(tm.UnixNano())
	case codecStringer:
		if s, ok := stringOf(v); ok {
			b.(*array.StringBuilder).Append(s)
		} else {
			b.AppendNull()
		}
	case codecPtr:
		if v.IsNil() {
			b.AppendNull()
			return
		}
		c.elem.appendArrow(b, v.Elem())
	case codecList:
		lb := b.(*array.ListBuilder)
		lb.Append(true)
		eb := lb.ValueBuilder()
		for i := range v.Len() {
			c.elem.appendArrow(eb, v.Index(i))
		}
	case codecMap:
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		kb, ib := mb.KeyBuilder().(*array.StringBuilder), mb.ItemBuilder()
		names, keys := c.mapKeys(v)
		for i, k := range keys {
			kb.Append(names[i])
			c.elem.appendArrow(ib, v.MapIndex(k))
		}
	case codecStruct:
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		for i := range c.fields {
			f := &c.fields[i]
			f.c.appendArrow(sb.FieldBuilder(i), f.field(v))
		}
	default:
		panic(fmt.Sprintf("collector: appendArrow of codec kind %d", c.kind))
	}
}

// stringOf calls the String method of v; a nil pointer has none.
func stringOf(v reflect.Value) (string, bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		if v.IsNil() {
			return "", false
		}
	}
	return validString(v.Interface().(fmt.Stringer).String()), true
}

func bytesHex(v reflect.Value) string {
	if v.Kind() == reflect.Slice {
		return hex.EncodeToString(v.Bytes())
	}
	if v.CanAddr() {
		return hex.EncodeToString(v.Bytes())
	}
	b := make([]byte, v.Len())
	for i := range b {
		b[i] = byte(v.Index(i).Uint())
	}
	return hex.EncodeToString(b)
}

// value returns v in the representation of package trace.
func (c *codec) value(v reflect.Value) any {
	switch c.kind {
	case codecBool:
		return v.Bool()
	case codecInt:
		return v.Int()
	case codecSmallUint:
		return int64(v.Uint())
	case codecUint:
		return v.Uint()
	case codecFloat:
		return v.Float()
	case codecString:
		return validString(v.String())
	case codecBytes:
		return bytesHex(v)
	case codecTime:
		tm := timeOf(v)
		if tm.IsZero() {
			return nil
		}
		return tm.UnixNano()
	case codecStringer:
		if s, ok := stringOf(v); ok {
			return s
		}
		return nil
	case codecPtr:
		if v.IsNil() {
			return nil
		}
		return c.elem.value(v.Elem())
	case codecList:
		l := make([]any, v.Len())
		for i := range l {
			l[i] = c.elem.value(v.Index(i))
		}
		return l
	case codecMap:
		m := make(map[string]any, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			m[c.keyString(iter.Key())] = c.elem.value(iter.Value())
		}
		return m
	case codecStruct:
		m := make(map[string]any, len(c.fields))
		for i := range c.fields {
			f := &c.fields[i]
			m[f.name] = f.c.value(f.field(v))
		}
		return m
	}
	panic(fmt.Sprintf("collector: value of codec kind %d", c.kind))
}

// notFinite is the error of appendJSON for a NaN or an infinity, which
// JSON cannot hold. path is filled in on the way up.
type notFinite struct {
	path string
	f    float64
}

func (e *notFinite) Error() string {
	return fmt.Sprintf("collector: field %s: %v cannot be written as JSON", e.path, e.f)
}

// under prefixes the path of a *notFinite with name.
func under(err error, name string) error {
	if e, ok := err.(*notFinite); ok {
		if e.path == "" {
			e.path = name
		} else {
			e.path = name + "." + e.path
		}
	}
	return err
}

// appendJSON appends v as JSON. JSON has no NaN or infinities: strictly
// they are a *notFinite error; for a key (a canonical encoding compared
// for equality only) they are written as strings.
func (c *codec) appendJSON(b []byte, v reflect.Value, key bool) ([]byte, error) {
	switch c.kind {
	case codecBool:
		return strconv.AppendBool(b, v.Bool()), nil
	case codecInt:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case codecSmallUint, codecUint:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case codecFloat:
		return appendJSONFloat(b, v.Float(), key)
	case codecString:
		return appendJSONString(b, v.String()), nil
	case codecBytes:
		return appendJSONString(b, bytesHex(v)), nil
	case codecTime:
		tm := timeOf(v)
		if tm.IsZero() {
			return append(b, "null"...), nil
		}
		return strconv.AppendInt(b, tm.UnixNano(), 10), nil
	case codecStringer:
		if s, ok := stringOf(v); ok {
			return appendJSONString(b, s), nil
		}
		return append(b, "null"...), nil
	case codecPtr:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		return c.elem.appendJSON(b, v.Elem(), key)
	case codecList:
		b = append(b, '[')
		var err error
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = c.elem.appendJSON(b, v.Index(i), key); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case codecMap:
		b = append(b, '{')
		names, keys := c.mapKeys(v)
		var err error
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, names[i])
			b = append(b, ':')
			if b, err = c.elem.appendJSON(b, v.MapIndex(k), key); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case codecStruct:
		b = append(b, '{')
		var err error
		for i := range c.fields {
			f := &c.fields[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, f.name)
			b = append(b, ':')
			if b, err = f.c.appendJSON(b, f.field(v), key); err != nil {
				return b, under(err, f.name)
			}
		}
		return append(b, '}'), nil
	}
	panic(fmt.Sprintf("collector: appendJSON of codec kind %d", c.kind))
}

// appendJSONFloat writes f so that it reads back as a float: with a
// fraction or an exponent, never as an integer.
func appendJSONFloat(b []byte, f float64, key bool) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if key {
			return strconv.AppendQuote(b, strconv.FormatFloat(f, 'g', -1, 64)), nil
		}
		return b, &notFinite{f: f}
	}
	n := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	for _, c := range b[n:] {
		if c == '.' || c == 'e' {
			return b, nil
		}
	}
	return append(b, ".0"...), nil
}

// appendJSONString writes s as a JSON string; invalid UTF-8 becomes
// U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
