package testbeds

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/augur-dev/augur/predict"
)

// A Copier is a System that can be copied mid-run into a model for the
// predictor (see Fork).
type Copier[S any] interface {
	System[S]
	// Copy returns a copy of the system whose nodes run on sim. The copy
	// may share the nodes' state with the original until Own.
	Copy(sim *Sim) Copier[S]
	// Own makes what a handler of node n may change (as Checkpoint saves
	// it) private to this copy; the model calls it before every handler
	// of n, so that copies cost one node each.
	Own(n int)
	// Hash returns a hash of live node n's local state (see
	// predict.Model.Hash): it covers every variable of State(n) and what
	// else decides how the node handles its next events, and leaves out
	// timestamps and tick counters, as CrystalBall leaves out chosen
	// variables.
	Hash(n int) uint64
}

// Fork runs a fresh system of testbed name, whose injectable bugs are
// bugs, with cfg for steps events (the warm-up's and the faults of cfg
// included; no trace is written) and returns a copy of the state it
// reached, for the predictor: its system, the messages in flight, the
// live nodes and the partition. The copy has no faults of its own: the
// predictor chooses every event. Once ctx is done the run stops, and
// Fork's error wraps ctx.Err() ("testbed fork NAME: context canceled").
//
// A system that is a Copier is copied. Any other is forked by replay:
// each copy is the run's configuration, its length and the events the
// predictor applied since, and the first read of a copy runs all that
// again from the seed, so that a copy costs the steps of the run so far
// (the predictor's budget bounds how many it makes).
// Its node hashes hash the exposed states.
func Fork[S any](ctx context.Context, name string, bugs []string, cfg Config, steps int, newSystem func(*Sim) System[S]) (predict.Model, error) {
	if cfg.Bug != "" && !slices.Contains(bugs, cfg.Bug) {
		return nil, fmt.Errorf("%s: unknown bug %q (want one of %s)", name, cfg.Bug, strings.Join(bugs, ", "))
	}
	r := &replay[S]{cfg: cfg, steps: steps, newSystem: newSystem}
	if !r.play(ctx.Done()) {
		return nil, fmt.Errorf("testbed fork %s: %w", name, ctx.Err())
	}
	if c, ok := r.m.sys.(Copier[S]); ok {
		return copyModel(r.m.sim, c), nil
	}
	return r, nil
}

// copyModel returns a copy of the run of sim and sys that shares nothing
// with it, which may go on.
func copyModel[S any](sim *Sim, sys Copier[S]) *model[S] {
	f := sim.fork()
	m := &model[S]{sim: f, sys: sys.Copy(f), clock: make([]int64, len(sim.live))}
	for n := range m.clock {
		m.own(n)
		m.clock[n] = sim.now
	}
	return m
}

// replay is a copy of a run, for the predictor, made by running it again:
// the run's configuration and length, and the events applied since. It is
// run, into a model, when first read.
type replay[S any] struct {
	cfg       Config
	steps     int
	newSystem func(*Sim) System[S]
	path      []predict.Event
	m         *model[S] // nil until read
}

// get returns the model of r, running it first if needed.
func (r *replay[S]) get() *model[S] {
	r.play(nil)
	return r.m
}

// play runs r into its model r.m, unless it has one, and reports whether
// it did: it stops, leaving r.m nil, once done is closed (a nil done
// never is).
func (r *replay[S]) play(done <-chan struct{}) bool {
	if r.m != nil {
		return true
	}
	if closed(done) {
		return false
	}
	sim := NewSim(r.cfg)
	sys := boot(sim, func() System[S] { return r.newSystem(sim) })
	for range r.steps {
		if closed(done) {
			return false
		}
		step(sim, sys)
	}
	r.m = &model[S]{sim: sim.fork(), sys: sys, clock: make([]int64, r.cfg.Nodes)}
	for n := range r.m.clock {
		r.m.clock[n] = sim.now
	}
	// The system, which holds sim, goes on as the fork: the messages in
	// flight, no faults.
	*sim = *r.m.sim
	r.m.sim = sim
	for _, e := range r.path {
		r.m.Apply(e)
	}
	return true
}

func (r *replay[S]) Nodes() int                  { return r.cfg.Nodes }
func (r *replay[S]) Name(n int) string           { return Name(n) }
func (r *replay[S]) Live(n int) bool             { return r.get().Live(n) }
func (r *replay[S]) State(n int) any             { return r.get().State(n) }
func (r *replay[S]) Hash(n int) uint64           { return r.get().Hash(n) }
func (r *replay[S]) Messages() []predict.Message { return r.get().Messages() }

func (r *replay[S]) Apply(e predict.Event) {
	r.path = append(r.path, e)
	if r.m != nil {
		r.m.Apply(e)
	}
}

func (r *replay[S]) Clone() predict.Model {
	return &replay[S]{cfg: r.cfg, steps: r.steps, newSystem: r.newSystem, path: slices.Clone(r.path)}
}

// fork returns a scheduler for a copy of the run: the same time, live
// nodes, partition and generator state, the messages in flight (in any
// order: the predictor picks which goes next), and no faults, guard or
// local records. A fork's live nodes and partition never change: it
// shares them with its own forks.
func (s *Sim) fork() *Sim {
	pcg := *s.pcg
	f := &Sim{cfg: s.cfg, pcg: &pcg, rng: rand.New(&pcg), now: s.now, model: true,
		live: s.live, side: s.side, split: s.split}
	if !s.model {
		f.live, f.side = slices.Clone(s.live), slices.Clone(s.side)
	}
	f.cfg.Faults, f.cfg.Guard, f.cfg.Local = Faults{}, "", nil
	f.q = make(queue, 0, len(s.q)+2)
	for _, e := range s.q {
		if e.kind == evMsg {
			f.q = append(f.q, e)
		}
	}
	return f
}

