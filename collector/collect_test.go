package collector

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/trace"
)

// dumpTrace renders a trace compactly: the schema, one line per state and
// one line per snapshot with its members as node@row.
func dumpTrace(t *testing.T, dir string) string {
	t.Helper()
	tr, err := trace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "schema %s\n", schemaString(tr.Schema))
	states := tr.States()
	defer states.Close()
	nodeOf := map[uint32]string{}
	for row := range uint32(tr.NumStates()) {
		s, err := states.State(row)
		if err != nil {
			t.Fatal(err)
		}
		nodeOf[row] = s.Node
		fmt.Fprintf(&b, "state %d %s ts=%d", row, s.Node, s.TS)
		for i, c := range tr.Schema {
			fmt.Fprintf(&b, " %s=%v", c.Name, s.Vars[i])
		}
		b.WriteByte('\n')
	}
	sr := tr.Snapshots()
	defer sr.Close()
	for sr.Next() {
		s := sr.Snapshot()
		fmt.Fprintf(&b, "snapshot %d ts=%d tags=%q", s.ID, s.TS, s.Tags)
		for _, m := range s.Members {
			fmt.Fprintf(&b, " %s@%d", nodeOf[m], m)
		}
		b.WriteByte('\n')
	}
	if err := sr.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// schemaString renders a schema as "a:int64 b:list<utf8>".
func schemaString(s trace.Schema) string {
	var parts []string
	for _, c := range s {
		parts = append(parts, c.Name+":"+typeString(c.Type))
	}
	return strings.Join(parts, " ")
}

func typeString(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.ListType:
		return "list<" + typeString(t.Elem()) + ">"
	case *arrow.StructType:
		var fs []string
		for _, f := range t.Fields() {
			fs = append(fs, f.Name+":"+typeString(f.Type))
		}
		return "struct<" + strings.Join(fs, " ") + ">"
	case *arrow.MapType:
		return "map<" + typeString(t.KeyType()) + "," + typeString(t.ItemType()) + ">"
	}
	return t.String()
}

