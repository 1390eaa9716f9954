package avoid

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// A Row sums the runs of one bug of one testbed over the seeds.
type Row struct {
	Testbed string
	Bug     string // "" for the bug-free runs
	Seeds   int
	// Per mode: runs with a violation, violations, progress per 1,000
	// events (the mean over the seeds), runs that made no progress,
	// seconds per run.
	Manifest, Violations, Stalled map[Mode]int
	PerKilo, Seconds              map[Mode]float64
}

// Rows sums runs, as RunAll returns them, by testbed and bug.
func Rows(runs []*Run) []*Row {
	var rows []*Row
	for _, r := range runs {
		i := slices.IndexFunc(rows, func(w *Row) bool { return w.Testbed == r.Testbed && w.Bug == r.Bug })
		if i < 0 {
			rows = append(rows, &Row{Testbed: r.Testbed, Bug: r.Bug, Manifest: map[Mode]int{}, Violations: map[Mode]int{},
				Stalled: map[Mode]int{}, PerKilo: map[Mode]float64{}, Seconds: map[Mode]float64{}})
			i = len(rows) - 1
		}
		w := rows[i]
		if r.Mode == Plain {
			w.Seeds++
		}
		if r.Violations > 0 {
			w.Manifest[r.Mode]++
		}
		if r.Progress == 0 {
			w.Stalled[r.Mode]++
		}
		w.Violations[r.Mode] += r.Violations
		w.PerKilo[r.Mode] += r.PerKilo()
		w.Seconds[r.Mode] += r.Seconds
	}
	for _, w := range rows {
		for m := range w.PerKilo {
			w.PerKilo[m] /= float64(w.Seeds)
			w.Seconds[m] /= float64(w.Seeds)
		}
	}
	return rows
}

// Avoided returns the share of the plain runs' violations that mode m
// avoided, and false when the plain runs had none or m did not run.
func (w *Row) Avoided(m Mode) (float64, bool) {
	if _, ran := w.PerKilo[m]; !ran || w.Violations[Plain] == 0 {
		return 0, false
	}
	return 1 - float64(w.Violations[m])/float64(w.Violations[Plain]), true
}

// Loss returns the share of the plain runs' progress that mode m lost.
func (w *Row) Loss(m Mode) (float64, bool) {
	if _, ran := w.PerKilo[m]; !ran || w.PerKilo[Plain] == 0 {
		return 0, false
	}
	return 1 - w.PerKilo[m]/w.PerKilo[Plain], true
}

// Targets of steering with the hand-written checks, over the bugs.
const (
	TargetMeanAvoided = 0.7
	TargetMinAvoided  = 0.5
	TargetMaxLoss     = 0.1
)

// WriteText writes the table of rows: per bug, the violations (and the
// runs with one) of each mode that ran, the share each mode avoided, the
// progress per 1,000 events and the share steering and the promoted
// checks lost, and whether every steered run made progress; then the
// mean avoided share over the bugs.
func WriteText(w io.Writer, rows []*Row) error {
	var modes []Mode
	for m := Plain; int(m) < len(modeNames); m++ {
		if slices.ContainsFunc(rows, func(r *Row) bool { _, ran := r.PerKilo[m]; return ran }) {
			modes = append(modes, m)
		}
	}
	// The modes whose cost is measured: those bug-free runs are made in.
	costly := slices.DeleteFunc(slices.Clone(modes), func(m Mode) bool { return m == Plain || m == Guard || m == Predict })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "testbed\tbug\tseeds")
	for _, m := range modes {
		fmt.Fprintf(tw, "\t%s", m)
	}
	for _, m := range modes[1:] {
		fmt.Fprintf(tw, "\tavoided %s", m)
	}
	fmt.Fprint(tw, "\tprogress/1k plain")
	for _, m := range costly {
		fmt.Fprintf(tw, "\t%s\tloss", m)
	}
	fmt.Fprint(tw, "\tlive\ts/run plain\tsteer\n")
	sums := map[Mode]float64{}
	bugs := 0
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d", r.Testbed, cmp.Or(r.Bug, "none"), r.Seeds)
		for _, m := range modes {
			if _, ran := r.PerKilo[m]; !ran {
				fmt.Fprint(tw, "\t-")
				continue
			}
			fmt.Fprintf(tw, "\t%d (%d runs)", r.Violations[m], r.Manifest[m])
		}
		for _, m := range modes[1:] {
			a, ok := r.Avoided(m)
			if !ok {
				fmt.Fprint(tw, "\t-")
				continue
			}
			fmt.Fprintf(tw, "\t%.0f%%", 100*a)
			sums[m] += a
		}
		if r.Bug != "" && r.Violations[Plain] > 0 {
			bugs++
		}
		fmt.Fprintf(tw, "\t%s", perKilo(r, Plain))
		for _, m := range costly {
			fmt.Fprintf(tw, "\t%s\t%s", perKilo(r, m), loss(r, m))
		}
		// Live: no steered run, nor one guarded by promoted checks,
		// stalled where the plain ones did not.
		live := "yes"
		for _, m := range []Mode{Steer, Predict, SteerPromote, GuardPromote} {
			if _, ran := r.PerKilo[m]; ran && r.Stalled[m] > r.Stalled[Plain] {
				live = fmt.Sprintf("no (%s: %d runs stalled)", m, r.Stalled[m])
			}
		}
		fmt.Fprintf(tw, "\t%s\t%.1f\t%.1f\n", live, r.Seconds[Plain], r.Seconds[Steer])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if bugs > 0 {
		fmt.Fprintf(w, "mean avoided over %d bugs that manifested:", bugs)
		for _, m := range modes[1:] {
			fmt.Fprintf(w, " %s %.0f%%", m, 100*sums[m]/float64(bugs))
		}
		fmt.Fprintln(w)
	}
	return nil
}

func perKilo(r *Row, m Mode) string {
	if _, ran := r.PerKilo[m]; !ran {
		return "-"
	}
	return fmt.Sprintf("%.1f", r.PerKilo[m])
}

func loss(r *Row, m Mode) string {
	l, ok := r.Loss(m)
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*l)
}

// WriteJSON writes the runs as a JSON array.
func WriteJSON(w io.Writer, runs []*Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(runs)
}

// Met reports whether steering with the hand-written checks meets the
// targets over rows: TargetMeanAvoided on average over the bugs that
// manifested, above TargetMinAvoided of each, and no more than
// TargetMaxLoss of the progress lost on any row.
func Met(rows []*Row) bool {
	var sum float64
	n := 0
	for _, r := range rows {
		if l, ok := r.Loss(Steer); ok && l > TargetMaxLoss {
			return false
		}
		if a, ok := r.Avoided(Steer); ok && r.Bug != "" {
			if a <= TargetMinAvoided {
				return false
			}
			sum += a
			n++
		}
	}
	return n == 0 || sum/float64(n) >= TargetMeanAvoided
}
