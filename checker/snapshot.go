package checker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/augur-dev/augur/ir"
)

// A Snapshot holds the states of the live nodes of a system, for
// checking: a service keeps one up to date with [Snapshot.Set] and asks
// [Snapshot.Guard] before each change of state, and a monitor fills one
// per consistent cut, with states prepared once by [Checker.Prepare], and
// calls [Snapshot.Check].
//
// The nodes are kept sorted by name, as a trace's snapshot members are,
// so that checks enumerate bindings in the order the evaluator does and
// report the same first failing binding as augur check on the recorded
// trace.
//
// A Snapshot is not safe for concurrent use. Once its buffers have grown
// to the states it holds, Set, Guard and a Check that finds no violation
// allocate nothing, for states given as pointers to structs (see
// [Checker.Prepare] for what allocates).
type Snapshot struct {
	// ID and TS name the snapshot in the witnesses of its violations, as
	// a trace snapshot's number and time do. Nothing else reads them.
	ID, TS uint64

	c     *Checker
	live  []*State          // sorted by node
	own   map[string]*State // the state Set last wrote for each node
	spare *State            // where Set and Guard prepare a state
	b     builder
	e     eval
	tally []tally // by check: its bindings at the last Check or Guard
}

// tally counts the bindings of a check, and its failing ones.
type tally struct{ bindings, failing int }

// NewSnapshot returns an empty snapshot for c's checks.
func (c *Checker) NewSnapshot() *Snapshot {
	s := &Snapshot{c: c, own: map[string]*State{}, spare: &State{}, tally: make([]tally, len(c.props))}
	s.e.reset(c.slots)
	return s
}

// Prepare returns the state of node given by state, for [Snapshot.Put]:
// a struct or a pointer to one, as passed to collector.Node.Expose (its
// fields are the variables, by the collector's rules), or a decoded state,
// a map[string]any from variable names to values in the representation
// of package trace (a missing variable is null). Only the variables the
// checks read are taken, and the derived variables are computed.
//
// A struct type must hold every variable the checks read, with a type
// that fits the spec, as a trace's columns must. Variable node, if the
// spec has it, holds the node's name. Preparing a state allocates for
// []byte fields, maps, fields tagged augur:",string", strings that are
// not valid UTF-8, and derived variables.
func (c *Checker) Prepare(node string, state any) (*State, error) {
	st := &State{}
	var b builder
	if err := b.prepare(c, st, node, state); err != nil {
		return nil, fmt.Errorf("checker: state of node %s: %w", node, err)
	}
	return st, nil
}

// Set makes state the state of node, which becomes live if it was not;
// state is what [Checker.Prepare] takes. Set copies what it needs: the
// caller may change state afterwards. On error the snapshot is unchanged.
func (s *Snapshot) Set(node string, state any) error {
	if err := s.b.prepare(s.c, s.spare, node, state); err != nil {
		return fmt.Errorf("checker: state of node %s: %w", node, err)
	}
	st := s.spare
	if s.spare = s.own[node]; s.spare == nil {
		s.spare = &State{}
	}
	s.own[node] = st
	s.put(st)
	return nil
}

// Put makes st, prepared by the same checker, the state of its node,
// which becomes live if it was not. The snapshot keeps st, which does not
// change.
func (s *Snapshot) Put(st *State) error {
	if st.c != s.c {
		return fmt.Errorf("checker: state of node %s was prepared by another checker", st.node)
	}
	s.put(st)
	return nil
}

func (s *Snapshot) put(st *State) {
	i, found := s.find(st.node)
	if found {
		s.live[i] = st
	} else {
		s.live = slices.Insert(s.live, i, st)
	}
}

// find returns the position of node among the live nodes, or where it
// would be.
func (s *Snapshot) find(node string) (int, bool) {
	return slices.BinarySearchFunc(s.live, node, func(st *State, node string) int {
		return strings.Compare(st.node, node)
	})
}

// Remove removes node from the live nodes, as when it leaves or fails,
// and reports whether it was live.
func (s *Snapshot) Remove(node string) bool {
	i, found := s.find(node)
	if found {
		s.live = slices.Delete(s.live, i, i+1)
	}
	return found
}

// Reset removes every node, keeping the snapshot's memory: a monitor
// Resets and Puts the members of each cut.
func (s *Snapshot) Reset() {
	clear(s.live)
	s.live = s.live[:0]
}

