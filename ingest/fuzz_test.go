package ingest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-dev/augur/trace"
)

// FuzzCollectJSONL collects one input file. It must never panic; on
// success the trace opens, holds one snapshot per non-blank line and every
// member decodes; on failure nothing is left behind.
func FuzzCollectJSONL(f *testing.F) {
	seeds, err := filepath.Glob("testdata/*.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range seeds {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		`{"snapshot": 1, "nodes": {"n1": {"a": [1, 2.5]}, "n2": {"a": null}}}`,
		`{"snapshot": 1, "nodes": {"n": {"a": 18446744073709551615}}}` + "\n" + `{"snapshot": 2, "nodes": {"n": {"a": 0}}}`,
		`{"node": "n1", "ts": 17, "state": {"a": 1}}`,
		`{"snapshot": 1, "nodes": {"n": {"s": {}}}}` + "\n" + `{"snapshot": 2, "nodes": {"n": {"s": {"x": [[]]}}}}`,
		`{"snapshot": 1, "nodes": {"n": {"a": [1, -2], "b": [0.5]}}}` + "\n" + `{"snapshot": 2, "nodes": {"n": {"a": [0.5, 1e3], "b": [-0, 7]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		in := filepath.Join(dir, "in.jsonl")
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out.trace")
		res, err := CollectJSONL(t.Context(), out, []string{in}, Options{})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) && !strings.Contains(err.Error(), "no snapshots") {
				t.Fatalf("error is %T, not *Error: %v", err, err)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Fatalf("left behind after %v: %v", err, entries)
			}
			return
		}
		nonBlank := 0
		for i, line := range bytes.Split(data, []byte("\n")) {
			if i == 0 {
				line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			}
			if !isBlank(string(line)) {
				nonBlank++
			}
		}
		tr, err := trace.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		if tr.NumSnapshots() != nonBlank || res.Snapshots != nonBlank {
			t.Fatalf("%d snapshots (result %d), %d non-blank lines", tr.NumSnapshots(), res.Snapshots, nonBlank)
		}
		if tr.NumStates() != res.States || tr.Manifest.Nodes != res.Nodes {
			t.Fatalf("manifest %+v, result %+v", tr.Manifest, res)
		}
		sr, states := tr.Snapshots(), tr.States()
		defer sr.Close()
		defer states.Close()
		members := 0
		for sr.Next() {
			prev := ""
			for i, m := range sr.Snapshot().Members {
				s, err := states.State(m)
				if err != nil {
					t.Fatal(err)
				}
				if i > 0 && s.Node <= prev {
					t.Fatalf("snapshot %d: members not sorted by node: %q after %q", sr.Snapshot().ID, s.Node, prev)
				}
				prev = s.Node
				members++
			}
		}
		if err := sr.Err(); err != nil {
			t.Fatal(err)
		}
		if res.States > members {
			t.Fatalf("%d states for %d members", res.States, members)
		}
	})
}
