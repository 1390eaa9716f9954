package evaluator

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/augur-dev/augur/internal/memtest"
)

// allocated returns the fewest bytes allocated by the function setup
// returns, over three runs each made ready by its own setup. The count is
// the whole process's, so another goroutine's allocations only add to a
// run's (the bound below was once exceeded by 1.2 KiB in a full run of
// the package's tests, never alone).
func allocated(setup func() func()) uint64 {
	least := uint64(math.MaxUint64)
	for range 3 {
		least = min(least, memtest.Allocated(setup()))
	}
	return least
}

// TestInternLargeValues pins that interning costs memory in proportion to
// a value's size with a small factor: a string is interned by itself, not
// copied, and the members of a large list cost no allocation each (issue
// 31: a 2M-integer list took 981 MB to evaluate, most of it the
// interner's).
func TestInternLargeValues(t *testing.T) {
	const size = 1 << 20
	s := strings.Repeat("b", size)
	if b := allocated(func() func() {
		in := newInterner()
		in.cell(strings.Repeat("a", size), needID|needExact) // the interner's maps and buffers are made
		return func() {
			c := in.cell(s, needID|needExact)
			if c.id == 0 || c.xid != c.id {
				t.Errorf("a string's ids: %d and exact %d, want the same, not 0", c.id, c.xid)
			}
		}
	}); b > size/16 {
		t.Errorf("interning a string of %d bytes allocated %d bytes, want no copy of it", size, b)
	}

	const n = 100_000
	l := make([]any, n)
	for i := range l {
		l[i] = int64(i) * 7
	}
	// A container is interned by a hash of its encoding, not a copy of it:
	// the ids of a list of 100,000 integers, or of a list holding a 1 MiB
	// string, cost what a few map entries do (the encoding of the integers
	// was 900 KB, made and copied for each id).
	for name, v := range map[string]any{"integers": l, "string": []any{strings.Repeat("c", size)}} {
		if b := allocated(func() func() {
			in := newInterner()
			in.cell(l[:1000], needID|needExact) // the maps and the encoder's buffer are made
			return func() { in.cell(v, needID|needExact) }
		}); b > 4<<10 {
			t.Errorf("interning a list of %s allocated %d bytes, want at most 4 KiB", name, b)
		}
		in := newInterner()
		again := in.cell(slices.Clone(v.([]any)), needID|needExact)
		if c := in.cell(v, needID|needExact); again.id != c.id || again.xid != c.xid {
			t.Errorf("a copy of the list of %s has ids %d, %d, want %d, %d", name, again.id, again.xid, c.id, c.xid)
		}
	}
	allocs := testing.AllocsPerRun(3, func() {
		newInterner().cell(l, needID|needMem|needExact)
	})
	// What allocates is the growth of the maps (a large map is many
	// tables of at most 1024 slots), the list's encodings and its
	// members' ids: nothing for each member.
	if allocs > n/50 {
		t.Errorf("interning a list of %d integers with its members: %.0f allocations, want at most %d", n, allocs, n/50)
	}
}

// TestInternMembers checks that the members of a container have the ids
// of the values themselves, and that a string's exact and canonical ids
// agree, as they did when every value was keyed by its encoding.
func TestInternMembers(t *testing.T) {
	in := newInterner()
	list := in.cell([]any{int64(3), "x", []any{true}, nil, 3.0}, needMem)
	m := in.cell(map[string]any{"x": int64(1), "y": nil}, needMem)
	for _, tc := range []struct {
		x    any
		in   *cell
		want bool
	}{
		{int64(3), &list, true},
		{uint64(3), &list, true},
		{3.0, &list, true},
		{"x", &list, true},
		{[]any{true}, &list, true},
		{int64(4), &list, false},
		{"y", &list, false},
		{[]any{false}, &list, false},
		{"x", &m, true},
		{"y", &m, true},
		{"z", &m, false},
		{int64(1), &m, false},
	} {
		x := in.cell(tc.x, needID)
		if got := cellContains(tc.in, &x); got != tc.want || got != contains(tc.in.v, tc.x) {
			t.Errorf("%v in %v: %v, want %v", tc.x, tc.in.v, got, tc.want)
		}
	}
	if list.flags&fBadMember == 0 {
		t.Errorf("a list with a null element is not flagged")
	}
	if len(list.mem) != 3 { // 3 and 3.0 are one member
		t.Errorf("members %v, want 3 of them", list.mem)
	}
	if a, b := in.exact(int64(3)), in.exact(3.0); a == b {
		t.Errorf("int64 3 and float64 3 have the same exact id %d", a)
	}
	if a, b := in.exact("x"), in.cell("x", needID).id; a != b {
		t.Errorf("a string's exact id %d differs from its id %d", a, b)
	}
}

