package bugs

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Figures are the scores of a set of runs, plain or with baseline.
type Figures struct {
	Runs     int `json:"runs"`     // bug runs where the bug manifested
	Visible  int `json:"visible"`  // of those, where some entry of the whole report is relevant
	Recalled int `json:"recalled"` // of those, with a relevant entry in the top TopK
	// First counts the runs whose first relevant entry is within the
	// top TopFirst.
	First     int     `json:"first"`
	Precision float64 `json:"precision"` // mean over the runs where the bug manifested
}

// Recall is the share of the visible runs recalled.
func (f Figures) Recall() float64 { return share(f.Recalled, f.Visible) }

// FirstShare is the share of the visible runs whose first relevant
// entry is within the top TopFirst.
func (f Figures) FirstShare() float64 { return share(f.First, f.Visible) }

// VisibleShare is the share of the runs where the bug manifested that
// are visible.
func (f Figures) VisibleShare() float64 { return share(f.Visible, f.Runs) }

func share(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Pass reports whether f meets the targets.
func (f Figures) Pass() bool {
	return f.Recall() >= TargetRecall && f.FirstShare() >= TargetFirst && f.VisibleShare() >= TargetVisible
}

// Figures returns the figures of the bug runs where the bug manifested,
// plain and with baseline.
func (s *Summary) Figures() (plain, baseline Figures) { return figures(s.Runs) }

// figures returns the figures of the bug runs of rs where the bug
// manifested, plain and with baseline.
func figures(rs []*Result) (plain, baseline Figures) {
	for _, r := range rs {
		if r.Bug == "" || !r.Manifested() {
			continue
		}
		add(&plain, r.Plain, r.Visible)
		if r.Baseline != nil {
			add(&baseline, *r.Baseline, r.BaselineVisible)
		}
	}
	for _, f := range []*Figures{&plain, &baseline} {
		if f.Runs > 0 {
			f.Precision /= float64(f.Runs)
		}
	}
	return plain, baseline
}

// add adds the run scored s to f, summing precisions.
func add(f *Figures, s Score, visible bool) {
	f.Runs++
	if visible {
		f.Visible++
	}
	if s.Recalled() {
		f.Recalled++
	}
	if first := s.FirstAny(); first > 0 && first <= TopFirst {
		f.First++
	}
	f.Precision += s.Precision()
}

// MaxSteady is the most almost-invariants failing in steady state that a
// bug-free run reports.
func (s *Summary) MaxSteady() int {
	m := 0
	for _, r := range s.Runs {
		if r.Bug == "" {
			m = max(m, r.Plain.Steady)
		}
	}
	return m
}

// Pass reports whether augur infer with the baseline meets the targets.
func (s *Summary) Pass() bool {
	_, base := s.Figures()
	return base.Pass() && s.MaxSteady() <= MaxBugFreeSteady
}

// WriteJSON writes the summary as JSON.
func (s *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteText writes a line per testbed and bug with, over the seeds, the
// runs where the bug manifested and where it was visible, recall, mean
// precision and the rank of the first relevant entry of each run, plain
// and with baseline; then, for each testbed, the almost-invariants its
// bug-free runs report that fail in steady state; and a summary per
// report kind.
func (s *Summary) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "testbed\tbug\tmanifested\tvisible\trecall\tprecision\tfirst relevant\tbaseline: visible\trecall\tprecision\tfirst relevant\t")
	var free []string
	for _, g := range s.groups() {
		if g.bug == "" {
			steady := make([]string, len(g.runs))
			for i, r := range g.runs {
				steady[i] = strconv.Itoa(r.Plain.Steady)
			}
			free = append(free, g.testbed+" "+strings.Join(steady, " "))
			continue
		}
		plain, base := figures(g.runs)
		var ranks, branks []string
		for _, r := range g.runs {
			if !r.Manifested() {
				continue
			}
			ranks = append(ranks, rank(r.Plain.First))
			if r.Baseline != nil {
				branks = append(branks, rank(r.Baseline.FirstAny()))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d of %d\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t\n", g.testbed, g.bug, plain.Runs, len(g.runs), plain.Visible,
			ratio(plain.Recalled, plain.Visible), mean(plain), strings.Join(ranks, " "),
			base.Visible, ratio(base.Recalled, base.Visible), mean(base), strings.Join(branks, " "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(free) > 0 {
		fmt.Fprintf(w, "bug-free runs, almost-invariants reported that fail in steady state: %s\n", strings.Join(free, "; "))
	}
	plain, base := s.Figures()
	verdict := "PASS"
	if !s.Pass() {
		verdict = "FAIL"
	}
	reused := ""
	if s.Reused > 0 {
		reused = fmt.Sprintf(" (%d from kept stats)", s.Reused)
	}
	if s.InitSpec {
		reused += " with the specs of augur spec init"
	}
	fmt.Fprintf(w, "%s: %d runs%s in %s; bug-free runs report at most %d steady almost-invariants (target %d)\n",
		verdict, len(s.Runs), reused, s.Elapsed.Round(time.Second), s.MaxSteady(), MaxBugFreeSteady)
	for _, f := range []struct {
		name string
		Figures
	}{{"plain", plain}, {"baseline", base}} {
		fmt.Fprintf(w, "  %s: visible %d/%d (%.0f%%), recall %d/%d visible (%.0f%%), first relevant within the top %d %d/%d (%.0f%%), precision %.0f%%\n",
			f.name, f.Visible, f.Runs, 100*f.VisibleShare(), f.Recalled, f.Visible, 100*f.Recall(), TopFirst, f.First, f.Visible, 100*f.FirstShare(), 100*f.Precision)
	}
	_, err := fmt.Fprintf(w, "  targets, with the baseline: visible %.0f%%, recall %.0f%%, first relevant within the top %d %.0f%%; precision is reported, not a target\n",
		100*TargetVisible, 100*TargetRecall, TopFirst, 100*TargetFirst)
	return err
}

// group is the runs of one testbed and bug, over the seeds.
type group struct {
	testbed, bug string
	runs         []*Result
}

// groups returns the runs by testbed and bug, in the order of their
// first run.
func (s *Summary) groups() []*group {
	var gs []*group
	at := map[[2]string]*group{}
	for _, r := range s.Runs {
		k := [2]string{r.Testbed, r.Bug}
		g := at[k]
		if g == nil {
			g = &group{testbed: r.Testbed, bug: r.Bug}
			at[k] = g
			gs = append(gs, g)
		}
		g.runs = append(g.runs, r)
	}
	return gs
}

func rank(first int) string {
	if first == 0 {
		return "-"
	}
	return strconv.Itoa(first)
}

func ratio(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", a, b)
}

// mean formats the mean precision of f, - when it has no runs.
func mean(f Figures) string {
	if f.Runs == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*f.Precision)
}
