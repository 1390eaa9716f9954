package clobber

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, name := range []string{"spec.yaml", "run.trace/manifest.json", "run.trace/states.arrow", "web/manifest.json", "parts/p0.arrow"} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, link := range [][2]string{{"spec.yaml", "alias.yaml"}, {"run.trace", "alias.trace"}} {
		if err := os.Symlink(filepath.Join(dir, link[0]), link[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link("spec.yaml", "hard.yaml"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		out    string
		inputs []string
		want   string // part of the error; "" for none
	}{
		{"", []string{"spec.yaml"}, ""},
		{"report.json", []string{"spec.yaml", "run.trace"}, ""},
		{"spec.yaml", []string{"run.trace", "spec.yaml"}, "it is the input spec.yaml"},
		{"./parts/../spec.yaml", []string{"spec.yaml"}, "it is the input spec.yaml"},
		{"alias.yaml", []string{"spec.yaml"}, "it is the input spec.yaml"},
		{"hard.yaml", []string{"spec.yaml"}, "it is the input spec.yaml"},
		{"run.trace/states.arrow", []string{"spec.yaml"}, "inside the trace directory"},
		{"run.trace/new.json", nil, "inside the trace directory"},
		{"alias.trace/report.json", []string{"spec.yaml"}, "inside the trace directory"},
		{"run.trace/x/y.json", nil, "inside the trace directory"},
		{"web/report.json", nil, ""},
		{"parts", []string{"parts/p0.arrow"}, "the input parts/p0.arrow lies inside it"},
		{"parts/p1.arrow", []string{"parts"}, "it lies inside the input parts"},
		{"new.trace", []string{"missing.jsonl", ""}, ""},
	}
	for _, tt := range tests {
		err := Check(tt.out, tt.inputs...)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Check(%q, %q) = %v, want nil", tt.out, tt.inputs, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrConflict)):
			t.Errorf("Check(%q, %q) = %v, want an ErrConflict saying %q", tt.out, tt.inputs, err, tt.want)
		}
	}
}
