package planted

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/internal/safefile"
	"github.com/augur-dev/augur/pipeline"
)

// The targets of the benchmark: every planted property represents its
// anomaly within the top planted+2 entries in at least TargetRecall of
// the systems with planted properties, and no control reports more than
// MaxControlSteady almost-invariants that fail in steady state.
const (
	TargetRecall     = 0.95
	MaxControlSteady = 2
)

// Seed ranges. Tune on the development seeds, FirstDevSeed to
// LastDevSeed; report the held-out seeds, from FirstHeldOutSeed on, and
// never tune on them.
const (
	FirstDevSeed     = 1
	LastDevSeed      = 1000
	FirstHeldOutSeed = 1_000_001
)

// maxSeeds bounds the seeds of one run.
const maxSeeds = 100_000

// ParseSeeds returns the seeds named by s: n seeds from FirstDevSeed
// ("dev") or FirstHeldOutSeed ("heldout"), or the range "A-B", whatever
// n.
func ParseSeeds(s string, n int) ([]int64, error) {
	var lo, hi int64
	switch s {
	case "dev", "heldout":
		lo = FirstDevSeed
		if s == "heldout" {
			lo = FirstHeldOutSeed
		}
		hi = lo + int64(n) - 1
		switch {
		case n < 1:
			return nil, fmt.Errorf("planted: %d systems: want at least 1", n)
		case s == "dev" && hi > LastDevSeed:
			return nil, fmt.Errorf("planted: %d development seeds asked for; there are %d", n, LastDevSeed-FirstDevSeed+1)
		}
	default:
		a, b, ok := strings.Cut(s, "-")
		var err1, err2 error
		lo, err1 = strconv.ParseInt(a, 10, 64)
		hi, err2 = strconv.ParseInt(b, 10, 64)
		if !ok || err1 != nil || err2 != nil || lo < 1 || hi < lo {
			return nil, fmt.Errorf("planted: seeds %q: want dev, heldout or a range A-B of positive seeds", s)
		}
	}
	if hi-lo >= maxSeeds {
		return nil, fmt.Errorf("planted: seeds %d-%d: more than %d", lo, hi, maxSeeds)
	}
	seeds := make([]int64, 0, hi-lo+1)
	for x := lo; x <= hi; x++ {
		seeds = append(seeds, x)
	}
	return seeds, nil
}

// RunOptions configure Run.
type RunOptions struct {
	Generate  Options
	Evaluator evaluator.Kind
	Workers   int // 0: every CPU
	// Keep, if set, is a directory where each system's spec, trace and
	// JSON report stay, in a subdirectory named for its seed.
	Keep string
	// Progress, if set, is called after each system.
	Progress func(done, total int, sc *Result)
}