// Len returns the number of live nodes.
func (s *Snapshot) Len() int { return len(s.live) }

// Check evaluates every check on the snapshot and returns the failed
// ones, in the order of the checks file, each with its first failing
// binding; nil if every check holds. A snapshot without live nodes, or
// with fewer than a check's node variables, gives the check no binding:
// it is vacuous there and holds.
func (s *Snapshot) Check() []Violation {
	return s.check(-1)
}

// Guard is CrystalBall's immediate safety check: it evaluates the checks
// on the snapshot with next as node's state (node joins if it is not
// live), and returns a [*GuardError] holding the checks that would fail,
// so that the caller can refuse the change before making it. The
// snapshot itself does not change; after applying a change Guard
// allowed, Set the node's state.
//
// Only the bindings that assign node to a node variable are evaluated:
// the others read the same states as before the change. A check with a
// node quantifier after an exists (forall n0 in nodes: exists n1 in
// nodes: …) reads every node at every binding, and is evaluated whole.
// So Guard refuses a change after which a binding with node fails,
// whether or not it failed before, and a violation the snapshot already
// had at bindings without node does not stop the change. next is what [Checker.Prepare] takes; an error that
// is not a *GuardError says that next could not be read.
func (s *Snapshot) Guard(node string, next any) error {
	if err := s.b.prepare(s.c, s.spare, node, next); err != nil {
		return fmt.Errorf("checker: next state of node %s: %w", node, err)
	}
	i, found := s.find(node)
	var prev *State
	if found {
		prev, s.live[i] = s.live[i], s.spare
	} else {
		s.live = slices.Insert(s.live, i, s.spare)
	}
	vs := s.check(i)
	if found {
		s.live[i] = prev
	} else {
		s.live = slices.Delete(s.live, i, i+1)
	}
	if vs != nil {
		return &GuardError{Node: node, Violations: vs}
	}
	return nil
}

// check evaluates every check; guard ≥ 0 restricts them to the bindings
// of the live node at that position.
func (s *Snapshot) check(guard int) []Violation {
	e := &s.e
	e.nodes, e.id, e.ts = s.live, s.ID, s.TS
	var out []Violation
	for i, p := range s.c.props {
		e.guard = guard
		if p.global {
			e.guard = -1
		}
		failed := e.check(p)
		s.tally[i] = tally{e.nb, e.nfail}
		if failed {
			out = append(out, Violation{Check: p.check, Text: p.text, Witness: e.wit, Failing: e.nfail, Bindings: e.nb})
			e.wit = Witness{}
		}
	}
	return out
}

// A Witness is the binding at which a check fails: the snapshot's ID and
// TS, the binding of the property's variables (node variables to node
// names, iterator variables to elements) and the values of its paths
// there. It is the evaluator's type, so that a live check and augur check
// report a violation alike.
type Witness = ir.Witness

// A Violation is a check that fails on a snapshot.
type Violation struct {
	Check *Check
	Text  string // the canonical text of the property, whose variable names the witness uses
	// Witness is the first failing binding, in the evaluator's order:
	// the snapshot's ID and TS, the binding (node variables to node
	// names, iterator variables to elements) and the values of the
	// property's paths there.
	Witness Witness
	// Failing counts the failing bindings among the Bindings evaluated:
	// all of the snapshot's in Check, those of the guarded node in Guard.
	Failing, Bindings int
}

// Error renders v on one line: the check, its property and the witness.
func (v *Violation) Error() string {
	return fmt.Sprintf("check %s fails: %s: at %s", v.Check.Name, v.Text, v.Witness)
}

// A GuardError is the answer of [Snapshot.Guard] to a change of state
// that would violate checks. errors.As finds it, and each of its
// violations as a *Violation (the first, for a single target).
type GuardError struct {
	Node       string
	Violations []Violation // in the order of the checks file
}

// Error names the node and the first violated check.
func (e *GuardError) Error() string {
	msg := fmt.Sprintf("checker: next state of node %s: %s", e.Node, e.Violations[0].Error())
	if n := len(e.Violations) - 1; n == 1 {
		msg += " (and 1 more failing check)"
	} else if n > 1 {
		msg += fmt.Sprintf(" (and %d more failing checks)", n)
	}
	return msg
}

// Unwrap returns the violations, as errors.
func (e *GuardError) Unwrap() []error {
	errs := make([]error, len(e.Violations))
	for i := range e.Violations {
		errs[i] = &e.Violations[i]
	}
	return errs
}
