package evaluator

import (
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestInternLargeValues pins that interning costs memory in proportion to
// a value's size with a small factor: a string is interned by itself, not
// copied, and the members of a large list cost no allocation each (issue
// 31: a 2M-integer list took 981 MB to evaluate, most of it the
// interner's).
func TestInternLargeValues(t *testing.T) {
	const size = 1 << 20
	in := newInterner()
	in.cell(strings.Repeat("a", size), needID|needExact) // the interner's maps and buffers are made
	s := strings.Repeat("b", size)
	if b := allocated(func() {
		c := in.cell(s, needID|needExact)
		if c.id == 0 || c.xid != c.id {
			t.Errorf("a string's ids: %d and exact %d, want the same, not 0", c.id, c.xid)
		}
	}); b > size/16 {
		t.Errorf("interning a string of %d bytes allocated %d bytes, want no copy of it", size, b)
	}

	const n = 100_000
	l := make([]any, n)
	for i := range l {
		l[i] = int64(i) * 7
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
