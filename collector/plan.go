package collector

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/augur-dev/augur/coltype"
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
	typ    *coltype.Type
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
	schema coltype.Schema
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
		p.schema = append(p.schema, coltype.Column{Name: f.name, Type: f.c.typ})
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
		return &codec{kind: codecTime, typ: coltype.Int64Type}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &codec{kind: codecBool, typ: coltype.BoolType}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &codec{kind: codecInt, typ: coltype.Int64Type}, nil
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return &codec{kind: codecSmallUint, typ: coltype.Int64Type}, nil
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return &codec{kind: codecUint, typ: coltype.Uint64Type}, nil
	case reflect.Float32, reflect.Float64:
		return &codec{kind: codecFloat, typ: coltype.Float64Type}, nil
	case reflect.String:
		return &codec{kind: codecString, typ: coltype.StringType}, nil
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
			return &codec{kind: codecBytes, typ: coltype.StringType}, nil
		}
		elem, err := pb.codec(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		return &codec{kind: codecList, typ: coltype.ListOf(elem.typ), elem: elem}, nil
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
		c.elem, c.typ = elem, coltype.MapOf(coltype.StringType, elem.typ)
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
	var cfs []coltype.Field
	for _, f := range c.fields {
		cfs = append(cfs, coltype.Field{Name: f.name, Type: f.c.typ})
	}
	c.typ = coltype.StructOf(cfs...)
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
			if name == "node" || name == "ts" || name == EventColumn {
				return pb.errorf(fpath, "name %q is reserved for the columns node, ts and %s (rename it with an augur:\"name\" tag)", name, EventColumn)
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
			fc = &codec{kind: codecStringer, typ: coltype.StringType}
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
