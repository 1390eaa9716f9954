package evaluator

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"weak"

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
	kList // []any, or a typed list (typed.go)
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
	v     any         // the value, for fallbacks, strings, predicates and witnesses
	bits  uint64      // kInt, kUint, kFloat: the number's bits; kBool: 0 or 1
	mem   []int32     // kList, kMap when members are needed: sorted ids of the members (elements, keys) that are neither null nor NaN
	set   *sortedList // a typed list when members are needed: its members, in place of mem
	id    int32       // kList, kMap, and scalars whose id is needed: the equality class; 0 if not interned
	xid   int32       // if needExact: the class of values equal to this one in representation too (-1 for null); 0 if there is none (an opaque value)
	size  int32       // kList, kMap: number of members
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
// their encodings are. No encoding is kept: a scalar is keyed by its tag
// and bits, a string by itself, a container by a hash of its encoding
// (each id of the hash keeping a value to tell collisions apart), so that
// the members of a large container cost a map entry each and no
// allocation, and interning a large value copies nothing; the members of
// a typed list are not numbered at all, but kept sorted (sortedList).
type interner struct {
	marks [4]int32            // by markTags: the ids of null, false, true and NaN (0 before they are given)
	nums  [6]map[uint64]int32 // by numTags: numbers, by their bits
	strs  map[string]int32
	encs  map[uint64][]class                  // containers, by the hash of their encoding
	sets  map[setKey]weak.Pointer[sortedList] // the members of typed lists while a cell holds them (typedMembers)
	store *memberStore                        // shares the members of huge lists with the run's other engines; nil for none
	n     int32                               // ids given
	bytes int                                 // total encoding length of the keys, and the members' bytes in sets, to bound memory
	enc   encoder
}

// class is an equality class of containers: a value of it, encoded exactly
// or not, and its id.
type class struct {
	v     any
	exact bool
	id    int32
}

// scalarKey is the encoding of a scalar: its tag byte, then the 8 bytes of
// bits for a number (none for null, a bool or NaN).
type scalarKey struct {
	bits uint64
	tag  byte
}

func newInterner() *interner {
	in := &interner{strs: map[string]int32{}, encs: map[uint64][]class{}, sets: map[setKey]weak.Pointer[sortedList]{}}
	for t := range in.nums {
		in.nums[t] = map[uint64]int32{}
	}
	in.enc.h.SetSeed(maphash.MakeSeed())
	return in
}

func (in *interner) reset() {
	clear(in.marks[:])
	for _, m := range in.nums {
		clear(m)
	}
	clear(in.strs)
	clear(in.encs)
	clear(in.sets)
	in.n, in.bytes = 0, 0
}

// id returns the id of v's class, the classes of equal values if not
// exact, of values equal in representation too if exact (see encoder), and
// the flags of v.
func (in *interner) id(v any, exact bool) (int32, uint8) {
	return in.idOf(v, exact, false)
}

// member returns the id of v's class as a member of a container, and its
// flags: 0 for null and a value that holds a NaN, which are members of no
// container, so their classes are not numbered.
func (in *interner) member(v any) (int32, uint8) {
	return in.idOf(v, false, true)
}

func (in *interner) idOf(v any, exact, member bool) (int32, uint8) {
	if k, f, ok := scalar(v, exact); ok {
		if member && (v == nil || f&fNaN != 0) {
			return 0, f
		}
		if t := strings.IndexByte(markTags, k.tag); t >= 0 {
			if in.marks[t] == 0 {
				in.marks[t] = in.add(k.size())
			}
			return in.marks[t], f
		}
		// A map of uint64 to int32 by tag, not one of scalarKey: 16 bytes
		// a slot, not 24.
		m := in.nums[strings.IndexByte(numTags, k.tag)]
		id, ok := m[k.bits]
		if !ok {
			id = in.add(k.size())
			m[k.bits] = id
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
	h, n, f := in.enc.hash(v, exact)
	if member && f&fNaN != 0 {
		return 0, f
	}
	cs := in.encs[h]
	for _, c := range cs {
		if sameEncoding(c.v, c.exact, v, exact) {
			return c.id, f
		}
	}
	id := in.add(n)
	in.encs[h] = append(cs, class{v, exact, id})
	return id, f
}

// add returns a new id, for a key of n bytes.
func (in *interner) add(n int) int32 {
	in.n++
	in.bytes += n
	return in.n
}

// uvarintLen returns the length of n's uvarint encoding.
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
	case []any, []int64, []uint64, []float64, []string:
		l, _ := listLen(x)
		c.kind, c.size = kList, int32(l)
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
		if isTyped(v) {
			c.set, c.flags = in.typedMembers(v, c.id, c.flags)
		} else {
			c.mem, c.flags = in.members(v, c.flags)
		}
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
			id, _ := in.member(e)
			if id == 0 {
				flags |= fBadMember
				continue
			}
			mem = append(mem, id)
		}
	case map[string]any:
		mem = make([]int32, 0, len(x))
		for k := range x {
			id, _ := in.member(k)
			mem = append(mem, id)
		}
	}
	slices.Sort(mem)
	return slices.Compact(mem), flags
}

