package evaluator

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"github.com/augur-dev/augur/internal/number"
)

// This file prepares decoded values for the fast evaluator: a cell holds
// a value unboxed (numbers as bits, a kind tag) and, for containers and
// structs, an interned id of the value's equality class, so that the
// atoms compare integers instead of walking []any and map[string]any. Each
// function here agrees with its counterpart in value.go; where an id
// cannot decide (see mixed), the cell falls back to it.

// cellKind is the representation of a cell's value.
type cellKind uint8

const (
	kNull cellKind = iota
	kBool
	kInt   // int64
	kUint  // uint64
	kFloat // float64
	kString
	kList // []any
	kMap  // map[string]any: maps and structs
	kOther
)

// Cell flags.
const (
	// fNaN: the value holds a NaN, so it equals nothing, itself included.
	fNaN uint8 = 1 << iota
	// fFloat: the value holds a float64.
	fFloat
	// fBig: the value holds an integer that float64 cannot represent
	// exactly. Such an integer equals a float by rounding (as
	// number.Compare converts it), which no id can express: equality
	// between a value with fBig and one with fFloat is decided by equal.
	fBig
	// fBadMember: a list with a null or NaN element, which no container
	// contains, so the list is a subset of nothing.
	fBadMember
	// fOpaque: the value holds something that is not a trace value; the
	// functions of value.go decide every comparison with it.
	fOpaque
)

// cell is a value prepared for the atoms.
type cell struct {
	v     any     // the value, for fallbacks, strings, predicates and witnesses
	bits  uint64  // kInt, kUint, kFloat: the number's bits; kBool: 0 or 1
	mem   []int32 // kList, kMap when members are needed: sorted ids of the members (elements, keys) that are neither null nor NaN
	id    int32   // kList, kMap, and scalars whose id is needed: the equality class; 0 if not interned
	xid   int32   // if needExact: the class of values equal to this one in representation too (-1 for null); 0 if there is none (an opaque value)
	size  int32   // kList, kMap: number of members
	kind  cellKind
	flags uint8
}

func isNum(k cellKind) bool { return k == kInt || k == kUint || k == kFloat }

// slow reports whether ids cannot decide equality between values with
// flags a and b: one is opaque, or one holds a float and the other an
// integer that rounds (see fBig).
func slow(a, b uint8) bool {
	return (a|b)&fOpaque != 0 || a&fBig != 0 && b&fFloat != 0 || a&fFloat != 0 && b&fBig != 0
}

// interner numbers the equality classes of values by a canonical byte
// encoding: two values without NaN and not mixed are equal exactly when
// their encodings are. Only containers are keyed by their encoding: a
// scalar is keyed by its tag and bits, a string by itself, so that the
// members of a large container cost a map entry each and no allocation,
// and a string is not copied.
type interner struct {
	scalars map[scalarKey]int32
	strs    map[string]int32
	encs    map[string]int32 // containers, by encoding
	n       int32            // ids given
	bytes   int              // total encoding length of the keys, to bound memory
	buf     []byte
}

// scalarKey is the encoding of a scalar: its tag byte, then the 8 bytes of
// bits for a number (none for null, a bool or NaN).
type scalarKey struct {
	bits uint64
	tag  byte
}

func newInterner() *interner {
	return &interner{scalars: map[scalarKey]int32{}, strs: map[string]int32{}, encs: map[string]int32{}}
}

func (in *interner) reset() {
	clear(in.scalars)
	clear(in.strs)
	clear(in.encs)
	in.n, in.bytes = 0, 0
}

// id returns the id of v's class, the classes of equal values if not
// exact, of values equal in representation too if exact (see encode), and
// the flags of v.
func (in *interner) id(v any, exact bool) (int32, uint8) {
	if k, f, ok := scalar(v, exact); ok {
		id, ok := in.scalars[k]
		if !ok {
			id = in.add(k.size())
			in.scalars[k] = id
		}
		return id, f
	}
	if s, ok := v.(string); ok {
		id, ok := in.strs[s]
		if !ok {
			id = in.add(1 + uvarintLen(len(s)) + len(s))
			in.strs[s] = id // the value's own string, not a copy
		}
		return id, 0
	}
	var f uint8
	in.buf, f = encode(in.buf[:0], v, exact)
	id, ok := in.encs[string(in.buf)]
	if !ok {
		id = in.add(len(in.buf))
		in.encs[string(in.buf)] = id
	}
	if cap(in.buf) > maxBuf {
		in.buf = nil // a large value's encoding is not kept for the next
	}
	return id, f
}

// maxBuf is the capacity of the encoding buffer an interner keeps.
const maxBuf = 64 << 10

