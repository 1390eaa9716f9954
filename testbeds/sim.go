// Package testbeds runs distributed systems in one process under a seeded,
// deterministic scheduler with fault injection, and records their global
// snapshots into augur traces, tagged where a ground-truth check fails.
//
// A [Sim] owns logical time (milliseconds), a discrete-event queue, the
// simulated network and the faults. A [System] is the code under test: N
// nodes that react to ticks, messages and client proposals, and that expose
// their state and check their protocol's safety properties (the ground
// truth). [Record] pops one event per step, and after each step records the
// state of every live node as one snapshot, tagged "steady" when no message
// is in flight and no fault is in force (the network whole, every node up)
// and "bug:NAME" when a ground-truth check fails. The same seed always
// yields the same trace.
package testbeds

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/collector/recorder"
	"github.com/augur-dev/augur/predict"
	"github.com/augur-dev/augur/trace"
)

// Faults are the probabilities of the injected faults.
type Faults struct {
	Drop      float64 // a message is lost
	Dup       float64 // a message is delivered twice
	Reorder   float64 // a message is held back by up to MaxDelay ms
	MaxDelay  int     // extra delay of a held-back message, in ms
	Partition float64 // per tick: the network splits in two (when whole)
	Heal      float64 // per tick: a partition heals
	Crash     float64 // per tick: a live node crashes (a minority at most is down)
	CrashAt   float64 // a node crashes right after a write to its storage
	Down      int     // a crashed node restarts from its storage within 1..Down ms
}

// DefaultFaults are the faults under which the testbeds' bugs manifest in
// a 20,000-step run.
func DefaultFaults() Faults {
	return Faults{Drop: 0.02, Dup: 0.02, Reorder: 0.05, MaxDelay: 60,
		Partition: 0.004, Heal: 0.05, Crash: 0.01, CrashAt: 0.05, Down: 20}
}

// MaxFaultMS bounds maxdelay and down, in ms of simulated time: a day, in
// which nodes that tick every 10 ms (TickEvery) live through millions of
// ticks, so that a message held back longer is as good as lost and a node
// down longer as good as gone. The largest int overflowed the random delay
// (drawn from maxdelay+1 values) and the time of the event it schedules.
const MaxFaultMS = 24 * 60 * 60 * 1000

// ParseFaults reads "drop=0.01,crash=0.02,…" over base; "none" is no
// faults at all.
func ParseFaults(s string, base Faults) (Faults, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return base, nil
	}
	if s == "none" {
		return Faults{}, nil
	}
	f := base
	for kv := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return f, fmt.Errorf("faults: %q: want name=value", kv)
		}
		if k == "maxdelay" || k == "down" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > MaxFaultMS {
				return f, fmt.Errorf("faults: %s=%s: want a count of ms, at most %d (a day)", k, v, MaxFaultMS)
			}
			if k == "down" {
				f.Down = n
			} else {
				f.MaxDelay = n
			}
			continue
		}
		p, err := strconv.ParseFloat(v, 64)
		if err != nil || !(p >= 0 && p <= 1) { // NaN too
			return f, fmt.Errorf("faults: %s=%s: want a probability", k, v)
		}
		switch k {
		case "drop":
			f.Drop = p
		case "dup":
			f.Dup = p
		case "reorder":
			f.Reorder = p
		case "partition":
			f.Partition = p
		case "heal":
			f.Heal = p
		case "crash":
			f.Crash = p
		case "crashat":
			f.CrashAt = p
		default:
			return f, fmt.Errorf("faults: unknown fault %q (want drop, dup, reorder, maxdelay, partition, heal, crash, crashat, down)", k)
		}
	}
	return f, nil
}

// String renders f as ParseFaults reads it.
func (f Faults) String() string {
	g := func(p float64) string { return strconv.FormatFloat(p, 'g', -1, 64) }
	return fmt.Sprintf("drop=%s,dup=%s,reorder=%s,maxdelay=%d,partition=%s,heal=%s,crash=%s,crashat=%s,down=%d",
		g(f.Drop), g(f.Dup), g(f.Reorder), f.MaxDelay, g(f.Partition), g(f.Heal), g(f.Crash), g(f.CrashAt), f.Down)
}

