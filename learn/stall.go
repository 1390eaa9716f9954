package learn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/augur-dev/augur/checker"
)

// StallShare is the share of an unguarded run's progress per event below
// which the same run guarded is stalled: its guard's refusals keep the
// system from doing what it is for, rather than from the changes a bug
// makes. Progress is counted per event handled, as augur bench steer
// counts it: a guarded run that reboots its system at every violation
// handles a warm-up per episode, and may add up progress while doing
// little else.
const StallShare = 0.1

// Outcome is what a run of the system a guard protects achieved.
type Outcome struct {
	Progress  int            // what the system achieved (testbeds.Progresser)
	Steps     int            // the events it handled, warm-ups included
	BlockedBy map[string]int // changes refused, by the first check each breaks
}

// A Runner runs the system the checks are to guard with the seed,
// guarded by the checks file at checks, or unguarded if checks is "".
type Runner func(ctx context.Context, checks string, seed uint64) (Outcome, error)

// Unstalled is a check VetStalls replaced or dropped.
type Unstalled struct {
	Round           int
	Check, Property string
	Stalled         int // guarded runs of the round that stalled
	Refused         int // changes the check refused in them
	Tried           int // weakenings tried before one did not stall
	// By is the weakening that replaced the check; nil if none of its
	// weakenings kept from stalling, and the check was dropped.
	By *Weakening
}

// Stalls configure [VetStalls].
type Stalls struct {
	Seeds []uint64 // the runs, one per seed: choose development seeds
	Run   Runner
	// Weaken are the options of Weaken.
	Weaken Options
	// Done, if set, is told of each check replaced or dropped, as it is.
	Done func(Unstalled)
}

// VetStalls guards runs of the system (s.Run, one per seed) with r's checks
// and, while some stall (make less than StallShare of the progress per
// event of the same seed's run unguarded), replaces the check that refused the most
// changes of the stalled runs by its strongest learned weakening
// (Weaken) that stalls none of them when it guards alone, or drops it if
// none does (s.Done is told). A check holds in every good run it was learned from, so a
// stall is the system doing what no good run did; the weakening keeps
// what the good runs support and gives way where the system went
// instead. It reads progress and refusals only, never a ground-truth
// tag. specPath is the spec r was learned with. r keeps the checks that
// do not stall the runs.
func VetStalls(ctx context.Context, r *Result, specPath string, s Stalls) ([]Unstalled, error) {
	seeds, run := s.Seeds, s.Run
	dir, err := os.MkdirTemp("", "augur-stalls-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "checks.yaml")
	base := make([]float64, len(seeds))
	for i, seed := range seeds {
		out, err := run(ctx, "", seed)
		if err != nil {
			return nil, err
		}
		base[i] = out.rate()
	}
	if !slices.ContainsFunc(base, func(p float64) bool { return p > 0 }) {
		return nil, errors.New("learn: the unguarded runs make no progress: a stall cannot be told from them")
	}
	// stalls guards the seeds at idx with f and returns those that stall
	// and the changes each check refused in them; with first, it stops at
	// the first seed that stalls.
	stalls := func(f *checker.File, idx []int, first bool) ([]int, map[string]int, error) {
		if err := f.Write(path); err != nil {
			return nil, nil, err
		}
		var stalled []int
		refused := map[string]int{}
		for _, i := range idx {
			out, err := run(ctx, path, seeds[i])
			if err != nil {
				return nil, nil, err
			}
			if out.rate() >= StallShare*base[i] {
				continue
			}
			stalled = append(stalled, i)
			for name, n := range out.BlockedBy {
				refused[name] += n
			}
			if first {
				break
			}
		}
		return stalled, refused, nil
	}
	all := make([]int, len(seeds))
	for i := range all {
		all[i] = i
	}
	var done []Unstalled
	weakened := map[string]bool{} // checks that replaced another: not weakened twice
	for round := 1; len(r.Checks) > 0; round++ {
		stalled, refused, err := stalls(r.File(specPath, path), all, false)
		if err != nil {
			return nil, err
		}
		if len(stalled) == 0 {
			break
		}
		k := -1
		for i, c := range r.Checks {
			if refused[c.ID] > 0 && (k < 0 || refused[c.ID] > refused[r.Checks[k].ID]) {
				k = i
			}
		}
		if k < 0 {
			return done, fmt.Errorf("learn: %d guarded runs stall with no refusal of a check (seed %d first)", len(stalled), seeds[stalled[0]])
		}
		c := r.Checks[k]
		u := Unstalled{Round: round, Check: c.ID, Property: c.Text, Stalled: len(stalled), Refused: refused[c.ID]}
		var ws []*Weakening
		if !weakened[c.ID] {
			if ws, err = r.Weaken(ctx, c.Text, s.Weaken); err != nil {
				return nil, err
			}
		}
		for _, w := range ws {
			if slices.ContainsFunc(r.Checks, func(c *Check) bool { return c.ID == w.ID }) {
				continue // already a check
			}
			u.Tried++
			alone := &checker.File{Spec: r.File(specPath, path).Spec, Checks: []checker.Check{{Name: w.ID, Property: w.Text}}}
			if again, _, err := stalls(alone, stalled, true); err != nil {
				return nil, err
			} else if len(again) == 0 {
				u.By = w
				break
			}
		}
		if u.By != nil {
			w := u.By.Check
			r.Checks[k] = &w
			weakened[w.ID] = true
		} else {
			r.Checks = slices.Delete(r.Checks, k, k+1)
		}
		done = append(done, u)
		if s.Done != nil {
			s.Done(u)
		}
	}
	return done, nil
}

// rate returns the progress per event handled.
func (o Outcome) rate() float64 {
	return float64(o.Progress) / float64(max(o.Steps, 1))
}
