package ir

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/augur-dev/augur/internal/memtest"
)

// formatValue renders v as the value of path n0.x on a witness's line.
func formatValue(w Witness, v any) string {
	w.Values = map[string]any{"n0.x": v}
	return w.formatMap("/values/", w.Values)
}

// TestWitnessValuesShort checks that a value within MaxValueText renders
// as encoding/json renders it.
func TestWitnessValuesShort(t *testing.T) {
	for _, v := range []any{
		nil, true, int64(-3), 2.5, math.MaxInt64, "a<b & \"c\"", "héllo",
		[]any{}, []any(nil), []any{int64(1), "x", []any{2.5, nil}},
		[]int64{}, []int64(nil), []int64{-1, 2}, []uint64{math.MaxUint64}, []float64{0.5, 1e21}, []string{"a", ""},
		map[string]any{}, map[string]any(nil), map[string]any{"b": int64(1), "a": []any{"z"}},
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := formatValue(Witness{}, v); got != "n0.x="+string(want) {
			t.Errorf("%#v: %s, want n0.x=%s", v, got, want)
		}
		w := NewWitness(1, 2)
		w.SetValue("n0.x", v)
		if got := formatValue(w, w.Values["n0.x"]); got != "n0.x="+string(want) {
			t.Errorf("%#v captured: %s, want n0.x=%s", v, got, want)
		}
	}
}

// TestWitnessValuesLong checks that a long value is cut near
// MaxValueText, saying how long it is, and that the line is valid UTF-8,
// whether the witness holds it whole or as much as it keeps of it.
func TestWitnessValuesLong(t *testing.T) {
	list := make([]any, 2_000_000)
	ints := make([]int64, len(list))
	for i := range list {
		list[i] = int64(i)
		ints[i] = int64(i)
	}
	for _, tt := range []struct {
		name string
		v    any
		says string
	}{
		{"string", strings.Repeat("é", 500_000), "…\" (1000000 bytes)"},
		{"list", list, "… (2000000 items)]"},
		{"typed list", ints, "… (2000000 items)]"},
		{"list of strings", []string{strings.Repeat("c", 1000)}, "…\" (1000 bytes)]"},
		{"list of a long string", []any{strings.Repeat("a", 1<<20)}, "…\" (1048576 bytes)]"},
		{"map", map[string]any{"k": strings.Repeat("b", 4096), "l": int64(1)}, "… (2 keys)}"},
	} {
		captured := NewWitness(1, 2)
		captured.SetValue("n0.x", tt.v)
		for _, w := range []Witness{{}, captured} {
			got := formatValue(w, tt.v)
			if w.Cut != nil {
				got = formatValue(w, w.Values["n0.x"])
			}
			if !strings.HasSuffix(got, tt.says) {
				t.Errorf("%s (cut %v): %.80q… ends %q, want %q", tt.name, w.Cut, got, got[max(0, len(got)-30):], tt.says)
			}
			if len(got) > len("n0.x=")+MaxValueText+64 {
				t.Errorf("%s (cut %v): %d bytes, want at most about %d", tt.name, w.Cut, len(got), MaxValueText)
			}
			if !utf8.ValidString(got) {
				t.Errorf("%s (cut %v): not valid UTF-8", tt.name, w.Cut)
			}
		}
	}
}

// ints returns the list of int64 from 0 to n-1.
func ints(n int) []any {
	l := make([]any, n)
	for i := range l {
		l[i] = int64(i)
	}
	return l
}

// keys returns the map of the n keys k0000000, k0000001, … to null.
func keys(n int) map[string]any {
	m := make(map[string]any, n)
	for i := range n {
		m[fmt.Sprintf("k%07d", i)] = nil
	}
	return m
}

// fakeList is a Composite of the elements of a list of the
// representation of package trace.
type fakeList []any

func (l fakeList) Len() int    { return len(l) }
func (l fakeList) IsMap() bool { return false }

func (l fakeList) Member(i int) (string, any) { return "", l[i] }

// fakeMap is a Composite of the entries of a map of the representation
// of package trace.
type fakeMap map[string]any

func (m fakeMap) Len() int    { return len(m) }
func (m fakeMap) IsMap() bool { return true }