// Config is a run's configuration. A field left zero takes its default:
// the testbed's nodes and faults, DefaultSteps and DefaultResetAfter,
// which a testbed's Run and Fork fill in first (Config.WithDefaults),
// and DefaultPredictEvery and DefaultSteerStates when the run steers.
// None is said explicitly: NoFaults, NoReset and ResetAtViolation; ""
// for no bug, guard or steering.
type Config struct {
	Nodes int    // 0 means the testbed's (Testbed.Nodes)
	Steps int    // snapshots recorded, one per event (warm-ups are not, unless RecordWarmup); 0 means DefaultSteps
	Seed  uint64 // the zero seed is a seed like any other
	// Faults are the faults injected; the zero Faults means the
	// testbed's (Testbed.Faults), unless NoFaults is set.
	Faults Faults
	// NoFaults runs without faults: Faults, if not zero, is an error.
	NoFaults bool
	Bug      string // the injected bug, "" for none
	// ResetAfter is the number of snapshots recorded after the first
	// ground-truth violation of an episode before a fresh system boots:
	// 0 means DefaultResetAfter; ResetAtViolation ends the episode at the
	// violation, recording none after it, and NoReset never does.
	ResetAfter int
	// RecordWarmup records the warm-up of each episode too (Warmup
	// events: the cluster boots and elects a first leader), so that the
	// trace holds the states a system passes through from its boot:
	// checks learned from runs that lack them refuse the boot of a
	// guarded run.
	RecordWarmup bool
	// Guard is a checks file whose checks every change of a node's state
	// must pass, "" for none: CrystalBall's immediate safety check (see
	// Checkpointer and Sim.Allow).
	Guard string
	// Steer is a checks file that steers the run, "" for none:
	// CrystalBall's execution steering. Every PredictEvery steps (0 means
	// DefaultPredictEvery) a search of at most SteerStates states (0
	// means DefaultSteerStates) predicts from a copy of the run, the last
	// prediction's violating paths replayed first, and the filters of
	// predict.Steer (messages dropped, a sender's messages refused, a
	// node's timer suppressed) hold until the next prediction. The
	// system must be a Copier.
	// The checks of Steer also guard the run, as the fallback of the
	// prediction (CrystalBall's immediate safety check), unless Guard
	// names other checks or SteerAlone is set.
	Steer        string
	PredictEvery int
	SteerStates  int
	SteerAlone   bool
	// Local, when not nil, makes every node also write its node-local
	// records, what a deployed node would write with collector.Node, to
	// the sink Local returns for its name (n1, n2, …): its state after
	// each step that changed it, stamped with a Lamport clock that the
	// run's messages carry, and a leave when the run ends. The trace is
	// the same with or without.
	Local func(node string) (collector.Sink, error)

	Overwrite bool // replace an existing trace
	// OnRecord, if not nil, is called with the number of snapshots
	// recorded so far after each, to show how far a long run is.
	OnRecord func(recorded int)
}

// Command is the augur command line that runs testbed name with c, whose
// defaults are filled in.
func (c Config) Command(name string) string {
	cmd := fmt.Sprintf("augur testbed run %s --nodes %d --steps %d --seed %d --faults %s --reset-after %d", name, c.Nodes, c.Steps, c.Seed, c.Faults, c.resetAfter())
	if c.Bug != "" {
		cmd += " --bug " + c.Bug
	}
	if c.RecordWarmup {
		cmd += " --record-warmup"
	}
	if c.Guard != "" {
		cmd += " --guard " + c.Guard
	}
	if c.Steer != "" {
		cmd += " --steer " + c.Steer
	}
	if c.Steer != "" && c.PredictEvery > 0 {
		cmd += fmt.Sprintf(" --predict-every %d", c.PredictEvery)
	}
	if c.Steer != "" && c.SteerStates > 0 {
		cmd += fmt.Sprintf(" --budget %d", c.SteerStates)
	}
	if c.Steer != "" && c.SteerAlone {
		cmd += " --no-fallback"
	}
	return cmd
}