// writeInputs writes the files in order into dir and returns their paths.
func writeInputs(t *testing.T, dir string, files ...string) []string {
	t.Helper()
	var paths []string
	for i, content := range files {
		p := filepath.Join(dir, fmt.Sprintf("in%d.jsonl", i+1))
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func TestCollectJSONLRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		inputs []string
		want   string
		result Result
	}{{
		name:   "raft",
		inputs: []string{"testdata/raft.jsonl"},
		result: Result{Snapshots: 5, States: 10, Nodes: 3},
		want: `schema commit:int64 log:list<struct<cmd:utf8 term:int64>> role:utf8 term:int64
state 0 n1 ts=10 commit=0 log=[map[cmd:x=1 term:1]] role=leader term=1
state 1 n2 ts=10 commit=0 log=[] role=follower term=1
state 2 n3 ts=10 commit=0 log=[] role=follower term=1
state 3 n1 ts=20 commit=1 log=[map[cmd:x=1 term:1]] role=leader term=1
state 4 n2 ts=20 commit=0 log=[map[cmd:x=1 term:1]] role=follower term=1
state 5 n2 ts=30 commit=1 log=[map[cmd:x=1 term:1]] role=follower term=1
state 6 n3 ts=30 commit=1 log=[map[cmd:x=1 term:1]] role=follower term=1
state 7 n1 ts=6 commit=1 log=[map[cmd:x=1 term:1] map[cmd:x=2 term:2]] role=leader term=2
state 8 n2 ts=6 commit=1 log=[map[cmd:x=1 term:1]] role=candidate term=2
state 9 n3 ts=6 commit=1 log=[map[cmd:x=1 term:1]] role=leader term=1
snapshot 1 ts=10 tags=["start"] n1@0 n2@1 n3@2
snapshot 2 ts=20 tags=[] n1@3 n2@4 n3@2
snapshot 3 ts=30 tags=["steady"] n1@3 n2@5 n3@6
snapshot 4 ts=45 tags=["steady"] n1@3 n2@5 n3@6
snapshot 6 ts=6 tags=["bug:split-brain"] n1@7 n2@8 n3@9
`,
	}, {
		// A node that leaves and comes back with the same state keeps its
		// row; 1 and 1e0 are the same float64.
		name:   "kv",
		inputs: []string{"testdata/kv.jsonl"},
		result: Result{Snapshots: 3, States: 2, Nodes: 2},
		want: `schema keys:struct<a:utf8 b:utf8> load:float64 version:int64
state 0 10.0.0.1:7000 ts=100 keys=map[a:1 b:2] load=0.25 version=7
state 1 10.0.0.2:7000 ts=100 keys=map[a:1 b:<nil>] load=1 version=6
snapshot 100 ts=100 tags=[] 10.0.0.1:7000@0 10.0.0.2:7000@1
snapshot 101 ts=101 tags=[] 10.0.0.1:7000@0
snapshot 102 ts=102 tags=["rejoin"] 10.0.0.1:7000@0 10.0.0.2:7000@1
`,
	}, {
		name:   "types",
		inputs: []string{"testdata/types.jsonl"},
		result: Result{Snapshots: 2, States: 3, Nodes: 2},
		want: `schema e:list<utf8> f:float64 g:utf8 m:struct<x:int64 y:list<bool>> o:map<utf8,utf8> u:uint64
state 0 a ts=0 e=[] f=1 g=<nil> m=map[x:1 y:<nil>] o=map[] u=18446744073709551615
state 1 a ts=0 e=[<nil>] f=2.5 g=<nil> m=map[x:<nil> y:[true false]] o=map[] u=0
state 2 b ts=0 e=<nil> f=<nil> g=<nil> m=<nil> o=<nil> u=<nil>
snapshot 0 ts=0 tags=[] a@0
snapshot 1 ts=0 tags=[] a@1 b@2
`,
	}, {
		// Several files are one stream; states carry over between them.
		name: "two files",
		inputs: []string{
			`{"snapshot": 1, "nodes": {"b": {"x": 1}, "a": {"x": 2}}}` + "\n",
			"\n" + `{"snapshot": 2, "nodes": {"b": {"x": 1}, "a": {"x": 3}}}`,
		},
		result: Result{Snapshots: 2, States: 3, Nodes: 2},
		want: `schema x:int64
state 0 a ts=1 x=2
state 1 b ts=1 x=1
state 2 a ts=2 x=3
snapshot 1 ts=1 tags=[] a@0 b@1
snapshot 2 ts=2 tags=[] a@2 b@1
`,
	}, {
		// Snapshots of nothing are snapshots.
		name:   "no nodes",
		inputs: []string{`{"snapshot": 0, "nodes": {}}` + "\n" + `{"snapshot": 9, "ts": 3, "tags": ["empty"], "nodes": {}}`},
		result: Result{Snapshots: 2},
		want:   "schema \nsnapshot 0 ts=0 tags=[]\nsnapshot 9 ts=3 tags=[\"empty\"]\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			inputs := tt.inputs
			if !strings.HasPrefix(inputs[0], "testdata/") {
				inputs = writeInputs(t, dir, inputs...)
			}
			out := filepath.Join(dir, "out.trace")
			res, err := CollectJSONL(out, inputs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := dumpTrace(t, out); got != tt.want {
				t.Errorf("trace:\n%s\nwant:\n%s", got, tt.want)
			}
			if res.Snapshots != tt.result.Snapshots || res.States != tt.result.States || res.Nodes != tt.result.Nodes {
				t.Errorf("result = %s, want %s", resultString(*res), resultString(tt.result))
			}
			tr, err := trace.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			m := tr.Manifest
			if m.System != "out" || m.CreatedBy != "augur collect" ||
				m.Snapshots != res.Snapshots || m.States != res.States || m.Nodes != res.Nodes {
				t.Errorf("manifest = %+v, result %+v", m, res)
			}
		})
	}
}

