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
	"github.com/augur-dev/augur/internal/shutdown"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/reporter"
	"github.com/augur-dev/augur/specs/spectrace"
)

// The targets of the benchmark, at each length: in every family, every
// planted property represents its anomaly within the top planted+2
// entries in at least TargetRecall of the systems with planted
// properties, and no control reports more than MaxControlSteady
// almost-invariants that fail in steady state.
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

// FilterFamilies returns the seeds of seeds whose systems are of one of
// fams, in order; all of them when fams is empty.
func FilterFamilies(seeds []int64, fams []Family) []int64 {
	if len(fams) == 0 {
		return seeds
	}
	return slices.DeleteFunc(slices.Clone(seeds), func(s int64) bool { return !slices.Contains(fams, familyOf(s)) })
}

// ParseFamilies returns the families of the comma-separated list of
// labels s, in order, each once.
func ParseFamilies(s string) ([]Family, error) {
	var fams []Family
	for label := range strings.SplitSeq(s, ",") {
		f, err := ParseFamily(strings.TrimSpace(label))
		if err != nil {
			return nil, err
		}
		if !slices.Contains(fams, f) {
			fams = append(fams, f)
		}
	}
	return fams, nil
}

// RunOptions configure Run.
type RunOptions struct {
	Generate Options
	// Families are the families to run, the seeds of the others being
	// skipped, and to meet the targets in: nil for all of them.
	Families  []Family
	Evaluator evaluator.Kind
	Workers   int // 0: every CPU
	// Keep, if set, is a directory where each system's spec, trace and
	// JSON report stay, in a subdirectory named for its seed.
	Keep string
	// InitSpec, if set, infers each system's report with the spec augur
	// spec init writes from its trace ([spectrace.InitFile]), unedited
	// (kept as init.yaml), instead of the system's own: the planted
	// properties are scored by the same texts, since spec init names the
	// variables after the trace's columns, which the system's spec names.
	InitSpec bool
	// GoodRuns, if not 0, infers each report with that many good runs of
	// the system as its baseline (pipeline.Options.Baselines;
	// Options.GoodRuns generates them), kept as good.trace, good2.trace
	// and on: what a user who recorded good runs gets.
	GoodRuns int
	// Progress, if set, is called after each system.
	Progress func(done, total int, sc *Result)
}

