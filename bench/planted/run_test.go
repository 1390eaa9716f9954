package planted

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

// TestRun runs a small benchmark of one family: it must run and score,
// whatever the reporter's quality.
func TestRun(t *testing.T) {
	seeds := []int64{1, 2, 3, 4, 5, 6, 7, 8}
	done := 0
	sum, err := Run(context.Background(), seeds, RunOptions{
		Generate: Options{MaxNodes: 7, MinSnapshots: 600, MaxSnapshots: 800},
		Families: []Family{ReplicatedLog},
		Progress: func(n, total int, _ *Result) { done = n },
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := seedsOf(ReplicatedLog, 2); !slices.Equal(sum.Seeds, want) || done != len(want) || len(sum.Systems) != len(want) {
		t.Fatalf("seeds %v, %d systems done, %d scored; want seeds %v", sum.Seeds, done, len(sum.Systems), want)
	}
	for _, sc := range sum.Systems {
		if sc.Reported == 0 || sc.K != len(sc.Planted)+2 || sc.Family != ReplicatedLog {
			t.Errorf("seed %d: %d reported, K %d for %d planted, family %s", sc.Seed, sc.Reported, sc.K, len(sc.Planted), sc.Family)
		}
	}
	var text, js bytes.Buffer
	if err := sum.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(text.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "PASS: 2 systems (short)") && !strings.HasPrefix(last, "FAIL: 2 systems (short)") {
		t.Errorf("last line %q", last)
	}
	if err := sum.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"family": "log"`, `"families": [`, `"scores": {`, `"length": "short"`, `"strikes": `} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("JSON without %s:\n%s", want, js.String())
		}
	}
}