// add returns a new id, for a key of n bytes.
func (in *interner) add(n int) int32 {
	in.n++
	in.bytes += n
	return in.n
}

func uvarintLen(n int) int {
	var b [binary.MaxVarintLen64]byte
	return len(binary.AppendUvarint(b[:0], uint64(n)))
}

// cell prepares v with what n asks: containers and structs are always
// interned.
func (in *interner) cell(v any, n needs) cell {
	c := cell{v: v}
	if n&needExact != 0 {
		c.xid = in.exact(v)
	}
	switch x := v.(type) {
	case nil:
		c.kind = kNull
		return c
	case bool:
		c.kind = kBool
		if x {
			c.bits = 1
		}
	case int64:
		c.kind, c.bits = kInt, uint64(x)
	case uint64:
		c.kind, c.bits = kUint, x
	case float64:
		c.kind, c.bits = kFloat, math.Float64bits(x)
	case string:
		c.kind = kString
	case []any:
		c.kind, c.size = kList, int32(len(x))
		n |= needID
	case map[string]any:
		c.kind, c.size = kMap, int32(len(x))
		n |= needID
	default:
		c.kind = kOther
		return c
	}
	if n&(needID|needMem) != 0 {
		c.id, c.flags = in.id(v, false)
	}
	if n&needMem != 0 {
		c.mem, c.flags = in.members(v, c.flags)
	}
	return c
}

// exact returns the id of v's class of values equal in representation
// too: -1 for null, 0 for a value that is not a trace value. A predicate
// may tell int64(2) from uint64(2) and 2.0, or 0.0 from -0.0, which the
// equality classes of id do not; its result is a function of these.
func (in *interner) exact(v any) int32 {
	if v == nil {
		return -1
	}
	id, f := in.id(v, true)
	if f&fOpaque != 0 {
		return 0
	}
	return id
}

// members returns the sorted ids of the members of a container that are
// neither null nor NaN, and flags with fBadMember added when a list has
// such an element.
func (in *interner) members(v any, flags uint8) ([]int32, uint8) {
	var mem []int32
	switch x := v.(type) {
	case []any:
		mem = make([]int32, 0, len(x))
		for _, e := range x {
			id, f := in.id(e, false)
			if e == nil || f&fNaN != 0 {
				flags |= fBadMember
				continue
			}
			mem = append(mem, id)
		}
	case map[string]any:
		mem = make([]int32, 0, len(x))
		for k := range x {
			id, _ := in.id(k, false)
			mem = append(mem, id)
		}
	}
	slices.Sort(mem)
	return slices.Compact(mem), flags
}