// Summary is the outcome of a benchmark run.
type Summary struct {
	Length Length `json:"length"`
	// Families are the families run, each of which must meet the
	// targets.
	Families []Family      `json:"families"`
	Seeds    []int64       `json:"seeds"`
	Systems  []*Result     `json:"systems"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	// InitSpec reports whether the reports were inferred with the specs
	// augur spec init wrote (RunOptions.InitSpec).
	InitSpec bool `json:"init_spec,omitempty"`
	// Baseline reports whether the reports were inferred with good runs
	// of each system as the baseline, and GoodRuns how many
	// (RunOptions.GoodRuns).
	Baseline bool `json:"baseline,omitempty"`
	GoodRuns int  `json:"good_runs,omitempty"`
}

// Run generates the system of each seed of the families asked for,
// writes its spec and trace to a temporary directory, infers its report
// with package pipeline and scores it. Systems run one after another:
// evaluation already uses every core.
func Run(ctx context.Context, seeds []int64, o RunOptions) (*Summary, error) {
	tmp := o.Keep
	if tmp == "" {
		dir, remove, err := shutdown.TempDir("augur-quality-")
		if err != nil {
			return nil, err
		}
		defer remove()
		tmp = dir
	}
	sum := &Summary{Length: o.Generate.Length, Families: o.Families, Seeds: FilterFamilies(seeds, o.Families), InitSpec: o.InitSpec, Baseline: o.GoodRuns > 0, GoodRuns: o.GoodRuns}
	if len(sum.Families) == 0 {
		sum.Families = Families()
	}
	start := time.Now()
	for i, seed := range sum.Seeds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sc, err := runOne(ctx, seed, filepath.Join(tmp, strconv.FormatInt(seed, 10)), o)
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", seed, err)
		}
		sum.Systems = append(sum.Systems, sc)
		if o.Progress != nil {
			o.Progress(i+1, len(sum.Seeds), sc)
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

func runOne(ctx context.Context, seed int64, dir string, o RunOptions) (*Result, error) {
	start := time.Now()
	gen := o.Generate
	gen.GoodRuns = o.GoodRuns
	sys, err := Generate(seed, gen)
	if err != nil {
		return nil, err
	}
	var rep *reporter.Report
	var aparts []Apart
	infer := func(tmp string) error {
		if rep, err = inferOne(ctx, sys, tmp, o); err != nil || o.GoodRuns == 0 {
			return err
		}
		aparts, err = apart(ctx, sys, tmp, o)
		return err
	}
	if o.Keep == "" {
		err = infer(dir)
		os.RemoveAll(dir)
	} else {
		// A kept system is put in place whole, replacing one an earlier
		// run kept, so that an interrupted run leaves whole systems only.
		err = safefile.WriteDir(dir, func(tmp string) error {
			if err := infer(tmp); err != nil {
				return err
			}
			rep.Spec, rep.Trace = moved(rep.Spec, tmp, dir), moved(rep.Trace, tmp, dir)
			rep.Baseline = moved(rep.Baseline, tmp, dir)
			return safefile.Write(filepath.Join(tmp, "report.json"), 0o644, func(w io.Writer) error { return rep.Write(w, "json") })
		})
	}
	if err != nil {
		return nil, err
	}
	sc, err := Score(rep, sys)
	if err != nil {
		return nil, err
	}
	for i := range aparts {
		sc.Planted[i].Apart = &aparts[i]
	}
	sc.Elapsed = time.Since(start)
	return sc, nil
}

// inferOne writes the spec and trace of sys into dir, with the spec spec
// init writes and the baseline if o asks for them, and infers its report.
func inferOne(ctx context.Context, sys *System, dir string, o RunOptions) (*reporter.Report, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	spec, tr := filepath.Join(dir, "spec.yaml"), filepath.Join(dir, "run.trace")
	if err := sys.WriteSpec(spec); err != nil {
		return nil, err
	}
	if err := sys.WriteTrace(tr); err != nil {
		return nil, err
	}
	if o.InitSpec {
		spec = filepath.Join(dir, "init.yaml")
		if err := spectrace.InitFile(ctx, tr, spec, nil); err != nil {
			return nil, err
		}
	}
	popts := pipeline.Options{Evaluator: o.Evaluator, Workers: o.Workers}
	for i := range o.GoodRuns {
		good := goodTrace(dir, i)
		if err := sys.WriteGoodRun(i, good); err != nil {
			return nil, err
		}
		popts.Baselines = append(popts.Baselines, good)
	}
	return pipeline.Infer(ctx, spec, tr, popts)
}

// moved is path, once the directory tmp is renamed to dir: the same
// file under dir when path lies in tmp, else path.
func moved(path, tmp, dir string) string {
	rel, err := filepath.Rel(tmp, path)
	if path == "" || err != nil || !filepath.IsLocal(rel) {
		return path
	}
	return filepath.Join(dir, rel)
}

// Tally counts the hits among some cases.
type Tally struct {
	Found int `json:"found"`
	Of    int `json:"of"`
}

func (t *Tally) add(found bool) {
	t.Of++
	if found {
		t.Found++
	}
}

// meets reports whether the share found is at least target.
func (t Tally) meets(target float64) bool { return float64(t.Found) >= target*float64(t.Of) }

// String returns "found/of (share)".
func (t Tally) String() string {
	return fmt.Sprintf("%d/%d (%s)", t.Found, t.Of, percent(t.Found, t.Of))
}

// FamilyScores are the scores of one family's systems.
type FamilyScores struct {
	Family Family `json:"family"`
	// Systems tallies the systems with planted properties, found when
	// every planted property is within the top K.
	Systems Tally `json:"systems"`
	// Shapes tallies the planted properties by shape, found when within
	// the top K of their system.
	Shapes map[Shape]Tally `json:"shapes"`
	// Controls tallies the controls, found when at most MaxControlSteady
	// almost-invariants fail in steady state.
	Controls Tally `json:"controls"`
	// ToldApart, with good runs, tallies Systems over the planted
	// properties the good runs tell apart (Apart.Told): the systems with
	// one, found when every such one is within the top K. It measures
	// the ranking; the target counts Systems.
	ToldApart *Tally `json:"systems_told_apart,omitempty"`
}

// Scores break a run down: per family, and the planted properties by
// how their bug struck.
type Scores struct {
	Families []FamilyScores `json:"families"`
	// Strikes tallies the planted properties by the times their bug
	// struck ("1", "2-4", "5-20"), Legit by whether they also fail at a
	// legitimate moment and Aftermath by whether their bug has one
	// ("yes", "no"), and ToldApart, with good runs, by whether the good
	// runs tell them apart (Apart.Told).
	Strikes   map[string]Tally `json:"strikes"`
	Legit     map[string]Tally `json:"legit"`
	Aftermath map[string]Tally `json:"aftermath"`
	ToldApart map[string]Tally `json:"told_apart,omitempty"`
	Pass      bool             `json:"pass"`
}

// strikeBuckets are the buckets of Scores.Strikes: the bug strikes once,
// a few times, or many.
var strikeBuckets = []struct {
	label string
	most  int
}{{"1", 1}, {"2-4", 4}, {"5-20", MaxStrikes}}

func strikeBucket(strikes int) string {
	for _, b := range strikeBuckets {
		if strikes <= b.most {
			return b.label
		}
	}
	return strikeBuckets[len(strikeBuckets)-1].label
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Scores tallies the run: per family (every family run, in the order of
// Families, with or without systems), and the planted properties by
// strikes, legitimate failures and aftermath.
func (s *Summary) Scores() Scores {
	sc := Scores{Strikes: map[string]Tally{}, Legit: map[string]Tally{}, Aftermath: map[string]Tally{}}
	for _, f := range s.Families {
		sc.Families = append(sc.Families, FamilyScores{Family: f, Shapes: map[Shape]Tally{}})
	}
	count := func(m map[string]Tally, key string, found bool) {
		t := m[key]
		t.add(found)
		m[key] = t
	}
	for _, r := range s.Systems {
		i := slices.IndexFunc(sc.Families, func(f FamilyScores) bool { return f.Family == r.Family })
		if i < 0 {
			sc.Families = append(sc.Families, FamilyScores{Family: r.Family, Shapes: map[Shape]Tally{}})
			i = len(sc.Families) - 1
		}
		fs := &sc.Families[i]
		if r.Control {
			fs.Controls.add(r.Steady <= MaxControlSteady)
			continue
		}
		fs.Systems.add(r.Recalled())
		told, toldFound := 0, true
		for j := range r.Planted {
			p := &r.Planted[j]
			found := p.Found(r.K)
			t := fs.Shapes[p.Shape]
			t.add(found)
			fs.Shapes[p.Shape] = t
			count(sc.Strikes, strikeBucket(p.Strikes), found)
			count(sc.Legit, yesNo(len(p.Legit) > 0), found)
			count(sc.Aftermath, yesNo(p.Aftermath), found)
			if p.Apart != nil {
				if sc.ToldApart == nil {
					sc.ToldApart = map[string]Tally{}
				}
				count(sc.ToldApart, yesNo(p.Apart.Told()), found)
				if p.Apart.Told() {
					told++
					toldFound = toldFound && found
				}
			}
		}
		if told > 0 {
			if fs.ToldApart == nil {
				fs.ToldApart = &Tally{}
			}
			fs.ToldApart.add(toldFound)
		}
	}
	sc.Pass = !slices.ContainsFunc(sc.Families, func(f FamilyScores) bool {
		return f.Systems.Of == 0 || !f.Systems.meets(TargetRecall) || f.Controls.Found < f.Controls.Of
	})
	return sc
}

// Pass reports whether the run meets the targets: in every family run,
// some system with planted properties, every planted property within the
// top K in at least TargetRecall of them, and no control with more than
// MaxControlSteady almost-invariants failing in steady state.
func (s *Summary) Pass() bool { return s.Scores().Pass }

// WriteJSON writes the summary as JSON, with its scores.
func (s *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		*Summary
		Scores Scores `json:"scores"`
	}{s, s.Scores()})
}

// WriteText writes, per system, the rank of each planted property (and
// the rank of the entry it is folded under, if any, and its rank among
// the broken invariants under a baseline), the noise and, for
// the controls, the almost-invariants that fail in steady state; then
// recall per family, per family and shape, per strikes, legitimate
// failures and aftermath, and a one-line verdict.
func (s *Summary) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "seed\tfamily\tnodes\tsnapshots\tK\tshape\tplanted\tstrikes\tviolations\trank\tnoise\tsteady AI\t")
	for _, sc := range s.Systems {
		head := fmt.Sprintf("%d\t%s\t%d\t%d\t%d", sc.Seed, sc.Family, sc.Nodes, sc.Snapshots, sc.K)
		if sc.Control {
			fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t-\tcontrol\t\t\t\t\t%d\t%d\t\n", sc.Seed, sc.Family, sc.Nodes, sc.Snapshots, sc.Noise, sc.Steady)
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
			if r.Broken > 0 {
				rank += fmt.Sprintf(", broken %d", r.Broken)
			}
			if !r.Found(sc.K) {
				rank += " ✗"
			}
			noise := ""
			if i == 0 {
				noise = strconv.Itoa(sc.Noise)
			}
			strikes := strconv.Itoa(r.Strikes)
			if r.Aftermath {
				strikes += " +after"
			}
			violations := fmt.Sprintf("%d (%d steady)", len(r.Snapshots), r.Steady)
			if len(r.Legit) > 0 {
				violations += fmt.Sprintf(" +%d legit", len(r.Legit))
			}
			if a := r.Apart; a != nil {
				violations += fmt.Sprintf(", events %d vs %d in the good runs", a.Events, a.GoodEvents)
				if !a.Told() {
					violations += fmt.Sprintf(" (alike: p %.2g)", a.PValue)
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\t\n", head, r.Shape, r.Name, strikes, violations, rank, noise)
			head = "\t\t\t\t"
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	scores := s.Scores()

	fmt.Fprintln(w, "\nper family: systems whose every planted property is within the top planted+2; controls with at most", MaxControlSteady, "steady almost-invariants")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	told := ""
	if s.Baseline {
		told = "told apart\t"
	}
	fmt.Fprintf(tw, "family\tsystems\t%scontrols\tsteady AI per control\t\n", told)
	var verdicts []string
	for _, f := range scores.Families {
		var steady []string
		for _, r := range s.Systems {
			if r.Control && r.Family == f.Family {
				steady = append(steady, strconv.Itoa(r.Steady))
			}
		}
		told := ""
		switch {
		case f.ToldApart != nil:
			told = f.ToldApart.String() + "\t"
		case s.Baseline:
			told = "-\t"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s%d/%d\t%s\t\n", f.Family, f.Systems, told, f.Controls.Found, f.Controls.Of, strings.Join(steady, " "))
		verdicts = append(verdicts, fmt.Sprintf("%s %d/%d", f.Family, f.Systems.Found, f.Systems.Of))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nper shape: planted properties within the top planted+2 of their system")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "shape\t")
	for _, f := range scores.Families {
		fmt.Fprintf(tw, "%s\t", f.Family)
	}
	fmt.Fprintln(tw, "all\t")
	for _, sh := range Shapes() {
		fmt.Fprintf(tw, "%s\t", sh)
		var all Tally
		for _, f := range scores.Families {
			t := f.Shapes[sh]
			fmt.Fprintf(tw, "%d/%d\t", t.Found, t.Of)
			all.Found, all.Of = all.Found+t.Found, all.Of+t.Of
		}
		fmt.Fprintf(tw, "%s\t\n", all)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var strikes []string
	for _, b := range strikeBuckets {
		strikes = append(strikes, fmt.Sprintf("%s %s", b.label, scores.Strikes[b.label]))
	}
	fmt.Fprintf(w, "by strikes: %s\n", strings.Join(strikes, ", "))
	fmt.Fprintf(w, "failing legitimately too: yes %s, no %s\n", scores.Legit["yes"], scores.Legit["no"])
	fmt.Fprintf(w, "with aftermath: yes %s, no %s\n", scores.Aftermath["yes"], scores.Aftermath["no"])
	if scores.ToldApart != nil {
		fmt.Fprintf(w, "told apart from the good runs (never failing there, or far more often here: the rate test at %g): yes %s, no %s\n",
			reporter.DefaultThresholds.BaselineLevel, scores.ToldApart["yes"], scores.ToldApart["no"])
	}

	var within, controls int
	for _, f := range scores.Families {
		within, controls = within+f.Controls.Found, controls+f.Controls.Of
	}
	verdict := "PASS"
	if !scores.Pass {
		verdict = "FAIL"
	}
	spec := ""
	if s.InitSpec {
		spec = ", specs of augur spec init"
	}
	switch {
	case s.GoodRuns > 1:
		spec += fmt.Sprintf(", each with %d good runs as the baseline", s.GoodRuns)
	case s.Baseline:
		spec += ", each with its good run as the baseline"
	}
	fmt.Fprintf(w, "%s: %d systems (%s%s) in %s; every planted property in the top K: %s (target %.0f%% in every family); median noise %d; controls within %d steady: %d of %d\n",
		verdict, len(s.Systems), s.Length, spec, s.Elapsed.Round(100*time.Millisecond), strings.Join(verdicts, ", "), 100*TargetRecall,
		s.medianNoise(), MaxControlSteady, within, controls)
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
