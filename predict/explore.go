package predict

import (
	"errors"
	"slices"
	"time"

	"github.com/augur-dev/augur/checker"
)

// Options bound a search.
type Options struct {
	// Depth is the most events on a chain; 0 means 8.
	Depth int
	// Budget is the wall-clock time the search may take; 0 means 100ms.
	Budget time.Duration
	// MaxStates bounds the states explored; 0 means 1<<20.
	MaxStates int
	// MaxPaths bounds the violating paths returned; 0 means 64.
	MaxPaths int
	// Refused are the events that steering keeps from happening (see
	// [Filter]): the search does not make them.
	Refused []Filter
	// Base, when not nil, are the violations a state must add to in
	// order to violate, in place of those of the model's own state; the
	// model's state is then one that violates, reported as a path
	// without events, when it adds to them (and nothing else is
	// explored).
	Base []checker.Violation
	// Prior are violating paths found before, by an earlier search from
	// an earlier state of the system: each is replayed first, its
	// messages matched by sender, receiver and hash, and returned when
	// it still leads to a violation (CrystalBall replays the error paths
	// it found before it explores).
	Prior []Path
}

func (o Options) withDefaults() Options {
	if o.Depth <= 0 {
		o.Depth = 8
	}
	if o.Budget <= 0 {
		o.Budget = 100 * time.Millisecond
	}
	if o.MaxStates <= 0 {
		o.MaxStates = 1 << 20
	}
	if o.MaxPaths <= 0 {
		o.MaxPaths = 64
	}
	return o
}

// A Result is what a search found and how far it got.
type Result struct {
	// Paths are the violating paths found: the replayed ones of
	// Options.Prior first, then the others, shortest first.
	Paths []Path
	// Base are the violations of the model's own state. The search
	// goes on from a state that violates checks, and a state violates
	// when it adds failing bindings to those of Base: a check that
	// fails more often than in the model's state, or that did not fail
	// there.
	Base []checker.Violation
	// Replayed counts the paths of Options.Prior that still lead to a
	// violation.
	Replayed int
	// States counts the states explored (checked), the model's own
	// included; Seen the successors skipped because their global state
	// was explored already.
	States, Seen int
	// Depth is the length of the longest chain explored.
	Depth int
	// Complete reports whether every chain up to Options.Depth was
	// explored (under the pruning), the budget and MaxStates allowing.
	Complete bool
	Elapsed  time.Duration
}

// state is an explored state, or one waiting in the frontier: its
// parent and the event that leads from it, until it is explored. Once
// its successors are all explored, only parent and ev are kept, for the
// paths.
type state struct {
	parent *state
	ev     Event
	depth  int
	m      Model
	hashes []uint64         // of each node's local state; 0 when down
	prep   []*checker.State // of each live node, for the checks
	fails  []tally          // the checks failing at s, and how often
	// with caches, by node, the checks failing at bindings of the node
	// (see explorer.check).
	with    map[int][]tally
	pending int // successors not yet explored
}

// A tally is a check and its failing bindings, over a snapshot or over
// the bindings of one node.
type tally struct {
	check   *checker.Check
	failing int
}

// release forgets what s's successors no longer need.
func (s *state) release() {
	s.m, s.hashes, s.prep, s.fails, s.with = nil, nil, nil, nil, nil
}

// Explore searches the events that can follow the state of m, which it
// does not change, for chains that violate c's checks, and returns the
// violating paths it found (see the package comment). The state of m
// itself is checked too: its violations are Result.Base, and only
// states that add to them (or to Options.Base) count as violating.
func Explore(m Model, c *checker.Checker, opts Options) (*Result, error) {
	return explore(m, c, opts, false)
}

