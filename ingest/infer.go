package ingest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/trace"
)

// kind is what a shape has seen of a field's values, nulls aside.
type kind uint8

const (
	kindNull   kind = iota // only nulls so far: no information
	kindBool               // true, false
	kindNumber             // integers and floats; see shape for which
	kindString
	kindList
	kindObject
)

// site is where a value was seen: a line and a field path. The zero site
// means not seen.
type site struct {
	at    pos
	field string
}

func (s site) seen() bool { return s.at.line > 0 }

// A shape is the type inferred so far for the values at one field path,
// merged over all lines.
type shape struct {
	kind  kind
	first site // first non-null value

	// For kindNumber: the first integer, float, negative integer,
	// integer beyond int64, and integer that float64 would round.
	intAt, floatAt, negAt, bigAt, inexactAt site

	elem   *shape            // kindList: the merged elements; nil while all lists were empty
	fields map[string]*shape // kindObject read as a struct
	item   *shape            // kindObject read as a map (fields is then nil): the merged values
}

// maxStructFields is the most distinct keys the objects at one field path
// may have and still be read as a struct, with one field per key. Beyond
// it they are read as a map<utf8, T>, T merged over the values of all
// keys, as for the elements of a list: objects keyed by data (a
// connection per peer address, an entry per request ID) grow with the
// input, and an Arrow struct of 200,000 fields cost augur collect
// 554 MB for a 3 MB input, where a map costs its entries. The bound is
// far above the fields of a hand-written record, whose objects stay
// structs; a spec that declares the type decides it either way.
const maxStructFields = 1000

// plural names the values s has seen, for messages: "integers".
func (s *shape) plural() string {
	switch s.kind {
	case kindBool:
		return "bools"
	case kindNumber:
		switch {
		case s.floatAt.seen() && s.intAt.seen():
			return "numbers"
		case s.floatAt.seen():
			return "floats"
		}
		return "integers"
	case kindString:
		return "strings"
	case kindList:
		return "lists"
	case kindObject:
		return "objects"
	}
	return "nulls"
}

// arrowType is the column type for s.
func (s *shape) arrowType() arrow.DataType {
	switch s.kind {
	case kindBool:
		return arrow.FixedWidthTypes.Boolean
	case kindNumber:
		switch {
		case s.bigAt.seen():
			return arrow.PrimitiveTypes.Uint64
		case s.floatAt.seen():
			return arrow.PrimitiveTypes.Float64
		}
		return arrow.PrimitiveTypes.Int64
	case kindList:
		if s.elem == nil {
			return arrow.ListOf(arrow.BinaryTypes.String)
		}
		return arrow.ListOf(s.elem.arrowType())
	case kindObject:
		if s.item != nil {
			return arrow.MapOf(arrow.BinaryTypes.String, s.item.arrowType())
		}
		if len(s.fields) == 0 {
			return arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String)
		}
		fields := make([]arrow.Field, 0, len(s.fields))
		for _, name := range slices.Sorted(maps.Keys(s.fields)) {
			fields = append(fields, arrow.Field{Name: name, Type: s.fields[name].arrowType(), Nullable: true})
		}
		return arrow.StructOf(fields...)
	}
	// kindString, and kindNull: a field only ever null is utf8.
	return arrow.BinaryTypes.String
}

// An inferrer merges node states into a schema.
type inferrer struct {
	vars shape // the state variables: an object whose fields are the columns
	at   pos
	path []seg
	base int // len(path) at the variable whose value add is merging
}

func newInferrer() *inferrer {
	return &inferrer{vars: shape{kind: kindObject, fields: map[string]*shape{}}}
}

// schema returns the inferred columns, sorted by name.
func (in *inferrer) schema() trace.Schema {
	var s trace.Schema
	for _, name := range slices.Sorted(maps.Keys(in.vars.fields)) {
		s = append(s, trace.Column{Name: name, Type: in.vars.fields[name].arrowType()})
	}
	return s
}

// record merges the node states of one line.
func (in *inferrer) record(at pos, rec *record) error {
	in.at = at
	for _, ns := range rec.nodes {
		in.path = append(in.path[:0], seg{key: "nodes", idx: -1}, seg{key: ns.name, idx: -1})
		for _, k := range slices.Sorted(maps.Keys(ns.state)) {
			in.path = append(in.path, seg{key: k, idx: -1})
			if err := checkVarName(k); err != nil {
				return in.errorf("%v", err)
			}
			if err := in.field(&in.vars, k, ns.state[k]); err != nil {
				return err
			}
			in.path = in.path[:len(in.path)-1]
		}
	}
	return nil
}

