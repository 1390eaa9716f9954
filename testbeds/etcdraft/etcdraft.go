// Package etcdraft is a testbed running the etcd raft library
// (go.etcd.io/raft/v3) in one process: each node is a raft.RawNode over a
// raft.MemoryStorage (its disk, which survives crashes) with a small
// key-value state machine on top, driven by a testbeds.Sim.
//
// Election timeouts are drawn from the run's seeded generator and fired
// through RawNode.Campaign (raft's own timeouts are drawn from crypto/rand,
// which would make runs irreproducible); everything else is raft's.
//
// Bugs, each an integration mistake of the kind raft users make:
//
//   - lost-vote: HardState (term, vote, commit) is not persisted, so a node
//     that restarts may vote twice in one term.
//   - apply-uncommitted: the application applies Ready.Entries (appended,
//     not yet committed) instead of Ready.CommittedEntries; restarting,
//     it applies the entries on its disk, which raft appended before.
//   - lost-tail: entries are acknowledged before they are durable; a crash
//     loses those appended since the last sync.
//
// Ground truth, checked on every snapshot over the live nodes: election
// safety (at most one leader per term), log matching (entries with the
// same index and term have the same prefix) and state machine safety
// (every node's committed log is what was first committed, every store
// has applied the committed entries up to its applied index, each once
// and in order, and no two stores have applied different entries). A
// check fails for as long as the damage lasts, not only at the step that
// does it: a store that skipped an entry, applied one twice or applied one
// that was not committed stays damaged until a restart rebuilds it.
package etcdraft

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"slices"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/augur-dev/augur/predict"
	"github.com/augur-dev/augur/testbeds"
)

// Bugs.
const (
	BugLostVote         = "lost-vote"
	BugApplyUncommitted = "apply-uncommitted"
	BugLostTail         = "lost-tail"
)

// bugs are the injectable bugs.
var bugs = []string{BugApplyUncommitted, BugLostTail, BugLostVote}

// defaultNodes is the testbed's node count when a run leaves it zero.
const defaultNodes = 3

// Testbed describes the testbed for augur testbed.
var Testbed = testbeds.Testbed{
	Name:   "etcdraft",
	Doc:    "etcd raft (go.etcd.io/raft/v3) with a replicated key-value store",
	Nodes:  defaultNodes,
	Bugs:   bugs,
	Faults: testbeds.DefaultFaults(),
	Run:    Run,
	Fork:   Fork,
}

// Raft timing in ticks.
const (
	heartbeatTick       = 2
	electionMin         = 10 // election timeouts are in [electionMin, 2*electionMin)
	syncEvery           = 8  // lost-tail: ticks between syncs, on average
	logTail             = 3  // entries of the log exposed
	keys                = 4
	noElectionTick      = math.MaxInt32 / 2
	bootIndex, bootTerm = 1, 1
)

// Entry is a log entry as exposed.
type Entry struct {
	Index int64 `augur:"index"`
	Term  int64 `augur:"term"`
}

// State is the state a node exposes.
type State struct {
	ID         string   `augur:"id"`
	Term       int64    `augur:"term"`
	Vote       string   `augur:"vote"`
	Lead       string   `augur:"lead"`
	Role       string   `augur:"state"`
	Commit     int64    `augur:"commit"`
	Applied    int64    `augur:"applied"`
	FirstIndex int64    `augur:"first_index"`
	LastIndex  int64    `augur:"last_index"`
	Log        []Entry  `augur:"log"` // the last entries
	Peers      []string `augur:"peers"`
	KVApplied  int64    `augur:"kv_applied"`
	KVDigest   string   `augur:"kv_digest"`
}

