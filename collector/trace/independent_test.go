package trace_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/augur-dev/augur/collector/trace"
)

// TestIndependentReader reads a trace with the JavaScript apache-arrow
// package and checks that it sees the rows our reader sees. .ci/run
// installs the package (npm ci in testdata/arrowjs); elsewhere the test
// is skipped unless node and the package are present.
func TestIndependentReader(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	if _, err := os.Stat("testdata/arrowjs/node_modules/apache-arrow"); err != nil {
		t.Skip("apache-arrow not installed: run npm ci --prefix collector/trace/testdata/arrowjs")
	}
	dir := writeTrace(t)
	tr, err := trace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()

	readJS := func(file string) []map[string]any {
		t.Helper()
		out, err := exec.Command(node, "testdata/arrowjs/read.mjs", filepath.Join(dir, file)).Output()
		if err != nil {
			t.Fatalf("read %s with apache-arrow: %v", file, err)
		}
		var rows []map[string]any
		if err := json.Unmarshal(out, &rows); err != nil {
			t.Fatal(err)
		}
		return rows
	}

	var want []map[string]any
	sr := tr.States()
	defer sr.Close()
	for row := range tr.NumStates() {
		s, err := sr.State(uint32(row))
		if err != nil {
			t.Fatal(err)
		}
		r := map[string]any{"node": s.Node, "ts": jsonForm(s.TS)}
		for c, col := range tr.Schema {
			r[col.Name] = jsonForm(s.Vars[c])
		}
		want = append(want, r)
	}
	if got := readJS(trace.StatesFile); !reflect.DeepEqual(got, want) {
		t.Errorf("states.arrow:\napache-arrow reads %v\naugur reads        %v", got, want)
	}

	want = nil
	snaps := tr.Snapshots()
	defer snaps.Close()
	for snaps.Next() {
		s := snaps.Snapshot()
		var members, tags []any
		for _, m := range s.Members {
			members = append(members, float64(m))
		}
		for _, tag := range s.Tags {
			tags = append(tags, tag)
		}
		want = append(want, map[string]any{
			"snapshot": jsonForm(s.ID), "ts": jsonForm(s.TS), "members": members, "tags": tags,
		})
	}
	if got := readJS(trace.SnapshotsFile); !reflect.DeepEqual(got, want) {
		t.Errorf("snapshots.arrow:\napache-arrow reads %v\naugur reads        %v", got, want)
	}
}

// jsonForm converts a decoded value to what read.mjs prints for it:
// 64-bit integers as decimal strings, containers as arrays and objects.
func jsonForm(v any) any {
	switch v := v.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = jsonForm(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = jsonForm(e)
		}
		return out
	}
	return v
}
