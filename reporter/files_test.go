package reporter

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFiles writes the golden report to a file and back, promotes from
// it and scores it, as augur infer -o, promote and score do.
func TestFiles(t *testing.T) {
	rep, err := ReadFile("testdata/report.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	var written strings.Builder
	if err := rep.Write(&written, "json"); err != nil {
		t.Fatal(err)
	}
	golden, _ := os.ReadFile("testdata/report.json")
	if written.String() != string(golden) {
		t.Errorf("Write changed the report:\n%s", written.String())
	}
	if err := os.WriteFile(path, golden, 0o644); err != nil {
		t.Fatal(err)
	}

	checks := filepath.Join(dir, "checks.yaml")
	f, err := PromoteFile(path, checks, []int{1}, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Checks) != 2 {
		t.Errorf("promoted %d checks, want 2", len(f.Checks))
	}
	if _, err := os.Stat(checks); err != nil {
		t.Error(err)
	}
	if _, err := PromoteFile(path, path, []int{1}, nil); err == nil {
		t.Error("PromoteFile wrote over its report")
	}

	var scores strings.Builder
	if err := WriteScores(&scores, path, 10, []string{"bug:x"}); err != nil {
		t.Fatal(err)
	}
	want := path + ": 1 almost-invariants, 1000 snapshots, top 10 scored\n"
	if !strings.HasPrefix(scores.String(), want) || !strings.Contains(scores.String(), "\nbug:x ") {
		t.Errorf("scores:\n%s\nwant a first line %q and a row for bug:x", scores.String(), want)
	}
}

// TestReadFileRefuses: a file that is not a report of this version is
// refused, saying what it is.
func TestReadFileRefuses(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"not JSON", "property  forall n0 in nodes: n0.a\n", "not a JSON report"},
		{"explain's JSON", `{"property": "forall n0 in nodes: n0.a", "generated": true}`, `not a JSON report of augur infer: no "version" field`},
		{"another version", `{"version": 1}`, fmt.Sprintf("report version 1, want %d", Version)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.json")
			if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFile(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadFile: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