// checkVarName rejects names that cannot be state variables.
func checkVarName(name string) error {
	switch name {
	case "node", "ts":
		return fmt.Errorf("state variable %q collides with the reserved column %s of states.arrow; rename it", name, name)
	case "":
		return fmt.Errorf("empty state variable name")
	}
	return nil
}

// field merges v into the shape of field k of the object shape s. The path
// already ends in k.
func (in *inferrer) field(s *shape, k string, v any) error {
	f := s.fields[k]
	if f == nil {
		if len(s.fields) == trace.MaxVariables {
			return in.errorf("one state variable more than the %d a trace may hold", trace.MaxVariables)
		}
		f = &shape{}
		s.fields[k] = f
	}
	in.base = len(in.path)
	return in.add(f, v)
}

// add merges v into s. A list or object as deep as trace.MaxDepth is an
// error here, where the line is known: its type would nest deeper.
func (in *inferrer) add(s *shape, v any) error {
	switch v.(type) {
	case []int64, []float64, []string, []any, map[string]any:
		if depth := len(in.path) - in.base + 1; depth >= trace.MaxDepth {
			return in.errorf("a list or object here makes a type %d deep, deeper than the %d a trace can hold", depth+1, trace.MaxDepth)
		}
	}
	switch v := v.(type) {
	case nil:
		return nil
	case bool:
		return in.setKind(s, kindBool, "bool")
	case string:
		return in.setKind(s, kindString, "string")
	case json.Number:
		return in.number(s, v)
	case []int64, []float64, []string:
		return in.scalars(s, v)
	case []any:
		if err := in.setKind(s, kindList, "list"); err != nil {
			return err
		}
		if len(v) > 0 && s.elem == nil {
			s.elem = &shape{}
		}
		for i, e := range v {
			in.path = append(in.path, seg{idx: i})
			if err := in.add(s.elem, e); err != nil {
				return err
			}
			in.path = in.path[:len(in.path)-1]
		}
		return nil
	case map[string]any:
		if err := in.setKind(s, kindObject, "object"); err != nil {
			return err
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			in.path = append(in.path, seg{key: k, idx: -1})
			if k == "" {
				return in.errorf("empty field name (objects become structs, whose fields need names)")
			}
			if err := in.member(s, k, v[k]); err != nil {
				return err
			}
			in.path = in.path[:len(in.path)-1]
		}
		return nil
	}
	return in.errorf("unexpected value of type %T", v)
}

// member merges v into the shape of key k of the object shape s. The
// path already ends in k.
func (in *inferrer) member(s *shape, k string, v any) error {
	f, err := in.slot(s, k)
	if err != nil {
		return err
	}
	return in.add(f, v)
}

// slot returns the shape of the values of key k of the object shape s:
// its field k, made if new, or its item once it is a map. It turns s into
// a map when k would be one field more than maxStructFields.
func (in *inferrer) slot(s *shape, k string) (*shape, error) {
	if s.item == nil && s.fields[k] == nil && len(s.fields) == maxStructFields {
		if err := in.toMap(s); err != nil {
			return nil, err
		}
	}
	if s.item != nil {
		return s.item, nil
	}
	if s.fields == nil {
		s.fields = map[string]*shape{}
	}
	f := s.fields[k]
	if f == nil {
		f = &shape{}
		s.fields[k] = f
	}
	return f, nil
}

// toMap turns the object shape s, a struct, into a map whose values
// merge the shapes of its fields.
func (in *inferrer) toMap(s *shape) error {
	item := &shape{}
	for _, name := range slices.Sorted(maps.Keys(s.fields)) {
		if err := in.merge(item, s.fields[name]); err != nil {
			return err
		}
	}
	s.fields, s.item = nil, item
	return nil
}

