package evaluator

import (
	"math"
	"reflect"
	"testing"

	"github.com/augur-dev/augur/specs"
)

func TestEqualAndLess(t *testing.T) {
	tests := []struct {
		a, b       any
		eq, lt, le bool
	}{
		{nil, nil, true, false, false},
		{nil, int64(0), false, false, false},
		{int64(-1), uint64(1), false, true, true},
		{uint64(math.MaxUint64), int64(math.MaxInt64), false, false, false},
		{int64(2), 2.0, true, false, true},
		{math.NaN(), math.NaN(), false, false, false},
		{"a", "b", false, true, true},
		{[]any{int64(1)}, []any{uint64(1)}, true, false, false},
		{map[string]any{"k": nil}, map[string]any{}, false, false, false},
	}
	for _, tt := range tests {
		if got := equal(tt.a, tt.b); got != tt.eq {
			t.Errorf("equal(%v, %v) = %v", tt.a, tt.b, got)
		}
		if got := less(tt.a, tt.b, false); got != tt.lt {
			t.Errorf("less(%v, %v) = %v", tt.a, tt.b, got)
		}
		if got := less(tt.a, tt.b, true); got != tt.le {
			t.Errorf("lessOrEqual(%v, %v) = %v", tt.a, tt.b, got)
		}
	}
}

func TestNormalizeSets(t *testing.T) {
	set := &specs.Type{Kind: specs.Set, Elem: &specs.Type{Kind: specs.Int}}
	nested := &specs.Type{Kind: specs.List, Elem: &specs.Type{Kind: specs.Struct, Fields: []specs.Field{{Name: "s", Type: set}}}}
	got := normalize([]any{map[string]any{"s": []any{int64(3), uint64(1), int64(3)}}}, nested)
	want := []any{map[string]any{"s": []any{uint64(1), int64(3)}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("normalize = %v, want %v", got, want)
	}
}

// TestNormalizeShares checks that normalize copies only what it changes:
// a list, or a set already sorted, is the value itself (issue 31: a list
// of 2M integers was copied on every decode of its state), and a value it
// changes is a copy, the input left as it was.
func TestNormalizeShares(t *testing.T) {
	ints := &specs.Type{Kind: specs.Int}
	list := &specs.Type{Kind: specs.List, Elem: ints}
	set := &specs.Type{Kind: specs.Set, Elem: ints}
	rec := &specs.Type{Kind: specs.Struct, Fields: []specs.Field{{Name: "s", Type: set}, {Name: "l", Type: list}}}
	l := make([]any, 1000)
	for i := range l {
		l[i] = int64(i)
	}
	for _, tc := range []struct {
		name string
		v    any
		t    *specs.Type
	}{
		{"list", l, list},
		{"sorted set", l, set},
		{"record of sorted containers", map[string]any{"s": l, "l": []any{int64(2), int64(1)}}, rec},
	} {
		if a := testing.AllocsPerRun(10, func() { normalize(tc.v, tc.t) }); a != 0 {
			t.Errorf("%s: normalize allocated %.0f times, want none", tc.name, a)
		}
	}

	unsorted := []any{int64(2), int64(1), int64(2)}
	in := map[string]any{"s": unsorted, "l": l}
	got := normalize(in, rec).(map[string]any)
	if want := []any{int64(1), int64(2)}; !reflect.DeepEqual(got["s"], want) {
		t.Errorf("normalize(%v).s = %v, want %v", in, got["s"], want)
	}
	if !reflect.DeepEqual(unsorted, []any{int64(2), int64(1), int64(2)}) || len(in) != 2 || !reflect.DeepEqual(in["s"], unsorted) {
		t.Errorf("normalize changed its input: %v", in)
	}
}