func resultString(r Result) string {
	return fmt.Sprintf("{Snapshots:%d States:%d Nodes:%d Schema:%s}", r.Snapshots, r.States, r.Nodes, schemaString(r.Schema))
}

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
			res, err := CollectJSONL(out, writeInputs(t, dir, b.String()), Options{})
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
			if got := schemaString(res.Schema); got != tt.want {
				t.Errorf("schema = %s, want %s", got, tt.want)
			}
			tr, err := trace.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			if got := schemaString(tr.Schema); got != tt.want {
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
			if _, err := CollectJSONL(out, writeInputs(t, dir, b.String()), Options{}); err != nil {
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

func TestCollectJSONLErrors(t *testing.T) {
	const ok1 = `{"snapshot": 1, "nodes": {"n1": {"a": 1}}}` + "\n"
	tests := []struct {
		name   string
		inputs []string
		schema trace.Schema
		// want is the whole message with the inputs named in1.jsonl, …;
		// file, line and field are checked against the *Error.
		want  string
		file  string
		line  int
		field string
	}{{
		name:   "malformed line",
		inputs: []string{ok1 + `{"snapshot": 2, "nodes": {"n1": {"a": }}}`},
		want:   `in1.jsonl:2:39: malformed JSON: invalid character '}' looking for beginning of value near …"odes\": {\"n1\": {\"a\": }}}"`,
		file:   "in1.jsonl", line: 2,
	}, {
		name:   "truncated line",
		inputs: []string{"\n\n" + `{"snapshot": 1, "nodes": {"n1"`},
		want:   `in1.jsonl:3:31: malformed JSON: line ends inside a value near …"\": 1, \"nodes\": {\"n1\""`,
		file:   "in1.jsonl", line: 3,
	}, {
		name:   "two objects on a line",
		inputs: []string{ok1 + `{"snapshot": 2, "nodes": {}} {"snapshot": 3, "nodes": {}}`},
		want:   `in1.jsonl:2:30: malformed JSON: data after the object near …"t\": 2, \"nodes\": {}} {\"snapshot\": 3, \"nod"… (one object per line)`,
		file:   "in1.jsonl", line: 2,
	}, {
		name:   "not an object",
		inputs: []string{`[1, 2]`},
		want:   `in1.jsonl:1: want a JSON object {"snapshot": N, "nodes": {…}}, got list`,
		file:   "in1.jsonl", line: 1,
	}, {
		name:   "mixed kinds",
		inputs: []string{ok1 + "\n" + `{"snapshot": 2, "nodes": {"n1": {"a": 1}, "n3": {"a": "x"}}}`},
		want:   `in1.jsonl:3: nodes.n3.a: string, but earlier lines (first at line 1: nodes.n1.a) hold integers`,
		file:   "in1.jsonl", line: 3, field: "nodes.n3.a",
	}, {
		name: "mixed kinds in a list",
		inputs: []string{
			`{"snapshot": 1, "nodes": {"n1": {"log": [{"term": 1}]}}}` + "\n" +
				`{"snapshot": 2, "nodes": {"n3": {"log": [{"term": 1}, {"term": 2}, {"term": "3"}]}}}`,
		},
		want: `in1.jsonl:2: nodes.n3.log[2].term: string, but earlier lines (first at line 1: nodes.n1.log[0].term) hold integers`,
		file: "in1.jsonl", line: 2, field: "nodes.n3.log[2].term",
	}, {
		name:   "mixed kinds on one line",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": [true, 1]}}}`},
		want:   `in1.jsonl:1: nodes.n1.a[1]: integer, but earlier values on this line (nodes.n1.a[0]) hold bools`,
		file:   "in1.jsonl", line: 1, field: "nodes.n1.a[1]",
	}, {
		name:   "mixed kinds across files",
		inputs: []string{ok1, `{"snapshot": 2, "nodes": {"n1": {"a": {"b": 1}}}}`},
		want:   `in2.jsonl:1: nodes.n1.a: object, but earlier lines (first at in1.jsonl:1: nodes.n1.a) hold integers`,
		file:   "in2.jsonl", line: 1, field: "nodes.n1.a",
	}, {
		name:   "object where list",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": [1]}, "n2": {"a": {}}}}`},
		want:   `in1.jsonl:1: nodes.n2.a: object, but earlier values on this line (nodes.n1.a) hold lists`,
		file:   "in1.jsonl", line: 1, field: "nodes.n2.a",
	}, {
		name:   "negative after uint64",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": 18446744073709551615}}}` + "\n" + `{"snapshot": 2, "nodes": {"n1": {"a": -1}}}`},
		want:   `in1.jsonl:2: nodes.n1.a: negative integer -1, but earlier lines (first at line 1: nodes.n1.a) hold integers beyond int64 (a uint64 column holds only non-negative integers)`,
		file:   "in1.jsonl", line: 2, field: "nodes.n1.a",
	}, {
		name:   "uint64 after negative",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": -1}}}` + "\n" + `{"snapshot": 2, "nodes": {"n1": {"a": 9223372036854775808}}}`},
		want:   `in1.jsonl:2: nodes.n1.a: integer 9223372036854775808 is beyond int64, but earlier lines (first at line 1: nodes.n1.a) hold negative integers (no column type holds both)`,
		file:   "in1.jsonl", line: 2, field: "nodes.n1.a",
	}, {
		name:   "float after uint64",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": 9223372036854775808, "b": 1.5}, "n2": {"a": 0.5}}}`},
		want:   `in1.jsonl:1: nodes.n2.a: float 0.5, but earlier values on this line (nodes.n1.a) hold integers beyond int64 (a uint64 column holds only integers)`,
		file:   "in1.jsonl", line: 1, field: "nodes.n2.a",
	}, {
		name:   "uint64 after float",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": [1.5, 9223372036854775808]}}}`},
		want:   `in1.jsonl:1: nodes.n1.a[1]: integer 9223372036854775808 is beyond int64, but earlier values on this line (nodes.n1.a[0]) hold floats (float64 would round it)`,
		file:   "in1.jsonl", line: 1, field: "nodes.n1.a[1]",
	}, {
		name:   "integer beyond uint64",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": 18446744073709551616}}}`},
		want:   `in1.jsonl:1: nodes.n1.a: integer 18446744073709551616 is out of the range of int64 and uint64 (write it as a string or a float)`,
		file:   "in1.jsonl", line: 1, field: "nodes.n1.a",
	}, {
		name:   "float out of range",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": -1e400}}}`},
		want:   `in1.jsonl:1: nodes.n1.a: number -1e400 is out of the range of float64`,
		file:   "in1.jsonl", line: 1, field: "nodes.n1.a",
	}, {
		name:   "quoted keys in path",
		inputs: []string{`{"snapshot": 1, "nodes": {"10.0.0.1:80": {"a b": {"c": [1, "x"]}}}}`},
		want:   `in1.jsonl:1: nodes["10.0.0.1:80"]["a b"].c[1]: string, but earlier values on this line (nodes["10.0.0.1:80"]["a b"].c[0]) hold integers`,
		file:   "in1.jsonl", line: 1, field: `nodes["10.0.0.1:80"]["a b"].c[1]`,
	}, {
		name:   "snapshot not increasing",
		inputs: []string{`{"snapshot": 3, "nodes": {}}` + "\n\n" + `{"snapshot": 3, "nodes": {}}`},
		want:   `in1.jsonl:3: snapshot: snapshot 3 does not increase (previous 3 at line 1)`,
		file:   "in1.jsonl", line: 3, field: "snapshot",
	}, {
		name:   "snapshot decreasing across files",
		inputs: []string{`{"snapshot": 7, "nodes": {}}`, `{"snapshot": 2, "nodes": {}}`},
		want:   `in2.jsonl:1: snapshot: snapshot 2 does not increase (previous 7 at in1.jsonl:1)`,
		file:   "in2.jsonl", line: 1, field: "snapshot",
	}, {
		name:   "node-local mode",
		inputs: []string{`{"node": "n1", "ts": 17, "state": {"a": 1}}`},
		want:   `in1.jsonl:1: node-local input ({"node": …, "ts": …, "state": …}): CollectJSONL reads global snapshots ({"snapshot": N, "nodes": {…}}); Collect reads both`,
		file:   "in1.jsonl", line: 1,
	}, {
		name:   "node-local heartbeat",
		inputs: []string{"\n" + `{"node": "n1", "ts": 19, "heartbeat": true}`},
		want:   `in1.jsonl:2: node-local input ({"node": …, "ts": …, "state": …}): CollectJSONL reads global snapshots ({"snapshot": N, "nodes": {…}}); Collect reads both`,
		file:   "in1.jsonl", line: 2,
	}, {
		name:   "node-local after global",
		inputs: []string{ok1 + `{"node": "n1", "ts": 25, "leave": true}`},
		want:   `in1.jsonl:2: node-local record in global-snapshot input (a file is all one mode)`,
		file:   "in1.jsonl", line: 2,
	}, {
		name:   "missing nodes",
		inputs: []string{`{"snapshot": 1, "ts": 5}`},
		want:   `in1.jsonl:1: missing "nodes" (want an object mapping node names to states)`,
		file:   "in1.jsonl", line: 1,
	}, {
		name:   "nodes not an object",
		inputs: []string{`{"snapshot": 1, "nodes": ["n1"]}`},
		want:   `in1.jsonl:1: nodes: want an object mapping node names to states, got list`,
		file:   "in1.jsonl", line: 1, field: "nodes",
	}, {
		name:   "state not an object",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": 5}}`},
		want:   `in1.jsonl:1: nodes.n1: want the node's state as an object, got integer`,
		file:   "in1.jsonl", line: 1, field: "nodes.n1",
	}, {
		name:   "empty node name",
		inputs: []string{`{"snapshot": 1, "nodes": {"": {}}}`},
		want:   `in1.jsonl:1: nodes[""]: empty node name`,
		file:   "in1.jsonl", line: 1, field: `nodes[""]`,
	}, {
		name:   "missing snapshot",
		inputs: []string{`{"nodes": {}}`},
		want:   `in1.jsonl:1: missing "snapshot" (want a non-negative integer)`,
		file:   "in1.jsonl", line: 1,
	}, {
		name:   "negative snapshot",
		inputs: []string{`{"snapshot": -1, "nodes": {}}`},
		want:   `in1.jsonl:1: snapshot: want a non-negative integer, got -1`,
		file:   "in1.jsonl", line: 1, field: "snapshot",
	}, {
		name:   "fractional snapshot",
		inputs: []string{`{"snapshot": 1.5, "nodes": {}}`},
		want:   `in1.jsonl:1: snapshot: want a non-negative integer, got 1.5`,
		file:   "in1.jsonl", line: 1, field: "snapshot",
	}, {
		name:   "string snapshot",
		inputs: []string{`{"snapshot": "1", "nodes": {}}`},
		want:   `in1.jsonl:1: snapshot: want a non-negative integer, got string`,
		file:   "in1.jsonl", line: 1, field: "snapshot",
	}, {
		name:   "bad ts",
		inputs: []string{`{"snapshot": 1, "ts": true, "nodes": {}}`},
		want:   `in1.jsonl:1: ts: want a non-negative integer, got bool`,
		file:   "in1.jsonl", line: 1, field: "ts",
	}, {
		name:   "tags not a list",
		inputs: []string{`{"snapshot": 1, "tags": "steady", "nodes": {}}`},
		want:   `in1.jsonl:1: tags: want a list of strings, got string`,
		file:   "in1.jsonl", line: 1, field: "tags",
	}, {
		name:   "tag not a string",
		inputs: []string{`{"snapshot": 1, "tags": ["a", 2], "nodes": {}}`},
		want:   `in1.jsonl:1: tags[1]: want a string, got integer`,
		file:   "in1.jsonl", line: 1, field: "tags[1]",
	}, {
		name:   "unknown key",
		inputs: []string{`{"snapshot": 1, "nodes": {}, "snapshots": 2}`},
		want:   `in1.jsonl:1: unknown key "snapshots" (want snapshot, ts, tags and nodes)`,
		file:   "in1.jsonl", line: 1,
	}, {
		name:   "reserved ts",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"ts": 3}}}`},
		want:   `in1.jsonl:1: nodes.n1.ts: state variable "ts" collides with the reserved column ts of states.arrow; rename it`,
		file:   "in1.jsonl", line: 1, field: "nodes.n1.ts",
	}, {
		name:   "reserved node",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"node": "n1"}}}`},
		want:   `in1.jsonl:1: nodes.n1.node: state variable "node" collides with the reserved column node of states.arrow; rename it`,
		file:   "in1.jsonl", line: 1, field: "nodes.n1.node",
	}, {
		name:   "empty variable name",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"": 3}}}`},
		want:   `in1.jsonl:1: nodes.n1[""]: empty state variable name`,
		file:   "in1.jsonl", line: 1, field: `nodes.n1[""]`,
	}, {
		name:   "schema: unknown variable",
		inputs: []string{ok1 + `{"snapshot": 2, "nodes": {"n1": {"a": 1, "b": 2}}}`},
		schema: trace.Schema{{Name: "a", Type: arrow.PrimitiveTypes.Int64}},
		want:   `in1.jsonl:2: nodes.n1.b: no such state variable in the schema`,
		file:   "in1.jsonl", line: 2, field: "nodes.n1.b",
	}, {
		name:   "schema: wrong type",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": [1, 2.5]}}}`},
		schema: trace.Schema{{Name: "a", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)}},
		want:   `in1.jsonl:1: nodes.n1.a[1]: float, but the schema's type is int64`,
		file:   "in1.jsonl", line: 1, field: "nodes.n1.a[1]",
	}, {
		name:   "schema: negative uint64",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": -2}}}`},
		schema: trace.Schema{{Name: "a", Type: arrow.PrimitiveTypes.Uint64}},
		want:   `in1.jsonl:1: nodes.n1.a: integer -2 is out of the range of uint64`,
		file:   "in1.jsonl", line: 1, field: "nodes.n1.a",
	}, {
		name:   "schema: unknown struct field",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"s": {"x": 1, "y": 2}}}}`},
		schema: trace.Schema{{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true})}},
		want:   `in1.jsonl:1: nodes.n1.s.y: no such field in the schema's struct<x: int64 nullable>`,
		file:   "in1.jsonl", line: 1, field: "nodes.n1.s.y",
	}, {
		name:   "empty input",
		inputs: []string{"\n  \n\t\r\n"},
		want:   `collect OUT: no snapshots in in1.jsonl`,
	}, {
		name:   "missing input",
		inputs: []string{ok1, "<missing>"},
		want:   `in2.jsonl: open input: no such file or directory`,
		file:   "in2.jsonl",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			inputs := writeInputs(t, dir, tt.inputs...)
			for i, in := range tt.inputs {
				if in == "<missing>" {
					os.Remove(inputs[i])
				}
			}
			out := filepath.Join(dir, "out.trace")
			_, err := CollectJSONL(out, inputs, Options{Schema: tt.schema})
			if err == nil {
				t.Fatal("no error")
			}
			msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			msg = strings.ReplaceAll(msg, "out.trace", "OUT")
			if msg != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", msg, tt.want)
			}
			var e *Error
			if errors.As(err, &e) {
				if got := filepath.Base(e.File); got != tt.file || e.Line != tt.line || e.Field != tt.field {
					t.Errorf("Error{File: %s, Line: %d, Field: %s}, want {%s, %d, %s}", got, e.Line, e.Field, tt.file, tt.line, tt.field)
				}
			} else if tt.file != "" {
				t.Errorf("error is %T, want *Error", err)
			}
			assertOnlyInputs(t, dir, inputs)
		})
	}
}

