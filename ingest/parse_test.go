package ingest

import (
	"encoding/json"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
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
		if ok && !reflect.DeepEqual(got, want) {
			t.Errorf("parseLine(%.40q) = %#v, want %#v", tt.line, got, want)
		}
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
		if ok && !reflect.DeepEqual(got, want) {
			t.Fatalf("parseLine(%q) = %#v, encoding/json %#v", line, got, want)
		}
	})
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A string that is most of its line is the line's: decoding it costs
// next to nothing. Smaller ones are copies: the line is not kept for them.
func TestParseLineShares(t *testing.T) {
	const size = 4 << 20
	big := strings.Repeat("x", size)
	line := `{"snapshot": 1, "nodes": {"n1": {"blob": "` + big + `", "n": 12345}}}`
	var v any
	if n := allocated(func() { v, _ = parseLine(line) }); n > 64<<10 {
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
	if a := allocated(func() { v, _ = parseLine(line) }); a > 2*n+64<<10 {
		t.Errorf("parseLine of %d MiB of escapes for %d MiB allocated %d KiB", 6*n>>20, 2*n>>20, a>>10)
	}
	if s := v.([]any)[0].(string); s != strings.Repeat("é", n) {
		t.Errorf("decoded %d bytes, want %d", len(s), 2*n)
	}
}

// inLine reports whether s is a part of line's memory.
func inLine(line, s string) bool {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	lo := uintptr(unsafe.Pointer(unsafe.StringData(line)))
	return lo <= p && p < lo+uintptr(len(line))
}
