package evaluator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/augur-dev/augur/specs"
)

// The corners of the semantics, by the kind of a typed list's elements:
// integers that float64 rounds, uint64 above MaxInt64, -0, NaN,
// infinities, floats beyond the integers' ranges, and values that equal
// one of another representation.
var (
	typedInts    = []int64{0, 1, -1, 3, 7, 1 << 53, 1<<53 + 1, -(1 << 53) - 1, math.MaxInt64, math.MinInt64}
	typedUints   = []uint64{0, 1, 3, 7, 1<<53 + 1, 1 << 63, math.MaxUint64}
	typedFloats  = []float64{0, math.Copysign(0, -1), 1, 3, 1.5, -1, math.NaN(), math.Inf(1), math.Inf(-1), 1 << 53, 1 << 63, 1 << 64, -(1 << 63), 7}
	typedStrings = []string{"", "a", "b", "x", "3"}
)

// randomTyped returns a typed list of up to max elements, drawn from the
// corners of one kind.
func randomTyped(r *rand.Rand, max int) any {
	n := r.IntN(max + 1)
	switch r.IntN(4) {
	case 0:
		return pickN(r, typedInts, n)
	case 1:
		return pickN(r, typedUints, n)
	case 2:
		return pickN(r, typedFloats, n)
	}
	return pickN(r, typedStrings, n)
}

func pickN[T any](r *rand.Rand, from []T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = from[r.IntN(len(from))]
	}
	return out
}

// otherValues are operands that are no typed list: scalars, []any with a
// null or mixed elements, maps, nested lists.
var otherValues = []any{
	nil, true, int64(3), uint64(1 << 63), 3.0, math.NaN(), "a", "x",
	[]any{}, []any{int64(3), nil}, []any{int64(3), 3.0, "a"}, []any{math.NaN()},
	[]any{[]any{int64(1)}, "a"}, []any{[]int64{1}}, []any{[]float64{1}},
	map[string]any{}, map[string]any{"a": int64(1), "x": nil}, map[string]any{"3": true},
}

// repr renders v with its representation: the type of every element,
// -0 apart from 0, NaN.
func repr(v any) string { return fmt.Sprintf("%#v", v) }

// checkTypedOperators checks every operator of value.go and cell.go on
// the operands vals, each typed list against the []any of its elements:
// the same results, ids, flags and normalized values.
func checkTypedOperators(t *testing.T, vals []any) {
	t.Helper()
	in := newInterner()
	const needs = needID | needMem | needExact
	cells := make([]cell, len(vals))
	boxes := make([]cell, len(vals))
	for i, v := range vals {
		b := boxed(v)
		cells[i], boxes[i] = in.cell(v, needs), in.cell(b, needs)
		c, d := &cells[i], &boxes[i]
		if c.kind != d.kind || c.id != d.id || c.xid != d.xid || c.size != d.size || c.flags != d.flags {
			t.Errorf("%s: kind %d, ids %d %d, size %d, flags %#x; boxed: %d, %d %d, %d, %#x", repr(v), c.kind, c.id, c.xid, c.size, c.flags, d.kind, d.id, d.xid, d.size, d.flags)
		}
		if size(v) != size(b) {
			t.Errorf("size(%s) = %d, boxed %d", repr(v), size(v), size(b))
		}
		for _, kind := range []specs.Kind{specs.List, specs.Set} {
			for _, elem := range []specs.Kind{specs.Int, specs.Float, specs.String} {
				typ := &specs.Type{Kind: kind, Elem: &specs.Type{Kind: elem}}
				got, want := normalize(v, typ), normalize(b, typ)
				if repr(boxed(got)) != repr(want) {
					t.Errorf("normalize(%s, %s) = %s, boxed %s", repr(v), typ.Describe(), repr(got), repr(want))
				}
				if _, changed := normalized(v, typ); !changed && repr(got) != repr(v) {
					t.Errorf("normalize(%s, %s) = %s, not a copy", repr(v), typ.Describe(), repr(got))
				}
			}
		}
	}
	// Each pair of operands, each typed or boxed.
	for i, a := range vals {
		for j, b := range vals {
			ba, bb := boxed(a), boxed(b)
			eq, ct, sub, ord := equal(ba, bb), contains(bb, ba), subset(ba, bb), order(ba, bb)
			for _, x := range []any{a, ba} {
				for _, y := range []any{b, bb} {
					if got := equal(x, y); got != eq {
						t.Errorf("equal(%s, %s) = %v, boxed %v", repr(x), repr(y), got, eq)
					}
					if got := contains(y, x); got != ct {
						t.Errorf("contains(%s, %s) = %v, boxed %v", repr(y), repr(x), got, ct)
					}
					if got := subset(x, y); got != sub {
						t.Errorf("subset(%s, %s) = %v, boxed %v", repr(x), repr(y), got, sub)
					}
					if got := order(x, y); got != ord {
						t.Errorf("order(%s, %s) = %v, boxed %v", repr(x), repr(y), got, ord)
					}
				}
			}
			for _, x := range []*cell{&cells[i], &boxes[i]} {
				for _, y := range []*cell{&cells[j], &boxes[j]} {
					if got := cellEqual(x, y); got != eq {
						t.Errorf("cellEqual(%s, %s) = %v, equal %v", repr(x.v), repr(y.v), got, eq)
					}
					if got := cellContains(y, x); got != ct {
						t.Errorf("cellContains(%s, %s) = %v, contains %v", repr(y.v), repr(x.v), got, ct)
					}
					if got := cellSubset(in, x, y); got != sub {
						t.Errorf("cellSubset(%s, %s) = %v, subset %v", repr(x.v), repr(y.v), got, sub)
					}
				}
			}
		}
	}
}

