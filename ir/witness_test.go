package ir

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

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
		if got := formatMap(map[string]any{"n0.x": v}); got != "n0.x="+string(want) {
			t.Errorf("%#v: %s, want n0.x=%s", v, got, want)
		}
	}
}

// TestWitnessValuesLong checks that a long value is cut near
// MaxValueText, saying how long it is, and that the line is valid UTF-8.
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
		got := formatMap(map[string]any{"n0.x": tt.v})
		if !strings.HasSuffix(got, tt.says) {
			t.Errorf("%s: %.80q… ends %q, want %q", tt.name, got, got[max(0, len(got)-30):], tt.says)
		}
		if len(got) > len("n0.x=")+MaxValueText+64 {
			t.Errorf("%s: %d bytes, want at most about %d", tt.name, len(got), MaxValueText)
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s: not valid UTF-8", tt.name)
		}
	}
}
