package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-dev/augur/trace/tracetest"
)

// localResult renders the node-local counts of a Result.
func localResult(r *Result) string {
	return fmt.Sprintf("snapshots=%d states=%d nodes=%d incomplete=%d collapsed=%d skipped=%d",
		r.Snapshots, r.States, r.Nodes, r.Incomplete, r.Collapsed, r.Skipped)
}

func TestCollectLocal(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		inputs []string
		result string
		want   string // dumpTrace
		warns  []string
	}{{
		// Cuts at 1, 2 and 3, the exposure times. n2 is live from its
		// first state; its heartbeat at 4 completes the cut at 3.
		name: "two nodes",
		inputs: []string{
			`{"node": "n1", "ts": 1, "state": {"x": 1}}
{"node": "n1", "ts": 3, "state": {"x": 2}}
{"node": "n1", "ts": 5, "leave": true}
`, `{"node": "n2", "ts": 2, "state": {"x": 10, "s": "a"}}
{"node": "n2", "ts": 4, "heartbeat": true}
{"node": "n2", "ts": 6, "leave": true}
`},
		result: "snapshots=3 states=3 nodes=2 incomplete=0 collapsed=0 skipped=0",
		want: `schema s:utf8 x:int64
state 0 n1 ts=1 s=<nil> x=1
state 1 n2 ts=2 s=a x=10
state 2 n1 ts=3 s=<nil> x=2
snapshot 0 ts=1 tags=[] n1@0
snapshot 1 ts=2 tags=[] n1@0 n2@1
snapshot 2 ts=3 tags=[] n1@2 n2@1
`,
	}, {
		// n2 stops without leaving: the cuts after its last record are
		// incomplete.
		name: "incomplete",
		inputs: []string{
			`{"node": "n1", "ts": 1, "state": {"x": 1}}
{"node": "n1", "ts": 3, "state": {"x": 2}}
{"node": "n1", "ts": 5, "state": {"x": 3}}
{"node": "n1", "ts": 6, "leave": true}
`, `{"node": "n2", "ts": 2, "state": {"x": 10}}
`},
		result: "snapshots=2 states=4 nodes=2 incomplete=2 collapsed=0 skipped=0",
		want: `schema x:int64
state 0 n1 ts=1 x=1
state 1 n2 ts=2 x=10
state 2 n1 ts=3 x=2
state 3 n1 ts=5 x=3
snapshot 0 ts=1 tags=[] n1@0
snapshot 1 ts=2 tags=[] n1@0 n2@1
`,
	}, {
		// With a timeout of 2, n2 is live until 4: the cut at 3 is
		// incomplete, the one at 5 complete without it.
		name: "fail after",
		opts: Options{FailAfter: 2},
		inputs: []string{
			`{"node": "n1", "ts": 1, "state": {"x": 1}}
{"node": "n1", "ts": 3, "state": {"x": 2}}
{"node": "n1", "ts": 5, "state": {"x": 3}}
{"node": "n1", "ts": 6, "leave": true}
`, `{"node": "n2", "ts": 2, "state": {"x": 10}}
`},
		result: "snapshots=3 states=4 nodes=2 incomplete=1 collapsed=0 skipped=0",
		want: `schema x:int64
state 0 n1 ts=1 x=1
state 1 n2 ts=2 x=10
state 2 n1 ts=3 x=2
state 3 n1 ts=5 x=3
snapshot 0 ts=1 tags=[] n1@0
snapshot 1 ts=2 tags=[] n1@0 n2@1
snapshot 3 ts=5 tags=[] n1@3
`,
	}, {
		// Both nodes in one file, out of order within the window; equal
		// times make one cut. A node that leaves and exposes again
		// rejoins, with its row reused when its state is the same.
		name: "one file",
		inputs: []string{`{"node": "n2", "ts": 2, "state": {"x": 10}}
{"node": "n1", "ts": 1, "state": {"x": 1}}
{"node": "n1", "ts": 2, "state": {"x": 2}}
{"node": "n2", "ts": 3, "leave": true}
{"node": "n1", "ts": 4, "heartbeat": true}
{"node": "n2", "ts": 5, "state": {"x": 10}}
{"node": "n1", "ts": 6, "leave": true}
{"node": "n2", "ts": 7, "leave": true}
`},
		result: "snapshots=3 states=3 nodes=2 incomplete=0 collapsed=0 skipped=0",
		want: `schema x:int64
state 0 n1 ts=1 x=1
state 1 n2 ts=2 x=10
state 2 n1 ts=2 x=2
snapshot 0 ts=1 tags=[] n1@0
snapshot 1 ts=2 tags=[] n1@2 n2@1
snapshot 2 ts=5 tags=[] n1@2 n2@1
`,
	}, {
		// n1 exposes an unchanged state; Collapse drops the snapshot.
		name: "collapse",
		opts: Options{Collapse: true},
		inputs: []string{
			`{"node": "n1", "ts": 1, "state": {"x": 1}}
{"node": "n1", "ts": 3, "state": {"x": 1}}
{"node": "n1", "ts": 5, "state": {"x": 2}}
{"node": "n1", "ts": 6, "leave": true}
`},
		result: "snapshots=2 states=2 nodes=1 incomplete=0 collapsed=1 skipped=0",
		want: `schema x:int64
state 0 n1 ts=1 x=1
state 1 n1 ts=5 x=2
snapshot 0 ts=1 tags=[] n1@0
snapshot 2 ts=5 tags=[] n1@1
`,
	}, {
		// A node silent beyond the window of a shared file keeps cuts
		// pending until its next record arrives.
		name: "pending",
		opts: Options{Window: 1},
		inputs: []string{`{"node": "n1", "ts": 1, "state": {"x": 1}}
{"node": "n2", "ts": 2, "state": {"x": 10}}
{"node": "n2", "ts": 3, "state": {"x": 11}}
{"node": "n2", "ts": 4, "state": {"x": 12}}
{"node": "n1", "ts": 5, "leave": true}
{"node": "n2", "ts": 6, "leave": true}
`},
		result: "snapshots=4 states=4 nodes=2 incomplete=0 collapsed=0 skipped=0",
		want: `schema x:int64
state 0 n1 ts=1 x=1
state 1 n2 ts=2 x=10
state 2 n2 ts=3 x=11
state 3 n2 ts=4 x=12
snapshot 0 ts=1 tags=[] n1@0
snapshot 1 ts=2 tags=[] n1@0 n2@1
snapshot 2 ts=3 tags=[] n1@0 n2@2
snapshot 3 ts=4 tags=[] n1@0 n2@3
`,
	}, {
		// A writer killed mid-line leaves a torn last line: a warning.
		name: "torn line",
		inputs: []string{`{"node": "n1", "ts": 1, "state": {"x": 1}}
{"node": "n1", "ts": 2, "leave": true}
{"node": "n1", "ts": 3, "sta`},
		result: "snapshots=1 states=1 nodes=1 incomplete=0 collapsed=0 skipped=0",
		want: `schema x:int64
state 0 n1 ts=1 x=1
snapshot 0 ts=1 tags=[] n1@0
`,
		warns: []string{"in1.jsonl:3: torn last line (its writer stopped in the middle of it); ignored: torn last line"},
	}, {
		name: "lenient",
		opts: Options{Lenient: true},
		inputs: []string{
			`{"node": "n1", "ts": 1, "state": {"x": 1}}
{"node": "n1", "ts": 3, "state": {"x": "three"}}
{"node": "n1", "ts": 2, "state": {"x": 2}}
{"node": "n1", "ts": 4, "state": {"x": }}
{"node": "n1", "ts": 4, "leave": true}
`, `{"node": "n1", "ts": 9, "state": {"x": 9}}
{"node": "n2", "ts": 2, "state": {"x": 2}}
{"node": "n2", "ts": 5, "leave": true}
`},
		result: "snapshots=2 states=3 nodes=2 incomplete=0 collapsed=0 skipped=3",
		want: `schema x:int64
state 0 n1 ts=1 x=1
state 1 n1 ts=2 x=2
state 2 n2 ts=2 x=2
snapshot 0 ts=1 tags=[] n1@0
snapshot 1 ts=2 tags=[] n1@1 n2@2
`,
		warns: []string{
			`in1.jsonl:2: node n1: state.x: string, but earlier lines (first at line 1: state.x) hold integers`,
			`in1.jsonl:4:40: malformed JSON: invalid character '}' looking for beginning of value near …": 4, \"state\": {\"x\": }}"`,
			`in2.jsonl:1: node n1: also has records in in1.jsonl (first at in1.jsonl:1); a node's records must all be in one input`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			inputs := writeInputs(t, dir, tt.inputs...)
			out := filepath.Join(dir, "out.trace")
			res, err := Collect(t.Context(), out, inputs, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := localResult(res); got != tt.result {
				t.Errorf("result %s\nwant   %s", got, tt.result)
			}
			if got := tracetest.Dump(t, out); got != tt.want {
				t.Errorf("trace:\n%s\nwant:\n%s", got, tt.want)
			}
			var warns []string
			for _, w := range res.Warnings {
				warns = append(warns, strings.ReplaceAll(w.String(), dir+string(filepath.Separator), ""))
			}
			if strings.Join(warns, "\n") != strings.Join(tt.warns, "\n") {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warns, "\n"), strings.Join(tt.warns, "\n"))
			}
		})
	}
}

