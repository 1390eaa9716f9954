// Package avoid measures how much of the testbeds' bugs CrystalBall's
// execution steering avoids, and what it costs (augur bench steer): for
// each seed and each bug of the testbeds that can be copied (Chord,
// Paxos, RandTree), it runs the testbed plain, with the immediate safety
// check alone (Config.Guard), steered (Config.Steer, the guard its
// fallback) and steered alone (Config.SteerAlone) by the testbed's
// hand-written checks, and guarded and steered by promoted (or learned,
// augur learn) checks when given, and counts the episodes where a
// ground-truth check failed and the progress the system made. etcd
// raft, whose state cannot be copied, is guarded only.
//
// A run ends an episode at its first violation
// (testbeds.ResetAtViolation), so that a run counts every violation its
// seed leads to rather than the first and its aftermath. The avoided share of a mode is one minus its
// violations over the plain runs' violations, summed over the seeds.
// Bug-free runs are steered too: steering must not break them.
//
// The development seeds are 1 to 10: choose the prediction interval and
// budget on these. Report the held-out seeds.
package avoid

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/augur-dev/augur/internal/shutdown"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/catalog"
)

// Mode is how a run is steered.
type Mode uint8

const (
	ModeInvalid  Mode = iota
	Plain             // no steering, no guard
	Guard             // the immediate safety check alone, hand-written checks
	Steer             // steering, hand-written checks, the guard its fallback
	Predict           // steering alone, hand-written checks
	SteerPromote      // steering, promoted checks, the guard its fallback
	GuardPromote      // the immediate safety check alone, promoted checks
)

var modeNames = [...]string{"invalid", "plain", "guard", "steer", "predict", "promoted", "promoted-guard"}

// ParseMode returns the mode named s.
func ParseMode(s string) (Mode, error) {
	for m, name := range modeNames {
		if m > int(ModeInvalid) && name == s {
			return Mode(m), nil
		}
	}
	return ModeInvalid, fmt.Errorf("unknown mode %q (want %s)", s, strings.Join(modeNames[Plain:], ", "))
}

// steers reports whether a run in mode m predicts, which needs a copy of
// the system.
func (m Mode) steers() bool { return m == Steer || m == Predict || m == SteerPromote }

// String returns the mode's name.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Options configure Run.
type Options struct {
	Seeds    []uint64
	Testbeds []string // names; default chord, paxos, randtree
	Steps    int      // snapshots per run; 0 means DefaultSteps
	// Checks is the directory of the hand-written checks files,
	// NAME.checks.yaml; "" means specs.
	Checks string
	// Promoted maps a testbed's name, or NAME/BUG, to a checks file of
	// promoted almost-invariants or learned checks, which steers its runs
	// (with that bug) in mode SteerPromote and guards them in mode
	// GuardPromote.
	Promoted map[string]string
	// Modes, if not empty, are the modes to run besides Plain, which
	// every row compares with; otherwise every mode that applies.
	Modes []Mode
	// PredictEvery and Budget are Config.PredictEvery and
	// Config.SteerStates; 0 takes the defaults.
	PredictEvery, Budget int
	Workers              int // runs at once; 0 means 1
	// Progress, if set, is called after each run.
	Progress func(done, total int)
}

// DefaultSteps is the length of a run.
const DefaultSteps = 3000

// DefaultTestbeds are the testbeds whose state can be copied.
var DefaultTestbeds = []string{"chord", "paxos", "randtree"}

// Run is the outcome of one run.
type Run struct {
	Testbed string `json:"testbed"`
	Bug     string `json:"bug,omitempty"` // "" for a bug-free run
	Seed    uint64 `json:"seed"`
	Mode    Mode   `json:"-"`
	ModeS   string `json:"mode"`
	// Violations counts the episodes where a ground-truth check failed;
	// Progress what the system achieved (testbeds.Progresser) in Steps
	// events.
	Violations int `json:"violations"`
	Progress   int `json:"progress"`
	Steps      int `json:"steps"`
	// Steering and guard counters (testbeds.Stats).
	Predictions int `json:"predictions,omitempty"`
	Filters     int `json:"filters,omitempty"`
	Filtered    int `json:"filtered,omitempty"`
	Blocked     int `json:"blocked,omitempty"`
	// Deviant counts the nodes the guard let through at the system's
	// start against the checks (testbeds.Stats.Deviant).
	Deviant int     `json:"deviant,omitempty"`
	Seconds float64 `json:"seconds"`
}

// PerKilo returns the run's progress per 1,000 events.
func (r *Run) PerKilo() float64 { return 1000 * float64(r.Progress) / float64(max(r.Steps, 1)) }