// DefaultResetAfter is the ResetAfter of augur testbed run: enough for a
// violation's immediate aftermath (a few message rounds), not for the
// persistent damage that follows.
const DefaultResetAfter = 30

// The explicit values of Config.ResetAfter that no count says.
const (
	NoReset          = -1 // an episode runs on after a violation until the run ends
	ResetAtViolation = -2 // an episode ends at its first violation
)

// DefaultSteps is the Steps of a run that leaves them zero: each bug of
// a testbed manifests in a run this long under its default faults.
const DefaultSteps = 20000

// MaxNodes bounds Config.Nodes. A simulated cluster boots all its nodes
// at once, before the first step, where a run first looks at its
// context; an etcd raft node is made knowing every peer, so that its
// boot grows as the cube of the nodes: 256 took 9.6 s on a loaded 2-core
// machine, 300 16 s, and 1,000 ran for over ten minutes, deaf to SIGINT.
const MaxNodes = 256

// WithDefaults returns c with each field it leaves zero set to its
// default, nodes and faults being the testbed's (see Config), and checks
// what it cannot default: at most MaxNodes nodes.
func (c Config) WithDefaults(nodes int, faults Faults) (Config, error) {
	c.Nodes = cmp.Or(c.Nodes, nodes)
	c.Steps = cmp.Or(c.Steps, DefaultSteps)
	c.ResetAfter = cmp.Or(c.ResetAfter, DefaultResetAfter)
	switch {
	case c.NoFaults && c.Faults != (Faults{}):
		return c, fmt.Errorf("faults %s and no faults", c.Faults)
	case !c.NoFaults:
		c.Faults = cmp.Or(c.Faults, faults)
	}
	switch {
	case c.Nodes < 1 || c.Nodes > MaxNodes:
		return c, fmt.Errorf("%d nodes, want 1 to %d", c.Nodes, MaxNodes)
	case c.Steps < 0:
		return c, fmt.Errorf("%d steps", c.Steps)
	case c.ResetAfter < ResetAtViolation:
		return c, fmt.Errorf("reset after %d snapshots", c.ResetAfter)
	}
	return c, nil
}

// resetAfter is c.ResetAfter as a count, as --reset-after takes it: the
// snapshots recorded after a violation, -1 for never.
func (c Config) resetAfter() int {
	switch c.ResetAfter {
	case 0:
		return DefaultResetAfter
	case ResetAtViolation:
		return 0
	}
	return c.ResetAfter
}

// Timing of the simulation, in ms of logical time.
const (
	TickEvery              = 10
	delayMin, delayMax     = 1, 4
	proposeMin, proposeMax = 15, 60
	// Warmup is the number of events an episode runs, with faults, before
	// recording starts: the cluster boots and elects a first leader.
	Warmup = 200
)

// A System is the code under test, driven by a Sim. Node numbers run from
// 0 to Nodes-1; a crashed node gets no calls but Restart. Check is the
// ground truth of every snapshot: a check fails for as long as the damage
// it sees lasts (two stores that diverged, a second value chosen), not
// only at the step that does it, so that every inconsistent snapshot is
// tagged.
type System[S any] interface {
	Tick(n int)                  // a timer tick of a live node
	Deliver(from, to int, m any) // a message arrives at a live node
	Propose(n int)               // a client request arrives at a live node
	Crash(n int)                 // the node stops; only its storage survives
	Restart(n int)               // the node starts again from its storage
	State(n int) S               // the state a live node exposes
	Check() []string             // the ground-truth checks failing now
}

type eventKind uint8

const (
	evMsg eventKind = iota
	evTick
	evPropose
	evCrash
	evRestart
)