// TestInternNumbering pins the ids as the one map of encodings gave them:
// in the order values are first seen, the null and NaN elements of a list
// given none.
func TestInternNumbering(t *testing.T) {
	in := newInterner()
	l := in.cell([]any{nil, math.NaN(), int64(1), []any{math.NaN()}, int64(1)}, needMem)
	if l.id != 1 || !slices.Equal(l.mem, []int32{2}) || l.flags&fBadMember == 0 {
		t.Errorf("list: id %d, members %v, flags %#x; want 1, [2] and fBadMember", l.id, l.mem, l.flags)
	}
	for _, tc := range []struct {
		v    any
		want int32
	}{
		{"x", 3}, {1.0, 2}, {math.NaN(), 4}, {[]any{"x"}, 5}, {[]any{math.NaN()}, 6}, {false, 7}, {"x", 3},
	} {
		if c := in.cell(tc.v, needID); c.id != tc.want {
			t.Errorf("%v: id %d, want %d", tc.v, c.id, tc.want)
		}
	}
}

// TestSameEncoding checks the comparison that tells apart the containers
// whose encodings hash the same: it is equality of the encodings.
func TestSameEncoding(t *testing.T) {
	type opaque struct{}
	for _, tc := range []struct {
		a, b         any
		ea, eb, want bool
	}{
		{[]any{int64(1)}, []any{1.0}, false, false, true},
		{[]any{int64(1)}, []any{1.0}, true, true, false},
		{[]any{int64(1)}, []any{uint64(1)}, false, false, true},
		{[]any{int64(1)}, []any{int64(1)}, false, true, false}, // 'u' is not 'I'
		{[]any{"x", nil, true}, []any{"x", nil, true}, false, true, true},
		{[]any{int64(1)}, []any{"1"}, false, false, false},
		{[]any{[]any{int64(1)}, int64(2)}, []any{[]any{int64(1), int64(2)}}, false, false, false},
		{[]any{}, map[string]any{}, false, false, false},
		{map[string]any{"a": int64(1)}, map[string]any{"a": 1.0}, false, false, true},
		{map[string]any{"a": int64(1)}, map[string]any{"b": int64(1)}, false, false, false},
		{map[string]any{"a": nil}, map[string]any{}, false, false, false},
		{[]any{math.NaN()}, []any{math.NaN()}, false, false, true}, // one encoding; the flags keep NaN unequal
		{[]any{opaque{}}, []any{opaque{}}, false, false, true},
		{[]any{opaque{}}, []any{nil}, false, false, false},
		{[]any{opaque{}}, []any{"?"}, false, false, false},
		{[]any{opaque{}}, []any{[]any{}}, false, false, false},
	} {
		if got := sameEncoding(tc.a, tc.ea, tc.b, tc.eb); got != tc.want {
			t.Errorf("sameEncoding(%v, %v, %v, %v) = %v, want %v", tc.a, tc.ea, tc.b, tc.eb, got, tc.want)
		}
		if got := sameEncoding(tc.b, tc.eb, tc.a, tc.ea); got != tc.want {
			t.Errorf("sameEncoding(%v, %v, %v, %v) = %v, want %v", tc.b, tc.eb, tc.a, tc.ea, got, tc.want)
		}
		var e encoder
		ha, na, _ := e.hash(tc.a, tc.ea)
		hb, nb, _ := e.hash(tc.b, tc.eb)
		if tc.want && (ha != hb || na != nb) {
			t.Errorf("%v and %v: the same encoding, hashes %x and %x, lengths %d and %d", tc.a, tc.b, ha, hb, na, nb)
		}
	}
}
