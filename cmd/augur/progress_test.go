package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestProgressOffTerminal: infer and explain show their progress on a
// terminal only, as bench and learn do, so that a log keeps the report
// alone (they printed a plain line every 5 s when stderr was a file or a
// pipe).
func TestProgressOffTerminal(t *testing.T) {
	file, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, stderr := range []interface {
		Write([]byte) (int, error)
	}{file, &bytes.Buffer{}} {
		io := &inferOptions{format: "text", stderr: stderr}
		po, err := io.pipelineOptions()
		if err != nil {
			t.Fatal(err)
		}
		if po.Progress != nil {
			t.Errorf("infer with stderr %T: progress %#v, want none", stderr, po.Progress)
		}
		eo := &explainOptions{stderr: stderr}
		if po := eo.pipelineOptions(); po.Progress != nil {
			t.Errorf("explain with stderr %T: progress %#v, want none", stderr, po.Progress)
		}
	}
}
