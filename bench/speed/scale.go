package speed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/augur-dev/augur/trace"
)

// ScaleSpec is the spec of augur bench --literals 3: the etcd raft
// testbed's scalar variables (seven of them, as a deployed system's state
// often has), with disjunctions of up to three literals over up to two
// nodes. Its pool, about 49,000 properties of which 44,000 are two-node
// three-literal disjunctions, is the shape of the Avenger paper's users'
// pools.
const ScaleSpec = `# augur bench --literals 3: seven scalar variables of the etcd raft
# testbed, disjunctions of up to three literals over up to two nodes.
system: etcdraft
types:
  NodeID: string
  Term: int64
  Index: int64
variables:
  id: NodeID
  term: Term
  vote: NodeID
  lead: NodeID
  state: {enum: [follower, candidate, precandidate, leader]}
  commit: Index
  last_index: Index
generate:
  max_nodes: 2
  max_literals: 3
  max_per_class: 44000
  iterate: []
  constants: {max_distinct: 8}
filter: {hold_ratio: 0.95, every: 500}
report: {size: 10, min_support: 30}
`

// Thin rewrites the trace at path keeping every k-th snapshot (the k-th,
// the 2k-th, …), and the states they use: a recorded run takes one event
// per snapshot, so that one node changes at a time, where the snapshots of
// a deployed system, cut every so often, find several nodes changed.
// Once ctx is done it stops, leaving the trace as it was, and its error
// wraps ctx.Err().
func Thin(ctx context.Context, path string, k int) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".thin")
	if err := copyEvery(ctx, path, tmp, k); err != nil {
		return fmt.Errorf("thin %s: %w", path, err)
	}
	if err := os.RemoveAll(path); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("thin %s: %w", path, err)
	}
	return nil
}

// copyEvery writes every k-th snapshot of the trace at from, with the
// states it uses, as the trace at to, until ctx is done.
func copyEvery(ctx context.Context, from, to string, k int) error {
	tr, err := trace.Open(from)
	if err != nil {
		return err
	}
	defer tr.Close()
	w, err := trace.Create(to, tr.Schema, trace.Options{System: tr.Manifest.System, CreatedBy: tr.Manifest.CreatedBy, Overwrite: true})
	if err != nil {
		return err
	}
	if err := copySnapshots(ctx, tr, w, k); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

func copySnapshots(ctx context.Context, tr *trace.Trace, w *trace.Writer, k int) error {
	states, rows := tr.States(), map[uint32]uint32{}
	sr := tr.Snapshots()
	defer sr.Close()
	for pos := 1; sr.Next(); pos++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if pos%k != 0 {
			continue
		}
		s := sr.Snapshot()
		out := trace.Snapshot{ID: s.ID, TS: s.TS, Tags: s.Tags, Members: make([]uint32, len(s.Members))}
		for i, row := range s.Members {
			r, ok := rows[row]
			if !ok {
				st, err := states.State(row)
				if err != nil {
					return err
				}
				if r, err = w.AddState(st.Node, st.TS, st.Vars); err != nil {
					return err
				}
				rows[row] = r
			}
			out.Members[i] = r
		}
		if err := w.AddSnapshot(out); err != nil {
			return err
		}
	}
	return sr.Err()
}