type node struct {
	id      uint64
	rn      *raft.RawNode // nil while crashed
	disk    *raft.MemoryStorage
	durable uint64 // lost-tail: the last index synced
	elapsed int
	timeout int
	// chain[i] is a hash of the log up to index i, terms[i] its term and
	// ents[i] the hash of its entry.
	chain, terms, ents []uint64
	// The state machine: kv holds its keys, and digests[i] is a hash of
	// the entries it applied, in the order it applied them, until it
	// applied index i, its applied index being len(digests)-1. An index it
	// skipped keeps the digest before it, and applying an index again
	// goes on from the last digest, so a store that applied out of order
	// differs from the committed entries' digest from there on.
	kv      map[string]string
	digests []uint64
	held    []*pb.Entry // in a guarded run, entries the store has yet to apply
	panics  int
}

type cluster struct {
	sim     *testbeds.Sim
	bug     string
	nodes   []*node
	leaders map[uint64]uint64 // term → the first leader seen in it
	// chain[i] and digests[i] hash the entries first seen committed up
	// to index i, as node.chain hashes a log and node.digests a store.
	chain, digests []uint64
	seq            int
}

// Run runs the testbed with cfg and writes its trace to dir, until the
// run ends or ctx is done (see testbeds.Record).
func Run(ctx context.Context, cfg testbeds.Config, dir string) (testbeds.Stats, error) {
	cfg, err := cfg.WithDefaults(defaultNodes, testbeds.DefaultFaults())
	if err != nil {
		return testbeds.Stats{}, fmt.Errorf("etcdraft: %w", err)
	}
	return testbeds.Record(ctx, "etcdraft", bugs, cfg, dir, func(sim *testbeds.Sim) testbeds.System[State] { return newCluster(sim, cfg) })
}

// Fork runs the testbed with cfg for steps events, or until ctx is done
// (see testbeds.Fork), and returns a copy of the state it reached, for
// the predictor. A RawNode cannot be copied: the copy is forked by
// replay, and each copy the predictor makes runs the steps again.
func Fork(ctx context.Context, cfg testbeds.Config, steps int) (predict.Model, error) {
	cfg, err := cfg.WithDefaults(defaultNodes, testbeds.DefaultFaults())
	if err != nil {
		return nil, fmt.Errorf("etcdraft: %w", err)
	}
	return testbeds.Fork(ctx, "etcdraft", bugs, cfg, steps, func(sim *testbeds.Sim) testbeds.System[State] { return newCluster(sim, cfg) })
}

func newCluster(sim *testbeds.Sim, cfg testbeds.Config) *cluster {
	c := &cluster{sim: sim, bug: cfg.Bug, leaders: map[uint64]uint64{},
		chain: []uint64{0, mix(0, bootIndex, bootTerm)}, digests: []uint64{0, 0}}
	voters := make([]uint64, cfg.Nodes)
	for i := range voters {
		voters[i] = uint64(i + 1)
	}
	for i := range cfg.Nodes {
		n := &node{id: uint64(i + 1), disk: raft.NewMemoryStorage()}
		snap := &pb.Snapshot{Metadata: &pb.SnapshotMetadata{
			ConfState: &pb.ConfState{Voters: voters},
			Index:     new(uint64(bootIndex)), Term: new(uint64(bootTerm))}}
		if err := n.disk.ApplySnapshot(snap); err != nil {
			panic(err)
		}
		n.durable = bootIndex
		c.nodes = append(c.nodes, n)
		c.start(n)
	}
	return c
}

func mix(h uint64, vs ...uint64) uint64 {
	f := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], h)
	f.Write(b[:])
	for _, v := range vs {
		binary.LittleEndian.PutUint64(b[:], v)
		f.Write(b[:])
	}
	return f.Sum64()
}

func entryHash(e *pb.Entry) uint64 {
	f := fnv.New64a()
	f.Write(e.GetData())
	return mix(f.Sum64(), e.GetIndex(), e.GetTerm())
}