// merge merges src, the shape of other values, into dst, as if dst had
// seen those values; toMap uses it to merge the fields of a struct.
// A conflict is reported at the current position, naming where each
// side was first seen.
func (in *inferrer) merge(dst, src *shape) error {
	if src.kind == kindNull {
		return nil
	}
	if dst.kind == kindNull {
		*dst = *src.clone()
		return nil
	}
	if dst.kind != src.kind {
		return in.mergeErrorf(dst, src, "%s and %s", dst.plural(), src.plural())
	}
	switch dst.kind {
	case kindNumber:
		first := func(a, b site) site {
			if a.seen() {
				return a
			}
			return b
		}
		n := *dst
		n.intAt, n.floatAt = first(dst.intAt, src.intAt), first(dst.floatAt, src.floatAt)
		n.negAt, n.bigAt = first(dst.negAt, src.negAt), first(dst.bigAt, src.bigAt)
		n.inexactAt = first(dst.inexactAt, src.inexactAt)
		switch {
		case n.floatAt.seen() && n.bigAt.seen():
			return in.mergeErrorf(dst, src, "floats and integers beyond int64")
		case n.floatAt.seen() && n.inexactAt.seen():
			return in.mergeErrorf(dst, src, "floats and integers that float64 would round (beyond 2^53)")
		case n.negAt.seen() && n.bigAt.seen():
			return in.mergeErrorf(dst, src, "negative integers and integers beyond int64")
		}
		*dst = n
	case kindList:
		if src.elem == nil {
			return nil
		}
		if dst.elem == nil {
			dst.elem = &shape{}
		}
		return in.merge(dst.elem, src.elem)
	case kindObject:
		if src.item != nil {
			if dst.item == nil {
				if err := in.toMap(dst); err != nil {
					return err
				}
			}
			return in.merge(dst.item, src.item)
		}
		for _, name := range slices.Sorted(maps.Keys(src.fields)) {
			f, err := in.slot(dst, name)
			if err != nil {
				return err
			}
			if err := in.merge(f, src.fields[name]); err != nil {
				return err
			}
		}
	}
	return nil
}

// mergeErrorf reports that the values of an object read as a map do not
// share a type.
func (in *inferrer) mergeErrorf(dst, src *shape, format string, args ...any) error {
	return in.errorf("the object has more than %d keys and so is read as a map, whose values need one type; but they hold %s (%s, %s)",
		maxStructFields, fmt.Sprintf(format, args...), in.earlier(dst.first), in.earlier(src.first))
}

// setKind records that s holds a value of kind k, named name, or reports a
// mix of kinds.
func (in *inferrer) setKind(s *shape, k kind, name string) error {
	switch s.kind {
	case k:
		return nil
	case kindNull:
		s.kind, s.first = k, in.site()
		return nil
	}
	return in.errorf("%s, but %s hold %s", name, in.earlier(s.first), s.plural())
}

// number merges the number n into s.
func (in *inferrer) number(s *shape, n json.Number) error {
	if !isInteger(n) {
		if err := in.setKind(s, kindNumber, "float"); err != nil {
			return err
		}
		if _, err := strconv.ParseFloat(string(n), 64); err != nil {
			return in.errorf("number %s is out of the range of float64", n)
		}
		return in.float(s, string(n))
	}
	if err := in.setKind(s, kindNumber, "integer"); err != nil {
		return err
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return in.integer(s, i)
	}
	if _, err := strconv.ParseUint(string(n), 10, 64); err != nil {
		return in.errorf("integer %s is out of the range of int64 and uint64 (write it as a string or a float)", n)
	}
	switch {
	case s.negAt.seen():
		return in.errorf("integer %s is beyond int64, but %s hold negative integers (no column type holds both)", n, in.earlier(s.negAt))
	case s.floatAt.seen():
		return in.errorf("integer %s is beyond int64, but %s hold floats (float64 would round it)", n, in.earlier(s.floatAt))
	}
	if !s.bigAt.seen() {
		s.bigAt = in.site()
	}
	if !s.intAt.seen() {
		s.intAt = in.site()
	}
	return nil
}

// float merges a float, written text, into s, a number shape.
func (in *inferrer) float(s *shape, text string) error {
	if s.bigAt.seen() {
		return in.errorf("float %s, but %s hold integers beyond int64 (a uint64 column holds only integers)", text, in.earlier(s.bigAt))
	}
	if s.inexactAt.seen() {
		return in.errorf("float %s, but %s hold integers that float64 would round (beyond 2^53; write them as strings, or fix the column's type in a spec)", text, in.earlier(s.inexactAt))
	}
	if !s.floatAt.seen() {
		s.floatAt = in.site()
	}
	return nil
}