// encode appends the canonical encoding of v to b: numbers by
// mathematical value (an integral float64 as the integer), sets already
// normalized, maps by sorted keys. If exact, numbers are encoded by type
// and bits instead ('I', 'U', 'D', which the canonical encoding never
// uses), so that equal encodings are the same value in the same
// representation.
func encode(b []byte, v any, exact bool) ([]byte, uint8) {
	if k, f, ok := scalar(v, exact); ok {
		b = append(b, k.tag)
		if k.size() > 1 {
			b = binary.LittleEndian.AppendUint64(b, k.bits)
		}
		return b, f
	}
	switch x := v.(type) {
	case string:
		b = binary.AppendUvarint(append(b, 's'), uint64(len(x)))
		return append(b, x...), 0
	case []any:
		b = binary.AppendUvarint(append(b, 'l'), uint64(len(x)))
		var flags uint8
		for _, e := range x {
			var f uint8
			b, f = encode(b, e, exact)
			flags |= f
		}
		return b, flags
	case map[string]any:
		b = binary.AppendUvarint(append(b, 'm'), uint64(len(x)))
		var stack [8]string // structs have few fields: no allocation
		keys := stack[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var flags uint8
		for _, k := range keys {
			b = binary.AppendUvarint(b, uint64(len(k)))
			b = append(b, k...)
			var f uint8
			b, f = encode(b, x[k], exact)
			flags |= f
		}
		return b, flags
	}
	// Not a trace value.
	return append(b, '?'), fOpaque
}

// scalar returns the encoding of v as encode makes it and v's flags, if v
// is null, a bool or a number.
func scalar(v any, exact bool) (scalarKey, uint8, bool) {
	switch x := v.(type) {
	case nil:
		return scalarKey{tag: 'z'}, 0, true
	case bool:
		if x {
			return scalarKey{tag: 'T'}, 0, true
		}
		return scalarKey{tag: 'F'}, 0, true
	case int64:
		if exact {
			return scalarKey{uint64(x), 'I'}, 0, true
		}
		var f uint8
		if !exactInt(x) {
			f = fBig
		}
		if x < 0 {
			return scalarKey{uint64(x), 'i'}, f, true
		}
		return scalarKey{uint64(x), 'u'}, f, true
	case uint64:
		if exact {
			return scalarKey{x, 'U'}, 0, true
		}
		var f uint8
		if !exactUint(x) {
			f = fBig
		}
		return scalarKey{x, 'u'}, f, true
	case float64:
		switch {
		case exact:
			return scalarKey{math.Float64bits(x), 'D'}, fFloat, true
		case math.IsNaN(x):
			return scalarKey{tag: 'N'}, fFloat | fNaN, true
		case x == math.Trunc(x) && x >= -(1<<63) && x < 0:
			return scalarKey{uint64(int64(x)), 'i'}, fFloat, true
		case x == math.Trunc(x) && x >= 0 && x < 1<<64:
			return scalarKey{uint64(x), 'u'}, fFloat, true
		}
		return scalarKey{math.Float64bits(x), 'f'}, fFloat, true
	}
	return scalarKey{}, 0, false
}

// size returns the length of k's encoding.
func (k scalarKey) size() int {
	switch k.tag {
	case 'z', 'T', 'F', 'N':
		return 1
	}
	return 9
}

// exactInt reports whether float64 represents x exactly.
func exactInt(x int64) bool {
	if -1<<53 <= x && x <= 1<<53 {
		return true
	}
	f := float64(x)
	return f < 1<<63 && int64(f) == x
}

// exactUint reports whether float64 represents x exactly.
func exactUint(x uint64) bool {
	if x <= 1<<53 {
		return true
	}
	f := float64(x)
	return f < 1<<64 && uint64(f) == x
}

// cellEqual is equal on cells.
func cellEqual(x, y *cell) bool {
	if x.kind != y.kind {
		if isNum(x.kind) && isNum(y.kind) {
			return cmpNum(x, y) == 0
		}
		return (x.kind == kOther || y.kind == kOther) && equal(x.v, y.v)
	}
	switch x.kind {
	case kNull:
		return true
	case kBool, kInt, kUint:
		return x.bits == y.bits
	case kFloat:
		return math.Float64frombits(x.bits) == math.Float64frombits(y.bits)
	case kString:
		return x.v.(string) == y.v.(string)
	case kList, kMap:
		switch {
		case slow(x.flags, y.flags):
			return equal(x.v, y.v)
		case (x.flags|y.flags)&fNaN != 0:
			return false
		}
		return x.id == y.id
	}
	return equal(x.v, y.v)
}

// cmpNum compares numeric cells as number.Compare does: 2 when a NaN
// makes them unordered.
func cmpNum(x, y *cell) int {
	return number.Compare(numberKinds[x.kind], x.bits, numberKinds[y.kind], y.bits)
}

// numberKinds maps the kinds of numeric cells to package number's.
var numberKinds = [...]number.Kind{kInt: number.Int, kUint: number.Uint, kFloat: number.Float}

// cellLess is less on cells.
func cellLess(x, y *cell, orEqual bool) bool {
	var c int
	switch {
	case x.kind == kInt && y.kind == kInt:
		// Most numbers of a trace (terms, indexes, counters): compared
		// here, not through number.Compare, they cost a fifth.
		a, b := int64(x.bits), int64(y.bits)
		return a < b || orEqual && a == b
	case isNum(x.kind) && isNum(y.kind):
		c = cmpNum(x, y)
	case x.kind == kString && y.kind == kString:
		c = strings.Compare(x.v.(string), y.v.(string))
	case x.kind == kOther || y.kind == kOther:
		return less(x.v, y.v, orEqual)
	default:
		return false
	}
	return c < 0 || orEqual && c == 0
}

// cellContains is contains on cells: s's members must have been computed
// and x interned.
func cellContains(s, x *cell) bool {
	switch {
	case x.kind == kNull:
		return false
	case s.kind == kOther || x.kind == kOther || slow(s.flags, x.flags):
		return contains(s.v, x.v)
	case x.flags&fNaN != 0:
		return false
	case s.kind == kList || s.kind == kMap && x.kind == kString:
		_, ok := slices.BinarySearch(s.mem, x.id)
		return ok
	}
	return false
}

// cellSubset is subset on cells whose members have been computed.
func cellSubset(s, t *cell) bool {
	switch {
	case s.kind == kOther || t.kind == kOther || slow(s.flags, t.flags):
		return subset(s.v, t.v)
	case s.kind == kList && s.flags&fBadMember != 0:
		return false
	case s.kind != kList && s.kind != kMap:
		return true
	}
	return sortedSubset(s.mem, t.mem) // t.mem is empty if t is no container
}

// sortedSubset reports whether every element of the sorted a is in the
// sorted b.
func sortedSubset(a, b []int32) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			return false
		}
	}
	return true
}
