package bugs

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/augur-dev/augur/reporter"
)

func TestParseSeeds(t *testing.T) {
	tests := []struct {
		in   string
		want []uint64
		err  string
	}{
		{"dev", DevSeeds, ""},
		{"heldout", HeldOutSeeds, ""},
		{"3-5", []uint64{3, 4, 5}, ""},
		{"7-7", []uint64{7}, ""},
		{"5-3", nil, "want dev, heldout or a range"},
		{"0-3", nil, "want dev, heldout or a range"},
		{"x", nil, "want dev, heldout or a range"},
		{"1-5000", nil, "more than 1000"},
	}
	for _, tt := range tests {
		got, err := ParseSeeds(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseSeeds(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseSeeds(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	if len(DevSeeds) != 10 || DevSeeds[0] != 1 || HeldOutSeeds[0] != 41 || HeldOutSeeds[9] != 50 {
		t.Errorf("seed ranges: dev %v, held-out %v; want 1-10 and 41-50", DevSeeds, HeldOutSeeds)
	}
}

// entry returns a reported almost-invariant failing at v snapshots, of
// which tagged carry the bug's tag and steady are in steady state.
func entry(v, tagged, steady int64) *reporter.Entry {
	return &reporter.Entry{
		ViolatingSnapshots:       v,
		ViolatingTags:            map[string]int64{"bug:b": tagged},
		SteadyViolatingSnapshots: steady,
	}
}

func TestScore(t *testing.T) {
	many := make([]*reporter.Entry, 12)
	for i := range many {
		many[i] = entry(4, 0, 1)
	}
	many[11] = entry(4, 4, 0) // relevant, but below the top 10
	tests := []struct {
		name    string
		entries []*reporter.Entry
		tag     string
		want    Score
		prec    float64
	}{
		{"empty", nil, "bug:b", Score{}, 0},
		{
			// A relevant entry needs most of its violating snapshots
			// tagged: 2 of 4 is not most, 3 of 4 is.
			"majority", []*reporter.Entry{entry(4, 2, 0), entry(4, 3, 2), entry(10, 0, 10)}, "bug:b",
			Score{Reported: 3, Relevant: 1, First: 2, Steady: 2}, 1.0 / 3,
		},
		{"top 10 only", many, "bug:b", Score{Reported: 10, Relevant: 0, First: 12, Steady: 10}, 0},
		{"bug-free", []*reporter.Entry{entry(4, 4, 1), entry(2, 0, 0)}, "", Score{Reported: 2, Steady: 1}, 0},
	}
	for _, tt := range tests {
		got := score(&reporter.Report{AlmostInvariants: tt.entries}, tt.tag)
		if got != tt.want || got.Precision() != tt.prec {
			t.Errorf("%s: score = %+v, precision %v; want %+v, %v", tt.name, got, got.Precision(), tt.want, tt.prec)
		}
	}
}

func TestFigures(t *testing.T) {
	s := &Summary{Runs: []*Result{
		{Testbed: "t", Seed: 1, Plain: Score{Reported: 10, Steady: 6}},
		{Testbed: "t", Bug: "b", Seed: 1, Tagged: 31, Plain: Score{Reported: 10, Relevant: 5, First: 1}, Baseline: &Score{Reported: 4, Relevant: 4, First: 1}, Visible: true, BaselineVisible: true},
		{Testbed: "t", Bug: "b", Seed: 2, Tagged: 0}, // not manifested: not scored
		// Visible with the baseline only, in its section of broken
		// invariants, where a relevant entry ranks 2.
		{Testbed: "t", Bug: "c", Seed: 1, Tagged: 3, Plain: Score{Reported: 10}, Baseline: &Score{Reported: 10, Relevant: 1, First: 7, BrokenRelevant: 1, BrokenFirst: 2}, BaselineVisible: true},
	}}
	plain, base := s.Figures()
	if want := (Figures{Runs: 2, Visible: 1, Recalled: 1, First: 1, Precision: 0.25}); plain != want {
		t.Errorf("plain figures %+v, want %+v", plain, want)
	}
	if want := (Figures{Runs: 2, Visible: 2, Recalled: 2, First: 2, Precision: 0.55}); base != want {
		t.Errorf("baseline figures %+v, want %+v", base, want)
	}
	if !base.Pass() || plain.Pass() {
		t.Errorf("baseline passes %v, plain %v; want true, false (plain: visible 1 of 2)", base.Pass(), plain.Pass())
	}
	if s.MaxSteady() != 6 || s.Pass() {
		t.Errorf("max steady %d, pass %v; want 6, false", s.MaxSteady(), s.Pass())
	}
	var b strings.Builder
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 of 2", "steady state: t 6", "FAIL: 4 runs", "at most 6 steady almost-invariants (target 5)",
		"plain: visible 1/2 (50%), recall 1/1 visible (100%), first relevant within the top 3 1/1 (100%), precision 25%",
		"baseline: visible 2/2 (100%), recall 2/2 visible (100%), first relevant within the top 3 2/2 (100%), precision 55%"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
}

// TestScoreBroken checks that a relevant broken invariant of the baseline
// counts towards recall, and its rank towards the first relevant one.
func TestScoreBroken(t *testing.T) {
	rel := &reporter.Entry{ViolatingSnapshots: 900, ViolatingTags: map[string]int64{"bug:b": 900}}
	other := &reporter.Entry{ViolatingSnapshots: 4}
	rep := &reporter.Report{AlmostInvariants: []*reporter.Entry{other, other, other, other}, BrokenInvariants: []*reporter.Entry{other, rel}}
	got := score(rep, "bug:b")
	if want := (Score{Reported: 4, BrokenRelevant: 1, BrokenFirst: 2}); got != want {
		t.Errorf("score = %+v, want %+v", got, want)
	}
	if !got.Recalled() || got.FirstAny() != 2 {
		t.Errorf("recalled %v, first %d; want true, 2", got.Recalled(), got.FirstAny())
	}
}

// TestRun runs one small testbed for one seed: a bug-free run and one
// run per bug, each with its reports kept.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a testbed")
	}
	keep := t.TempDir()
	var progress []int
	sum, err := Run(context.Background(), Options{
		Seeds: []uint64{1}, Testbeds: []string{"randtree"}, Steps: 3000, Keep: keep,
		Progress: func(done, total int) { progress = append(progress, done, total) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Runs) != 3 || !slices.Equal(progress, []int{1, 3, 2, 3, 3, 3}) {
		t.Fatalf("%d runs, progress %v; want 3 runs, progress 1/3 2/3 3/3", len(sum.Runs), progress)
	}
	for _, r := range sum.Runs {
		name := r.Testbed + "-" + r.Bug + "-1"
		if r.Bug == "" {
			name = r.Testbed + "-none-1"
			if r.Baseline != nil {
				t.Errorf("bug-free run %s has a baseline score", name)
			}
		} else if r.Manifested() && r.Baseline == nil {
			t.Errorf("%s: no baseline score", name)
		}
		if !r.Manifested() {
			continue
		}
		if r.Bug != "" && r.Plain.Relevant > 0 && !r.Visible {
			t.Errorf("%s: a relevant almost-invariant reported, but the run is not visible", name)
		}
		if r.Plain.Reported == 0 || r.Plain.Reported > TopK {
			t.Errorf("%s: %d reported; want 1 to %d", name, r.Plain.Reported, TopK)
		}
		rep, err := reporter.ReadFile(filepath.Join(keep, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		tag := ""
		if r.Bug != "" {
			tag = "bug:" + r.Bug
		}
		// The kept report holds the top of each list: a first relevant
		// entry below it is one the kept report cannot see.
		want := r.Plain
		if want.First > len(rep.AlmostInvariants) {
			want.First = 0
		}
		if want.BrokenFirst > len(rep.BrokenInvariants) {
			want.BrokenFirst = 0
		}
		if got := score(rep, tag); got != want {
			t.Errorf("%s: kept report scores %+v, run scored %+v", name, got, r.Plain)
		}
	}
	if _, err := os.Stat(filepath.Join(keep, "randtree-stale-child-1.trace")); err != nil {
		t.Errorf("kept trace: %v", err)
	}
}

// TestReuse runs one small testbed twice with its stats kept: the second
// time every evaluated run is reported from its kept stats, with the same
// scores and byte-identical reports; stats that do not fit (a damaged
// file, another trace) are computed again.
func TestReuse(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a testbed")
	}
	dir := t.TempDir()
	o := Options{Seeds: []uint64{1}, Testbeds: []string{"randtree"}, Steps: 3000, Keep: dir, Reuse: true}
	first, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	evaluated := 0
	reports := map[string][]byte{}
	for _, r := range first.Runs {
		if !r.Manifested() {
			continue
		}
		evaluated++
		for _, suffix := range []string{".json", "-baseline.json"} {
			name := fmt.Sprintf("%s-%s-1%s", r.Testbed, cmp.Or(r.Bug, "none"), suffix)
			if data, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
				reports[name] = data
			}
		}
	}
	if first.Reused != 0 || evaluated < 2 || len(reports) < 3 {
		t.Fatalf("first run: %d reused, %d evaluated, %d reports kept; want 0, at least 2 and 3", first.Reused, evaluated, len(reports))
	}
	second, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if second.Reused != evaluated {
		t.Errorf("second run: %d reused; want %d", second.Reused, evaluated)
	}
	for i, r := range second.Runs {
		f := first.Runs[i]
		if r.Plain != f.Plain || (r.Baseline == nil) != (f.Baseline == nil) || r.Baseline != nil && *r.Baseline != *f.Baseline {
			t.Errorf("%s %s: reused scores %+v %v, first %+v %v", r.Testbed, r.Bug, r.Plain, r.Baseline, f.Plain, f.Baseline)
		}
	}
	for name, want := range reports {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs when built from kept stats", name)
		}
	}

	// A damaged stats file is computed again, and so are the stats of
	// another trace (a longer run of the same seed).
	if err := os.WriteFile(filepath.Join(dir, "randtree-none-1.stats.arrow"), []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	third, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if third.Reused != evaluated-1 {
		t.Errorf("after damaging one stats file: %d reused; want %d", third.Reused, evaluated-1)
	}
	o.Steps = 3100
	fourth, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if fourth.Reused != 0 {
		t.Errorf("other traces: %d reused; want 0", fourth.Reused)
	}
}

// TestRunInitSpec runs one small testbed with the specs augur spec init
// writes from each run's trace: each scored run keeps its spec beside
// the testbed's, its report names it, and relevance, read from the
// snapshots' tags, is scored as with the testbed's spec.
func TestRunInitSpec(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a testbed")
	}
	keep := t.TempDir()
	sum, err := Run(context.Background(), Options{Seeds: []uint64{1}, Testbeds: []string{"randtree"}, Steps: 3000, Keep: keep, InitSpec: true})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.InitSpec || len(sum.Runs) != 3 {
		t.Fatalf("init spec %v, %d runs; want true, 3", sum.InitSpec, len(sum.Runs))
	}
	scored := 0
	for _, r := range sum.Runs {
		if !r.Manifested() {
			continue
		}
		scored++
		name := fmt.Sprintf("%s-%s-1", r.Testbed, cmp.Or(r.Bug, "none"))
		rep, err := reporter.ReadFile(filepath.Join(keep, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(keep, name+".init.yaml"); rep.Spec != want {
			t.Errorf("%s: report of spec %s; want %s", name, rep.Spec, want)
		}
		if r.Plain.Reported == 0 {
			t.Errorf("%s: nothing reported", name)
		}
	}
	if scored < 2 {
		t.Errorf("%d runs scored; want at least 2", scored)
	}
	var text strings.Builder
	if err := sum.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "3 runs with the specs of augur spec init in ") {
		t.Errorf("the verdict does not say the specs were spec init's:\n%s", text.String())
	}
}