// Summary is the outcome of a benchmark run.
type Summary struct {
	Seeds   []int64       `json:"seeds"`
	Systems []*Result     `json:"systems"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// Run generates the system of each seed, writes its spec and trace to a
// temporary directory, infers its report with package pipeline and
// scores it. Systems run one after another: evaluation already uses
// every core.
func Run(ctx context.Context, seeds []int64, o RunOptions) (*Summary, error) {
	tmp := o.Keep
	if tmp == "" {
		dir, err := os.MkdirTemp("", "augur-quality-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		tmp = dir
	}
	sum := &Summary{Seeds: seeds}
	start := time.Now()
	for i, seed := range seeds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sc, err := runOne(ctx, seed, filepath.Join(tmp, strconv.FormatInt(seed, 10)), o)
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", seed, err)
		}
		sum.Systems = append(sum.Systems, sc)
		if o.Progress != nil {
			o.Progress(i+1, len(seeds), sc)
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

func runOne(ctx context.Context, seed int64, dir string, o RunOptions) (*Result, error) {
	start := time.Now()
	sys, err := Generate(seed, o.Generate)
	if err != nil {
		return nil, err
	}
	if o.Keep == "" {
		defer os.RemoveAll(dir)
	} else if err := os.RemoveAll(dir); err != nil { // a kept system of an earlier run
		return nil, err
	}
	spec, tr := filepath.Join(dir, "spec.yaml"), filepath.Join(dir, "run.trace")
	if err := sys.WriteSpec(spec); err != nil {
		return nil, err
	}
	if err := sys.WriteTrace(tr); err != nil {
		return nil, err
	}
	rep, err := pipeline.Infer(ctx, spec, tr, pipeline.Options{Evaluator: o.Evaluator, Workers: o.Workers})
	if err != nil {
		return nil, err
	}
	if o.Keep != "" {
		if err := safefile.Write(filepath.Join(dir, "report.json"), 0o644, func(w io.Writer) error { return rep.Write(w, "json") }); err != nil {
			return nil, err
		}
	}
	sc, err := Score(rep, sys)
	if err != nil {
		return nil, err
	}
	sc.Elapsed = time.Since(start)
	return sc, nil
}

// ShapeRecall counts, for each shape, the planted properties found within
// the top K of their system and all of them.
func (s *Summary) ShapeRecall() map[Shape][2]int {
	out := map[Shape][2]int{}
	for _, sc := range s.Systems {
		for i := range sc.Planted {
			r := &sc.Planted[i]
			c := out[r.Shape]
			if r.Found(sc.K) {
				c[0]++
			}
			c[1]++
			out[r.Shape] = c
		}
	}
	return out
}

// Recall counts the systems with planted properties whose every planted
// property is within the top K, and those systems.
func (s *Summary) Recall() (recalled, systems int) {
	for _, sc := range s.Systems {
		if !sc.Control {
			systems++
			if sc.Recalled() {
				recalled++
			}
		}
	}
	return recalled, systems
}

// Controls counts the controls that report at most MaxControlSteady
// almost-invariants failing in steady state, and the controls.
func (s *Summary) Controls() (within, controls int) {
	for _, sc := range s.Systems {
		if sc.Control {
			controls++
			if sc.Steady <= MaxControlSteady {
				within++
			}
		}
	}
	return within, controls
}

// Pass reports whether the run meets the targets.
func (s *Summary) Pass() bool {
	recalled, systems := s.Recall()
	within, controls := s.Controls()
	return float64(recalled) >= TargetRecall*float64(systems) && within == controls
}

// WriteJSON writes the summary as JSON.
func (s *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteText writes, per system, the rank of each planted property (and
// the rank of the entry it is folded under, if any), the noise and, for
// the controls, the almost-invariants that fail in steady state; then
// recall per shape and a one-line summary.
func (s *Summary) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "seed\tnodes\tsnapshots\tK\tshape\tplanted\tviolations\trank\tnoise\tsteady AI\t")
	for _, sc := range s.Systems {
		head := fmt.Sprintf("%d\t%d\t%d\t%d", sc.Seed, sc.Nodes, sc.Snapshots, sc.K)
		if sc.Control {
			fmt.Fprintf(tw, "%d\t%d\t%d\t-\tcontrol\t\t\t\t%d\t%d\t\n", sc.Seed, sc.Nodes, sc.Snapshots, sc.Noise, sc.Steady)
			continue
		}
		for i, r := range sc.Planted {
			rank := "-"
			if r.Rank > 0 {
				rank = strconv.Itoa(r.Rank)
			}
			if r.Under > 0 && r.Rank == 0 {
				rank += fmt.Sprintf(" (under %d)", r.Under)
			}
			if !r.Found(sc.K) {
				rank += " ✗"
			}
			noise := ""
			if i == 0 {
				noise = strconv.Itoa(sc.Noise)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d (%d steady)\t%s\t%s\t\t\n", head, r.Shape, r.Name, len(r.Snapshots), r.Steady, rank, noise)
			head = "\t\t\t"
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	shapes := s.ShapeRecall()
	var parts []string
	fmt.Fprintln(w, "\nrecall@K per shape (planted properties within the top planted+2 of their system):")
	for _, sh := range Shapes() {
		c := shapes[sh]
		fmt.Fprintf(w, "  %-4s %3d/%-3d %s\n", sh, c[0], c[1], percent(c[0], c[1]))
		parts = append(parts, fmt.Sprintf("%s %d/%d", sh, c[0], c[1]))
	}
	within, controls := s.Controls()
	var steady []string
	for _, sc := range s.Systems {
		if sc.Control {
			steady = append(steady, strconv.Itoa(sc.Steady))
		}
	}
	if controls > 0 {
		fmt.Fprintf(w, "controls: almost-invariants failing in steady state: %s (at most %d each: %d of %d)\n",
			strings.Join(steady, " "), MaxControlSteady, within, controls)
	}
	recalled, systems := s.Recall()
	verdict := "PASS"
	if !s.Pass() {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s: %d systems in %s; every planted property in the top K in %d of %d (%s, target %.0f%%); per shape %s; median noise %d; controls within %d steady: %d of %d\n",
		verdict, len(s.Systems), s.Elapsed.Round(100*time.Millisecond), recalled, systems, percent(recalled, systems), 100*TargetRecall,
		strings.Join(parts, ", "), s.medianNoise(), MaxControlSteady, within, controls)
	return nil
}

// medianNoise is the median noise of the systems with planted properties.
func (s *Summary) medianNoise() int {
	var ns []int
	for _, sc := range s.Systems {
		if !sc.Control {
			ns = append(ns, sc.Noise)
		}
	}
	if len(ns) == 0 {
		return 0
	}
	slices.Sort(ns)
	return ns[len(ns)/2]
}

func percent(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
}