// encoder hashes the canonical encoding of values: numbers by
// mathematical value (an integral float64 as the integer), sets already
// normalized, maps by sorted keys. If exact, numbers are encoded by type
// and bits instead ('I', 'U', 'D', which the canonical encoding never
// uses), so that equal encodings are the same value in the same
// representation. The encoding is hashed as it is made, a few KiB at a
// time, never whole.
type encoder struct {
	h   maphash.Hash
	buf []byte // encoded and not yet hashed
	n   int    // bytes encoded
}

// encodeChunk is the length past which the encoder hashes what it has
// encoded.
const encodeChunk = 4 << 10

// hash returns the hash of v's encoding, the encoding's length and v's
// flags.
func (e *encoder) hash(v any, exact bool) (uint64, int, uint8) {
	e.h.Reset()
	e.buf, e.n = e.buf[:0], 0
	f := e.value(v, exact)
	e.flush()
	return e.h.Sum64(), e.n, f
}

func (e *encoder) flush() {
	e.h.Write(e.buf)
	e.n += len(e.buf)
	e.buf = e.buf[:0]
}

// str encodes s after its length, hashing a long s in place.
func (e *encoder) str(s string) {
	e.buf = binary.AppendUvarint(e.buf, uint64(len(s)))
	if len(s) > encodeChunk {
		e.flush()
		e.h.WriteString(s)
		e.n += len(s)
		return
	}
	e.buf = append(e.buf, s...)
}

// value encodes v and returns its flags.
func (e *encoder) value(v any, exact bool) uint8 {
	if len(e.buf) > encodeChunk {
		e.flush()
	}
	if k, f, ok := scalar(v, exact); ok {
		e.buf = append(e.buf, k.tag)
		if k.size() > 1 {
			e.buf = binary.LittleEndian.AppendUint64(e.buf, k.bits)
		}
		return f
	}
	switch x := v.(type) {
	case string:
		e.buf = append(e.buf, 's')
		e.str(x)
		return 0
	case []any:
		e.buf = binary.AppendUvarint(append(e.buf, 'l'), uint64(len(x)))
		var flags uint8
		for _, el := range x {
			flags |= e.value(el, exact)
		}
		return flags
	case []int64:
		return encodeNumbers(e, x, exact, scalarInt)
	case []uint64:
		return encodeNumbers(e, x, exact, scalarUint)
	case []float64:
		return encodeNumbers(e, x, exact, scalarFloat)
	case []string:
		e.buf = binary.AppendUvarint(append(e.buf, 'l'), uint64(len(x)))
		for _, el := range x {
			if len(e.buf) > encodeChunk {
				e.flush()
			}
			e.buf = append(e.buf, 's')
			e.str(el)
		}
		return 0
	case map[string]any:
		e.buf = binary.AppendUvarint(append(e.buf, 'm'), uint64(len(x)))
		var stack [8]string // structs have few fields: no allocation
		keys := stack[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var flags uint8
		for _, k := range keys {
			e.str(k)
			flags |= e.value(x[k], exact)
		}
		return flags
	}
	// Not a trace value.
	e.buf = append(e.buf, '?')
	return fOpaque
}

// encodeNumbers encodes x, a typed list of numbers, as the []any of its
// elements, each encoded by key, and returns its flags.
func encodeNumbers[T int64 | uint64 | float64](e *encoder, x []T, exact bool, key func(T, bool) (scalarKey, uint8)) uint8 {
	e.buf = binary.AppendUvarint(append(e.buf, 'l'), uint64(len(x)))
	var flags uint8
	for _, el := range x {
		if len(e.buf) > encodeChunk {
			e.flush()
		}
		k, f := key(el, exact)
		e.buf = append(e.buf, k.tag)
		if k.tag != 'N' { // NaN is its tag alone
			e.buf = binary.LittleEndian.AppendUint64(e.buf, k.bits)
		}
		flags |= f
	}
	return flags
}

// sameEncoding reports whether a, encoded exactly if ea, and b, exactly if
// eb, have the same encoding.
func sameEncoding(a any, ea bool, b any, eb bool) bool {
	if ka, _, ok := scalar(a, ea); ok {
		kb, _, ok := scalar(b, eb)
		return ok && ka == kb
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any, []int64, []uint64, []float64, []string:
		nx, _ := listLen(x)
		ny, ok := listLen(b)
		if !ok || nx != ny {
			return false
		}
		if same, ok := sameTyped(x, ea, b, eb); ok {
			return same
		}
		for i := range nx {
			if !sameEncoding(listAt(x, i), ea, listAt(b, i), eb) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameEncoding(v, ea, w, eb) {
				return false
			}
		}
		return true
	}
	// a is no trace value, encoded as '?': so must b be.
	switch b.(type) {
	case string, []any, []int64, []uint64, []float64, []string, map[string]any:
		return false
	}
	_, _, ok := scalar(b, eb)
	return !ok
}

// scalar returns the encoding of v as the encoder makes it and v's flags, if v
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
		k, f := scalarInt(x, exact)
		return k, f, true
	case uint64:
		k, f := scalarUint(x, exact)
		return k, f, true
	case float64:
		k, f := scalarFloat(x, exact)
		return k, f, true
	}
	return scalarKey{}, 0, false
}

// scalarInt is scalar for an int64.
func scalarInt(x int64, exact bool) (scalarKey, uint8) {
	if exact {
		return scalarKey{uint64(x), 'I'}, 0
	}
	var f uint8
	if !exactInt(x) {
		f = fBig
	}
	if x < 0 {
		return scalarKey{uint64(x), 'i'}, f
	}
	return scalarKey{uint64(x), 'u'}, f
}

// scalarUint is scalar for a uint64.
func scalarUint(x uint64, exact bool) (scalarKey, uint8) {
	if exact {
		return scalarKey{x, 'U'}, 0
	}
	var f uint8
	if !exactUint(x) {
		f = fBig
	}
	return scalarKey{x, 'u'}, f
}

// scalarFloat is scalar for a float64.
func scalarFloat(x float64, exact bool) (scalarKey, uint8) {
	switch {
	case exact:
		return scalarKey{math.Float64bits(x), 'D'}, fFloat
	case math.IsNaN(x):
		return scalarKey{tag: 'N'}, fFloat | fNaN
	case x == math.Trunc(x) && x >= -(1<<63) && x < 0:
		return scalarKey{uint64(int64(x)), 'i'}, fFloat
	case x == math.Trunc(x) && x >= 0 && x < 1<<64:
		return scalarKey{uint64(x), 'u'}, fFloat
	}
	return scalarKey{math.Float64bits(x), 'f'}, fFloat
}

// The tags of scalars: those of null, false, true and NaN, encoded as
// the tag alone, and those of numbers, the tag then 8 bytes of bits.
const (
	markTags = "zFTN"
	numTags  = "iufIUD"
)

// size returns the length of k's encoding.
func (k scalarKey) size() int {
	if strings.IndexByte(markTags, k.tag) >= 0 {
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
	case s.set != nil:
		return s.set.hasCell(x)
	case s.kind == kList || s.kind == kMap && x.kind == kString:
		_, ok := slices.BinarySearch(s.mem, x.id)
		return ok
	}
	return false
}

// cellSubset is subset on cells whose members have been computed by in.
func cellSubset(in *interner, s, t *cell) bool {
	switch {
	case s.kind == kOther || t.kind == kOther || slow(s.flags, t.flags):
		return subset(s.v, t.v)
	case s.kind == kList && s.flags&fBadMember != 0:
		return false
	case s.kind != kList && s.kind != kMap:
		return true
	case s.set != nil:
		return s.set.subsetOf(in, t)
	case t.set != nil:
		return t.set.hasAll(s.v)
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