type event struct {
	at       int64
	seq      uint64
	kind     eventKind
	from, to int
	msg      any
	ts       uint64 // a message's Lamport time, with Config.Local
	dup      bool   // a copy the predictor made (see model.Apply)
	h        uint64 // a hash of msg, once computed (see event.hash)
}

type queue []*event

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *queue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// Sim is the scheduler and network of one run.
type Sim struct {
	cfg      Config
	pcg      *rand.PCG // rng's source, which a fork copies
	rng      *rand.Rand
	now      int64
	seq      uint64
	q        queue
	inflight int
	live     []bool
	side     []bool // the side of each node while partitioned
	split    bool
	stats    Stats
	g        *guard    // nil without Config.Guard
	loc      *local    // nil without Config.Local
	steer    *steering // nil without Config.Steer
	model    bool      // a fork for the predictor: q is unordered
}

// Stats count what happened in a run; Steps counts every event handled,
// warm-ups included.
type Stats struct {
	Steps, Snapshots               int
	Sent, Dropped, Duplicated      int
	Delivered, Crashes, Partitions int
	Episodes                       int            // systems booted
	Tagged                         map[string]int // snapshots per tag
	Elapsed                        time.Duration
	// With a guard: the changes of a node's state it checked, those it
	// refused, and how many of those each check refused (the first
	// violated check of a refusal counts).
	Checked, Blocked int
	BlockedBy        map[string]int
	// Deviant counts the nodes let through at the system's start against
	// the checks (see Sim.Allow), DeviantBy how many of those starts each
	// check would have refused.
	Deviant   int
	DeviantBy map[string]int
	// With steering: the predictions made, the filters they installed,
	// the events the filters kept from happening (messages dropped,
	// timers not fired), the filters considered and
	// not installed because a prediction from the state they lead to
	// found a violation, and the violating paths of a prediction that
	// the next one replayed to a violation again.
	Predictions, Filters, Filtered int
	Rejected, Replayed             int
	// Violations counts the episodes in which a ground-truth check
	// failed, Progress what the systems achieved (see Progresser).
	Violations, Progress int
}

// A Progresser is a System that counts what it achieved, for the
// overhead of steering: the count since it booted (Paxos: instances
// decided; Chord: lookups answered right; RandTree: ticks at which the
// live nodes form one tree). Counting must not change what the system
// does.
type Progresser interface {
	Progress() int
}

// A Rejoiner is a System whose nodes keep nothing across a crash: a
// restarted node (or one that lost every peer) must rejoin the others,
// and until it has it answers nothing, as a down node does. The run is no
// more in steady state while such a node rejoins than while it was down
// (see Sim's steady).
type Rejoiner interface {
	Rejoining(n int) bool // live node n has yet to (re)join the others
}

// NewSim returns the scheduler of a run with cfg as it is: its zero
// fields are not defaulted (a testbed's Run and Fork do that first).
func NewSim(cfg Config) *Sim {
	pcg := rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)
	s := &Sim{cfg: cfg, pcg: pcg, rng: rand.New(pcg), live: make([]bool, cfg.Nodes), side: make([]bool, cfg.Nodes)}
	for i := range s.live {
		s.live[i] = true
	}
	s.stats.Tagged, s.stats.BlockedBy, s.stats.DeviantBy = map[string]int{}, map[string]int{}, map[string]int{}
	return s
}

// Rand is the run's seeded generator, for the system's own choices.
func (s *Sim) Rand() *rand.Rand { return s.rng }

// Now is the logical time in ms.
func (s *Sim) Now() int64 { return s.now }

// Live reports whether node n is up.
func (s *Sim) Live(n int) bool { return s.live[n] }

// Partitioned reports whether the network is split in two.
func (s *Sim) Partitioned() bool { return s.split }

// Name is the name of node n in the trace: n1, n2, …
func Name(n int) string { return "n" + strconv.Itoa(n+1) }

func (s *Sim) push(e *event) {
	s.seq++
	e.seq = s.seq
	if s.g != nil && s.g.active {
		s.g.held = append(s.g.held, e) // until the guard allows the handler
		return
	}
	if s.model {
		s.q = append(s.q, e)
		return
	}
	heap.Push(&s.q, e)
}

