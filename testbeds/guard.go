package testbeds

import (
	"container/heap"
	"errors"
	"fmt"
	"reflect"
	"slices"

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

	// The system's start (see Sim.Allow): whether it has started since
	// it booted (a node's state changed, or a node crashed), and the nodes
	// let through at its start against the checks.
	started bool
	deviant []bool

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
	return &guard{snap: c.NewSnapshot(), cur: make([]any, nodes), deviant: make([]bool, nodes)}, nil
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

// remove removes node n, which crashed: the system has started.
func (g *guard) remove(n int) {
	g.snap.Remove(Name(n))
	g.cur[n] = nil
	g.started = true
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
	if !g.refused && !g.started && !reflect.DeepEqual(g.cur[n], &after) {
		// A change the system did not submit to Allow starts it too.
		g.started = true
	}
	if g.refused {
		if restore != nil {
			restore()
			after = sys.State(n)
		}
		// The refused handler sent nothing and wrote nothing: only the
		// guard's own counters stay.
		checked, blocked, by, deviant := s.stats.Checked, s.stats.Blocked, s.stats.BlockedBy, s.stats.Deviant
		s.stats, s.inflight = g.stats, g.inflight
		s.stats.Checked, s.stats.Blocked, s.stats.BlockedBy, s.stats.Deviant = checked, blocked, by, deviant
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
// The guard does not refuse the system's start. The first change of a
// node's state after the system booted, before any other (checked or
// not), is allowed even where the checks would refuse it: the node that
// starts the system (an initial root, a ring's creator) may start
// otherwise than in the runs the checks were learned or written from, and
// a refusal there keeps the whole system from starting, which protects
// nothing. Such a node is the episode's deviant (Stats.Deviant): the
// checks cannot judge it, so that until the system boots again its own
// changes are allowed, and another node's change is judged as if the
// deviant node were not there (bindings that bind it do not count).
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
	if g.deviant[n] {
		g.started = true
		return true
	}
	adds := g.adds(n, next)
	switch {
	case len(adds) == 0:
	case !g.started:
		g.deviant[n] = true
		s.stats.Deviant++
		for _, c := range adds {
			s.stats.DeviantBy[c.Name]++
		}
	default:
		s.stats.Blocked++
		s.stats.BlockedBy[adds[0].Name]++
		return false
	}
	g.started = true
	return true
}

// boot forgets the system's start: the system booted again.
func (g *guard) boot() {
	g.started = false
	clear(g.deviant)
}

// adds returns the checks that a change of node n's state to next makes
// fail at more of n's bindings than its current state does, in the order
// of the checks file; the bindings that bind a deviant node other than n
// do not count.
func (g *guard) adds(n int, next any) []*checker.Check {
	if out := g.failing(n, next); len(out) == 0 || !g.hideDeviant(n) {
		return out
	}
	defer g.showDeviant(n)
	return g.failing(n, next)
}

// failing returns the checks that a change of node n's state to next
// makes fail at more of n's bindings than its current state does, over
// the snapshot as it is.
func (g *guard) failing(n int, next any) []*checker.Check {
	var ge *checker.GuardError
	if err := g.snap.Guard(Name(n), next); err == nil {
		return nil
	} else if !errors.As(err, &ge) {
		if g.err == nil {
			g.err = fmt.Errorf("guard: %s: %w", Name(n), err)
		}
		return nil
	}
	var cur []checker.Violation
	if g.cur[n] != nil {
		var ce *checker.GuardError
		if errors.As(g.snap.Guard(Name(n), g.cur[n]), &ce) {
			cur = ce.Violations
		}
	}
	var out []*checker.Check
	for _, v := range ge.Violations {
		i := slices.IndexFunc(cur, func(c checker.Violation) bool { return c.Check == v.Check })
		if g.cur[n] == nil || i < 0 || v.Failing > cur[i].Failing {
			out = append(out, v.Check)
		}
	}
	return out
}

// hideDeviant removes the live deviant nodes other than n from the
// snapshot, and reports whether there were any.
func (g *guard) hideDeviant(n int) bool {
	hid := false
	for d, dev := range g.deviant {
		if dev && d != n && g.cur[d] != nil {
			g.snap.Remove(Name(d))
			hid = true
		}
	}
	return hid
}

// showDeviant puts back the nodes hideDeviant removed.
func (g *guard) showDeviant(n int) {
	for d, dev := range g.deviant {
		if dev && d != n && g.cur[d] != nil {
			g.set(d, g.cur[d])
		}
	}
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