// explore is Explore; whole evaluates the checks on every state whole.
func explore(m Model, c *checker.Checker, opts Options, whole bool) (*Result, error) {
	opts = opts.withDefaults()
	start := time.Now()
	deadline := start.Add(opts.Budget)
	e := &explorer{c: c, snap: c.NewSnapshot(), seen: map[uint64]struct{}{}, local: map[[2]uint64]struct{}{},
		refused: opts.Refused, whole: whole}
	for n := range m.Nodes() {
		e.names = append(e.names, m.Name(n))
	}
	res := &Result{Complete: true}
	root := &state{m: m.Clone()}
	if _, _, err := e.explore(root); err != nil {
		return nil, err
	}
	res.Base, e.base = e.last, e.last
	res.States++
	if opts.Base != nil {
		e.base = opts.Base
		if vs := e.added(e.last); vs != nil {
			res.Paths = append(res.Paths, e.path(root, vs))
			res.Elapsed = time.Since(start)
			return res, nil
		}
	}
	for _, p := range opts.Prior {
		if len(res.Paths) >= opts.MaxPaths {
			break
		}
		q, err := e.replay(root, p)
		if err != nil {
			return nil, err
		}
		if q != nil {
			res.Paths = append(res.Paths, *q)
			res.Replayed++
		}
	}
	var frontier []*state
	if opts.Depth > 0 {
		frontier = e.expand(root, nil)
	}
	if root.pending == 0 {
		root.release()
	}
	for len(frontier) > 0 {
		// A state costs microseconds at least (a copy, an event, hashes,
		// the checks), against tens of nanoseconds for reading the clock.
		if res.States >= opts.MaxStates || time.Now().After(deadline) {
			res.Complete = false
			break
		}
		s := frontier[0]
		frontier[0] = nil
		frontier = frontier[1:]
		vs, explored, err := e.explore(s)
		if err != nil {
			return nil, err
		}
		if !explored {
			res.Seen++
			continue
		}
		res.States++
		res.Depth = max(res.Depth, s.depth)
		if vs != nil {
			if len(res.Paths) < opts.MaxPaths {
				res.Paths = append(res.Paths, e.path(s, vs))
			}
			s.release() // a violation ends the chain
			continue
		}
		if s.depth < opts.Depth {
			frontier = e.expand(s, frontier)
		}
		if s.pending == 0 {
			s.release()
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// replay makes the events of p happen from root, each matched to an
// event that can happen in the state it reaches (see match), and returns
// the path it took when it ends in a violation, nil when an event has no
// match or no violation is reached. Its states are checked, not counted
// as explored.
func (e *explorer) replay(root *state, p Path) (*Path, error) {
	s := root
	for _, ev := range p.Events {
		next, ok := match(s.m, ev)
		if !ok || e.isRefused(s.m, next) {
			return nil, nil
		}
		t := &state{parent: s, ev: next, depth: s.depth + 1, m: s.m.Clone()}
		t.m.Apply(next)
		e.hash(t)
		vs, err := e.check(t)
		if err != nil {
			return nil, err
		}
		if vs = e.added(vs); vs != nil {
			q := e.path(t, vs)
			return &q, nil
		}
		s = t
	}
	return nil, nil
}

// match returns the event of m that is ev: a message's event with the
// index of a message of m with ev's sender, receiver and hash, or a
// timer or reset of ev's node.
func match(m Model, ev Event) (Event, bool) {
	switch ev.Kind {
	case Deliver, Drop, Duplicate:
		for _, msg := range m.Messages() {
			if msg.From == ev.From && msg.Node == ev.Node && msg.Hash == ev.Hash {
				if ev.Kind == Duplicate && !msg.CanDuplicate {
					return Event{}, false
				}
				next := msg.Event
				next.Kind = ev.Kind
				return next, true
			}
		}
		return Event{}, false
	case Timer:
		return ev, m.Live(ev.Node)
	case Reset:
		return ev, m.Live(ev.Node)
	case Restart:
		return ev, !m.Live(ev.Node)
	}
	return Event{}, false
}

// explorer is the state of one search.
type explorer struct {
	c       *checker.Checker
	snap    *checker.Snapshot
	names   []string
	refused []Filter
	base    []checker.Violation    // of the model's own state
	last    []checker.Violation    // of the state explore checked last
	n       int                    // states explored
	seen    map[uint64]struct{}    // global states explored
	local   map[[2]uint64]struct{} // (node, local state) whose local events were explored
	whole   bool                   // evaluate every state whole (for tests)
}

// explore makes s's event happen on a copy of its parent's model, and
// checks the state it leads to, unless that was explored already.
func (e *explorer) explore(s *state) (vs []checker.Violation, explored bool, err error) {
	if p := s.parent; p != nil {
		s.m = p.m.Clone()
		s.m.Apply(s.ev)
		defer func() {
			if p.pending--; p.pending == 0 {
				p.release()
			}
		}()
	}
	key := e.hash(s)
	if _, ok := e.seen[key]; ok {
		s.release()
		return nil, false, nil
	}
	e.seen[key] = struct{}{}
	e.n++
	if e.last, err = e.check(s); err != nil {
		return nil, true, err
	}
	return e.added(e.last), true, nil
}

// tallies returns the failing bindings of each check of vs.
func tallies(vs []checker.Violation) []tally {
	ts := make([]tally, len(vs))
	for i, v := range vs {
		ts[i] = tally{v.Check, v.Failing}
	}
	return ts
}

// adds reports whether the tallies fs add failing bindings to those of
// the model's own state, as added says of violations.
func (e *explorer) adds(fs []tally) bool {
	for _, f := range fs {
		i := slices.IndexFunc(e.base, func(b checker.Violation) bool { return b.Check == f.check })
		if i < 0 || f.failing > e.base[i].Failing {
			return true
		}
	}
	return false
}

// added returns the violations of vs that add failing bindings to those
// of the model's own state, nil when none does.
func (e *explorer) added(vs []checker.Violation) []checker.Violation {
	var out []checker.Violation
	for _, v := range vs {
		i := slices.IndexFunc(e.base, func(b checker.Violation) bool { return b.Check == v.Check })
		if i < 0 || v.Failing > e.base[i].Failing {
			out = append(out, v)
		}
	}
	return out
}

// hash fills s.hashes and returns the hash of s's global state: the
// nodes' local states and the multiset of messages in flight.
func (e *explorer) hash(s *state) uint64 {
	s.hashes = make([]uint64, len(e.names))
	h := uint64(len(e.names))
	for n := range s.hashes {
		if s.m.Live(n) {
			s.hashes[n] = s.m.Hash(n) | 1 // never 0, which is down
		}
		h = mix(h ^ s.hashes[n])
	}
	var net uint64
	for _, msg := range s.m.Messages() {
		// A sum, so that the order of the messages does not count.
		net += mix(msg.Hash ^ mix(uint64(msg.From)<<32|uint64(msg.Node)))
	}
	return mix(h ^ net)
}

// mix is the finalizer of SplitMix64: a bijection that spreads every bit
// of x over the result.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// check evaluates the checks on s, numbered as explored (0 is the
// model's own state) and timed by its depth in the witnesses. The states
// of the nodes whose hash did not change since the parent are the
// parent's, prepared once.
//
// An event changes one node's state at most: when the parent's tallies
// are known and one live node changed, the failing bindings of s are the
// parent's, less those of the node there, plus those of the node in s,
// which [checker.Snapshot.Guard] counts (a check with a node quantifier
// after an exists it counts whole, which the sum takes as well). That
// costs the bindings of one node instead of all of them. Only when s
// adds to the failing bindings of the model's own state are the checks
// evaluated on the whole of s, for its violations and their witnesses,
// the same as without the shortcut.
func (e *explorer) check(s *state) ([]checker.Violation, error) {
	s.prep = make([]*checker.State, len(e.names))
	p := s.parent
	changed := -1
	incremental := p != nil && p.fails != nil && !e.whole
	for n, h := range s.hashes {
		if h == 0 {
			incremental = incremental && p.hashes[n] == 0
			continue
		}
		if p != nil && p.hashes[n] == h {
			s.prep[n] = p.prep[n]
			continue
		}
		if p == nil || p.hashes[n] == 0 || changed >= 0 {
			incremental = false
		}
		changed = n
		st, err := e.c.Prepare(e.names[n], s.m.State(n))
		if err != nil {
			return nil, err
		}
		s.prep[n] = st
	}
	if incremental {
		if changed < 0 {
			s.fails = p.fails
		} else {
			var err error
			if s.fails, err = e.moved(s, changed); err != nil {
				return nil, err
			}
		}
		if !e.adds(s.fails) {
			return nil, nil
		}
	}
	if err := e.put(s); err != nil {
		return nil, err
	}
	vs := e.snap.Check()
	s.fails = tallies(vs)
	return vs, nil
}

// put makes e.snap the snapshot of s.
func (e *explorer) put(s *state) error {
	e.snap.Reset()
	e.snap.ID, e.snap.TS = uint64(e.n-1), uint64(s.depth)
	for _, st := range s.prep {
		if st == nil {
			continue
		}
		if err := e.snap.Put(st); err != nil {
			return err
		}
	}
	return nil
}

// moved returns the tallies of s, whose node n alone changed since its
// parent: the parent's, less the failing bindings of n there, plus those
// of n in s.
func (e *explorer) moved(s *state, n int) ([]tally, error) {
	p := s.parent
	if err := e.put(p); err != nil {
		return nil, err
	}
	before, ok := p.with[n]
	if !ok {
		var err error
		if before, err = e.guard(n, p.m.State(n)); err != nil {
			return nil, err
		}
		if p.with == nil {
			p.with = map[int][]tally{}
		}
		p.with[n] = before
	}
	after, err := e.guard(n, s.m.State(n))
	if err != nil {
		return nil, err
	}
	if len(before) == 0 && len(after) == 0 {
		return p.fails, nil
	}
	fs := slices.Clone(p.fails)
	add := func(ts []tally, sign int) {
		for _, t := range ts {
			i := slices.IndexFunc(fs, func(f tally) bool { return f.check == t.check })
			if i < 0 {
				fs = append(fs, tally{t.check, 0})
				i = len(fs) - 1
			}
			fs[i].failing += sign * t.failing
		}
	}
	add(before, -1)
	add(after, +1)
	return slices.DeleteFunc(fs, func(f tally) bool { return f.failing == 0 }), nil
}

// guard returns the checks failing at the bindings of node n with state
// st in e.snap, and how often.
func (e *explorer) guard(n int, st any) ([]tally, error) {
	err := e.snap.Guard(e.names[n], st)
	if err == nil {
		return nil, nil
	}
	var ge *checker.GuardError
	if !errors.As(err, &ge) {
		return nil, err
	}
	return tallies(ge.Violations), nil
}

// expand appends the successors of s to frontier: every event of every
// message in flight, the local events of the nodes whose local state the
// search meets for the first time, and the restart of every node that is
// down; none that is refused.
func (e *explorer) expand(s *state, frontier []*state) []*state {
	next := func(ev Event) {
		if e.isRefused(s.m, ev) {
			return
		}
		frontier = append(frontier, &state{parent: s, ev: ev, depth: s.depth + 1})
		s.pending++
	}
	for _, msg := range s.m.Messages() {
		next(msg.Event)
		ev := msg.Event
		ev.Kind = Drop
		next(ev)
		if msg.CanDuplicate {
			ev.Kind = Duplicate
			next(ev)
		}
	}
	for n, h := range s.hashes {
		if h == 0 {
			next(Event{Kind: Restart, Node: n, From: -1})
			continue
		}
		k := [2]uint64{uint64(n), h}
		if _, ok := e.local[k]; ok {
			continue
		}
		e.local[k] = struct{}{}
		next(Event{Kind: Timer, Node: n, From: -1})
		next(Event{Kind: Reset, Node: n, From: -1})
	}
	return frontier
}

// path returns the chain of events that leads to s.
func (e *explorer) path(s *state, vs []checker.Violation) Path {
	var evs []Event
	for ; s.parent != nil; s = s.parent {
		evs = append(evs, s.ev)
	}
	for i, j := 0, len(evs)-1; i < j; i, j = i+1, j-1 {
		evs[i], evs[j] = evs[j], evs[i]
	}
	return Path{Events: evs, Violations: vs, names: e.names}
}