func (s *Sim) cut(a, b int) bool { return s.split && s.side[a] != s.side[b] }

// Send puts a message from node from to node to on the network, which may
// lose, delay, reorder or duplicate it. A duplicated message is delivered
// as the same value twice: a System that mutates messages must copy them.
func (s *Sim) Send(from, to int, m any) {
	s.stats.Sent++
	if s.cut(from, to) || s.rng.Float64() < s.cfg.Faults.Drop {
		s.stats.Dropped++
		return
	}
	var ts uint64
	if s.loc != nil {
		ts = s.loc.stamp(from)
	}
	copies := 1
	if s.rng.Float64() < s.cfg.Faults.Dup {
		copies = 2
		s.stats.Duplicated++
	}
	for range copies {
		d := int64(delayMin + s.rng.IntN(delayMax-delayMin+1))
		if s.cfg.Faults.MaxDelay > 0 && s.rng.Float64() < s.cfg.Faults.Reorder {
			d += int64(s.rng.IntN(s.cfg.Faults.MaxDelay + 1))
		}
		s.inflight++
		s.push(&event{at: s.now + d, kind: evMsg, from: from, to: to, msg: m, ts: ts})
	}
}

func (s *Sim) down() int {
	n := 0
	for _, l := range s.live {
		if !l {
			n++
		}
	}
	return n
}

// Wrote tells the scheduler that node n has just written to its storage:
// a crash point, where it crashes with probability Faults.CrashAt, right
// after the current event.
func (s *Sim) Wrote(n int) {
	if s.live[n] && s.cfg.Faults.CrashAt > 0 && s.rng.Float64() < s.cfg.Faults.CrashAt {
		s.push(&event{at: s.now, kind: evCrash, to: n})
	}
}

// steady reports whether sys is in steady state: no message in flight
// and no fault in force. A partition drops the messages sent across it
// and a down node those sent to it, where a real network would keep them
// in flight (TCP retransmits until the link heals or the peer is
// declared dead), so "no message in flight" alone would call a split or
// crippled system steady while it waits out its fault. A crash is in
// force until its node is back: restarted, and rejoined when sys is a
// Rejoiner (a Chord node rejoins on a timer, with no message in flight
// meanwhile).
func (s *Sim) steady(sys any) bool {
	if s.inflight != 0 || s.split || s.down() != 0 {
		return false
	}
	if r, ok := sys.(Rejoiner); ok {
		for n, l := range s.live {
			if l && r.Rejoining(n) {
				return false
			}
		}
	}
	return true
}

// crash crashes n, when that leaves a majority up, and schedules its
// restart.
func (s *Sim) crash(sys interface{ Crash(int) }, n int) {
	if !s.live[n] || (s.down()+1)*2 >= len(s.live) {
		return
	}
	s.live[n] = false
	s.stats.Crashes++
	sys.Crash(n)
	if s.g != nil {
		s.g.remove(n)
	}
	s.push(&event{at: s.now + 1 + int64(s.rng.IntN(max(s.cfg.Faults.Down, 1))), kind: evRestart, to: n})
}

// faults injects the faults of one tick.
func (s *Sim) faults(sys interface{ Crash(int) }) {
	f := s.cfg.Faults
	if s.split {
		if s.rng.Float64() < f.Heal {
			s.split = false
		}
	} else if s.rng.Float64() < f.Partition {
		s.split = true
		s.stats.Partitions++
		for i := range s.side {
			s.side[i] = s.rng.IntN(2) == 0
		}
	}
	if s.rng.Float64() < f.Crash {
		s.crash(sys, s.rng.IntN(len(s.live)))
	}
}

