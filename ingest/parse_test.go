package ingest

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/augur-dev/augur/internal/memtest"
)

// stdDecode decodes line as decodeLine's fallback does: encoding/json
// with numbers as json.Number, then nothing but whitespace, and no key
// twice in an object. ok is false where decodeLine reports an error.
func stdDecode(line string) (v any, ok bool) {
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	off := int(dec.InputOffset())
	if strings.TrimLeft(line[off:], " \t\r\n") != "" {
		return nil, false
	}
	if i, _ := duplicateKey(line[:off]); i >= 0 {
		return nil, false
	}
	return v, true
}

// sameDecoded reports whether got, as parseLine decodes a line, is the
// value want that stdDecode decodes it to: a []int64 must be the
// integers want writes (JSON writes an integer one way, -0 aside, which
// parseLine leaves to []any), a []float64 the numbers with a fraction
// or an exponent it writes, as strconv parses them, and a []string its
// strings.
func sameDecoded(got, want any) bool {
	w, isList := want.([]any)
	switch g := got.(type) {
	case []int64:
		if !isList || len(w) != len(g) {
			return false
		}
		for i, x := range g {
			if w[i] != json.Number(strconv.FormatInt(x, 10)) {
				return false
			}
		}
		return true
	case []float64:
		if !isList || len(w) != len(g) {
			return false
		}
		for i, x := range g {
			n, ok := w[i].(json.Number)
			f, err := strconv.ParseFloat(string(n), 64)
			if !ok || isInteger(n) || err != nil || math.Float64bits(f) != math.Float64bits(x) {
				return false
			}
		}
		return true
	case []string:
		if !isList || len(w) != len(g) {
			return false
		}
		for i, x := range g {
			if w[i] != x {
				return false
			}
		}
		return true
	case []any:
		if !isList || len(w) != len(g) {
			return false
		}
		for i, e := range g {
			if !sameDecoded(e, w[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		w, ok := want.(map[string]any)
		if !ok || len(w) != len(g) {
			return false
		}
		for k, e := range g {
			if we, ok := w[k]; !ok || !sameDecoded(e, we) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(got, want)
}

func TestParseLine(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		line string
		ok   bool
	}{
		{`{"snapshot": 1, "nodes": {"n1": {"a": [1, 2.5, -0, 1e3, 1.5E-7, true, false, null, "s", {}, []]}}}`, true},
		{` {"a":1} ` + "\t\r\n", true},
		{`"a string"`, true},
		{`[]`, true},
		{`{}`, true},
		{`"\"\\\/\b\f\n\r\t"`, true},
		{`"caf\u00e9, \u00E9, \ud83d\ude00"`, true},
		{`"\ud800x"`, true},        // half a surrogate pair: U+FFFD
		{`"\ud800\u0041"`, true},   // half, then a rune of its own
		{`"\udc00\ud800"`, true},   // halves in the wrong order
		{`"\ud800\ud800"`, true},   // two first halves
		{`"\ud800\udbff"`, true},   // first halves again
		{`"é ☃ 😀"`, true},          // UTF-8 as it is
		{`{"a": 1, "b": 2}`, true}, // keys differ
		{deep(maxParseDepth), true},
		{`[1, -2, 0, 9223372036854775807, -9223372036854775808]`, true}, // []int64
		{`[0.5, -1e3, 2E-2, 1.0, 1e-400]`, true},                        // []float64
		{`[[1, 2], [3.5], [-0], [1, 2.5], [1, "x"], [9223372036854775808], [1e400], [1, null]]`, true},
		{`[["a", "b"], ["a,]", 1], ["\u00e9\""], ["a", {}]]`, true},
		{`["a", "b`, false},
		{`["a" "b"]`, false},
		{`{"a": [ 1 , 2 ]}`, true},
		{`[1, 2`, false},
		{`[1, 2,]`, false},
		{`[1.5, 01]`, false},
		{`[1 2]`, false},

		{``, false},
		{` `, false},
		{`{"a": 1} x`, false},
		{`{"a": 1}{}`, false},
		{`{"a": 1, "a": 2}`, false},
		{`{"a": 1, "\u0061": 2}`, false},
		{`{"a" 1}`, false},
		{`{"a": 1,}`, false},
		{`[1,]`, false},
		{`[1 2]`, false},
		{`{1: 2}`, false},
		{`{"a": }`, false},
		{`{"a": 1`, false},
		{`[`, false},
		{`"abc`, false},
		{`"a` + "\t" + `b"`, false}, // control characters must be escaped
		{`"\x"`, false},
		{`"\u12"`, false},
		{`"\u12g4"`, false},
		{`"\ud800\u12g4"`, false},
		{`"\`, false},
		{`01`, false},
		{`-`, false},
		{`-a`, false},
		{`1.`, false},
		{`.5`, false},
		{`1e`, false},
		{`1e+`, false},
		{`+1`, false},
		{`0x10`, false},
		{`tru`, false},
		{`nul`, false},
		{`falsey`, false},
		{`NaN`, false},
		{deep(maxParseDepth + 1), false},
	}
	for _, tt := range tests {
		got, ok := parseLine(tt.line)
		want, wantOK := stdDecode(tt.line)
		if wantOK != tt.ok {
			t.Fatalf("bad test: encoding/json takes %.40q: %v", tt.line, wantOK)
		}
		if ok != tt.ok {
			t.Errorf("parseLine(%.40q) ok = %v, want %v", tt.line, ok, tt.ok)
			continue
		}
		if ok && !sameDecoded(got, want) {
			t.Errorf("parseLine(%.40q) = %#v, want %#v", tt.line, got, want)
		}
	}
}

// An array of integers within int64 is a []int64, one of numbers with a
// fraction or an exponent a []float64, one of strings a []string; any
// other array, a []any.
func TestParseLineScalarLists(t *testing.T) {
	tests := []struct{ line, want string }{
		{`[1, -2, 0]`, "[]int64"},
		{`[ 9223372036854775807 , -9223372036854775808 ]`, "[]int64"},
		{`[0.5, 1e3, 1.0, -2E-2]`, "[]float64"},
		{`[1, 0.5]`, "[]interface {}"},
		{`[0.5, 1]`, "[]interface {}"},
		{`[-0]`, "[]interface {}"},    // -0 is 0 as an integer, -0.0 as a float: kept as written
		{`[1, -0]`, "[]interface {}"}, // and so on
		{`[9223372036854775808]`, "[]interface {}"},
		{`[1e400]`, "[]interface {}"},
		{`[1, null]`, "[]interface {}"},
		{`[1, "2"]`, "[]interface {}"},
		{`[[1]]`, "[]interface {}"},
		{`[]`, "[]interface {}"},
		{`["a", "b,]", "\"[", ""]`, "[]string"},
		{`["a", 1]`, "[]interface {}"},
		{`["a", ["b"]]`, "[]interface {}"},
		{`["a", null]`, "[]interface {}"},
	}
	for _, tt := range tests {
		v, ok := parseLine(tt.line)
		if !ok {
			t.Errorf("parseLine(%s) failed", tt.line)
			continue
		}
		if got := reflect.TypeOf(v).String(); got != tt.want {
			t.Errorf("parseLine(%s) is a %s, want %s", tt.line, got, tt.want)
		}
	}
}

// A list of integers takes 8 bytes a number and a list of strings 16
// bytes and the string, allocated once, not an interface, a boxed value
// and, for a number, its digits. (Before, 200,000 integers allocated 23.8
// MiB, and 200,000 short strings 24 MiB.)
func TestParseLineListMemory(t *testing.T) {
	const n = 200_000
	tests := []struct {
		name  string
		elem  func(i int) string
		limit uint64
		check func(v any) bool
	}{
		{"integers", func(i int) string { return strconv.Itoa(1_000_000 + i) }, 8*n + 64<<10,
			func(v any) bool { l, _ := v.([]int64); return len(l) == n && l[n-1] == 1_000_000+n-1 }},
		{"strings", func(i int) string { return `"n` + strconv.Itoa(i%8) + `"` }, (16+8)*n + 64<<10,
			func(v any) bool { l, _ := v.([]string); return len(l) == n && l[n-1] == "n7" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("[")
			for i := range n {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString(tt.elem(i))
			}
			b.WriteString("]")
			line := b.String()
			var v any
			if a := memtest.Least(5, func(int) { v, _ = parseLine(line) }); a > tt.limit {
				t.Errorf("parseLine of %d %s (%d KiB) allocated %d KiB", n, tt.name, len(line)>>10, a>>10)
			}
			if !tt.check(v) {
				t.Errorf("decoded a %T", v)
			}
		})
	}
}

// FuzzParseLine checks parseLine against encoding/json: it takes the
// lines that decodeLine's fallback takes and no others, and decodes them
// to the same values.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		`{"snapshot": 1, "nodes": {"n1": {"a": [1, 2.5e-3, -0, true, null, "x\u00e9\n"]}}}`,
		`{"node": "n1", "ts": 17, "state": {"a": {"b": [[]], "c": {}}}}`,
		`"\ud83d\ude00 \ud800 \udc00\ud800"`,
		`[1, 2,]`,
		`[1, -2, 30]`,
		`[0.5, 1e3, -2E-1]`,
		`["a", "b,\"]", ""]`,
		`{"a": 1, "a": 2}`,
		`-01.5e+3`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got, ok := parseLine(line)
		if !utf8.ValidString(line) {
			return // decodeLine refuses it before
		}
		want, wantOK := stdDecode(line)
		if ok != wantOK {
			t.Fatalf("parseLine(%q) ok = %v, encoding/json %v", line, ok, wantOK)
		}
		if ok && !sameDecoded(got, want) {
			t.Fatalf("parseLine(%q) = %#v, encoding/json %#v", line, got, want)
		}
	})
}

// A string that is most of its line is the line's: decoding it costs
// next to nothing. Smaller ones are copies: the line is not kept for them.
func TestParseLineShares(t *testing.T) {
	const size = 4 << 20
	big := strings.Repeat("x", size)
	line := `{"snapshot": 1, "nodes": {"n1": {"blob": "` + big + `", "n": 12345}}}`
	var v any
	if n := memtest.Allocated(func() { v, _ = parseLine(line) }); n > 64<<10 {
		t.Errorf("parseLine of a %d MiB string allocated %d KiB", size>>20, n>>10)
	}
	state := v.(map[string]any)["nodes"].(map[string]any)["n1"].(map[string]any)
	if s := state["blob"].(string); s != big {
		t.Fatalf("blob of %d bytes, want %d", len(s), size)
	}
	if inLine(line, state["n"].(json.Number).String()) {
		t.Errorf("a small number shares the line")
	}
	for k := range state {
		if inLine(line, k) {
			t.Errorf("key %q shares the line", k)
		}
	}
	if !inLine(line, state["blob"].(string)) {
		t.Errorf("the huge string is a copy")
	}
}

// A string with escapes is measured before it is built: \u00e9, six
// bytes, stands for two.
func TestParseLineEscapes(t *testing.T) {
	const n = 1 << 20
	line := `["` + strings.Repeat(`\u00e9`, n) + `"]`
	var v any
	if a := memtest.Allocated(func() { v, _ = parseLine(line) }); a > 2*n+64<<10 {
		t.Errorf("parseLine of %d MiB of escapes for %d MiB allocated %d KiB", 6*n>>20, 2*n>>20, a>>10)
	}
	if s := v.([]string)[0]; s != strings.Repeat("é", n) {
		t.Errorf("decoded %d bytes, want %d", len(s), 2*n)
	}
}

// inLine reports whether s is a part of line's memory.
func inLine(line, s string) bool {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	lo := uintptr(unsafe.Pointer(unsafe.StringData(line)))
	return lo <= p && p < lo+uintptr(len(line))
}
