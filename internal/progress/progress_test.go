package progress

import (
	"bytes"
	"testing"
	"time"
)

// TestPlainLines checks that, off a terminal, progress is a plain line
// at most every few seconds and never a redrawn bar.
func TestPlainLines(t *testing.T) {
	var b bytes.Buffer
	pr := New(&b)
	pr.Start("evaluating", 200)
	pr.Update(10, 200)
	if b.Len() != 0 {
		t.Fatalf("printed %q at once, want nothing until a few seconds have passed", b.String())
	}
	pr.last = pr.last.Add(-6 * time.Second)
	pr.Update(50, 200)
	pr.Update(60, 200)
	pr.Stop()
	if got, want := b.String(), "evaluating: 50/200 (25%)\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}
