package demo_test

import (
	"bytes"
	"testing"

	"github.com/augur-dev/augur/internal/demo"
	"github.com/augur-dev/augur/specs"
)

func TestSpecParses(t *testing.T) {
	if _, err := specs.Parse(demo.SpecName, demo.Spec); err != nil {
		t.Fatal(err)
	}
}

func TestTraceHasBugs(t *testing.T) {
	if !bytes.HasPrefix(demo.Trace, []byte(`{"snapshot":0,`)) {
		t.Fatalf("trace starts with %.40q", demo.Trace)
	}
	for _, bug := range demo.Bugs {
		if !bytes.Contains(demo.Trace, []byte(`"`+bug+`"`)) {
			t.Errorf("no snapshot is tagged %s", bug)
		}
	}
}