// rawNode returns a raft node started from n's disk, whose entries up to
// applied have been applied.
func rawNode(n *node, applied uint64) *raft.RawNode {
	rn, err := raft.NewRawNode(&raft.Config{
		ID: n.id, ElectionTick: noElectionTick, HeartbeatTick: heartbeatTick,
		Storage: n.disk, Applied: applied, MaxSizePerMsg: 1 << 16,
		MaxInflightMsgs: 64, Logger: quiet{},
	})
	if err != nil {
		panic(err)
	}
	return rn
}

// start boots n from its disk.
func (c *cluster) start(n *node) {
	n.rn = rawNode(n, bootIndex)
	n.kv, n.digests, n.held = map[string]string{}, []uint64{0, 0}, nil
	n.elapsed, n.timeout = 0, c.timeout()
	// Rebuild the log hashes from the disk.
	n.chain, n.terms, n.ents = []uint64{0, mix(0, bootIndex, bootTerm)}, []uint64{0, bootTerm}, []uint64{0, 0}
	last, _ := n.disk.LastIndex()
	if last > bootIndex {
		ents, err := n.disk.Entries(bootIndex+1, last+1, math.MaxUint64)
		if err != nil {
			panic(err)
		}
		n.appendLog(ents)
		if c.bug == BugApplyUncommitted {
			// The store applies what raft appends, and what raft appended
			// is on the disk: raft's replay of the committed entries, which
			// rebuilds the store otherwise, is not what it applies.
			n.apply(ents)
		}
	}
}

func (c *cluster) timeout() int { return electionMin + c.sim.Rand().IntN(electionMin) }

func (n *node) appendLog(ents []*pb.Entry) {
	if len(ents) == 0 {
		return
	}
	first := ents[0].GetIndex()
	n.chain, n.terms, n.ents = n.chain[:first], n.terms[:first], n.ents[:first]
	for _, e := range ents {
		h := entryHash(e)
		n.chain = append(n.chain, mix(n.chain[len(n.chain)-1], h))
		n.terms = append(n.terms, e.GetTerm())
		n.ents = append(n.ents, h)
	}
}

// applied returns the store's applied index and digest once ents are
// applied.
func (n *node) applied(ents []*pb.Entry) (kvApplied, digest uint64) {
	kvApplied = uint64(len(n.digests) - 1)
	digest = n.digests[kvApplied]
	for _, e := range ents {
		kvApplied, digest = e.GetIndex(), mix(digest, entryHash(e))
	}
	return kvApplied, digest
}

func (n *node) apply(ents []*pb.Entry) {
	for _, e := range ents {
		i, digest := e.GetIndex(), n.digests[len(n.digests)-1]
		n.digests = n.digests[:min(i, uint64(len(n.digests)))]
		for uint64(len(n.digests)) < i {
			n.digests = append(n.digests, digest)
		}
		n.digests = append(n.digests, mix(digest, entryHash(e)))
		if e.GetType() == pb.EntryNormal && len(e.GetData()) > 2 {
			d := e.GetData()
			n.kv[string(d[:1])] = string(d[2:])
		}
	}
}

// guard runs f on n's raft, and treats a raft panic (the library's
// reaction to a corrupted log) as a crash of the process followed by a
// restart from disk.
func (c *cluster) guard(n *node, f func()) {
	defer func() {
		if r := recover(); r != nil {
			n.panics++
			c.start(n)
		}
	}()
	f()
	c.ready(n)
}

