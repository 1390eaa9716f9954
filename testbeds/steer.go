package testbeds

import (
	"fmt"
	"slices"
	"time"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/predict"
)

// Defaults of steering (see Config.Steer).
const (
	DefaultPredictEvery = 10
	DefaultSteerStates  = 1000
	steerDepth          = 4
	// maxPrior bounds the violating paths of a prediction replayed first
	// by the next.
	maxPrior = 16
)

// steering is CrystalBall's execution steering in a run: every few steps
// it predicts from a copy of the run, and installs the filters of
// predict.Steer until the next prediction.
type steering struct {
	name  string // the testbed's
	c     *checker.Checker
	every int
	opts  predict.Options
	// The filters in force: messages dropped, senders refused at a
	// receiver, nodes whose timer does not fire.
	msgs    map[*event]bool
	senders map[[2]int]bool
	timers  map[int]bool
	prior   []predict.Path // the last prediction's violating paths
}

// openSteering compiles the checks file of cfg.Steer for testbed name.
func openSteering(name string, cfg Config) (*steering, error) {
	c, err := openChecks("steer", name, cfg.Steer)
	if err != nil {
		return nil, err
	}
	st := &steering{name: name, c: c, every: cfg.PredictEvery,
		msgs: map[*event]bool{}, senders: map[[2]int]bool{}, timers: map[int]bool{}}
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
// prediction from the run's current state, which replays the last
// prediction's violating paths first.
func predictNow[S any](s *Sim, sys System[S]) error {
	c, ok := sys.(Copier[S])
	if !ok {
		return fmt.Errorf("steer: the state of %s cannot be copied (it can be forked by replay only, too slowly to steer)", s.steer.name)
	}
	st := s.steer
	if s.g != nil && slices.Contains(s.g.deviant, true) {
		// The checks cannot judge a system with a deviant node (see
		// Sim.Allow): the guard, steering's fallback, judges it without
		// that node, which a prediction cannot.
		st.clear()
		st.prior = nil
		return nil
	}
	m := copyModel(s, c)
	opts := st.opts
	opts.Prior = st.prior
	plan, err := predict.Steer(m, st.c, opts)
	if err != nil {
		return fmt.Errorf("steer: %w", err)
	}
	s.stats.Predictions++
	s.stats.Rejected += plan.Rejected
	s.stats.Replayed += plan.Result.Replayed
	st.prior = plan.Result.Paths[:min(len(plan.Result.Paths), maxPrior)]
	st.clear()
	if s.g != nil && !s.g.started {
		// Steering does not hold back the system's start, which the
		// guard judges (see Sim.Allow).
		return nil
	}
	for _, f := range plan.Filters {
		switch {
		case f.Kind == predict.Deliver && f.Sender:
			st.senders[[2]int{f.From, f.Node}] = true
		case f.Kind == predict.Deliver:
			st.msgs[m.sim.q[f.Index]] = true
		case f.Kind == predict.Timer:
			st.timers[f.Node] = true
		}
	}
	s.stats.Filters += len(plan.Filters)
	return nil
}

// clear removes the filters in force.
func (st *steering) clear() {
	clear(st.msgs)
	clear(st.senders)
	clear(st.timers)
}

// drops reports whether a filter drops message e.
func (st *steering) drops(e *event) bool {
	return st != nil && (st.msgs[e] || st.senders[[2]int{e.from, e.to}])
}