// assertOnlyInputs checks that dir holds nothing but the inputs: no
// output, no temporary directory.
func assertOnlyInputs(t *testing.T, dir string, inputs []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !slices.Contains(inputs, filepath.Join(dir, e.Name())) {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestCollectJSONLSchema(t *testing.T) {
	dir := t.TempDir()
	inputs := writeInputs(t, dir,
		`{"snapshot": 1, "nodes": {"n1": {"i": 1, "f": 2, "l": [1, 2.5], "m": {"k": 3}, "s": {"x": 1}, "u": 5}}}`+"\n"+
			`{"snapshot": 2, "nodes": {"n1": {"i": 1, "f": 2.0, "l": [1.0, 2.5], "m": {"k": 3}, "s": {"x": 1, "y": null}, "u": 5}}}`+"\n"+
			`{"snapshot": 3, "nodes": {"n1": {"m": {"k": 4, "j": null}}}}`)
	schema := trace.Schema{
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64)},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)},
		{Name: "never", Type: arrow.BinaryTypes.String},
		{Name: "s", Type: arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true})},
		{Name: "u", Type: arrow.PrimitiveTypes.Uint64},
	}
	out := filepath.Join(dir, "x.trace")
	res, err := CollectJSONL(out, inputs, Options{Schema: schema, System: "sys"})
	if err != nil {
		t.Fatal(err)
	}
	// Snapshot 2 has the same state as 1 once converted to the schema.
	want := `schema f:float64 i:int64 l:list<float64> m:map<utf8,int64> never:utf8 s:struct<x:int64 y:utf8> u:uint64
state 0 n1 ts=1 f=2 i=1 l=[1 2.5] m=map[k:3] never=<nil> s=map[x:1 y:<nil>] u=5
state 1 n1 ts=3 f=<nil> i=<nil> l=<nil> m=map[j:<nil> k:4] never=<nil> s=<nil> u=<nil>
snapshot 1 ts=1 tags=[] n1@0
snapshot 2 ts=2 tags=[] n1@0
snapshot 3 ts=3 tags=[] n1@1
`
	if got := dumpTrace(t, out); got != want {
		t.Errorf("trace:\n%s\nwant:\n%s", got, want)
	}
	if res.States != 2 || schemaString(res.Schema) != schemaString(schema) {
		t.Errorf("result = %s", resultString(*res))
	}
	tr, err := trace.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if tr.Manifest.System != "sys" {
		t.Errorf("system = %q", tr.Manifest.System)
	}

	// A schema the trace format cannot hold fails before anything is
	// written.
	_, err = CollectJSONL(filepath.Join(dir, "bad.trace"), inputs, Options{Schema: trace.Schema{{Name: "ts", Type: arrow.PrimitiveTypes.Int64}}})
	if err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("reserved schema column: err = %v", err)
	}
	_, err = CollectJSONL(filepath.Join(dir, "bad.trace"), inputs, Options{Schema: trace.Schema{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "a", Type: arrow.BinaryTypes.String}}})
	if err == nil || !strings.Contains(err.Error(), `schema: state variable "a" appears twice`) {
		t.Errorf("duplicate schema column: err = %v", err)
	}
	_, err = CollectJSONL(filepath.Join(dir, "bad.trace"), inputs, Options{Schema: trace.Schema{{Name: "a", Type: arrow.PrimitiveTypes.Int32}}})
	if err == nil || !strings.Contains(err.Error(), "unsupported type int32") {
		t.Errorf("int32 schema column: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.trace")); err == nil {
		t.Error("bad.trace exists")
	}
}