// ready handles n's Ready until there is none.
func (c *cluster) ready(n *node) {
	for n.rn.HasReady() {
		rd := n.rn.Ready()
		if c.sim.Guarding() && !c.allowStep(n, rd) {
			// raft's state cannot be copied: the step is taken back by
			// rebuilding the node from what it made durable before it.
			n.rn = rawNode(n, n.rn.BasicStatus().Applied)
			c.sim.Refuse()
			return
		}
		if !raft.IsEmptySnap(rd.Snapshot) {
			if err := n.disk.ApplySnapshot(rd.Snapshot); err != nil {
				panic(err)
			}
		}
		if len(rd.Entries) > 0 {
			if err := n.disk.Append(rd.Entries); err != nil {
				panic(err)
			}
			n.appendLog(rd.Entries)
		}
		if rd.HardState != nil && !raft.IsEmptyHardState(rd.HardState) {
			if err := n.disk.SetHardState(rd.HardState); err != nil {
				panic(err)
			}
		}
		if len(rd.Entries) > 0 || rd.HardState != nil {
			c.sim.Wrote(int(n.id - 1))
		}
		if c.bug != BugLostTail {
			n.durable, _ = n.disk.LastIndex()
		}
		apply := rd.CommittedEntries
		if c.bug == BugApplyUncommitted {
			apply = rd.Entries
		}
		if c.sim.Guarding() {
			apply = c.release(n, rd, apply)
		}
		n.apply(apply)
		for _, m := range rd.Messages {
			if m.GetType() == pb.MsgVoteResp && !m.GetReject() {
				n.elapsed = 0
			}
			c.sim.Send(int(n.id-1), int(m.GetTo()-1), m)
		}
		n.rn.Advance(rd)
	}
}

func (c *cluster) Tick(i int) {
	n := c.nodes[i]
	if c.bug == BugLostTail && c.sim.Rand().IntN(syncEvery) == 0 {
		n.durable, _ = n.disk.LastIndex()
	}
	c.guard(n, func() {
		n.rn.Tick()
		if n.rn.BasicStatus().RaftState == raft.StateLeader {
			n.elapsed = 0
			return
		}
		if n.elapsed++; n.elapsed >= n.timeout {
			n.elapsed, n.timeout = 0, c.timeout()
			_ = n.rn.Campaign()
		}
	})
}

func (c *cluster) Deliver(from, to int, m any) {
	n := c.nodes[to]
	msg := proto.Clone(m.(*pb.Message)).(*pb.Message)
	c.guard(n, func() {
		switch msg.GetType() {
		case pb.MsgApp, pb.MsgHeartbeat, pb.MsgSnap:
			if msg.GetTerm() >= n.rn.BasicStatus().GetTerm() {
				n.elapsed = 0
			}
		}
		_ = n.rn.Step(msg)
	})
}

func (c *cluster) Propose(i int) {
	n := c.nodes[i]
	c.seq++
	data := fmt.Appendf(nil, "%c=%d", 'a'+c.sim.Rand().IntN(keys), c.seq)
	c.guard(n, func() { _ = n.rn.Propose(data) })
}

func (c *cluster) Crash(i int) {
	n := c.nodes[i]
	n.rn = nil
	hs, _, _ := n.disk.InitialState()
	if hs == nil {
		hs = &pb.HardState{}
	} else {
		hs = proto.Clone(hs).(*pb.HardState)
	}
	if c.bug == BugLostVote {
		hs = &pb.HardState{} // what the node wrote is gone: term, vote and commit
	}
	if last, _ := n.disk.LastIndex(); n.durable < last {
		// Rebuild the disk with what was synced.
		disk := raft.NewMemoryStorage()
		snap, _ := n.disk.Snapshot()
		if err := disk.ApplySnapshot(snap); err != nil {
			panic(err)
		}
		if n.durable > bootIndex {
			ents, err := n.disk.Entries(bootIndex+1, n.durable+1, math.MaxUint64)
			if err != nil {
				panic(err)
			}
			if err := disk.Append(ents); err != nil {
				panic(err)
			}
		}
		hs.Commit = new(min(hs.GetCommit(), n.durable))
		n.disk = disk
	}
	if err := n.disk.SetHardState(hs); err != nil {
		panic(err)
	}
}

func (c *cluster) Restart(i int) {
	n := c.nodes[i]
	c.start(n)
	c.ready(n)
}

func name(id uint64) string {
	if id == 0 {
		return ""
	}
	return testbeds.Name(int(id - 1))
}

