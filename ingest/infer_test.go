package ingest

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-dev/augur/trace"
	"github.com/augur-dev/augur/trace/tracetest"
)

func TestCollectJSONLInference(t *testing.T) {
	tests := []struct {
		name  string
		lines []string // the states of node n, one snapshot each
		want  string   // schemaString
	}{
		{"int", []string{`{"a": 1}`, `{"a": -7}`}, "a:int64"},
		{"float", []string{`{"a": 1.5}`, `{"a": 2e3}`, `{"a": 1E-2}`}, "a:float64"},
		{"int then float widens", []string{`{"a": 1}`, `{"a": 0.5}`}, "a:float64"},
		{"float then int widens", []string{`{"a": 0.5}`, `{"a": -1}`}, "a:float64"},
		{"uint64", []string{`{"a": 1}`, `{"a": 18446744073709551615}`, `{"a": 0}`}, "a:uint64"},
		{"int64 max stays int64", []string{`{"a": 9223372036854775807}`, `{"a": -9223372036854775808}`}, "a:int64"},
		{"string", []string{`{"a": "x"}`, `{"a": ""}`}, "a:utf8"},
		{"bool", []string{`{"a": true}`, `{"a": false}`}, "a:bool"},
		{"only null is utf8", []string{`{"a": null}`, `{"a": null}`}, "a:utf8"},
		{"null then int", []string{`{"a": null}`, `{"a": 3}`, `{"a": null}`}, "a:int64"},
		{"missing is null", []string{`{"a": 1}`, `{"b": "x"}`}, "a:int64 b:utf8"},
		{"empty list is list<utf8>", []string{`{"a": []}`, `{"a": []}`}, "a:list<utf8>"},
		{"list of nulls is list<utf8>", []string{`{"a": [null]}`}, "a:list<utf8>"},
		{"list elements merged", []string{`{"a": []}`, `{"a": [1, null, 2.5]}`}, "a:list<float64>"},
		{"nested lists", []string{`{"a": [[1], []]}`, `{"a": [[], [[]]]}`}, ""},
		{"list of lists", []string{`{"a": [[1], []]}`, `{"a": [[2, 3]]}`}, "a:list<list<int64>>"},
		{"struct union sorted", []string{`{"s": {"z": 1, "b": "x"}}`, `{"s": {"a": true}}`}, "s:struct<a:bool b:utf8 z:int64>"},
		{"nested struct", []string{`{"s": {"t": {"u": [1]}}}`, `{"s": {"t": {"v": null}}}`}, "s:struct<t:struct<u:list<int64> v:utf8>>"},
		{"list of structs", []string{`{"log": [{"term": 1}, {"cmd": "x"}]}`}, "log:list<struct<cmd:utf8 term:int64>>"},
		{"empty object is map", []string{`{"o": {}}`, `{"o": null}`}, "o:map<utf8,utf8>"},
		{"columns sorted", []string{`{"c": 1, "a": 1, "B": 1}`}, "B:int64 a:int64 c:int64"},
		{"no variables", []string{`{}`, `{}`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			for i, l := range tt.lines {
				fmt.Fprintf(&b, `{"snapshot": %d, "nodes": {"n": %s}}`+"\n", i, l)
			}
			dir := t.TempDir()
			out := filepath.Join(dir, "out.trace")
			res, err := CollectJSONL(t.Context(), out, writeInputs(t, dir, b.String()), Options{})
			if tt.name == "nested lists" {
				// [[1], []] then [[], [[]]]: list<int64> elements, then a list
				// where an integer was: a mix of kinds.
				if err == nil || !strings.Contains(err.Error(), "nodes.n.a[1][0]: list, but earlier lines (first at line 1: nodes.n.a[0][0]) hold integers") {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tracetest.SchemaString(res.Schema); got != tt.want {
				t.Errorf("schema = %s, want %s", got, tt.want)
			}
			tr, err := trace.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			if got := tracetest.SchemaString(tr.Schema); got != tt.want {
				t.Errorf("schema read back = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestCollectJSONLValues(t *testing.T) {
	// Values as read back after widening and conversion, one state per line.
	tests := []struct {
		name  string
		lines []string
		want  []any // Vars[0] of each state
	}{
		{"widened", []string{`{"a": 1}`, `{"a": 0.5}`, `{"a": -3}`}, []any{1.0, 0.5, -3.0}},
		{"uint64", []string{`{"a": 18446744073709551615}`, `{"a": 5}`}, []any{uint64(18446744073709551615), uint64(5)}},
		{"int64", []string{`{"a": -9223372036854775808}`, `{"a": 0}`}, []any{int64(-9223372036854775808), int64(0)}},
		// -0 and 0 differ in their bits, and the trace keeps what was written.
		{"-0.0", []string{`{"a": 0.0}`, `{"a": -0.0}`}, []any{0.0, math.Copysign(0, -1)}},
		{"unicode", []string{`{"a": "h\u00e9\ud83d\ude00"}`, `{"a": "\n"}`}, []any{"hé😀", "\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			for i, l := range tt.lines {
				fmt.Fprintf(&b, `{"snapshot": %d, "nodes": {"n": %s}}`+"\n", i, l)
			}
			dir := t.TempDir()
			out := filepath.Join(dir, "out.trace")
			if _, err := CollectJSONL(t.Context(), out, writeInputs(t, dir, b.String()), Options{}); err != nil {
				t.Fatal(err)
			}
			tr, err := trace.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			sr := tr.States()
			defer sr.Close()
			var got []any
			for row := range uint32(tr.NumStates()) {
				s, err := sr.State(row)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, s.Vars[0])
			}
			if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", tt.want) {
				t.Errorf("values = %#v, want %#v", got, tt.want)
			}
		})
	}
}
