package predict

import (
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
	// Paths are the violating paths found, shortest first.
	Paths []Path
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
	parent  *state
	ev      Event
	depth   int
	m       Model
	hashes  []uint64         // of each node's local state; 0 when down
	prep    []*checker.State // of each live node, for the checks
	pending int              // successors not yet explored
}

// release forgets what s's successors no longer need.
func (s *state) release() {
	s.m, s.hashes, s.prep = nil, nil, nil
}

// Explore searches the events that can follow the state of m, which it
// does not change, for chains that violate c's checks, and returns the
// violating paths it found (see the package comment). The state of m
// itself is checked too: if it violates a check, the result holds one
// path without events, and nothing else is explored.
func Explore(m Model, c *checker.Checker, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	start := time.Now()
	deadline := start.Add(opts.Budget)
	e := &explorer{c: c, snap: c.NewSnapshot(), seen: map[uint64]struct{}{}, local: map[[2]uint64]struct{}{}}
	for n := range m.Nodes() {
		e.names = append(e.names, m.Name(n))
	}
	res := &Result{Complete: true}
	frontier := []*state{{m: m.Clone()}}
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

// explorer is the state of one search.
type explorer struct {
	c     *checker.Checker
	snap  *checker.Snapshot
	names []string
	n     int                    // states explored
	seen  map[uint64]struct{}    // global states explored
	local map[[2]uint64]struct{} // (node, local state) whose local events were explored
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
	vs, err = e.check(s)
	return vs, true, err
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
func (e *explorer) check(s *state) ([]checker.Violation, error) {
	s.prep = make([]*checker.State, len(e.names))
	e.snap.Reset()
	e.snap.ID, e.snap.TS = uint64(e.n-1), uint64(s.depth)
	for n, h := range s.hashes {
		if h == 0 {
			continue
		}
		if s.parent != nil && s.parent.hashes[n] == h {
			s.prep[n] = s.parent.prep[n]
		} else {
			p, err := e.c.Prepare(e.names[n], s.m.State(n))
			if err != nil {
				return nil, err
			}
			s.prep[n] = p
		}
		if err := e.snap.Put(s.prep[n]); err != nil {
			return nil, err
		}
	}
	return e.snap.Check(), nil
}

// expand appends the successors of s to frontier: every event of every
// message in flight, and the local events of the nodes whose local state
// the search meets for the first time.
func (e *explorer) expand(s *state, frontier []*state) []*state {
	next := func(ev Event) {
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

// Filters is CrystalBall's execution steering's choice: it searches from
// m (as Explore does, with opts) and returns the messages whose delivery
// starts a violating path, each once, as Deliver events of m, to be
// dropped instead of delivered. A message is returned only when a second
// search, from m with the message dropped, finds no violation: a filter
// must not itself lead to one. It returns the first search's result too.
func Filters(m Model, c *checker.Checker, opts Options) ([]Event, *Result, error) {
	res, err := Explore(m, c, opts)
	if err != nil {
		return nil, nil, err
	}
	var filters []Event
	for _, p := range res.Paths {
		if len(p.Events) == 0 || p.Events[0].Kind != Deliver {
			continue
		}
		first := p.Events[0]
		if slices.ContainsFunc(filters, func(e Event) bool { return e.Index == first.Index }) {
			continue
		}
		dropped := m.Clone()
		drop := first
		drop.Kind = Drop
		dropped.Apply(drop)
		after, err := Explore(dropped, c, opts)
		if err != nil {
			return nil, nil, err
		}
		if len(after.Paths) == 0 {
			filters = append(filters, first)
		}
	}
	return filters, res, nil
}
