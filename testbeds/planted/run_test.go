package planted

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRun runs a small benchmark: it must run and score, whatever the
// reporter's quality.
func TestRun(t *testing.T) {
	seeds := []int64{1, 2, 3, 4}
	done := 0
	sum, err := Run(context.Background(), seeds, RunOptions{
		Generate: Options{MaxNodes: 7, MinSnapshots: 600, MaxSnapshots: 800},
		Progress: func(n, total int, _ *Result) { done = n },
	})
	if err != nil {
		t.Fatal(err)
	}
	if done != len(seeds) || len(sum.Systems) != len(seeds) {
		t.Fatalf("%d systems done, %d scored", done, len(sum.Systems))
	}
	for _, sc := range sum.Systems {
		if sc.Reported == 0 || sc.K != len(sc.Planted)+2 {
			t.Errorf("seed %d: %d reported, K %d for %d planted", sc.Seed, sc.Reported, sc.K, len(sc.Planted))
		}
	}
	var text, js bytes.Buffer
	if err := sum.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(text.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "PASS: 4 systems") && !strings.HasPrefix(last, "FAIL: 4 systems") {
		t.Errorf("last line %q", last)
	}
	if err := sum.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"shape": "`) {
		t.Errorf("JSON %v:\n%s", err, js.String())
	}
}
