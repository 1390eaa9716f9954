// Package workload writes seeded synthetic traces of a replicated log with
// leader election, of any number of nodes and snapshots, for benchmarks
// and scale runs. The same options always give the same trace.
//
// The simulation is coarse but has the shape evaluation cost depends on:
// one event per snapshot, which changes one node's state (or two, when a
// message is delivered), so that most state rows are shared by many
// consecutive snapshots; nodes that crash and come back, so that the
// number of live nodes varies; long quiet stretches and elections; and a
// rare planted bug, an entry applied before it is committed, tagged
// bug:apply-before-commit.
package workload

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/generator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// Spec is the spec of the workload's system.
const Spec = `# The spec of augur's synthetic benchmark workload (internal/workload).
system: bench-raft
types:
  NodeID: string
  Term: int64
  Index: int64
  Entry: "{term: Term, index: Index}"
variables:
  id: NodeID
  term: Term
  vote: NodeID
  state: {enum: [follower, candidate, leader]}
  lead: NodeID
  commit: Index
  applied: Index
  log: list<Entry>
  peers: set<NodeID>
derived:
  lastIndex: {type: Index, expr: "len(log) == 0 ? 0 : log[len(log)-1].index"}
  lastTerm: {type: Term, expr: "len(log) == 0 ? 0 : log[len(log)-1].term"}
generate:
  max_nodes: 2
  max_literals: 2
  iterate: []
  constants: {max_distinct: 8}
filter: {hold_ratio: 0.95, every: 1000}
report: {size: 10, min_support: 30}
`

// Options describe a workload.
type Options struct {
	Nodes     int    // at least 2
	Snapshots int    // snapshots written
	Seed      uint64 // the same seed gives the same trace
	System    string // manifest system name; default "bench-raft"
}