// In a guarded run (testbeds.Config.Guard), each Ready a step of raft
// returns is checked before the node handles it, with allowStep, and the
// entries the store would apply, with allowApply. The raft library keeps
// its state in memory where it cannot be copied, so the node's state
// after a step is computed from the Ready (raft's status with the
// entries appended and the committed ones applied), and a step the guard
// refuses is taken back the only way raft allows: the node's Ready is
// discarded (nothing of it is persisted, applied or sent, and testbeds.Sim
// drops what the step's handler sent before) and the node is rebuilt
// from its disk, which holds what it had made durable before the step.
// Its volatile state is lost: it comes back as a follower that knows no
// leader, as after a restart. The store is the application's own state:
// when applying entries would break a check, it holds them back, and
// falls behind raft's applied index, until applying them passes (see
// release). Applying the entries that follow instead would skip them.

// allowStep reports whether the guard allows the state n reaches once it
// has handled rd, the store left as it is.
func (c *cluster) allowStep(n *node, rd raft.Ready) bool {
	kvApplied, digest := n.applied(nil)
	next := c.state(n, c.readyStatus(n, rd), n.readyTerms(rd), kvApplied, digest)
	return c.sim.Allow(int(n.id-1), &next)
}

// release returns the entries n's store applies in a guarded run, with
// n's Ready rd handled: those it held back and ents, which replace held
// ones from their first index on, when the guard allows it to apply them
// all; none otherwise, and it holds them back.
func (c *cluster) release(n *node, rd raft.Ready, ents []*pb.Entry) []*pb.Entry {
	if len(ents) > 0 {
		first := ents[0].GetIndex()
		keep := slices.IndexFunc(n.held, func(e *pb.Entry) bool { return e.GetIndex() >= first })
		if keep >= 0 {
			n.held = n.held[:keep]
		}
		n.held = append(n.held, ents...)
	}
	if len(n.held) == 0 || !c.allowApply(n, rd, n.held) {
		return nil
	}
	ents, n.held = n.held, nil
	return ents
}

// allowApply reports whether the guard allows the store to apply ents,
// with n's Ready rd handled (its entries already appended).
func (c *cluster) allowApply(n *node, rd raft.Ready, ents []*pb.Entry) bool {
	kvApplied, digest := n.applied(ents)
	next := c.state(n, c.readyStatus(n, rd), n.terms, kvApplied, digest)
	return c.sim.Allow(int(n.id-1), &next)
}

// readyStatus is raft's status once n has handled rd and advanced.
func (c *cluster) readyStatus(n *node, rd raft.Ready) raft.BasicStatus {
	st := n.rn.BasicStatus()
	if k := len(rd.CommittedEntries); k > 0 {
		st.Applied = rd.CommittedEntries[k-1].GetIndex()
	}
	return st
}

// readyTerms are the terms of n's log once rd's entries are appended.
func (n *node) readyTerms(rd raft.Ready) []uint64 {
	if len(rd.Entries) == 0 {
		return n.terms
	}
	terms := slices.Clone(n.terms[:rd.Entries[0].GetIndex()])
	for _, e := range rd.Entries {
		terms = append(terms, e.GetTerm())
	}
	return terms
}

func (c *cluster) State(i int) State {
	n := c.nodes[i]
	kvApplied, digest := n.applied(nil)
	return c.state(n, n.rn.BasicStatus(), n.terms, kvApplied, digest)
}

// state is the state n exposes with raft's status st, the terms of its
// log and its store's applied index and digest.
func (c *cluster) state(n *node, st raft.BasicStatus, terms []uint64, kvApplied, digest uint64) State {
	first, _ := n.disk.FirstIndex()
	last := uint64(len(terms) - 1)
	s := State{
		ID: name(n.id), Term: int64(st.GetTerm()), Vote: name(st.GetVote()), Lead: name(st.Lead),
		Role: roleName(st.RaftState), Commit: int64(st.GetCommit()), Applied: int64(st.Applied),
		FirstIndex: int64(first), LastIndex: int64(last),
		KVApplied: int64(kvApplied), KVDigest: fmt.Sprintf("%016x", digest),
		Log: []Entry{}, Peers: []string{},
	}
	for j := max(first, last+1-min(last+1, logTail)); j <= last; j++ {
		s.Log = append(s.Log, Entry{int64(j), int64(terms[j])})
	}
	for _, o := range c.nodes {
		if o.id != n.id {
			s.Peers = append(s.Peers, name(o.id))
		}
	}
	return s
}