// boot starts an episode: a fresh system on a whole network with every
// node up and nothing in flight.
func boot[S any](s *Sim, newSystem func() System[S]) System[S] {
	s.q, s.inflight, s.split = nil, 0, false
	if s.loc != nil {
		s.loc.boot()
	}
	for i := range s.live {
		s.live[i] = true
	}
	s.push(&event{at: s.now + TickEvery, kind: evTick})
	s.push(&event{at: s.now + proposeMin, kind: evPropose})
	s.stats.Episodes++
	if s.g != nil {
		s.g.boot()
	}
	return newSystem()
}

// step pops the next event and hands it to sys; the handlers of nodes
// pass the run's guard, if any.
func step[S any](s *Sim, sys System[S]) {
	e := heap.Pop(&s.q).(*event)
	s.now = e.at
	if s.g != nil {
		sync(s, sys)
	}
	switch e.kind {
	case evMsg:
		s.inflight--
		if s.steer.drops(e) {
			s.stats.Filtered++
			break
		}
		if s.live[e.to] && !s.cut(e.from, e.to) {
			s.stats.Delivered++
			if s.loc != nil {
				s.loc.nodes[e.to].Receive(e.ts)
			}
			handle(s, sys, e.to, func() { sys.Deliver(e.from, e.to, e.msg) })
		} else {
			s.stats.Dropped++
		}
	case evTick:
		s.faults(sys)
		for n, l := range s.live {
			if l && s.steer != nil && s.steer.timers[n] {
				s.stats.Filtered++
				continue
			}
			if l {
				handle(s, sys, n, func() { sys.Tick(n) })
			}
		}
		s.push(&event{at: s.now + TickEvery, kind: evTick})
	case evCrash:
		s.crash(sys, e.to)
	case evRestart:
		s.live[e.to] = true
		sys.Restart(e.to)
	case evPropose:
		if n := s.rng.IntN(len(s.live)); s.live[n] {
			handle(s, sys, n, func() { sys.Propose(n) })
		}
		s.push(&event{at: s.now + int64(proposeMin+s.rng.IntN(proposeMax-proposeMin+1)), kind: evPropose})
	}
}