func TestCollectJSONLOverwrite(t *testing.T) {
	dir := t.TempDir()
	v1 := writeInputs(t, dir, `{"snapshot": 1, "nodes": {"n1": {"a": 1}}}`)
	v2 := []string{filepath.Join(dir, "v2.jsonl")}
	os.WriteFile(v2[0], []byte(`{"snapshot": 1, "nodes": {"n1": {"a": 2}}}`+"\n"+`{"snapshot": 2, "nodes": {"n1": {"a": 2}}}`), 0o644)
	bad := []string{filepath.Join(dir, "bad.jsonl")}
	os.WriteFile(bad[0], []byte(`{"snapshot": 1, "nodes": {"n1": {"a": 2}}}`+"\n"+`{"snapshot": 2, "nodes": {"n1": {"a": "x"}}}`), 0o644)
	// A schema makes the run single-pass, so the bad line is met while the
	// trace is being written.
	schema := trace.Schema{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}

	out := filepath.Join(dir, "out.trace")
	if _, err := CollectJSONL(out, v1, Options{}); err != nil {
		t.Fatal(err)
	}
	v1Dump := dumpTrace(t, out)

	steps := []struct {
		name    string
		inputs  []string
		opts    Options
		wantErr string
		want    string // dump of out afterwards; "" means unchanged
	}{
		{"exists", v2, Options{}, "output already exists", ""},
		{"bad input", bad, Options{Overwrite: true}, `bad.jsonl:2: nodes.n1.a: string, but earlier lines`, ""},
		{"bad input, one pass", bad, Options{Overwrite: true, Schema: schema}, `bad.jsonl:2: nodes.n1.a: string, but the schema's type is int64`, ""},
		{"replace", v2, Options{Overwrite: true}, "", "schema a:int64\nstate 0 n1 ts=1 a=2\nsnapshot 1 ts=1 tags=[] n1@0\nsnapshot 2 ts=2 tags=[] n1@0\n"},
	}
	for _, st := range steps {
		before := dumpTrace(t, out)
		_, err := CollectJSONL(out, st.inputs, st.opts)
		switch {
		case st.wantErr == "" && err != nil:
			t.Errorf("%s: %v", st.name, err)
		case st.wantErr != "" && (err == nil || !strings.Contains(err.Error(), st.wantErr)):
			t.Errorf("%s: err = %v, want %q", st.name, err, st.wantErr)
		}
		want := st.want
		if want == "" {
			want = before
		}
		if got := dumpTrace(t, out); got != want {
			t.Errorf("%s: trace afterwards:\n%s\nwant:\n%s", st.name, got, want)
		}
	}
	if dumpTrace(t, out) == v1Dump {
		t.Error("trace not replaced")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "tmp") {
			t.Errorf("left behind: %s", e.Name())
		}
	}

	// Overwrite replaces only traces and empty directories.
	notTrace := filepath.Join(dir, "notes")
	os.Mkdir(notTrace, 0o755)
	os.WriteFile(filepath.Join(notTrace, "keep.txt"), []byte("keep"), 0o644)
	if _, err := CollectJSONL(notTrace, v1, Options{Overwrite: true}); err == nil || !strings.Contains(err.Error(), "not a trace directory") {
		t.Errorf("overwrite non-trace dir: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(notTrace, "keep.txt")); err != nil {
		t.Error(err)
	}
	file := filepath.Join(dir, "file.trace")
	os.WriteFile(file, nil, 0o644)
	if _, err := CollectJSONL(file, v1, Options{Overwrite: true}); err == nil || !strings.Contains(err.Error(), "not a trace directory") {
		t.Errorf("overwrite file: err = %v", err)
	}
	empty := filepath.Join(dir, "empty.trace")
	os.Mkdir(empty, 0o755)
	if _, err := CollectJSONL(empty, v1, Options{Overwrite: true}); err != nil {
		t.Errorf("overwrite empty dir: %v", err)
	}
}
