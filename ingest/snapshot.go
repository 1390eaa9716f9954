package ingest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/trace"
)

// A snapshotWriter writes global-snapshot records to a trace, storing a
// node's state only when it differs from the node's last one.
type snapshotWriter struct {
	w        *trace.Writer
	schema   trace.Schema
	index    map[string]int             // column name → position in schema
	inferred bool                       // the schema was inferred from the same input
	check    func(col int, v any) error // Options.CheckValue
	last     map[string]*lastState

	at      pos
	path    []seg
	vars    []any
	members []uint32
	hash    canonicalHash // of a state
}

// lastState is what a snapshotWriter keeps of a node's last state.
type lastState struct {
	sum [sha256.Size]byte // of the canonical encoding
	row uint32
}

func newSnapshotWriter(w *trace.Writer, schema trace.Schema, inferred bool) *snapshotWriter {
	sw := &snapshotWriter{
		w:        w,
		schema:   schema,
		index:    make(map[string]int, len(schema)),
		inferred: inferred,
		last:     map[string]*lastState{},
		vars:     make([]any, len(schema)),
	}
	for i, c := range schema {
		sw.index[c.Name] = i
	}
	return sw
}

// record writes one snapshot and the states that changed.
func (sw *snapshotWriter) record(at pos, rec *record) error {
	sw.at = at
	sw.members = sw.members[:0]
	for _, ns := range rec.nodes {
		row, err := sw.state(rec.ts, ns)
		if err != nil {
			return err
		}
		sw.members = append(sw.members, row)
	}
	err := sw.w.AddSnapshot(trace.Snapshot{ID: rec.snapshot, TS: rec.ts, Members: sw.members, Tags: rec.tags})
	if err != nil {
		return &Error{Pos: diag.Position{Filename: at.file, Line: at.line}, Msg: "write snapshot", Err: err}
	}
	return nil
}

// state returns the row of the node's state, adding it if it differs from
// the node's last state.
func (sw *snapshotWriter) state(ts uint64, ns nodeState) (uint32, error) {
	sw.path = append(sw.path[:0], seg{key: "nodes", idx: -1}, seg{key: ns.name, idx: -1})
	if err := sw.convertState(ns.state); err != nil {
		return 0, err
	}
	return sw.addVars(ts, ns.name, sw.vars)
}

// convertState converts the variables of a decoded state object into
// sw.vars. sw.path holds the path of the object, and holds it again on
// success.
func (sw *snapshotWriter) convertState(state map[string]any) error {
	clear(sw.vars)
	n := len(sw.path)
	for _, k := range slices.Sorted(maps.Keys(state)) {
		sw.path = append(sw.path[:n], seg{key: k, idx: -1})
		if err := checkVarName(k); err != nil {
			return sw.errorf("%v", err)
		}
		i, ok := sw.index[k]
		if !ok {
			return sw.errorf("no such state variable in the schema%s", sw.hint())
		}
		v, err := sw.convert(sw.schema[i].Type, state[k])
		if err != nil {
			return err
		}
		if err := sw.checkValue(i, v); err != nil {
			return err
		}
		sw.vars[i] = v
	}
	sw.path = sw.path[:n]
	return nil
}

// addVars returns the row of the node's state vars, one value per schema
// column, adding it if it differs from the node's last state. sw.path
// names the state for errors.
func (sw *snapshotWriter) addVars(ts uint64, node string, vars []any) (uint32, error) {
	for i, c := range sw.schema {
		sw.hash.value(c.Type, vars[i])
	}
	sum := sw.hash.sum()
	l := sw.last[node]
	if l != nil && l.sum == sum {
		return l.row, nil
	}
	row, err := sw.w.AddState(node, ts, vars)
	if err != nil {
		return 0, &Error{Pos: diag.Position{Filename: sw.at.file, Line: sw.at.line}, Field: fieldPath(sw.path), Msg: "write state", Err: err}
	}
	if l == nil {
		l = &lastState{}
		sw.last[node] = l
	}
	l.sum, l.row = sum, row
	return row, nil
}

