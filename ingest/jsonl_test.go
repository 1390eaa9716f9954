package ingest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/trace"
)

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
		// 31 lists hold a type 32 deep, trace.MaxDepth; a 32nd is refused
		// at its line, not when the trace is created.
		name:   "nested too deep",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": ` + strings.Repeat("[", 31) + strings.Repeat("]", 31) + `}}}` + "\n" + `{"snapshot": 2, "nodes": {"n1": {"a": ` + strings.Repeat("[", 32) + strings.Repeat("]", 32) + `}}}`},
		want:   `in1.jsonl:2: nodes.n1.a` + strings.Repeat("[0]", 31) + `: a list or object here makes a type 33 deep, deeper than the 32 a trace can hold`,
		file:   "in1.jsonl", line: 2, field: "nodes.n1.a" + strings.Repeat("[0]", 31),
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
		name:   "float after an integer beyond 2^53",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": 9007199254740993}}}` + "\n" + `{"snapshot": 2, "nodes": {"n1": {"a": 0.5}}}`},
		want:   `in1.jsonl:2: nodes.n1.a: float 0.5, but earlier lines (first at line 1: nodes.n1.a) hold integers that float64 would round (beyond 2^53; write them as strings, or fix the column's type in a spec)`,
		file:   "in1.jsonl", line: 2, field: "nodes.n1.a",
	}, {
		name:   "integer beyond 2^53 after a float",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": 1.5}, "n2": {"a": -9007199254740993}}}`},
		want:   `in1.jsonl:1: nodes.n2.a: integer -9007199254740993 is beyond 2^53, but earlier values on this line (nodes.n1.a) hold floats (float64 would round it to -9007199254740992)`,
		file:   "in1.jsonl", line: 1, field: "nodes.n2.a",
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
		name:   "schema: list of integers, list<utf8>",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": [1, 2]}}}`},
		schema: trace.Schema{{Name: "a", Type: arrow.ListOf(arrow.BinaryTypes.String)}},
		want:   `in1.jsonl:1: nodes.n1.a[0]: integer, but the schema's type is utf8`,
		file:   "in1.jsonl", line: 1, field: "nodes.n1.a[0]",
	}, {
		name:   "schema: list of floats, list<int64>",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": [0.5, 2.5]}}}`},
		schema: trace.Schema{{Name: "a", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)}},
		want:   `in1.jsonl:1: nodes.n1.a[0]: float, but the schema's type is int64`,
		file:   "in1.jsonl", line: 1, field: "nodes.n1.a[0]",
	}, {
		name:   "schema: list of integers, list<uint64>",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": [1, -2]}}}`},
		schema: trace.Schema{{Name: "a", Type: arrow.ListOf(arrow.PrimitiveTypes.Uint64)}},
		want:   `in1.jsonl:1: nodes.n1.a[1]: integer -2 is out of the range of uint64`,
		file:   "in1.jsonl", line: 1, field: "nodes.n1.a[1]",
	}, {
		name:   "schema: list of integers, int64",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": [1, -2]}}}`},
		schema: trace.Schema{{Name: "a", Type: arrow.PrimitiveTypes.Int64}},
		want:   `in1.jsonl:1: nodes.n1.a: list, but the schema's type is int64`,
		file:   "in1.jsonl", line: 1, field: "nodes.n1.a",
	}, {
		name:   "list of integers, then floats beyond 2^53",
		inputs: []string{`{"snapshot": 1, "nodes": {"n1": {"a": [1, 9007199254740993]}}}` + "\n" + `{"snapshot": 2, "nodes": {"n1": {"a": [0.5]}}}`},
		want:   `in1.jsonl:2: nodes.n1.a[0]: float 0.5, but earlier lines (first at line 1: nodes.n1.a[1]) hold integers that float64 would round (beyond 2^53; write them as strings, or fix the column's type in a spec)`,
		file:   "in1.jsonl", line: 2, field: "nodes.n1.a[0]",
	}, {
		name:   "integer tags",
		inputs: []string{`{"snapshot": 1, "tags": [1, 2], "nodes": {}}`},
		want:   `in1.jsonl:1: tags[0]: want a string, got integer`,
		file:   "in1.jsonl", line: 1, field: "tags[0]",
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
			_, err := CollectJSONL(t.Context(), out, inputs, Options{Schema: tt.schema})
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
				if got := filepath.Base(e.Pos.Filename); got != tt.file || e.Pos.Line != tt.line || e.Field != tt.field {
					t.Errorf("Error{File: %s, Line: %d, Field: %s}, want {%s, %d, %s}", got, e.Pos.Line, e.Field, tt.file, tt.line, tt.field)
				}
			} else if tt.file != "" {
				t.Errorf("error is %T, want *Error", err)
			}
			assertOnlyInputs(t, dir, inputs)
		})
	}
}