func (m fakeMap) Member(i int) (string, any) {
	k := slices.Sorted(maps.Keys(m))[i]
	return k, m[k]
}

// TestWitnessCut checks what a witness keeps of a value: all of a value
// within MaxValueJSON, as it is, non-finite floats by their names; the
// head of a longer one, in about MaxValueJSON bytes of JSON, with the full
// lengths of what it cut in Cut.
func TestWitnessCut(t *testing.T) {
	long := strings.Repeat("a", 10_000)
	tests := []struct {
		name string
		v    any
		want any            // what is kept; nil, with a cut: a head of v in about MaxValueJSON bytes
		cut  map[string]int // Witness.Cut
	}{
		{name: "null", v: nil, want: nil},
		{name: "number", v: int64(-7), want: int64(-7)},
		{name: "string", v: "héllo", want: "héllo"},
		{name: "list", v: []any{int64(1), "x", []any{2.5, nil}}, want: []any{int64(1), "x", []any{2.5, nil}}},
		{name: "typed list", v: []int64{1, 2}, want: []int64{1, 2}},
		{name: "map", v: map[string]any{"b": true, "a": []string{"z"}}, want: map[string]any{"b": true, "a": []string{"z"}}},
		{name: "string of MaxValueJSON", v: strings.Repeat("s", MaxValueJSON-2), want: strings.Repeat("s", MaxValueJSON-2)},
		{name: "non-finite", v: map[string]any{"r": math.Inf(1), "l": []any{math.NaN(), 1.5}},
			want: map[string]any{"r": "+Inf", "l": []any{"NaN", 1.5}}},
		{name: "typed non-finite", v: []float64{math.Inf(-1), 0.5}, want: []any{"-Inf", 0.5}},

		{name: "long list", v: ints(2_000_000), cut: map[string]int{"/values/v": 2_000_000}},
		{name: "long typed list", v: slices.Repeat([]uint64{math.MaxUint64}, 1<<20), cut: map[string]int{"/values/v": 1 << 20}},
		{name: "long string", v: long, cut: map[string]int{"/values/v": len(long)}},
		{name: "2-byte runes", v: strings.Repeat("é", 5_000), cut: map[string]int{"/values/v": 10_000}},
		{name: "3-byte runes", v: "a" + strings.Repeat("€", 5_000), cut: map[string]int{"/values/v": 15_001}},
		{name: "4-byte runes", v: "ab" + strings.Repeat("😀", 5_000), cut: map[string]int{"/values/v": 20_002}},
		{name: "list of a long string", v: []any{long, "b"}, cut: map[string]int{"/values/v": 2, "/values/v/0": len(long)}},
		{name: "long list in a list", v: []any{ints(100_000)}, cut: map[string]int{"/values/v/0": 100_000}},
		{name: "nested maps", v: map[string]any{"b": int64(1), "a": map[string]any{"y": long, "x": "short", "z": nil}},
			cut: map[string]int{"/values/v": 2, "/values/v/a": 3, "/values/v/a/y": len(long)}},
		{name: "keys to escape", v: map[string]any{"a/b~c": long}, cut: map[string]int{"/values/v/a~1b~0c": len(long)}},
		{name: "many keys", v: keys(100_000), cut: map[string]int{"/values/v": 100_000}},
		{name: "long key", v: map[string]any{"a": long, long: int64(1)}, cut: map[string]int{"/values/v": 2, "/values/v/a": len(long)}},
		{name: "long key in a nested map", v: []any{long[:MaxValueJSON-8], map[string]any{long: map[string]any{"k": nil}}},
			want: []any{long[:MaxValueJSON-8]}, cut: map[string]int{"/values/v": 2}},
		{name: "list of maps", v: slices.Repeat([]any{map[string]any{"index": int64(100), "term": int64(1)}}, 1000), cut: map[string]int{"/values/v": 1000}},
		{name: "list of strings", v: slices.Repeat([]string{"abcdefgh"}, 1000), cut: map[string]int{"/values/v": 1000}},
		{name: "composite list", v: fakeList{int64(1), fakeList{}, fakeMap{"k": math.NaN()}}, want: []any{int64(1), []any{}, map[string]any{"k": "NaN"}}},
		{name: "long composite list", v: fakeList(ints(100_000)), cut: map[string]int{"/values/v": 100_000}},
		{name: "composite map", v: fakeMap{"b": long, "a": fakeList{}}, cut: map[string]int{"/values/v/b": len(long)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := NewWitness(3, 4)
			w.SetValue("v", tt.v)
			got := w.Values["v"]
			if !reflect.DeepEqual(w.Cut, tt.cut) {
				t.Errorf("cut %v, want %v", w.Cut, tt.cut)
			}
			data, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if tt.cut == nil || tt.want != nil {
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("kept %.200#v, want %.200#v", got, tt.want)
				}
				return
			}
			if len(data) < MaxValueJSON-64 || len(data) > MaxValueJSON+64 {
				t.Errorf("kept %d bytes of JSON, want about %d", len(data), MaxValueJSON)
			}
			if !utf8.Valid(data) {
				t.Errorf("kept invalid UTF-8: …%q", data[max(0, len(data)-8):])
			}
			if full := plain(tt.v); !isHead(got, full) {
				t.Errorf("kept %.200s…, not a head of the value", data)
			}
		})
	}
}