// convert turns the decoded JSON value v into the trace representation of
// a value of type t, in place for lists and objects.
func (sw *snapshotWriter) convert(t arrow.DataType, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t := t.(type) {
	case *arrow.BooleanType:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case *arrow.StringType:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case *arrow.Int64Type:
		if n, ok := v.(json.Number); ok && isInteger(n) {
			i, err := strconv.ParseInt(string(n), 10, 64)
			if err != nil {
				return nil, sw.errorf("integer %s is out of the range of int64%s", n, sw.hint())
			}
			return i, nil
		}
	case *arrow.Uint64Type:
		if n, ok := v.(json.Number); ok && isInteger(n) {
			u, err := strconv.ParseUint(string(n), 10, 64)
			if err != nil {
				return nil, sw.errorf("integer %s is out of the range of uint64%s", n, sw.hint())
			}
			return u, nil
		}
	case *arrow.Float64Type:
		if n, ok := v.(json.Number); ok {
			f, err := strconv.ParseFloat(string(n), 64)
			if err != nil {
				return nil, sw.errorf("number %s is out of the range of float64", n)
			}
			return f, nil
		}
	case *arrow.ListType:
		if l, ok := v.([]int64); ok {
			if c := convertInts(t.Elem(), l); c != nil {
				return c, nil
			}
		}
		if l, ok := v.([]float64); ok && t.Elem().ID() == arrow.FLOAT64 {
			return l, nil
		}
		if l, ok := v.([]string); ok && t.Elem().ID() == arrow.STRING {
			return l, nil
		}
		if _, ok := v.([]any); !ok {
			v = boxScalars(v) // as decoded by encoding/json, to say which element does not fit
		}
		if l, ok := v.([]any); ok {
			for i, e := range l {
				sw.path = append(sw.path, seg{idx: i})
				c, err := sw.convert(t.Elem(), e)
				if err != nil {
					return nil, err
				}
				l[i] = c
				sw.path = sw.path[:len(sw.path)-1]
			}
			return l, nil
		}
	case *arrow.StructType:
		if m, ok := v.(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				sw.path = append(sw.path, seg{key: k, idx: -1})
				i, found := t.FieldIdx(k)
				if !found {
					return nil, sw.errorf("no such field in the schema's %s%s", t, sw.hint())
				}
				c, err := sw.convert(t.Field(i).Type, m[k])
				if err != nil {
					return nil, err
				}
				m[k] = c
				sw.path = sw.path[:len(sw.path)-1]
			}
			return m, nil
		}
	case *arrow.MapType:
		if m, ok := v.(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				sw.path = append(sw.path, seg{key: k, idx: -1})
				c, err := sw.convert(t.ItemType(), m[k])
				if err != nil {
					return nil, err
				}
				m[k] = c
				sw.path = sw.path[:len(sw.path)-1]
			}
			return m, nil
		}
	default:
		return nil, sw.errorf("unsupported column type %s", t)
	}
	return nil, sw.errorf("%s, but the schema's type is %s%s", kindName(v), t, sw.hint())
}

// convertInts converts l, a list of integers that parseLine read, to a
// list of elem: itself for int64, a []uint64 or []float64 for those (if
// it fits); nil if it does not, as convert converts each element.
func convertInts(elem arrow.DataType, l []int64) any {
	switch elem.ID() {
	case arrow.INT64:
		return l
	case arrow.UINT64:
		if slices.ContainsFunc(l, func(x int64) bool { return x < 0 }) {
			return nil
		}
		u := make([]uint64, len(l))
		for i, x := range l {
			u[i] = uint64(x)
		}
		return u
	case arrow.FLOAT64:
		// float64(x) rounds as strconv.ParseFloat does: to nearest, ties
		// to even.
		f := make([]float64, len(l))
		for i, x := range l {
			f[i] = float64(x)
		}
		return f
	}
	return nil
}

// boxScalars returns the []any that encoding/json decodes v to, numbers
// as json.Number, if v is a []int64, []float64 or []string that
// parseLine read; otherwise v.
func boxScalars(v any) any {
	var l []any
	switch v := v.(type) {
	case []string:
		l = make([]any, len(v))
		for i, x := range v {
			l[i] = x
		}
	case []int64:
		l = make([]any, len(v))
		for i, x := range v {
			l[i] = json.Number(strconv.FormatInt(x, 10))
		}
	case []float64:
		l = make([]any, len(v))
		for i, x := range v {
			l[i] = json.Number(strconv.FormatFloat(x, 'e', -1, 64)) // with an exponent: a float
		}
	default:
		return v
	}
	return l
}

// checkValue checks v, a value of column col, with Options.CheckValue.
// sw.path names the value for errors.
func (sw *snapshotWriter) checkValue(col int, v any) error {
	if sw.check == nil {
		return nil
	}
	v, _ = boxLists(v)
	if err := sw.check(col, v); err != nil {
		e := sw.errorf("")
		e.Err = err
		return e
	}
	return nil
}

// hint explains a mismatch with an inferred schema, which only a change of
// the input between the two passes can cause.
func (sw *snapshotWriter) hint() string {
	if sw.inferred {
		return " (did the input change while it was read?)"
	}
	return ""
}

