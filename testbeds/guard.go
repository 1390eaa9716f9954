package testbeds

import (
	"container/heap"
	"errors"
	"fmt"
	"reflect"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/specs"
)

// A Checkpointer is a System whose handlers can be taken back, so that a
// run with a guard (Config.Guard) can refuse a handler whose effect on a
// node's state the guard's checks forbid, as CrystalBall's immediate
// safety check does: the node's state goes back to what it was before the
// handler, and the messages the handler sent are never sent.
type Checkpointer interface {
	// Checkpoint saves what a handler of live node n may change (a deep
	// copy of the node's state, and whatever ground-truth bookkeeping the
	// handler updates), and returns the function that puts it back.
	Checkpoint(n int) (restore func())
}

// guard is the immediate safety check of a run: a checker snapshot kept
// up to date with the states of the live nodes, and the handler under
// way, whose events are held until the guard has allowed its changes.
type guard struct {
	snap *checker.Snapshot
	cur  []any // the state of each node in snap, nil when not live
	err  error // a state the checker could not read

	// The handler under way.
	active, refused bool
	held            []*event
	stats           Stats // the counters at its start
	inflight        int
}

// openGuard compiles the checks file at path for testbed name, whose
// spec it must be written against.
func openGuard(name, path string, nodes int) (*guard, error) {
	c, err := openChecks("guard", name, path)
	if err != nil {
		return nil, err
	}
	return &guard{snap: c.NewSnapshot(), cur: make([]any, nodes)}, nil
}

// openChecks compiles the checks file at path for testbed name, whose
// spec it must be written against; errors start with what.
func openChecks(what, name, path string) (*checker.Checker, error) {
	f, err := checker.Load(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if f.Spec == "" {
		return nil, fmt.Errorf("%s: %s names no spec (want spec: the spec of %s)", what, path, name)
	}
	spec, err := specs.Load(f.Spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: spec: %w", what, path, err)
	}
	if spec.System != name {
		return nil, fmt.Errorf("%s: %s is written against the spec of %q, not of testbed %s", what, path, spec.System, name)
	}
	c, err := checker.Compile(spec, f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return c, nil
}

// set makes state (a pointer to the system's state) node n's state.
func (g *guard) set(n int, state any) {
	if err := g.snap.Set(Name(n), state); err != nil && g.err == nil {
		g.err = fmt.Errorf("guard: %s: %w", Name(n), err)
	}
	g.cur[n] = state
}

func (g *guard) remove(n int) {
	g.snap.Remove(Name(n))
	g.cur[n] = nil
}

// sync makes the snapshot hold the state of every live node.
func sync[S any](s *Sim, sys System[S]) {
	for n, l := range s.live {
		if l {
			st := sys.State(n)
			s.g.set(n, &st)
		} else if s.g.cur[n] != nil {
			s.g.remove(n)
		}
	}
}

// handle runs f, a handler of live node n. With a guard, the events it
// schedules (messages and crash points) are held until it returns; a
// Checkpointer's handler that changes the node's state is refused when
// the guard does not allow the new state (see Sim.Allow): the node's
// state is restored and the held events are dropped. A system that is
// no Checkpointer checks its own changes with Sim.Allow and refuses them
// with Sim.Refuse.
func handle[S any](s *Sim, sys System[S], n int, f func()) {
	g := s.g
	if g == nil {
		f()
		return
	}
	cp, _ := sys.(Checkpointer)
	var restore func()
	if cp != nil {
		restore = cp.Checkpoint(n)
	}
	g.active, g.refused, g.held = true, false, g.held[:0]
	g.stats, g.inflight = s.stats, s.inflight
	f()
	after := sys.State(n)
	if cp != nil && !s.Allow(n, &after) {
		g.refused = true
	}
	g.active = false
	if g.refused {
		if restore != nil {
			restore()
			after = sys.State(n)
		}
		// The refused handler sent nothing and wrote nothing: only the
		// guard's own counters stay.
		checked, blocked, by := s.stats.Checked, s.stats.Blocked, s.stats.BlockedBy
		s.stats, s.inflight = g.stats, g.inflight
		s.stats.Checked, s.stats.Blocked, s.stats.BlockedBy = checked, blocked, by
	} else {
		for _, e := range g.held {
			heap.Push(&s.q, e)
		}
	}
	clear(g.held)
	g.set(n, &after)
}

// Allow is the immediate safety check of a change of live node n's state
// to next, a pointer to the system's state: it reports whether the run's
// guard allows the change, and counts it (a state equal to the node's
// current one is no change). A change is refused when it
// adds failing bindings of a check among those that involve n (a binding
// that already fails does not stop n from changing). Without a guard, or
// outside a handler (a restart), every change is allowed.
//
// Systems that are Checkpointers need not call it: the scheduler checks
// their handlers' changes. Others call it where a change becomes visible,
// and refuse a change it does not allow themselves.
func (s *Sim) Allow(n int, next any) bool {
	g := s.g
	if g == nil || !g.active || reflect.DeepEqual(g.cur[n], next) {
		return true // no guard, or no change
	}
	s.stats.Checked++
	err := g.snap.Guard(Name(n), next)
	if err == nil {
		return true
	}
	var ge *checker.GuardError
	if !errors.As(err, &ge) {
		if g.err == nil {
			g.err = fmt.Errorf("guard: %s: %w", Name(n), err)
		}
		return true
	}
	if g.cur[n] != nil && !worse(ge, g.snap.Guard(Name(n), g.cur[n])) {
		return true
	}
	s.stats.Blocked++
	s.stats.BlockedBy[ge.Violations[0].Check.Name]++
	return false
}

// worse reports whether the violations of next add failing bindings to
// those of the current state, err.
func worse(next *checker.GuardError, err error) bool {
	var cur *checker.GuardError
	if !errors.As(err, &cur) {
		return true
	}
	for _, v := range next.Violations {
		i := 0
		for i < len(cur.Violations) && cur.Violations[i].Check != v.Check {
			i++
		}
		if i == len(cur.Violations) || v.Failing > cur.Violations[i].Failing {
			return true
		}
	}
	return false
}

// Guarding reports whether a handler is under way in a guarded run: a
// system that is no Checkpointer then checks its changes with Allow.
func (s *Sim) Guarding() bool { return s.g != nil && s.g.active }

// Refuse refuses the handler under way, for a system that is no
// Checkpointer and has taken back its change itself: the messages the
// handler sent and the crash points it reached are dropped.
func (s *Sim) Refuse() {
	if s.g != nil && s.g.active {
		s.g.refused = true
	}
}