// closed reports whether done is closed; a nil done never is.
func closed(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// run drives systems made by newSystem, one per episode, until it has
// recorded cfg.Steps snapshots into a trace at dir, or ctx is done.
func run[S any](ctx context.Context, s *Sim, newSystem func() System[S], dir string, opts trace.Options) (Stats, error) {
	start := time.Now()
	rec, err := recorder.New[S](dir, opts)
	if err != nil {
		return s.stats, err
	}
	if s.cfg.Local != nil {
		if s.loc, err = openLocal(s.cfg.Nodes, s.cfg.Local); err != nil {
			rec.Abort()
			return s.stats, err
		}
	}
	var (
		sys   System[S]
		warm  int
		after = -1 // snapshots recorded since the episode's first violation
		nodes = map[string]S{}
		tags  []string
		// progress is what the episodes before this one achieved.
		progress int
	)
	done := ctx.Done() // looked at every step, without ctx.Err's lock
	for s.stats.Snapshots < s.cfg.Steps {
		if closed(done) {
			return s.stats, abort(s, rec, fmt.Errorf("testbed run %s: %w", dir, ctx.Err()))
		}
		if sys == nil {
			sys, warm, after = boot(s, newSystem), Warmup, -1
			progress = s.stats.Progress
		}
		if s.steer != nil && s.stats.Steps%s.steer.every == 0 {
			if err := predictNow(s, sys); err != nil {
				return s.stats, abort(s, rec, err)
			}
		}
		step(s, sys)
		s.stats.Steps++
		if s.g != nil && s.g.err != nil {
			return s.stats, abort(s, rec, s.g.err)
		}
		if s.loc != nil {
			if err := expose(s, sys); err != nil {
				return s.stats, abort(s, rec, err)
			}
		}
		if p, ok := sys.(Progresser); ok {
			s.stats.Progress = progress + p.Progress()
		}
		failed := sys.Check()
		if len(failed) > 0 && after < 0 {
			s.stats.Violations++
		}
		if warm > 0 {
			warm--
			if len(failed) > 0 {
				after = 0
			}
			if !s.cfg.RecordWarmup {
				continue
			}
		}
		clear(nodes)
		for n, l := range s.live {
			if l {
				nodes[Name(n)] = sys.State(n)
			}
		}
		tags = tags[:0]
		if s.steady(sys) {
			tags = append(tags, "steady")
		}
		if len(failed) > 0 {
			after = max(after, 0)
			if s.cfg.Bug != "" {
				tags = append(tags, "bug:"+s.cfg.Bug)
			} else {
				for _, c := range failed {
					tags = append(tags, "bug:"+c)
				}
			}
		}
		for _, t := range tags {
			s.stats.Tagged[t]++
		}
		s.stats.Snapshots++
		if err := rec.Snapshot(uint64(s.stats.Snapshots), nodes, tags...); err != nil {
			return s.stats, abort(s, rec, err)
		}
		if s.cfg.OnRecord != nil {
			s.cfg.OnRecord(s.stats.Snapshots)
		}
		if after >= 0 {
			if reset := s.cfg.resetAfter(); reset >= 0 && after >= reset {
				sys = nil
			}
			after++
		}
	}
	if s.loc != nil {
		if err := s.loc.leave(); err != nil {
			return s.stats, abort(s, rec, err)
		}
	}
	if err := rec.Close(); err != nil {
		return s.stats, err
	}
	s.stats.Elapsed = time.Since(start)
	return s.stats, nil
}

// abort ends a run that failed with err: the trace is removed and the
// local sinks closed.
func abort[S any](s *Sim, rec *recorder.Recorder[S], err error) error {
	rec.Abort()
	if s.loc != nil {
		s.loc.close() // after err, the first failure
	}
	return err
}

// Record runs testbed name, whose injectable bugs are bugs, with cfg: a
// system made by newSystem per episode, recorded into a trace at dir.
// Once ctx is done the run stops and writes no trace; its error wraps
// ctx.Err() ("testbed run DIR: context canceled").
func Record[S any](ctx context.Context, name string, bugs []string, cfg Config, dir string, newSystem func(*Sim) System[S]) (Stats, error) {
	if cfg.Bug != "" && !slices.Contains(bugs, cfg.Bug) {
		return Stats{}, fmt.Errorf("%s: unknown bug %q (want one of %s)", name, cfg.Bug, strings.Join(bugs, ", "))
	}
	sim := NewSim(cfg)
	if cfg.Guard != "" {
		var err error
		if sim.g, err = openGuard(name, cfg.Guard, cfg.Nodes); err != nil {
			return Stats{}, err
		}
	}
	if cfg.Steer != "" {
		var err error
		if sim.steer, err = openSteering(name, cfg); err != nil {
			return Stats{}, err
		}
		// The immediate safety check is steering's fallback: what the
		// prediction missed, the checks refuse.
		if sim.g == nil && !cfg.SteerAlone {
			if sim.g, err = openGuard(name, cfg.Steer, cfg.Nodes); err != nil {
				return Stats{}, err
			}
		}
	}
	boot := func() System[S] { return newSystem(sim) }
	return run(ctx, sim, boot, dir, trace.Options{System: name, Overwrite: cfg.Overwrite, CreatedBy: cfg.Command(name)})
}

// A Testbed is a system that augur testbed can run.
type Testbed struct {
	Name  string
	Doc   string
	Nodes int      // default node count
	Bugs  []string // the injectable bugs
	// Faults are the testbed's default faults, under which each of its
	// bugs manifests in a 20,000-step run.
	Faults Faults
	// Run records a run with cfg into a trace at dir, as Record does.
	Run func(ctx context.Context, cfg Config, dir string) (Stats, error)
	// Fork runs the testbed with cfg for steps events, until they are
	// run or ctx is done, and returns a copy of the state it reached, for
	// the predictor (see the function Fork); nil when its state cannot be
	// copied.
	Fork func(ctx context.Context, cfg Config, steps int) (predict.Model, error)
}