func (sw *snapshotWriter) errorf(format string, args ...any) *Error {
	return &Error{Pos: diag.Position{Filename: sw.at.file, Line: sw.at.line}, Field: fieldPath(sw.path), Msg: fmt.Sprintf(format, args...)}
}

// A canonicalHash hashes with SHA-256 an encoding of values, as made by
// convert, that is equal for equal values and differs for different ones:
// struct fields are encoded in schema order, map entries in key order,
// and a missing struct field like null. The encoding is hashed a few KiB
// at a time, so that a huge value is not copied whole. Its zero value is
// ready to use.
type canonicalHash struct {
	h   hash.Hash
	buf []byte // encoded, not yet hashed
}

// canonicalChunk is how much of the encoding a canonicalHash holds.
const canonicalChunk = 4 << 10

// sum returns the hash of the values added since the last sum.
func (c *canonicalHash) sum() [sha256.Size]byte {
	c.flush()
	var sum [sha256.Size]byte
	c.h.Sum(sum[:0])
	c.h.Reset()
	return sum
}

func (c *canonicalHash) flush() {
	if c.h == nil {
		c.h = sha256.New()
	}
	c.h.Write(c.buf)
	c.buf = c.buf[:0]
}

// value adds v, a value of type t.
func (c *canonicalHash) value(t arrow.DataType, v any) {
	if len(c.buf) >= canonicalChunk {
		c.flush()
	}
	if v == nil {
		c.buf = append(c.buf, 0)
		return
	}
	c.buf = append(c.buf, 1)
	switch t := t.(type) {
	case *arrow.BooleanType:
		if v.(bool) {
			c.buf = append(c.buf, 1)
		} else {
			c.buf = append(c.buf, 0)
		}
	case *arrow.Int64Type:
		c.buf = binary.LittleEndian.AppendUint64(c.buf, uint64(v.(int64)))
	case *arrow.Uint64Type:
		c.buf = binary.LittleEndian.AppendUint64(c.buf, v.(uint64))
	case *arrow.Float64Type:
		c.buf = binary.LittleEndian.AppendUint64(c.buf, math.Float64bits(v.(float64)))
	case *arrow.StringType:
		c.string(v.(string))
	case *arrow.ListType:
		switch l := v.(type) {
		case []int64:
			c.buf = binary.AppendUvarint(c.buf, uint64(len(l)))
			for _, x := range l {
				c.word(uint64(x))
			}
		case []uint64:
			c.buf = binary.AppendUvarint(c.buf, uint64(len(l)))
			for _, x := range l {
				c.word(x)
			}
		case []float64:
			c.buf = binary.AppendUvarint(c.buf, uint64(len(l)))
			for _, x := range l {
				c.word(math.Float64bits(x))
			}
		case []string:
			c.buf = binary.AppendUvarint(c.buf, uint64(len(l)))
			for _, x := range l {
				if len(c.buf) >= canonicalChunk {
					c.flush()
				}
				c.buf = append(c.buf, 1)
				c.string(x)
			}
		case []any:
			c.buf = binary.AppendUvarint(c.buf, uint64(len(l)))
			for _, e := range l {
				c.value(t.Elem(), e)
			}
		default:
			panic(fmt.Sprintf("ingest: canonical encoding of %T as %s", v, t))
		}
	case *arrow.StructType:
		m := v.(map[string]any)
		for i := range t.NumFields() { // not t.Fields(), which copies
			f := t.Field(i)
			c.value(f.Type, m[f.Name])
		}
	case *arrow.MapType:
		m := v.(map[string]any)
		c.buf = binary.AppendUvarint(c.buf, uint64(len(m)))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			c.string(k)
			c.value(t.ItemType(), m[k])
		}
	default:
		panic(fmt.Sprintf("ingest: canonical encoding of %s", t))
	}
}

// word adds a non-null int64, uint64 or float64 of bits x, encoded as
// value encodes it.
func (c *canonicalHash) word(x uint64) {
	if len(c.buf) >= canonicalChunk {
		c.flush()
	}
	c.buf = append(c.buf, 1)
	c.buf = binary.LittleEndian.AppendUint64(c.buf, x)
}

// string adds s, after its length.
func (c *canonicalHash) string(s string) {
	c.buf = binary.AppendUvarint(c.buf, uint64(len(s)))
	for {
		n := min(len(s), max(0, canonicalChunk-len(c.buf)))
		c.buf = append(c.buf, s[:n]...)
		if s = s[n:]; s == "" {
			return
		}
		c.flush()
	}
}
