package ingest

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

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
			out, res, err := collectStates(t, tt.lines)
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
		// Lists of numbers, which parseLine reads as []int64 or []float64.
		{"integer list", []string{`{"a": [1, -2]}`, `{"a": [1, -2]}`, `{"a": []}`, `{"a": [3]}`},
			[]any{[]any{int64(1), int64(-2)}, []any{}, []any{int64(3)}}},
		{"integer list widened", []string{`{"a": [1, -2, 9007199254740993]}`, `{"a": null}`, `{"a": [1, null]}`},
			[]any{[]any{int64(1), int64(-2), int64(9007199254740993)}, nil, []any{int64(1), nil}}},
		{"float list", []string{`{"a": [1, -2]}`, `{"a": [0.5, 1e3]}`, `{"a": [-0, 1]}`},
			[]any{[]any{1.0, -2.0}, []any{0.5, 1000.0}, []any{math.Copysign(0, -1), 1.0}}},
		{"uint64 list", []string{`{"a": [1, 2]}`, `{"a": [18446744073709551615]}`},
			[]any{[]any{uint64(1), uint64(2)}, []any{uint64(18446744073709551615)}}},
		{"in structs", []string{`{"a": [{"l": [1, 2]}, {"l": [0.5]}]}`, `{"a": [{"l": [3]}]}`},
			[]any{[]any{map[string]any{"l": []any{1.0, 2.0}}, map[string]any{"l": []any{0.5}}}, []any{map[string]any{"l": []any{3.0}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := collectStates(t, tt.lines)
			if err != nil {
				t.Fatal(err)
			}
			got := column(t, out, "a")
			if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", tt.want) {
				t.Errorf("values = %#v, want %#v", got, tt.want)
			}
		})
	}
}

// keyed returns a JSON object with the keys prefix0 … prefix(n-1), each
// holding value(i).
func keyed(prefix string, n int, value func(i int) string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: %s", prefix+strconv.Itoa(i), value(i))
	}
	b.WriteByte('}')
	return b.String()
}

// Objects with more than maxStructFields distinct keys at one path, over
// all lines, are maps, whose values merge as a list's elements do; up to
// the bound they stay structs. Before, 200,000 keys made a struct of
// 200,000 fields, which cost collect 554 MB for a 3 MB input.
func TestCollectJSONLManyKeysMap(t *testing.T) {
	ints := func(i int) string { return strconv.Itoa(i) }
	tests := []struct {
		name  string
		lines []string // the states of node n, one snapshot each
		want  string   // schemaString, or the error's end
	}{
		{"at the bound a struct", []string{`{"o": ` + keyed("k", maxStructFields, ints) + `}`}, ""},
		{"one more a map", []string{`{"o": ` + keyed("k", maxStructFields+1, ints) + `}`}, "o:map<utf8,int64>"},
		{"over several lines", []string{
			`{"o": ` + keyed("a", 600, ints) + `}`,
			`{"o": null}`,
			`{"o": ` + keyed("b", 401, func(i int) string { return fmt.Sprint(float64(i) + 0.5) }) + `}`,
			`{"o": {"c": 7}}`,
		}, "o:map<utf8,float64>"},
		{"values merged", []string{
			`{"o": ` + keyed("k", maxStructFields, func(i int) string { return fmt.Sprintf(`{"i": %d}`, i) }) + `}`,
			`{"o": {"x": {"s": "y", "l": [null]}, "z": null}}`,
		}, "o:map<utf8,struct<i:int64 l:list<utf8> s:utf8>>"},
		{"nested in a list", []string{`{"l": [{"o": ` + keyed("k", maxStructFields+1, func(int) string { return "true" }) + `}]}`}, "l:list<struct<o:map<utf8,bool>>>"},
		{"variables are not keys", []string{keyed("v", maxStructFields+1, ints)}, ""},
		{"kinds mixed", []string{
			`{"o": ` + keyed("k", maxStructFields, ints) + `}`,
			`{"o": {"s": "x"}}`,
		}, `:2: nodes.n.o.s: string, but earlier lines (first at line 1: nodes.n.o.k0) hold integers`},
		{"kinds mixed when merged", []string{
			`{"o": {"a": "x"}}`,
			`{"o": ` + keyed("k", maxStructFields, ints) + `}`,
		}, `nodes.n.o.k999: the object has more than 1000 keys and so is read as a map, whose values need one type; but they hold strings and integers (earlier lines (first at line 1: nodes.n.o.a), earlier values on this line (nodes.n.o.k0))`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, res, err := collectStates(t, tt.lines)
			if strings.HasPrefix(tt.name, "kinds mixed") {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want one ending %s", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := tracetest.SchemaString(res.Schema)
			switch tt.want {
			case "": // wide structs, or many columns
				st, ok := res.Schema[0].Type.(*arrow.StructType)
				if n := len(res.Schema); ok && n != 1 || !ok && n != maxStructFields+1 || ok && st.NumFields() != maxStructFields {
					t.Errorf("schema = %.200s…", got)
				}
			default:
				if got != tt.want {
					t.Errorf("schema = %s, want %s", got, tt.want)
				}
			}
		})
	}
}

// collectStates collects states, the JSON objects of one node's states,
// as the snapshots of a run of that node (named n), into a trace in a
// temporary directory, and returns the trace's path.
func collectStates(t *testing.T, states []string) (string, *Result, error) {
	t.Helper()
	var b strings.Builder
	for i, s := range states {
		fmt.Fprintf(&b, `{"snapshot": %d, "nodes": {"n": %s}}`+"\n", i, s)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.trace")
	res, err := CollectJSONL(t.Context(), out, writeInputs(t, dir, b.String()), Options{})
	return out, res, err
}