// job is a run to make.
type job struct {
	tb   testbeds.Testbed
	bug  string
	seed uint64
	mode Mode
	cfg  testbeds.Config
}

// Run makes the runs of o, Workers at a time, and returns them in a fixed
// order: by testbed, bug ("" first), seed and mode.
func RunAll(ctx context.Context, o Options) ([]*Run, error) {
	names := o.Testbeds
	if len(names) == 0 {
		names = DefaultTestbeds
	}
	checks := cmp.Or(o.Checks, "specs")
	steps := cmp.Or(o.Steps, DefaultSteps)
	var jobs []job
	for _, name := range names {
		tb, err := catalog.Lookup(name)
		if err != nil {
			return nil, err
		}
		steerable := tb.Fork != nil && name != "etcdraft"
		hand := filepath.Join(checks, name+".checks.yaml")
		for _, bug := range append([]string{""}, tb.Bugs...) {
			promoted := cmp.Or(o.Promoted[name+"/"+bug], o.Promoted[name])
			modes := o.modes(bug != "", promoted != "", steerable)
			if !steerable && slices.ContainsFunc(modes, Mode.steers) {
				return nil, fmt.Errorf("%s: its state cannot be copied, so it cannot be steered (guard it with --modes)", name)
			}
			for _, seed := range o.Seeds {
				base := testbeds.Config{Nodes: tb.Nodes, Steps: steps, Seed: seed, Faults: tb.Faults, Bug: bug, ResetAfter: testbeds.ResetAtViolation,
					Overwrite: true, PredictEvery: o.PredictEvery, SteerStates: o.Budget}
				for _, m := range modes {
					cfg := base
					switch m {
					case Guard:
						cfg.Guard = hand
					case Steer:
						cfg.Steer = hand
					case Predict:
						cfg.Steer, cfg.SteerAlone = hand, true
					case SteerPromote:
						cfg.Steer = promoted
					case GuardPromote:
						cfg.Guard = promoted
					}
					jobs = append(jobs, job{tb, bug, seed, m, cfg})
				}
			}
		}
	}
	dir, remove, err := shutdown.TempDir("augur-avoid-")
	if err != nil {
		return nil, err
	}
	defer remove()
	runs := make([]*Run, len(jobs))
	errs := make([]error, len(jobs))
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
	)
	next := make(chan int)
	for range max(o.Workers, 1) {
		wg.Go(func() {
			for i := range next {
				runs[i], errs[i] = runJob(ctx, dir, i, jobs[i])
				mu.Lock()
				done++
				if o.Progress != nil {
					o.Progress(done, len(jobs))
				}
				mu.Unlock()
			}
		})
	}
	for i := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return runs, nil
}

// modes returns the modes of the runs of a bug (or of the bug-free runs),
// Plain first: those o asks for, else all that apply. Bug-free runs are
// neither guarded nor steered alone by the hand-written checks, which a
// correct run never breaks; the promoted modes need promoted checks; a
// testbed that cannot be copied is not steered unless asked to.
func (o *Options) modes(bug, promoted, steerable bool) []Mode {
	all := []Mode{Plain, Guard, Steer, Predict, SteerPromote, GuardPromote}
	return slices.DeleteFunc(all, func(m Mode) bool {
		switch {
		case m == Plain:
			return false
		case len(o.Modes) > 0 && !slices.Contains(o.Modes, m):
			return true
		case len(o.Modes) == 0 && !steerable && m.steers():
			return true
		case !bug && (m == Guard || m == Predict):
			return true
		}
		return !promoted && (m == SteerPromote || m == GuardPromote)
	})
}

// runJob makes run i, whose trace it writes into dir and removes.
func runJob(ctx context.Context, dir string, i int, j job) (*Run, error) {
	tr := filepath.Join(dir, fmt.Sprintf("%d.trace", i))
	defer os.RemoveAll(tr)
	start := time.Now()
	st, err := j.tb.Run(ctx, j.cfg, tr)
	if err != nil {
		return nil, fmt.Errorf("%s %s seed %d %s: %w", j.tb.Name, cmp.Or(j.bug, "none"), j.seed, j.mode, err)
	}
	return &Run{Testbed: j.tb.Name, Bug: j.bug, Seed: j.seed, Mode: j.mode, ModeS: j.mode.String(),
		Violations: st.Violations, Progress: st.Progress, Steps: st.Steps,
		Predictions: st.Predictions, Filters: st.Filters, Filtered: st.Filtered, Blocked: st.Blocked, Deviant: st.Deviant,
		Seconds: time.Since(start).Seconds()}, nil
}
