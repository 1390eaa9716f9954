package collector

import (
	"fmt"
	"reflect"

	"github.com/augur-dev/augur/coltype"
)

// A Visitor receives trace values part by part, in the representation of
// package trace, from [VisitState]. A reader that keeps its own form of
// the values, such as package checker, copies a state through a Visitor
// without the []any and map[string]any that [State.Values] builds.
type Visitor interface {
	Null()
	Bool(v bool)
	Int(v int64)
	Uint(v uint64)
	Float(v float64)
	String(v string)
	// List starts a list of n elements: the next n values.
	List(n int)
	// Map starts a map or a struct of n entries, each a Key and then a
	// value: a map's in key order, a struct's in field order.
	Map(n int)
	Key(k string)
}

// SchemaOf returns the state variables of the states of type t, a struct
// or a pointer to one, as [Node.Expose] records them. The error is a
// [*TypeError] when t cannot be exposed.
func SchemaOf(t reflect.Type) (coltype.Schema, error) {
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return nil, fmt.Errorf("collector: cannot expose a nil state")
	}
	p, err := planFor(t)
	if err != nil {
		return nil, err
	}
	return p.schema, nil
}

// VisitState passes the values of the state variables vars of state (a
// struct or a pointer to one; vars index its [SchemaOf] columns) to v, in
// the order of vars, converted by the rules of [Node.Expose]. It
// allocates nothing for a pointer to a struct of booleans, numbers,
// strings, times, pointers, slices and structs; []byte fields, maps,
// fields tagged augur:",string" and strings that are not valid UTF-8
// allocate as they are converted.
func VisitState(state any, vars []int, v Visitor) error {
	sv, p, err := stateValue(state)
	if err != nil {
		return err
	}
	for _, i := range vars {
		if i < 0 || i >= len(p.root.fields) {
			return fmt.Errorf("collector: %s has no state variable %d (it has %d)", p.typ, i, len(p.root.fields))
		}
		f := &p.root.fields[i]
		f.c.visit(f.field(sv), v)
	}
	return nil
}

// visit passes x, a value of the codec's type, to v.
func (c *codec) visit(x reflect.Value, v Visitor) {
	switch c.kind {
	case codecBool:
		v.Bool(x.Bool())
	case codecInt:
		v.Int(x.Int())
	case codecSmallUint:
		v.Int(int64(x.Uint()))
	case codecUint:
		v.Uint(x.Uint())
	case codecFloat:
		v.Float(x.Float())
	case codecString:
		v.String(validString(x.String()))
	case codecBytes:
		v.String(bytesHex(x))
	case codecTime:
		if tm := timeOf(x); tm.IsZero() {
			v.Null()
		} else {
			v.Int(tm.UnixNano())
		}
	case codecStringer:
		if s, ok := stringOf(x); ok {
			v.String(s)
		} else {
			v.Null()
		}
	case codecPtr:
		if x.IsNil() {
			v.Null()
			return
		}
		c.elem.visit(x.Elem(), v)
	case codecList:
		v.List(x.Len())
		for i := range x.Len() {
			c.elem.visit(x.Index(i), v)
		}
	case codecMap:
		names, keys := c.mapKeys(x)
		v.Map(len(keys))
		for i, k := range keys {
			v.Key(names[i])
			c.elem.visit(x.MapIndex(k), v)
		}
	case codecStruct:
		v.Map(len(c.fields))
		for i := range c.fields {
			f := &c.fields[i]
			v.Key(f.name)
			f.c.visit(f.field(x), v)
		}
	default:
		panic(fmt.Sprintf("collector: visit of codec kind %d", c.kind))
	}
}
