package testbeds

import (
	"fmt"
	"time"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/predict"
)

// Defaults of steering (see Config.Steer).
const (
	DefaultPredictEvery = 10
	DefaultSteerStates  = 1000
	steerDepth          = 4
)

// steering is CrystalBall's execution steering in a run: every few steps
// it predicts from a copy of the run, and filters the messages whose
// delivery starts a violating path (predict.Filters) until the next
// prediction.
type steering struct {
	name     string // the testbed's
	c        *checker.Checker
	every    int
	opts     predict.Options
	filtered map[*event]bool
}

// openSteering compiles the checks file of cfg.Steer for testbed name.
func openSteering(name string, cfg Config) (*steering, error) {
	c, err := openChecks("steer", name, cfg.Steer)
	if err != nil {
		return nil, err
	}
	st := &steering{name: name, c: c, every: cfg.PredictEvery, filtered: map[*event]bool{}}
	if st.every <= 0 {
		st.every = DefaultPredictEvery
	}
	states := cfg.SteerStates
	if states <= 0 {
		states = DefaultSteerStates
	}
	// A run must repeat from its seed: the states bound the search, not
	// the clock.
	st.opts = predict.Options{Depth: steerDepth, MaxStates: states, Budget: time.Hour}
	return st, nil
}

// predictNow replaces the filters of the last prediction by those of a
// prediction from the run's current state.
func predictNow[S any](s *Sim, sys System[S]) error {
	c, ok := sys.(Copier[S])
	if !ok {
		return fmt.Errorf("steer: the state of %s cannot be copied (it can be forked by replay only, too slowly to steer)", s.steer.name)
	}
	m := copyModel(s, c)
	filters, _, err := predict.Filters(m, s.steer.c, s.steer.opts)
	if err != nil {
		return fmt.Errorf("steer: %w", err)
	}
	s.stats.Predictions++
	clear(s.steer.filtered)
	for _, f := range filters {
		s.steer.filtered[m.sim.q[f.Index]] = true
	}
	s.stats.Filters += len(filters)
	return nil
}