// TestTypedListsMatchBoxed checks the operators on random typed lists of
// the corner values, against the []any of their elements, and against
// other values.
func TestTypedListsMatchBoxed(t *testing.T) {
	rounds := 200
	if testing.Short() {
		rounds = 20
	}
	r := rand.New(rand.NewPCG(31, 1))
	for range rounds {
		vals := append([]any(nil), otherValues...)
		for range 12 {
			vals = append(vals, randomTyped(r, 6))
		}
		// Equal lists of other representations, and sets already sorted.
		vals = append(vals, []int64{3, 7}, []uint64{3, 7}, []float64{3, 7}, []any{int64(3), 7.0},
			[]float64{math.Copysign(0, -1), 0}, []float64{0, math.Copysign(0, -1)}, []int64{0}, []string{"a", "b"})
		checkTypedOperators(t, vals)
		if t.Failed() {
			return
		}
	}
}

// FuzzTypedListsMatchBoxed checks the operators on typed lists made from
// the fuzzer's bytes: each byte picks a corner value of the list's kind.
func FuzzTypedListsMatchBoxed(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, []byte{1, 5, 6, 2}, uint8(0))
	f.Add([]byte{6, 6, 1}, []byte{0, 1}, uint8(2))
	f.Add([]byte{5, 2, 5}, []byte{7, 5}, uint8(1))
	f.Fuzz(func(t *testing.T, a, b []byte, kinds uint8) {
		list := func(bs []byte, kind uint8) any {
			bs = bs[:min(len(bs), 16)]
			switch kind % 4 {
			case 0:
				return fromBytes(bs, typedInts)
			case 1:
				return fromBytes(bs, typedUints)
			case 2:
				return fromBytes(bs, typedFloats)
			}
			return fromBytes(bs, typedStrings)
		}
		checkTypedOperators(t, append([]any{list(a, kinds), list(b, kinds/4)}, otherValues...))
	})
}

func fromBytes[T any](bs []byte, from []T) []T {
	out := make([]T, len(bs))
	for i, b := range bs {
		out[i] = from[int(b)%len(from)]
	}
	return out
}

// TestTypedListMemory pins what a huge typed list costs the fast
// evaluator's cells: its id, its members, and its members again for a
// list of another class, allocate about its own size (a sorted copy of
// the elements for the members, none for the id), with no allocation nor
// interner entry per element; a []any of the same elements costs many
// times that (issue 31: infer of a 2M-integer list took 432 MB).
func TestTypedListMemory(t *testing.T) {
	const n = 1 << 20
	l := make([]int64, n)
	for i := range l {
		l[i] = int64(i*7919%n) - 1<<40 // unsorted, none boxed without an allocation
	}
	const needs = needID | needMem | needExact
	in := newInterner()
	var c cell
	typed := allocated(func() func() {
		in = newInterner()
		return func() { c = in.cell(l, needs) }
	})
	if limit := uint64(8*n + 64<<10); typed > limit {
		t.Errorf("a list of %d int64 (%d MiB) allocated %d KiB as a cell, more than %d KiB", n, 8*n>>20, typed>>10, limit>>10)
	}
	if len(in.strs) != 0 || len(in.nums[strings.IndexByte(numTags, 'u')]) != 0 {
		t.Errorf("the interner numbered the list's elements")
	}
	if x := in.cell(l[n/2], needID); !cellContains(&c, &x) {
		t.Errorf("%d not in the list", l[n/2])
	}
	runtime.KeepAlive(c)
	boxedList := boxed(l)
	b := allocated(func() func() {
		in = newInterner()
		return func() { c = in.cell(boxedList, needs) }
	})
	t.Logf("a list of %d int64 as a cell: typed %d KiB, []any %d KiB", n, typed>>10, b>>10)
	if b < 2*typed {
		t.Errorf("a []any of %d int64 allocated %d KiB as a cell, the typed list %d KiB: not less?", n, b>>10, typed>>10)
	}
}
