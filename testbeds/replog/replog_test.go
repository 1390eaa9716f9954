package replog_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/testbeds/replog"
	"github.com/augur-dev/augur/trace"
)

// TestWrite checks that the workload's specs parse, the second without the
// predicate, that its trace has one snapshot per step with every node in
// each, and that a seed repeats it byte for byte.
func TestWrite(t *testing.T) {
	var states [2][]byte
	for i := range states {
		dir := t.TempDir()
		withPred, plain, tracePath, err := replog.Write(context.Background(), dir, 3, 200, 7)
		if err != nil {
			t.Fatal(err)
		}
		for path, preds := range map[string]int{withPred: 1, plain: 0} {
			spec, err := specs.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(spec.Predicates) != preds {
				t.Errorf("%s: %d predicates, want %d", filepath.Base(path), len(spec.Predicates), preds)
			}
		}
		tr, err := trace.Open(tracePath)
		if err != nil {
			t.Fatal(err)
		}
		sr := tr.Snapshots()
		n := 0
		for sr.Next() {
			if len(sr.Snapshot().Members) != 3 {
				t.Fatalf("snapshot %d has %d members, want 3", n, len(sr.Snapshot().Members))
			}
			n++
		}
		if err := sr.Err(); err != nil || n != 200 {
			t.Errorf("%d snapshots (%v), want 200", n, err)
		}
		sr.Close()
		tr.Close()
		if states[i], err = os.ReadFile(filepath.Join(tracePath, trace.StatesFile)); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(states[0], states[1]) {
		t.Error("the same seed wrote different states")
	}
}

// TestWriteCancelled checks that a cancelled run writes no trace.
func TestWriteCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	_, _, tracePath, err := replog.Write(ctx, dir, 3, 200, 7)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if _, err := os.Stat(tracePath); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want no trace", tracePath, err)
	}
}
