package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/collector/arrowsink"
	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/trace"
	"github.com/augur-dev/augur/trace/tracetest"
)

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
			res, err := CollectJSONL(t.Context(), out, inputs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := tracetest.Dump(t, out); got != tt.want {
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
	return fmt.Sprintf("{Snapshots:%d States:%d Nodes:%d Schema:%s}", r.Snapshots, r.States, r.Nodes, tracetest.SchemaString(r.Schema))
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
	res, err := CollectJSONL(t.Context(), out, inputs, Options{Schema: schema, System: "sys"})
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
	if got := tracetest.Dump(t, out); got != want {
		t.Errorf("trace:\n%s\nwant:\n%s", got, want)
	}
	if res.States != 2 || tracetest.SchemaString(res.Schema) != tracetest.SchemaString(schema) {
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
	_, err = CollectJSONL(t.Context(), filepath.Join(dir, "bad.trace"), inputs, Options{Schema: trace.Schema{{Name: "ts", Type: arrow.PrimitiveTypes.Int64}}})
	if err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("reserved schema column: err = %v", err)
	}
	_, err = CollectJSONL(t.Context(), filepath.Join(dir, "bad.trace"), inputs, Options{Schema: trace.Schema{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "a", Type: arrow.BinaryTypes.String}}})
	if err == nil || !strings.Contains(err.Error(), `schema: state variable "a" appears twice`) {
		t.Errorf("duplicate schema column: err = %v", err)
	}
	_, err = CollectJSONL(t.Context(), filepath.Join(dir, "bad.trace"), inputs, Options{Schema: trace.Schema{{Name: "a", Type: arrow.PrimitiveTypes.Int32}}})
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
	if _, err := CollectJSONL(t.Context(), out, v1, Options{}); err != nil {
		t.Fatal(err)
	}
	v1Dump := tracetest.Dump(t, out)

	steps := []struct {
		name    string
		inputs  []string
		opts    Options
		wantErr string
		want    string // dump of out afterwards; "" means unchanged
	}{
		{"exists", v2, Options{}, "already exists", ""},
		{"bad input", bad, Options{Overwrite: true}, `bad.jsonl:2: nodes.n1.a: string, but earlier lines`, ""},
		{"bad input, one pass", bad, Options{Overwrite: true, Schema: schema}, `bad.jsonl:2: nodes.n1.a: string, but the schema's type is int64`, ""},
		{"replace", v2, Options{Overwrite: true}, "", "schema a:int64\nstate 0 n1 ts=1 a=2\nsnapshot 1 ts=1 tags=[] n1@0\nsnapshot 2 ts=2 tags=[] n1@0\n"},
	}
	for _, st := range steps {
		before := tracetest.Dump(t, out)
		_, err := CollectJSONL(t.Context(), out, st.inputs, st.opts)
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
		if got := tracetest.Dump(t, out); got != want {
			t.Errorf("%s: trace afterwards:\n%s\nwant:\n%s", st.name, got, want)
		}
	}
	if tracetest.Dump(t, out) == v1Dump {
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
	if _, err := CollectJSONL(t.Context(), notTrace, v1, Options{Overwrite: true}); err == nil || !strings.Contains(err.Error(), "not a trace directory") {
		t.Errorf("overwrite non-trace dir: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(notTrace, "keep.txt")); err != nil {
		t.Error(err)
	}
	file := filepath.Join(dir, "file.trace")
	os.WriteFile(file, nil, 0o644)
	if _, err := CollectJSONL(t.Context(), file, v1, Options{Overwrite: true}); err == nil || !strings.Contains(err.Error(), "not a trace directory") {
		t.Errorf("overwrite file: err = %v", err)
	}
	empty := filepath.Join(dir, "empty.trace")
	os.Mkdir(empty, 0o755)
	if _, err := CollectJSONL(t.Context(), empty, v1, Options{Overwrite: true}); err != nil {
		t.Errorf("overwrite empty dir: %v", err)
	}
}

// TestCollectInterrupted checks that a done context stops both kinds of
// input with an error that wraps context.Canceled and names the output,
// writing nothing.
func TestCollectInterrupted(t *testing.T) {
	dir := t.TempDir()
	global := filepath.Join(dir, "global.jsonl")
	local := filepath.Join(dir, "local.jsonl")
	for name, content := range map[string]string{
		global: `{"snapshot": 0, "nodes": {"a": {"x": 1}}}` + "\n",
		local:  `{"node": "a", "ts": 1, "state": {"x": 1}}` + "\n",
	} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, in := range []string{global, local} {
		for _, schema := range []trace.Schema{nil, {{Name: "x", Type: arrow.PrimitiveTypes.Int64}}} {
			out := filepath.Join(dir, "out.trace")
			_, err := Collect(ctx, out, []string{in}, Options{Schema: schema})
			if !errors.Is(err, context.Canceled) || err.Error() != "collect "+out+": context canceled" {
				t.Errorf("%s, schema %v: err = %v, want collect %s: context canceled", filepath.Base(in), schema, err, out)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 2 {
				t.Errorf("%s, schema %v: left %v", filepath.Base(in), schema, entries)
			}
		}
	}
}

func TestResultNotes(t *testing.T) {
	for _, tt := range []struct {
		r    Result
		want string
	}{
		{Result{}, ""},
		{Result{Incomplete: 3, Collapsed: 2, Skipped: 1, Lost: make([]diag.Warning, 1)}, "3 cuts incomplete, 2 collapsed, 1 bad records skipped, 1 damaged stream part skipped"},
		{Result{Lost: make([]diag.Warning, 2)}, "2 damaged stream parts skipped"},
	} {
		if got := strings.Join(tt.r.Notes(), ", "); got != tt.want {
			t.Errorf("Notes of %+v = %q, want %q", tt.r, got, tt.want)
		}
	}
}

// TestWriteSummary checks the lines augur collect prints of a result:
// the records skipped beyond those its warnings show are counted, torn
// ends apart.
func TestWriteSummary(t *testing.T) {
	r := &Result{Snapshots: 7, States: 5, Nodes: 2, Schema: make(trace.Schema, 3), Incomplete: 1, Skipped: 3,
		Warnings: []diag.Warning{
			{Code: WarnSkipped, Pos: diag.Position{Filename: "a.jsonl", Line: 2}, Msg: "bad"},
			{Code: WarnTorn, Pos: diag.Position{Filename: "a.jsonl", Line: 4}, Msg: "torn"},
		}}
	var stdout, stderr strings.Builder
	r.WriteSummary(&stdout, &stderr, "run.trace")
	if want := "run.trace: 7 snapshots, 5 states, 2 nodes, 3 variables (1 cuts incomplete, 3 bad records skipped)\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
	if want := "augur: warning: a.jsonl:2: bad\naugur: warning: a.jsonl:4: torn\naugur: warning: 2 more bad records skipped\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

// Options.CheckValue sees lists as []any, as package trace reads them,
// whether parseLine read them as []string, []int64 or []any and whether
// they come from global snapshots, node-local JSONL or an Arrow stream:
// a spec's enum check reads a list of strings that way.
func TestCollectCheckValueLists(t *testing.T) {
	errBoss := errors.New(`"boss" is not a role`)
	check := func(col int, v any) error {
		switch v := v.(type) {
		case nil:
		case []any:
			if slices.Contains(v, any("boss")) {
				return errBoss
			}
		default:
			return fmt.Errorf("column %d: a %T", col, v)
		}
		return nil
	}
	type state struct {
		Roles []string `augur:"roles"`
		Terms []int64  `augur:"terms"`
	}
	dir := t.TempDir()
	stream := filepath.Join(dir, "n1.arrow")
	sink, err := arrowsink.Create(stream, arrowsink.Options{})
	if err != nil {
		t.Fatal(err)
	}
	node := collector.NewNode("n1", sink)
	for _, roles := range [][]string{{"leader"}, {"boss", "leader"}} {
		if err := node.Expose(state{Roles: roles, Terms: []int64{1, 2}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := node.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		inputs []string
	}{
		{"global", writeInputs(t, t.TempDir(), `{"snapshot": 1, "nodes": {"n1": {"roles": ["leader"], "terms": [1, 2]}}}
{"snapshot": 2, "nodes": {"n1": {"roles": ["boss", "leader"], "terms": [1, 2]}}}
`)},
		{"node-local", writeInputs(t, t.TempDir(), `{"node": "n1", "ts": 1, "state": {"roles": ["leader"], "terms": [1, 2]}}
{"node": "n1", "ts": 2, "state": {"roles": ["boss", "leader"], "terms": [1, 2]}}
`)},
		{"arrow", []string{stream}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			schema := trace.Schema{
				{Name: "roles", Type: arrow.ListOf(arrow.BinaryTypes.String)},
				{Name: "terms", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)},
			}
			_, err := Collect(t.Context(), filepath.Join(t.TempDir(), "out.trace"), tt.inputs, Options{Schema: schema, CheckValue: check})
			if !errors.Is(err, errBoss) && (err == nil || !strings.Contains(err.Error(), errBoss.Error())) {
				t.Errorf("err = %v, want the check's", err)
			}
		})
	}
}
