// Package arrowjstest reads Arrow files with the JavaScript apache-arrow
// package, an Arrow implementation that is not ours, so that tests can
// check that other readers see what augur writes: a test harness, for
// _test.go files only. .ci/run installs the package (npm ci --prefix
// internal/arrowjstest); where node or the package is missing, Require
// skips the test, or fails it under CI ($CI=true), where a skipped
// independent check would pass unnoticed.
package arrowjstest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"testing"

	"github.com/augur-dev/augur/trace"
)

// dir is the directory of this package: read.mjs and node_modules.
func dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Available reports whether node and the apache-arrow package are
// installed.
func Available() bool {
	if _, err := exec.LookPath("node"); err != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(dir(), "node_modules", "apache-arrow"))
	return err == nil
}

// Require skips t when node or apache-arrow is missing, and fails it
// instead when $CI is true.
func Require(t testing.TB) {
	t.Helper()
	if Available() {
		return
	}
	const msg = "node or apache-arrow not installed: run npm ci --prefix internal/arrowjstest"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " ($CI is true: the independent reader must run)")
	}
	t.Skip(msg)
}

// Rows returns the rows of the Arrow IPC file or stream at path, one map
// per row, as read.mjs prints them: 64-bit integers as decimal strings,
// lists as arrays, structs and maps as objects (see JSONForm).
func Rows(t testing.TB, path string) []map[string]any {
	t.Helper()
	Require(t)
	out, err := exec.Command("node", filepath.Join(dir(), "read.mjs"), path).Output()
	if err != nil {
		t.Fatalf("read %s with apache-arrow: %v", path, err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// JSONForm converts a decoded trace value to what read.mjs prints for it.
func JSONForm(v any) any {
	switch v := v.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = JSONForm(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = JSONForm(e)
		}
		return out
	}
	return v
}

// CheckTrace reads both Arrow files of the trace at dir with apache-arrow
// and with our reader, and fails the test where they differ.
func CheckTrace(t testing.TB, dir string) {
	t.Helper()
	tr, err := trace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()

	var want []map[string]any
	sr := tr.States()
	defer sr.Close()
	for row := range tr.NumStates() {
		s, err := sr.State(uint32(row))
		if err != nil {
			t.Fatal(err)
		}
		r := map[string]any{"node": s.Node, "ts": JSONForm(s.TS)}
		for c, col := range tr.Schema {
			r[col.Name] = JSONForm(s.Vars[c])
		}
		want = append(want, r)
	}
	if got := Rows(t, filepath.Join(dir, trace.StatesFile)); !reflect.DeepEqual(got, want) {
		t.Errorf("states.arrow:\napache-arrow reads %v\naugur reads        %v", got, want)
	}

	want = nil
	snaps := tr.Snapshots()
	defer snaps.Close()
	for snaps.Next() {
		s := snaps.Snapshot()
		members, tags := []any{}, []any{}
		for _, m := range s.Members {
			members = append(members, float64(m))
		}
		for _, tag := range s.Tags {
			tags = append(tags, tag)
		}
		want = append(want, map[string]any{
			"snapshot": JSONForm(s.ID), "ts": JSONForm(s.TS), "members": members, "tags": tags,
		})
	}
	if err := snaps.Err(); err != nil {
		t.Fatal(err)
	}
	if got := Rows(t, filepath.Join(dir, trace.SnapshotsFile)); !reflect.DeepEqual(got, want) {
		t.Errorf("snapshots.arrow:\napache-arrow reads %v\naugur reads        %v", got, want)
	}
}