// integer merges i, an integer of int64, into s, a number shape.
func (in *inferrer) integer(s *shape, i int64) error {
	if int64(float64(i)) != i {
		if s.floatAt.seen() {
			return in.errorf("integer %d is beyond 2^53, but %s hold floats (float64 would round it to %.0f)", i, in.earlier(s.floatAt), float64(i))
		}
		if !s.inexactAt.seen() {
			s.inexactAt = in.site()
		}
	}
	if i < 0 {
		if s.bigAt.seen() {
			return in.errorf("negative integer %d, but %s hold integers beyond int64 (a uint64 column holds only non-negative integers)", i, in.earlier(s.bigAt))
		}
		if !s.negAt.seen() {
			s.negAt = in.site()
		}
	}
	if !s.intAt.seen() {
		s.intAt = in.site()
	}
	return nil
}

// scalars merges l, a []int64, []float64 or []string that parseLine
// read, into s, as the []any of its values.
func (in *inferrer) scalars(s *shape, l any) error {
	if err := in.setKind(s, kindList, "list"); err != nil {
		return err
	}
	if s.elem == nil {
		s.elem = &shape{}
	}
	e := s.elem
	switch l := l.(type) {
	case []int64:
		for i, x := range l {
			in.path = append(in.path, seg{idx: i})
			if err := in.setKind(e, kindNumber, "integer"); err != nil {
				return err
			}
			if err := in.integer(e, x); err != nil {
				return err
			}
			in.path = in.path[:len(in.path)-1]
		}
	case []float64:
		for i, x := range l {
			in.path = append(in.path, seg{idx: i})
			if err := in.setKind(e, kindNumber, "float"); err != nil {
				return err
			}
			// Only the first float and one that conflicts change e; the
			// text is made for them alone.
			if !e.floatAt.seen() || e.bigAt.seen() || e.inexactAt.seen() {
				if err := in.float(e, strconv.FormatFloat(x, 'g', -1, 64)); err != nil {
					return err
				}
			}
			in.path = in.path[:len(in.path)-1]
		}
	case []string:
		// Strings tell nothing but their kind, which the first tells.
		if len(l) > 0 {
			in.path = append(in.path, seg{idx: 0})
			if err := in.setKind(e, kindString, "string"); err != nil {
				return err
			}
			in.path = in.path[:len(in.path)-1]
		}
	}
	return nil
}

// site is the current position.
func (in *inferrer) site() site {
	return site{at: in.at, field: fieldPath(in.path)}
}

// earlier describes where an earlier value was seen, relative to the
// current line.
func (in *inferrer) earlier(s site) string {
	if s.at == in.at {
		return fmt.Sprintf("earlier values on this line (%s)", s.field)
	}
	return fmt.Sprintf("earlier lines (first at %s: %s)", s.at.relative(in.at), s.field)
}

func (in *inferrer) errorf(format string, args ...any) error {
	return &Error{Pos: diag.Position{Filename: in.at.file, Line: in.at.line}, Field: fieldPath(in.path), Msg: fmt.Sprintf(format, args...)}
}

// recordLocal merges the types of a node-local state. Under lenient, a
// state that conflicts with earlier ones leaves the inferred types as
// they were.
func (in *inferrer) recordLocal(at pos, state map[string]any, lenient bool) error {
	var saved map[string]*shape
	if lenient {
		saved = make(map[string]*shape, len(state))
		for k := range state {
			saved[k] = in.vars.fields[k].clone()
		}
	}
	in.at = at
	for _, k := range slices.Sorted(maps.Keys(state)) {
		in.path = append(in.path[:0], seg{key: "state", idx: -1}, seg{key: k, idx: -1})
		err := checkVarName(k)
		if err != nil {
			err = in.errorf("%v", err)
		} else {
			err = in.field(&in.vars, k, state[k])
		}
		if err != nil {
			for k, s := range saved {
				if s == nil {
					delete(in.vars.fields, k)
				} else {
					in.vars.fields[k] = s
				}
			}
			return err
		}
	}
	return nil
}

// clone returns a deep copy of s; nil for nil.
func (s *shape) clone() *shape {
	if s == nil {
		return nil
	}
	c := *s
	c.elem = s.elem.clone()
	c.item = s.item.clone()
	if s.fields != nil {
		c.fields = make(map[string]*shape, len(s.fields))
		for k, f := range s.fields {
			c.fields[k] = f.clone()
		}
	}
	return &c
}
