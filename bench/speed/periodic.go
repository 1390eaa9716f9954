package speed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
	"github.com/augur-dev/augur/trace"
)

// WritePeriodic writes a trace of the variables of [ScaleSpec] at path:
// periodic snapshots of a busy raft-like cluster of n nodes, with churn
// events between two snapshots, from seed. An event is one node's: the
// leader appends a batch of clients' writes, a follower catches up with
// the leader's log and commit (and the leader's commit moves to what a
// majority holds), and rarely a node times out and wins an election.
// Where a recorded run finds one node changed per event and a few per
// snapshot, here about n·(1-(1-1/n)^churn) nodes change per snapshot:
// ten of sixteen at a churn of 16, as in the snapshots a busy deployed
// system is cut into every so often. Once ctx is done it stops, leaving
// nothing at path, and its error wraps ctx.Err().
func WritePeriodic(ctx context.Context, path string, nodes, snapshots, churn int, seed uint64) error {
	spec, err := specs.Parse("bench.yaml", []byte(ScaleSpec))
	if err != nil {
		return err
	}
	schema, err := spectrace.Schema(spec)
	if err != nil {
		return err
	}
	w, err := trace.Create(path, schema, trace.Options{System: "etcdraft", CreatedBy: "augur bench --workload periodic", Overwrite: true})
	if err != nil {
		return err
	}
	if err := playPeriodic(ctx, w, schema, newCluster(nodes, seed), snapshots, churn); err != nil {
		w.Abort()
		return fmt.Errorf("periodic trace %s: %w", path, err)
	}
	return w.Close()
}

// playPeriodic writes the initial states of c's nodes, then snapshots
// with churn events before each, to w, until ctx is done.
func playPeriodic(ctx context.Context, w *trace.Writer, schema trace.Schema, c *cluster, snapshots, churn int) error {
	members := make([]uint32, len(c.nodes))
	add := func(k int, ts uint64) (err error) {
		members[k], err = w.AddState(c.nodes[k].id, ts, c.nodes[k].vars(schema))
		return err
	}
	for k := range members {
		if err := add(k, 0); err != nil {
			return err
		}
	}
	for s := range snapshots {
		if err := ctx.Err(); err != nil {
			return err
		}
		ts := uint64(s + 1)
		for _, k := range c.run(churn) {
			if err := add(k, ts); err != nil {
				return err
			}
		}
		if err := w.AddSnapshot(trace.Snapshot{ID: ts, TS: ts, Members: members}); err != nil {
			return err
		}
	}
	return nil
}

// cluster is the state of WritePeriodic's nodes.
type cluster struct {
	nodes   []pnode
	leader  int
	r       *rand.Rand
	changed []bool // by node: changed since the last snapshot
}

// pnode is a node's state, the variables of ScaleSpec.
type pnode struct {
	id, vote, lead, state string
	term, commit, last    int64
}

// electionOdds is one in how many events a node times out and wins an
// election.
const electionOdds = 5000

func newCluster(n int, seed uint64) *cluster {
	c := &cluster{r: rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d)), changed: make([]bool, n)}
	for k := range n {
		id := fmt.Sprintf("n%02d", k+1)
		c.nodes = append(c.nodes, pnode{id: id, vote: "n01", lead: "n01", state: "follower", term: 1, commit: 1, last: 1})
	}
	c.nodes[0].state = "leader"
	return c
}

// run plays k events and returns the nodes whose state changed.
func (c *cluster) run(k int) []int {
	clear(c.changed)
	for range k {
		p := c.r.IntN(len(c.nodes))
		switch {
		case c.r.IntN(electionOdds) == 0:
			c.elect(p)
		case p == c.leader:
			c.nodes[p].last += 1 + c.r.Int64N(4)
			c.changed[p] = true
		default:
			c.replicate(p)
		}
	}
	var out []int
	for k, ch := range c.changed {
		if ch {
			out = append(out, k)
		}
	}
	return out
}

// replicate brings follower p up to date with the leader, which then
// commits what a majority holds.
func (c *cluster) replicate(p int) {
	l, f := &c.nodes[c.leader], &c.nodes[p]
	if f.term != l.term {
		f.vote = "" // it learns of the term without having voted in it
	}
	f.term, f.lead, f.state, f.last, f.commit = l.term, l.id, "follower", l.last, l.commit
	c.changed[p] = true
	logs := make([]int64, 0, len(c.nodes))
	for _, n := range c.nodes {
		if n.term == l.term {
			logs = append(logs, n.last)
		}
	}
	slices.Sort(logs)
	if len(logs) > len(c.nodes)/2 {
		if q := logs[len(logs)-1-len(c.nodes)/2]; q > l.commit {
			l.commit = q
			c.changed[c.leader] = true
		}
	}
}

// elect makes p, if its log is as long as any, the leader of a new term
// with the votes of a random majority, who follow it at once; the others
// learn of it when they next hear from it.
func (c *cluster) elect(p int) {
	n := &c.nodes[p]
	for _, o := range c.nodes {
		if o.last > n.last {
			return
		}
	}
	n.term++
	n.vote, n.lead, n.state = n.id, n.id, "leader"
	c.leader = p
	c.changed[p] = true
	voters := c.r.Perm(len(c.nodes))[:len(c.nodes)/2]
	for _, v := range voters {
		if v == p {
			continue
		}
		o := &c.nodes[v]
		o.term, o.vote, o.lead, o.state = n.term, n.id, n.id, "follower"
		c.changed[v] = true
	}
}

// vars returns the node's state as the values of schema's columns, the
// variables of ScaleSpec.
func (n *pnode) vars(schema trace.Schema) []any {
	byName := map[string]any{"id": n.id, "term": n.term, "vote": n.vote, "lead": n.lead, "state": n.state, "commit": n.commit, "last_index": n.last}
	vals := make([]any, len(schema))
	for i, col := range schema {
		vals[i] = byName[col.Name]
	}
	return vals
}

// periodicSpec returns ScaleSpec with disjunctions of up to literals
// literals.
func periodicSpec(literals int) string {
	return strings.Replace(ScaleSpec, "max_literals: 3", fmt.Sprintf("max_literals: %d", literals), 1)
}