func roleName(s raft.StateType) string {
	switch s {
	case raft.StateFollower:
		return "follower"
	case raft.StateCandidate:
		return "candidate"
	case raft.StateLeader:
		return "leader"
	case raft.StatePreCandidate:
		return "precandidate"
	}
	return "unknown"
}

// Check returns the ground-truth checks failing over the live nodes.
func (c *cluster) Check() []string {
	var failed []string
	election, matching, sms := false, false, false
	// State machine safety: what a node commits or its store applies up
	// to an index is what was first committed up to there.
	for _, a := range c.nodes {
		if a.rn == nil {
			continue
		}
		m := min(a.rn.BasicStatus().GetCommit(), uint64(len(a.chain)-1))
		for j := uint64(len(c.chain)); j <= m; j++ {
			c.chain = append(c.chain, mix(c.chain[j-1], a.ents[j]))
			c.digests = append(c.digests, mix(c.digests[j-1], a.ents[j]))
		}
		sms = sms || a.chain[m] != c.chain[m] || !agree(a.digests, c.digests)
	}
	for i, a := range c.nodes {
		if a.rn == nil {
			continue
		}
		sa := a.rn.BasicStatus()
		if sa.RaftState == raft.StateLeader {
			if l, ok := c.leaders[sa.GetTerm()]; !ok {
				c.leaders[sa.GetTerm()] = a.id
			} else if l != a.id {
				election = true
			}
		}
		for _, b := range c.nodes[i+1:] {
			if b.rn == nil {
				continue
			}
			sb := b.rn.BasicStatus()
			if sa.RaftState == raft.StateLeader && sb.RaftState == raft.StateLeader && sa.GetTerm() == sb.GetTerm() {
				election = true
			}
			// Log matching: at the highest index where the terms agree,
			// the logs agree up to it.
			for j := min(len(a.terms), len(b.terms)) - 1; j > 0; j-- {
				if a.terms[j] == b.terms[j] {
					matching = matching || a.chain[j] != b.chain[j]
					break
				}
			}
			// Two stores that applied different entries: at most one
			// of them can be committed, whether or not it is known yet.
			sms = sms || !agree(a.digests, b.digests)
		}
	}
	if election {
		failed = append(failed, "election-safety")
	}
	if matching {
		failed = append(failed, "log-matching")
	}
	if sms {
		failed = append(failed, "state-machine-safety")
	}
	return failed
}

// agree reports whether two stores, or a store and the committed entries,
// have applied the same entries up to the lesser of their applied indexes
// (see node.digests).
func agree(a, b []uint64) bool {
	i := min(len(a), len(b)) - 1
	return a[i] == b[i]
}

// quiet is a raft.Logger that drops everything; raft's panics still panic.
type quiet struct{}

func (quiet) Debug(...any)              {}
func (quiet) Debugf(string, ...any)     {}
func (quiet) Error(...any)              {}
func (quiet) Errorf(string, ...any)     {}
func (quiet) Info(...any)               {}
func (quiet) Infof(string, ...any)      {}
func (quiet) Warning(...any)            {}
func (quiet) Warningf(string, ...any)   {}
func (quiet) Fatal(v ...any)            { panic(fmt.Sprint(v...)) }
func (quiet) Fatalf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }
func (quiet) Panic(v ...any)            { panic(fmt.Sprint(v...)) }
func (quiet) Panicf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }
