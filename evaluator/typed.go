package evaluator

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"weak"

	"github.com/augur-dev/augur/internal/number"
)

// This file reads lists in each of their representations: the []any of
// package trace, and the typed slices that trace.TypedStates decodes a
// list of numbers or strings without nulls to ([]int64, []uint64,
// []float64, []string), which take 8 or 16 bytes an element where a []any
// takes 16 and, for most numbers, an allocation of 8 more. Every function
// of value.go and cell.go takes a typed list as the []any of its
// elements; expressions (derived variables, predicates), which expr-lang
// evaluates, take it boxed (see boxed).

// listLen returns the length of v and true if v is a list, in any
// representation.
func listLen(v any) (int, bool) {
	switch l := v.(type) {
	case []any:
		return len(l), true
	case []int64:
		return len(l), true
	case []uint64:
		return len(l), true
	case []float64:
		return len(l), true
	case []string:
		return len(l), true
	}
	return 0, false
}

// listAt returns element i of l, a list in any representation, as a
// []any holds it.
func listAt(l any, i int) any {
	switch l := l.(type) {
	case []any:
		return l[i]
	case []int64:
		return l[i]
	case []uint64:
		return l[i]
	case []float64:
		return l[i]
	case []string:
		return l[i]
	}
	panic("evaluator: listAt of a value that is no list")
}

// isTyped reports whether v is a typed list.
func isTyped(v any) bool {
	switch v.(type) {
	case []int64, []uint64, []float64, []string:
		return true
	}
	return false
}

// boxed returns v with each typed list in it, at any depth, made a
// []any: the representation expressions take (expr-lang's functions and
// the budget of specs.Derived count the elements of a []any). A value
// that holds no typed list is returned itself.
func boxed(v any) any {
	b, _ := boxedOf(v)
	return b
}

// boxedOf is boxed, and reports whether the result is a new value.
func boxedOf(v any) (any, bool) {
	switch x := v.(type) {
	case []int64:
		return boxSlice(x), true
	case []uint64:
		return boxSlice(x), true
	case []float64:
		return boxSlice(x), true
	case []string:
		return boxSlice(x), true
	case []any:
		var out []any // nil while the elements are x's own
		for i, e := range x {
			b, changed := boxedOf(e)
			if changed && out == nil {
				out = append(make([]any, 0, len(x)), x...)
			}
			if out != nil {
				out[i] = b
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case map[string]any:
		var out map[string]any // nil while the members are x's own
		for k, e := range x {
			b, changed := boxedOf(e)
			if changed && out == nil {
				out = maps.Clone(x)
			}
			if out != nil {
				out[k] = b
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}

func boxSlice[T int64 | uint64 | float64 | string](l []T) []any {
	out := make([]any, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// sameTyped reports, if it can tell without boxing, whether the lists a,
// encoded exactly if ea, and b, exactly if eb, of one length, have the
// same encoding: ok is false unless they have one typed representation
// and are encoded alike.
func sameTyped(a any, ea bool, b any, eb bool) (same, ok bool) {
	if ea != eb {
		return false, false
	}
	switch a := a.(type) {
	case []int64: // an int64's key is a function of it, one to one
		if b, ok := b.([]int64); ok {
			return slices.Equal(a, b), true
		}
	case []uint64:
		if b, ok := b.([]uint64); ok {
			return slices.Equal(a, b), true
		}
	case []string:
		if b, ok := b.([]string); ok {
			return slices.Equal(a, b), true
		}
	case []float64: // not one to one: NaNs share a key, and so do -0 and 0
		if b, ok := b.([]float64); ok {
			for i := range a {
				ka, _ := scalarFloat(a[i], ea)
				if kb, _ := scalarFloat(b[i], eb); ka != kb {
					return false, true
				}
			}
			return true, true
		}
	}
	return false, false
}

// sortedList holds the members of a typed list (those of x in S and
// subset): its elements sorted, without duplicates and without NaN, in
// its own representation, 8 or 16 bytes each; a list already so is not
// copied. The elements of a []any are members by their interned ids
// (cell.mem), which cost a map entry each for a value first seen; a typed
// list's numbers and strings are found by value instead.
type sortedList struct {
	kind   cellKind // of the elements: kInt, kUint, kFloat or kString
	ints   []int64
	uints  []uint64
	floats []float64
	strs   []string
	nan    bool // the list has a NaN, a member of nothing
}

// setKey identifies the sortedList of a typed list: its class and its
// representation. Equal lists of int64 and of float64 share a class, and
// an int64 that float64 does not represent exactly is no member of the
// list of float64.
type setKey struct {
	id   int32
	kind cellKind
}

// typedMembers returns the members of v, a typed list of class id, and
// flags with fBadMember added if v holds a NaN. Lists of one class and
// representation share their members while a cell holds them: the
// interner holds them weakly, so that the members of a list no row holds
// any more are freed (a run over 10 snapshots each with its own
// 2M-integer list kept the 10 sorted copies to the end of the chunk).
func (in *interner) typedMembers(v any, id int32, flags uint8) (*sortedList, uint8) {
	key := setKey{id, typedKind(v)}
	s := in.sets[key].Value()
	if s == nil {
		s = in.store.members(v)
		in.sets[key] = weak.Make(s)
		in.bytes += s.bytes()
	}
	if s.nan {
		flags |= fBadMember
	}
	return s, flags
}

// memberStore shares the members of the huge typed lists of a window of
// snapshots between the engines of a run, which evaluate the same decoded
// states: each engine sorted its own copy of a list's members, so that
// memory grew by a list's size with each worker. A list is found by its
// memory, which the decoded state it came from holds while the window is
// evaluated. The store holds a list's members until every engine has
// taken them (each prepares a row once), then only the engines' cells
// do; Run empties the store between windows, when no engine runs, of
// those an engine did not take. Lists shorter than sharedMembersLen,
// cheap to sort, are not shared, so that the engines of most runs never
// take the lock.
type memberStore struct {
	engines int
	mu      sync.Mutex
	lists   map[listKey]*sharedMembers
}

// sharedMembersLen is the least length of a list whose members the
// engines share.
const sharedMembersLen = 1 << 12

// listKey identifies a typed list by its memory: the address of its first
// element (an *int64, *uint64, *float64 or *string) and its length.
type listKey struct {
	first any
	n     int
}

// sharedMembers are the members of a list, computed once.
type sharedMembers struct {
	once  sync.Once
	s     *sortedList
	taken int // the engines that asked for them, under memberStore.mu
}

// newMemberStore returns a store for the given number of engines.
func newMemberStore(engines int) *memberStore {
	return &memberStore{engines: engines, lists: map[listKey]*sharedMembers{}}
}

// members returns the members of v, a typed list: those another engine
// computed if v is huge, computed once whichever engine asks first.
func (st *memberStore) members(v any) *sortedList {
	n, _ := listLen(v)
	if st == nil || n < sharedMembersLen {
		return newSortedList(v)
	}
	var key listKey
	switch x := v.(type) {
	case []int64:
		key = listKey{&x[0], n}
	case []uint64:
		key = listKey{&x[0], n}
	case []float64:
		key = listKey{&x[0], n}
	case []string:
		key = listKey{&x[0], n}
	}
	st.mu.Lock()
	m := st.lists[key]
	if m == nil {
		m = &sharedMembers{}
		st.lists[key] = m
	}
	if m.taken++; m.taken >= st.engines {
		delete(st.lists, key) // the last engine to ask
	}
	st.mu.Unlock()
	m.once.Do(func() { m.s = newSortedList(v) })
	return m.s
}

// reset forgets the lists, those of a window evaluated.
func (st *memberStore) reset() {
	clear(st.lists)
}

// typedKind returns the kind of the elements of v, a typed list.
func typedKind(v any) cellKind {
	switch v.(type) {
	case []int64:
		return kInt
	case []uint64:
		return kUint
	case []float64:
		return kFloat
	}
	return kString
}

// newSortedList returns the members of v, a typed list.
func newSortedList(v any) *sortedList {
	switch x := v.(type) {
	case []int64:
		return &sortedList{kind: kInt, ints: sortedUnique(x)}
	case []uint64:
		return &sortedList{kind: kUint, uints: sortedUnique(x)}
	case []float64:
		s := &sortedList{kind: kFloat}
		if slices.ContainsFunc(x, math.IsNaN) {
			s.nan = true
			x = slices.DeleteFunc(slices.Clone(x), math.IsNaN)
		}
		s.floats = sortedUnique(x) // -0 and 0 are one member
		return s
	case []string:
		return &sortedList{kind: kString, strs: sortedUnique(x)}
	}
	panic("evaluator: members of a value that is no typed list")
}

// sortedUnique returns the elements of x, which holds no NaN, sorted and
// without duplicates: x itself if it is so already.
func sortedUnique[T cmp.Ordered](x []T) []T {
	if increasing(x, cmp.Compare[T]) {
		return x
	}
	x = slices.Clone(x)
	slices.Sort(x)
	return slices.Compact(x)
}

// bytes returns the memory of s's elements.
func (s *sortedList) bytes() int {
	return 8*(len(s.ints)+len(s.uints)+len(s.floats)) + 16*len(s.strs)
}

// hasNumber reports whether s has a member equal to the number of kind k
// and bits as ids tell equality: by value, an integer that float64 does
// not represent exactly equal to no float (slow leaves those to
// contains).
func (s *sortedList) hasNumber(k number.Kind, bits uint64) bool {
	var ok bool
	switch s.kind {
	case kInt:
		var x int64
		if x, ok = asInt(k, bits); ok {
			_, ok = slices.BinarySearch(s.ints, x)
		}
	case kUint:
		var x uint64
		if x, ok = asUint(k, bits); ok {
			_, ok = slices.BinarySearch(s.uints, x)
		}
	case kFloat:
		var x float64
		if x, ok = asFloat(k, bits); ok {
			_, ok = slices.BinarySearch(s.floats, x)
		}
	}
	return ok
}

// hasString reports whether s has the member x.
func (s *sortedList) hasString(x string) bool {
	if s.kind != kString {
		return false
	}
	_, ok := slices.BinarySearch(s.strs, x)
	return ok
}

// hasCell reports whether s has a member equal to c, a cell of a number
// or a string that holds no NaN.
func (s *sortedList) hasCell(c *cell) bool {
	switch {
	case isNum(c.kind):
		return s.hasNumber(numberKinds[c.kind], c.bits)
	case c.kind == kString:
		return s.hasString(c.v.(string))
	}
	return false
}

// hasValue reports whether s has a member equal to v, a value.
func (s *sortedList) hasValue(v any) bool {
	if x, ok := v.(string); ok {
		return s.hasString(x)
	}
	if k, bits := number.Of(v); k != number.Invalid {
		return s.hasNumber(k, bits)
	}
	return false
}

// hasAll reports whether s has every member of v, a []any or a map (its
// keys), which holds no null or NaN element.
func (s *sortedList) hasAll(v any) bool {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			if !s.hasValue(e) {
				return false
			}
		}
	case map[string]any:
		for k := range v {
			if !s.hasString(k) {
				return false
			}
		}
	}
	return true
}

// subsetOf reports whether every member of s is a member of t, a cell
// whose members were computed: found by value if t is typed, else by the
// ids of in, where t's members are interned (a member of s with no id is
// a member of no container).
func (s *sortedList) subsetOf(in *interner, t *cell) bool {
	has := func(k cellKind, bits uint64, str string) bool {
		if t.set != nil {
			if k == kString {
				return t.set.hasString(str)
			}
			return t.set.hasNumber(numberKinds[k], bits)
		}
		id, ok := in.lookup(k, bits, str)
		if ok {
			_, ok = slices.BinarySearch(t.mem, id)
		}
		return ok
	}
	switch s.kind {
	case kInt:
		for _, x := range s.ints {
			if !has(kInt, uint64(x), "") {
				return false
			}
		}
	case kUint:
		for _, x := range s.uints {
			if !has(kUint, x, "") {
				return false
			}
		}
	case kFloat:
		for _, x := range s.floats {
			if !has(kFloat, math.Float64bits(x), "") {
				return false
			}
		}
	case kString:
		for _, x := range s.strs {
			if !has(kString, 0, x) {
				return false
			}
		}
	}
	return true
}

// lookup returns the id of the class of a member, a number of kind k and
// bits or the string str if k is kString, if it has one.
func (in *interner) lookup(k cellKind, bits uint64, str string) (int32, bool) {
	if k == kString {
		id, ok := in.strs[str]
		return id, ok
	}
	var key scalarKey
	switch k {
	case kInt:
		key, _ = scalarInt(int64(bits), false)
	case kUint:
		key, _ = scalarUint(bits, false)
	default:
		key, _ = scalarFloat(math.Float64frombits(bits), false)
	}
	t := strings.IndexByte(numTags, key.tag)
	if t < 0 { // NaN
		return 0, false
	}
	id, ok := in.nums[t][key.bits]
	return id, ok
}

// asInt returns the int64 equal to the number of kind k and bits, if
// there is one.
func asInt(k number.Kind, bits uint64) (int64, bool) {
	switch k {
	case number.Int:
		return int64(bits), true
	case number.Uint:
		return int64(bits), bits <= math.MaxInt64
	case number.Float:
		f := math.Float64frombits(bits)
		return int64(f), f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63
	}
	return 0, false
}

// asUint returns the uint64 equal to the number of kind k and bits, if
// there is one.
func asUint(k number.Kind, bits uint64) (uint64, bool) {
	switch k {
	case number.Int:
		return bits, int64(bits) >= 0
	case number.Uint:
		return bits, true
	case number.Float:
		f := math.Float64frombits(bits)
		return uint64(f), f == math.Trunc(f) && f >= 0 && f < 1<<64
	}
	return 0, false
}

// asFloat returns the float64, not NaN, equal to the number of kind k and
// bits, if there is one: an integer that float64 does not represent
// exactly has none.
func asFloat(k number.Kind, bits uint64) (float64, bool) {
	switch k {
	case number.Int:
		return float64(int64(bits)), exactInt(int64(bits))
	case number.Uint:
		return float64(bits), exactUint(bits)
	case number.Float:
		f := math.Float64frombits(bits)
		return f, !math.IsNaN(f)
	}
	return 0, false
}