// model is a copy of a run for the predictor. Its scheduler's queue holds
// the messages in flight; each node has a clock, which its timer events
// advance by a tick. Its system is a Copier, or a replay's own run.
type model[S any] struct {
	sim   *Sim
	sys   System[S]
	clock []int64
}

func (m *model[S]) Nodes() int        { return len(m.clock) }
func (m *model[S]) Name(n int) string { return Name(n) }
func (m *model[S]) Live(n int) bool   { return m.sim.live[n] }
func (m *model[S]) State(n int) any   { st := m.sys.State(n); return &st }

// Hash returns the Copier's hash of node n, or else a hash of the state
// it exposes.
func (m *model[S]) Hash(n int) uint64 {
	if c, ok := m.sys.(Copier[S]); ok {
		return c.Hash(n)
	}
	var h Hasher
	h.String(fmt.Sprintf("%+v", m.sys.State(n)))
	return h.Sum()
}

// own makes node n's state private to m, when its system is a Copier (a
// replay's run is its own).
func (m *model[S]) own(n int) {
	if c, ok := m.sys.(Copier[S]); ok {
		c.Own(n)
	}
}

// Messages returns the messages in flight to live nodes.
func (m *model[S]) Messages() []predict.Message {
	msgs := make([]predict.Message, 0, len(m.sim.q))
	for i, e := range m.sim.q {
		if m.sim.live[e.to] {
			msgs = append(msgs, predict.Message{CanDuplicate: !e.dup, Event: predict.Event{Kind: predict.Deliver,
				Node: e.to, From: e.from, Index: i, Msg: e.msg, Hash: e.hash()}})
		}
	}
	return msgs
}

// Apply makes ev happen: a handler runs at its node's clock.
func (m *model[S]) Apply(ev predict.Event) {
	s := m.sim
	switch ev.Kind {
	case predict.Deliver:
		e := m.take(ev.Index)
		if s.live[e.to] && !s.cut(e.from, e.to) {
			s.now = m.clock[e.to]
			m.own(e.to)
			m.sys.Deliver(e.from, e.to, e.msg)
		}
	case predict.Drop:
		m.take(ev.Index)
	case predict.Duplicate:
		d := *s.q[ev.Index]
		d.dup = true
		s.q = append(s.q, &d)
	case predict.Timer:
		m.clock[ev.Node] += TickEvery
		s.now = m.clock[ev.Node]
		m.own(ev.Node)
		m.sys.Tick(ev.Node)
	case predict.Reset:
		// The node's connections reset with it: what was in flight to it
		// is lost.
		s.q = slices.DeleteFunc(s.q, func(e *event) bool { return e.to == ev.Node })
		s.now = m.clock[ev.Node]
		m.own(ev.Node)
		m.sys.Crash(ev.Node)
		m.sys.Restart(ev.Node)
	case predict.Restart:
		// The live nodes are shared with the model's forks: this one
		// gets its own.
		s.live = slices.Clone(s.live)
		s.live[ev.Node] = true
		s.now = m.clock[ev.Node]
		m.own(ev.Node)
		m.sys.Restart(ev.Node)
	}
}

// take removes the message at i from the messages in flight.
func (m *model[S]) take(i int) *event {
	e := m.sim.q[i]
	m.sim.q = slices.Delete(m.sim.q, i, i+1)
	return e
}

// Clone copies m, whose system is a Copier.
func (m *model[S]) Clone() predict.Model {
	f := m.sim.fork()
	return &model[S]{sim: f, sys: m.sys.(Copier[S]).Copy(f), clock: slices.Clone(m.clock)}
}

// hash returns a hash of a message's content, computed once.
func (e *event) hash() uint64 {
	if e.h == 0 {
		var h Hasher
		h.String(fmt.Sprintf("%T%+v", e.msg, e.msg))
		e.h = h.Sum() | 1
	}
	return e.h
}

// A Hasher hashes the local state of a node, for Copier.Hash: each value
// written is mixed in, in order. The zero value is ready to use, and the
// hash is the same in every process.
type Hasher struct{ h uint64 }

// Int mixes in x.
func (h *Hasher) Int(x int64) {
	v := h.h ^ uint64(x)
	v ^= v >> 30
	v *= 0xbf58476d1ce4e5b9
	v ^= v >> 27
	v *= 0x94d049bb133111eb
	h.h = (v ^ v>>31) + 0x9e3779b97f4a7c15
}

// Bool mixes in b.
func (h *Hasher) Bool(b bool) {
	if b {
		h.Int(1)
	} else {
		h.Int(0)
	}
}

// Ints mixes in the length of xs and its elements.
func (h *Hasher) Ints(xs []int) {
	h.Int(int64(len(xs)))
	for _, x := range xs {
		h.Int(int64(x))
	}
}

// String mixes in s.
func (h *Hasher) String(s string) {
	h.Int(int64(len(s)))
	for len(s) >= 8 {
		h.Int(int64(s[0]) | int64(s[1])<<8 | int64(s[2])<<16 | int64(s[3])<<24 |
			int64(s[4])<<32 | int64(s[5])<<40 | int64(s[6])<<48 | int64(s[7])<<56)
		s = s[8:]
	}
	var w int64
	for i := range len(s) {
		w |= int64(s[i]) << (8 * i)
	}
	h.Int(w)
}

// Sum returns the hash of what was written.
func (h *Hasher) Sum() uint64 { return h.h }
