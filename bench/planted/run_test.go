package planted

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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

// TestRunKeep checks that a kept system replaces an earlier one whole:
// a run that fails (here, interrupted before inferring) leaves the
// earlier one as it was, and a report kept names the files where they
// are kept.
func TestRunKeep(t *testing.T) {
	keep := t.TempDir()
	dir := filepath.Join(keep, "3")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	earlier := filepath.Join(dir, "report.json")
	if err := os.WriteFile(earlier, []byte("earlier"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := RunOptions{Generate: Options{MaxNodes: 5, MinSnapshots: 600, MaxSnapshots: 700}, Keep: keep}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := runOne(ctx, 3, dir, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: error %v", err)
	}
	entries, _ := os.ReadDir(keep)
	if data, _ := os.ReadFile(earlier); string(data) != "earlier" || len(entries) != 1 {
		t.Fatalf("after an interrupted run, report.json is %q and the kept directory holds %d entries; want it as it was", data, len(entries))
	}
	if _, err := runOne(context.Background(), 3, dir, o); err != nil {
		t.Fatal(err)
	}
	var rep struct{ Spec, Trace string }
	data, err := os.ReadFile(earlier)
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err != nil {
		t.Fatal(err)
	}
	if rep.Spec != filepath.Join(dir, "spec.yaml") || rep.Trace != filepath.Join(dir, "run.trace") {
		t.Errorf("the kept report names spec %s and trace %s, not the kept files", rep.Spec, rep.Trace)
	}
	if entries, _ := os.ReadDir(keep); len(entries) != 1 {
		t.Errorf("temporary directories left: %v", entries)
	}
}