func TestCollectLocalErrors(t *testing.T) {
	const (
		n1 = `{"node": "n1", "ts": 1, "state": {"x": 1}}` + "\n"
		n2 = `{"node": "n2", "ts": 1, "state": {"x": 1}}` + "\n"
	)
	tests := []struct {
		name   string
		opts   Options
		inputs []string
		want   string // with the inputs named in1.jsonl, …
		node   string
	}{{
		name:   "out of order",
		inputs: []string{n1 + `{"node": "n1", "ts": 3, "heartbeat": true}` + "\n" + `{"node": "n1", "ts": 2, "state": {"x": 2}}`},
		want:   `in1.jsonl:3: node n1: ts 2 is not after the node's previous ts 3 (timestamps of a node must increase)`,
		node:   "n1",
	}, {
		name:   "equal times",
		inputs: []string{n1 + n1},
		want:   `in1.jsonl:2: node n1: ts 1 is not after the node's previous ts 1 (timestamps of a node must increase)`,
		node:   "n1",
	}, {
		name:   "duplicate node",
		inputs: []string{n1, n2, "\n" + `{"node": "n1", "ts": 7, "heartbeat": true}`},
		want:   `in3.jsonl:2: node n1: also has records in in1.jsonl (first at in1.jsonl:1); a node's records must all be in one input`,
		node:   "n1",
	}, {
		name:   "type conflict",
		inputs: []string{n1, `{"node": "n2", "ts": 1, "state": {"x": [1]}}`},
		want:   `in2.jsonl:1: node n2: state.x: list, but earlier lines (first at in1.jsonl:1: state.x) hold integers`,
		node:   "n2",
	}, {
		name:   "outside the window",
		opts:   Options{Window: 2},
		inputs: []string{n1 + `{"node": "n2", "ts": 5, "state": {"x": 1}}` + "\n" + `{"node": "n2", "ts": 6, "state": {"x": 1}}` + "\n" + `{"node": "n3", "ts": 1, "state": {"x": 1}}`},
		want:   `in1.jsonl:4: node n3: ts 1 comes more than 2 records after records of other nodes up to ts 5 (raise the out-of-order window)`,
		node:   "n3",
	}, {
		name:   "malformed",
		inputs: []string{n1 + `{"node": "n1", "ts": 2, "state": [1]}` + "\n"},
		want:   `in1.jsonl:2: node n1: state: want the node's state as an object, got list`,
		node:   "n1",
	}, {
		name:   "malformed first line",
		inputs: []string{n1, `{"node": "n2", "ts": 1, ` + "\n"},
		want:   `in2.jsonl:1:25: malformed JSON: line ends inside a value near …"de\": \"n2\", \"ts\": 1, "`,
	}, {
		name:   "two events",
		inputs: []string{n1 + `{"node": "n1", "ts": 2, "leave": true, "heartbeat": true}` + "\n"},
		want:   `in1.jsonl:2: node n1: want exactly one of "state", "heartbeat": true and "leave": true`,
		node:   "n1",
	}, {
		name:   "no node",
		inputs: []string{`{"ts": 2, "node": "", "leave": true}` + "\n"},
		want:   `in1.jsonl:1: node: want a non-empty node name`,
	}, {
		name:   "global among local",
		inputs: []string{n1, `{"snapshot": 1, "nodes": {}}`},
		want:   `in2.jsonl: global-snapshot input, but in1.jsonl is node-local (all inputs must be one mode)`,
	}, {
		name:   "global line in a local file",
		inputs: []string{n1 + `{"node": "n1", "nodes": {}}`},
		want:   `in1.jsonl:2: global-snapshot record in node-local input (a file is all one mode)`,
	}, {
		name:   "reserved name",
		inputs: []string{`{"node": "n1", "ts": 2, "state": {"ts": 1}}`},
		want:   `in1.jsonl:1: node n1: state.ts: state variable "ts" collides with the reserved column ts of states.arrow; rename it`,
		node:   "n1",
	}, {
		name:   "no states",
		inputs: []string{`{"node": "n1", "ts": 1, "heartbeat": true}`, `{"node": "n2", "ts": 2, "leave": true}`},
		want:   `collect out.trace: no states in in1.jsonl, in2.jsonl`,
	}, {
		name:   "lenient, every record bad",
		inputs: []string{`{"node": "n1", "ts": -5, "state": {"x": 1}}` + "\n" + `{"node": "n1", "ts": -6, "state": {"x": 1}}`},
		opts:   Options{Lenient: true},
		want:   `collect out.trace: no states in in1.jsonl: 2 bad records skipped, the first: in1.jsonl:1: node n1: ts: want a non-negative integer, got -5`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			inputs := writeInputs(t, dir, tt.inputs...)
			out := filepath.Join(dir, "out.trace")
			_, err := Collect(t.Context(), out, inputs, tt.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""); got != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", got, tt.want)
			}
			var e *Error
			if errors.As(err, &e) && e.Node != tt.node {
				t.Errorf("Node = %q, want %q", e.Node, tt.node)
			}
			assertOnlyInputs(t, dir, inputs)
		})
	}
}

func TestCollectLocalUnreadable(t *testing.T) {
	dir := t.TempDir()
	in := writeInputs(t, dir, `{"node": "n1", "ts": 1, "state": {"x": 1}}`)
	missing := filepath.Join(dir, "missing.jsonl")
	_, err := Collect(t.Context(), filepath.Join(dir, "out.trace"), append(in, missing), Options{})
	var e *Error
	if !errors.As(err, &e) || e.Pos.Filename != missing || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("error = %v, want an *Error about %s", err, missing)
	}
	// A directory is not an input either.
	_, err = Collect(t.Context(), filepath.Join(dir, "out.trace"), append(in, dir), Options{Lenient: true})
	if !errors.As(err, &e) || e.Pos.Filename != dir {
		t.Fatalf("error = %v, want an *Error about %s", err, dir)
	}
}