// plain returns v without Composites.
func plain(v any) any {
	switch x := v.(type) {
	case fakeList:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = plain(e)
		}
		return l
	case fakeMap:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = plain(e)
		}
		return m
	}
	return v
}

// isHead reports whether kept is a head of full: a string's first bytes,
// a list's first elements, a map's first keys in order, each a head of
// full's.
func isHead(kept, full any) bool {
	switch k := kept.(type) {
	case string:
		f, ok := full.(string)
		return ok && strings.HasPrefix(f, k)
	case []any:
		f := reflect.ValueOf(full)
		if f.Kind() != reflect.Slice || len(k) > f.Len() {
			return false
		}
		for i, e := range k {
			if !isHead(e, f.Index(i).Interface()) {
				return false
			}
		}
		return true
	case map[string]any:
		f, ok := full.(map[string]any)
		if !ok {
			return false
		}
		sorted := slices.Sorted(maps.Keys(f))
		for i, key := range sorted {
			if e, ok := k[key]; !ok && i < len(k) || ok && !isHead(e, f[key]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(kept, full)
}

// TestWitnessBindingCut checks that a variable's binding is kept as a
// path's value is, under /binding/ in Cut.
func TestWitnessBindingCut(t *testing.T) {
	w := NewWitness(1, 2)
	w.Bind("n0", "n1")
	w.Bind("e0", ints(10_000))
	if want := map[string]int{"/binding/e0": 10_000}; !reflect.DeepEqual(w.Cut, want) || w.Binding["n0"] != "n1" {
		t.Errorf("binding %.100v, cut %v; want n0 n1, cut %v", w.Binding, w.Cut, want)
	}
	if got := w.String(); !strings.Contains(got, "… (10000 items)]") {
		t.Errorf("line %q does not say the binding's length", got)
	}
}

// TestWitnessCutAllocates checks that keeping a huge value allocates
// about what is kept, whatever its size (issue 31: a witness held a
// 2M-integer list whole).
func TestWitnessCutAllocates(t *testing.T) {
	const n = 2_000_000
	typed := make([]int64, n)
	for i := range typed {
		typed[i] = int64(i) << 20 // none boxed without an allocation
	}
	for _, tt := range []struct {
		name string
		v    any
	}{
		{"list", ints(n)},
		{"typed list", typed},
		{"string", strings.Repeat("x", 8*n)},
		{"map", keys(n / 4)},
		{"composite", fakeList(ints(n))},
	} {
		if a := memtest.Least(3, func(int) {
			w := NewWitness(1, 2)
			w.SetValue("n0.x", tt.v)
		}); a > 64<<10 {
			t.Errorf("%s: keeping a witness's value allocated %d KiB, want at most 64", tt.name, a>>10)
		}
	}
}

// TestFittingAsCutter checks that fitting, which spares a witness the
// cutter, says a value fits when its JSON, as the cutter counts it, is at
// most MaxValueJSON bytes, and not a byte past that nor with a float JSON
// cannot hold, and that the cutter keeps whole and unchanged every value
// that fits (Fits), as a witness's Bind and SetValue do; and that a value
// that fits is kept without an allocation.
func TestFittingAsCutter(t *testing.T) {
	s := func(n int) string { return strings.Repeat("s", n) }
	const m = MaxValueJSON
	tests := []struct {
		v    any
		fits bool
	}{
		{nil, true}, {true, true}, {false, true}, {int64(0), true}, {int64(-1), true},
		{int64(math.MinInt64), true}, {int64(math.MaxInt64), true}, {uint64(math.MaxUint64), true},
		{0.1, true}, {-2.5e-300, true}, {math.Inf(1), false}, {math.NaN(), false}, {"", true}, {"é", true},
		{s(m - 2), true}, {s(m - 1), false}, {s(m), false},
		{[]any{}, true}, {[]any(nil), true}, {[]any{s(m - 4)}, true}, {[]any{s(m - 3)}, false},
		{[]any{s(m - 6), int64(7)}, true}, {[]any{s(m - 5), int64(7)}, false},
		{[]any{s(m - 7), int64(-7)}, true}, {[]any{s(m - 6), int64(-7)}, false},
		{[]any{s(m - 8), []int64{1}}, true}, {[]any{s(m - 7), []int64{1}}, false},
		{[]any{1.5, math.NaN()}, false}, {[]any{map[string]any{"k": nil}, nil}, true},
		{[]int64{}, true}, {[]int64{math.MinInt64, 3}, true}, {make([]int64, m/2-1), true}, {make([]int64, m/2), false},
		{make([]int64, 1<<20), false}, {[]uint64{math.MaxUint64}, true}, {make([]uint64, m/2-1), true}, {make([]uint64, m/2), false},
		{[]float64{0.25, 1e100}, true}, {make([]float64, m/2-1), true}, {make([]float64, m/2), false}, {[]float64{1, math.Inf(-1)}, false},
		{[]string{"a", ""}, true}, {[]string{s(m - 4)}, true}, {[]string{s(m - 3)}, false},
		{[]string{s(m - 7), ""}, true}, {[]string{s(m - 6), ""}, false},
		{map[string]any{}, true}, {map[string]any{"k": s(m - 8)}, true}, {map[string]any{"k": s(m - 7)}, false},
		{map[string]any{"a": int64(1), "b": s(m - 14)}, true}, {map[string]any{"a": int64(1), "b": s(m - 13)}, false},
		{map[string]any{s(m - 9): nil}, true}, {map[string]any{s(m - 8): nil}, false}, {map[string]any{"k": math.NaN()}, false},
		{keys(100_000), false}, {ints(2_000_000), false}, {fakeList{int64(1)}, false}, {fakeMap{}, false},
		{int32(1), false}, {float32(1), false},
	}
	for i, tt := range tests {
		if fits := fitting(tt.v, m) >= 0; fits != tt.fits {
			t.Errorf("value %d (%T): fits %v, want %v", i, tt.v, fits, tt.fits)
		}
		if Fits(tt.v) != tt.fits {
			t.Errorf("value %d (%T): Fits %v, want %v", i, tt.v, !tt.fits, tt.fits)
		}
		if !tt.fits {
			continue
		}
		w := NewWitness(1, 2)
		w.Bind("n0", tt.v)
		w.SetValue("n0.x", tt.v)
		if w.Cut != nil || !reflect.DeepEqual(w.Binding["n0"], tt.v) || !reflect.DeepEqual(w.Values["n0.x"], tt.v) {
			t.Errorf("value %d (%T) fits, but a witness keeps %v, %v (cut %v)", i, tt.v, w.Binding["n0"], w.Values["n0.x"], w.Cut)
		}
		c := cutter{left: m, path: []byte("/values/v")}
		if kept, changed := c.value(tt.v); changed || len(c.cuts) > 0 || !reflect.DeepEqual(kept, tt.v) {
			t.Errorf("value %d (%T) fits, but the cutter changes it (%v) or cuts it (%v)", i, tt.v, changed, c.cuts)
		}
	}
	w := NewWitness(1, 2)
	v := any([]any{int64(1) << 40, "n1", []int64{1 << 40, 2}, map[string]any{"term": int64(1) << 40}})
	if a := memtest.Least(3, func(int) { w.keep("/values/", "n0.log", v) }); a != 0 {
		t.Errorf("keeping a value that fits allocated %d bytes, want 0", a)
	}
}