var schema = trace.Schema{
	{Name: "id", Type: arrow.BinaryTypes.String},
	{Name: "term", Type: arrow.PrimitiveTypes.Int64},
	{Name: "vote", Type: arrow.BinaryTypes.String},
	{Name: "state", Type: arrow.BinaryTypes.String},
	{Name: "lead", Type: arrow.BinaryTypes.String},
	{Name: "commit", Type: arrow.PrimitiveTypes.Int64},
	{Name: "applied", Type: arrow.PrimitiveTypes.Int64},
	{Name: "log", Type: arrow.ListOf(arrow.StructOf(
		arrow.Field{Name: "term", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "index", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	))},
	{Name: "peers", Type: arrow.ListOf(arrow.BinaryTypes.String)},
}

type entry struct{ term, index int64 }

type node struct {
	id             string
	up             bool
	downFor        int
	term           int64
	vote, lead     string
	state          string
	commit         int64
	applied        int64
	log            []entry // the last entries; indexes keep growing
	votes          int
	row            uint32 // its current state row
	dirty          bool   // changed since its row was written
	applyEarly     int    // steps left of the planted bug
	electionTimer  int
	heartbeatTimer int
}

func (n *node) last() entry {
	if len(n.log) == 0 {
		return entry{}
	}
	return n.log[len(n.log)-1]
}

// sim is the simulated cluster.
type sim struct {
	rng   *rand.Rand
	nodes []*node
	names []string
}

// Write writes the workload's trace to dir, which must not exist.
func Write(dir string, o Options) error {
	if o.Nodes < 2 {
		return fmt.Errorf("workload: %d nodes, want at least 2", o.Nodes)
	}
	if o.System == "" {
		o.System = "bench-raft"
	}
	w, err := trace.Create(dir, schema, trace.Options{System: o.System, CreatedBy: "augur workload"})
	if err != nil {
		return err
	}
	s := &sim{rng: rand.New(rand.NewPCG(o.Seed, o.Seed^0x2545f4914f6cdd1d))}
	for i := range o.Nodes {
		name := fmt.Sprintf("n%02d", i+1)
		s.names = append(s.names, name)
		s.nodes = append(s.nodes, &node{id: name, up: true, state: "follower", dirty: true, electionTimer: 5 + s.rng.IntN(40)})
	}
	for i := range o.Snapshots {
		tags := s.step()
		var members []uint32
		for _, n := range s.nodes {
			if !n.up {
				continue
			}
			if n.dirty {
				row, err := w.AddState(n.id, uint64(i), s.vars(n))
				if err != nil {
					w.Abort()
					return err
				}
				n.row, n.dirty = row, false
			}
			members = append(members, n.row)
		}
		if err := w.AddSnapshot(trace.Snapshot{ID: uint64(i), TS: uint64(i), Members: members, Tags: tags}); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

func (s *sim) vars(n *node) []any {
	log := make([]any, len(n.log))
	for i, e := range n.log {
		log[i] = map[string]any{"term": e.term, "index": e.index}
	}
	var peers []any
	for _, m := range s.nodes {
		if m != n && m.up {
			peers = append(peers, m.id)
		}
	}
	return []any{n.id, n.term, n.vote, n.state, n.lead, n.commit, n.applied, log, peers}
}

// leader returns the live leader of the highest term, if any.
func (s *sim) leader() *node {
	var l *node
	for _, n := range s.nodes {
		if n.up && n.state == "leader" && (l == nil || n.term > l.term) {
			l = n
		}
	}
	return l
}

// step advances the simulation by one event and returns the snapshot's
// tags.
func (s *sim) step() []string {
	r := s.rng
	var tags []string
	for _, n := range s.nodes {
		if !n.up {
			if n.downFor--; n.downFor <= 0 {
				n.up, n.dirty = true, true
				n.state, n.lead, n.votes = "follower", "", 0
				n.electionTimer = 10 + r.IntN(40)
			}
		}
	}
	l := s.leader()
	switch x := r.IntN(100); {
	case x < 2: // a crash
		n := s.nodes[r.IntN(len(s.nodes))]
		if n.up && s.live() > len(s.nodes)/2+1 {
			n.up, n.downFor = false, 20+r.IntN(200)
			n.state = "follower"
			s.touchPeers()
		}
	case l == nil || x < 4: // elections
		s.election()
	case x < 40: // the leader appends
		e := entry{term: l.term, index: l.last().index + 1}
		l.log = appendEntry(l.log, e)
		l.dirty = true
	case x < 80: // a follower catches up with the leader
		s.replicate(l)
	default: // a node applies what is committed
		n := s.nodes[r.IntN(len(s.nodes))]
		if n.up && n.applied < n.commit {
			n.applied++
			n.dirty = true
		}
	}
	for _, n := range s.nodes {
		if n.applyEarly > 0 {
			n.applyEarly--
			if n.applied > n.commit {
				tags = append(tags, "bug:apply-before-commit")
			}
		}
	}
	return tags
}

func (s *sim) live() int {
	c := 0
	for _, n := range s.nodes {
		if n.up {
			c++
		}
	}
	return c
}

// touchPeers marks every live node changed: their peer sets follow the
// live nodes.
func (s *sim) touchPeers() {
	for _, n := range s.nodes {
		if n.up {
			n.dirty = true
		}
	}
}

func appendEntry(log []entry, e entry) []entry {
	log = append(log, e)
	if len(log) > 2 {
		log = slices.Clone(log[len(log)-2:])
	}
	return log
}

// election lets a node time out, or a vote arrive.
func (s *sim) election() {
	r := s.rng
	var cand *node
	for _, n := range s.nodes {
		if n.up && n.state == "candidate" {
			cand = n
		}
	}
	if cand == nil {
		c := s.nodes[r.IntN(len(s.nodes))]
		if !c.up {
			return
		}
		c.term++
		c.state, c.vote, c.lead, c.votes = "candidate", c.id, "", 1
		c.dirty = true
		return
	}
	// A vote from a node that has not voted in the candidate's term.
	for _, k := range r.Perm(len(s.nodes)) {
		v := s.nodes[k]
		if !v.up || v == cand || v.term >= cand.term && v.vote != "" {
			continue
		}
		v.term, v.vote, v.state, v.lead = cand.term, cand.id, "follower", ""
		v.dirty = true
		if v.last().index <= cand.last().index {
			cand.votes++
		}
		break
	}
	if cand.votes > len(s.nodes)/2 {
		for _, n := range s.nodes {
			if n.state == "leader" {
				n.state = "follower"
				n.dirty = true
			}
		}
		cand.state, cand.lead = "leader", cand.id
		cand.dirty = true
	} else if r.IntN(6) == 0 {
		cand.state = "follower" // gave up; a new timeout comes later
		cand.dirty = true
	}
}

// replicate brings one follower closer to the leader.
func (s *sim) replicate(l *node) {
	r := s.rng
	f := s.nodes[r.IntN(len(s.nodes))]
	if !f.up || f == l {
		// The leader commits what a majority has.
		if f == l {
			s.commit(l)
		}
		return
	}
	if f.term < l.term || f.lead != l.id || f.state != "follower" {
		f.term, f.lead, f.state = l.term, l.id, "follower"
		if f.vote != l.id {
			f.vote = ""
		}
	}
	if next := f.last().index + 1; next <= l.last().index {
		f.log = appendEntry(f.log, entry{term: l.term, index: next})
		if f.log[len(f.log)-1].index > l.last().index-1 {
			f.log[len(f.log)-1] = l.last()
		}
	}
	f.commit = max(f.commit, min(l.commit, f.last().index))
	if r.IntN(4000) == 0 {
		// The planted bug: applying what is appended, not committed.
		f.applyEarly = 5 + r.IntN(20)
	}
	if f.applyEarly > 0 {
		f.applied = max(f.applied, f.last().index)
	}
	f.dirty = true
}

// commit advances the leader's commit index to what a majority holds.
func (s *sim) commit(l *node) {
	var idx []int64
	for _, n := range s.nodes {
		if n.up {
			idx = append(idx, n.last().index)
		}
	}
	slices.Sort(idx)
	if m := idx[len(idx)-len(s.nodes)/2-1]; m > l.commit {
		l.commit = m
		l.dirty = true
	}
}

// Bench is a workload ready to evaluate.
type Bench struct {
	Trace   *trace.Trace
	Spec    *specs.Spec
	Program *evaluator.Program
}

// Close closes the trace.
func (b *Bench) Close() error { return b.Trace.Close() }

// Prepare writes the workload's trace to dir and compiles the property
// pool the spec generates for it, keeping at most maxProps properties
// (0: all), taken evenly from the pool.
func Prepare(dir string, o Options, maxProps int) (*Bench, error) {
	if err := Write(dir, o); err != nil {
		return nil, err
	}
	spec, err := specs.Parse("bench.yaml", []byte(Spec))
	if err != nil {
		return nil, err
	}
	tr, err := trace.Open(dir)
	if err != nil {
		return nil, err
	}
	consts, err := generator.MineConstants(tr, spec)
	if err == nil {
		var pool *generator.Pool
		if pool, err = generator.Generate(spec, consts); err == nil {
			props := pool.Props
			if maxProps > 0 && len(props) > maxProps {
				props = make([]*grammar.Property, maxProps)
				for i := range props {
					props[i] = pool.Props[i*len(pool.Props)/maxProps]
				}
			}
			var prog *evaluator.Program
			if prog, err = evaluator.Compile(spec, props); err == nil {
				return &Bench{Trace: tr, Spec: spec, Program: prog}, nil
			}
		}
	}
	tr.Close()
	return nil, err
}
