// Package replog writes the workload of augur bench --workload predicate:
// a seeded replicated log whose spec declares a committed-prefix agreement
// predicate, and the same spec without it. A user predicate runs in
// expr's machine; this is the workload that shows what it costs next to
// the built-in atoms. It has no faults and no network, unlike the
// testbeds: only the states a log goes through.
package replog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
	"github.com/augur-dev/augur/trace"
)

// logSpec is the spec of the replicated-log workload, with %s for its
// predicates.
const logSpec = `# The replicated-log workload of augur bench --workload predicate.
system: bench-log
types:
  NodeID: string
  Term: int64
  Index: int64
  Entry: "{term: Term, index: Index}"
variables:
  id: NodeID
  term: Term
  commit: Index
  applied: Index
  log: list<Entry>
%s
generate:
  max_nodes: 2
  max_literals: 2
  iterate: []
  constants: {max_distinct: 4}
filter: {hold_ratio: 0.95, every: 500}
report: {size: 10, min_support: 30}
`

// AgreePredicate says that the entries of log a up to index upto agree in
// term with those of log b at the same index, where b has them.
const AgreePredicate = `predicates:
  - name: agree
    params: [{a: list<Entry>}, {upto: Index}, {b: list<Entry>}]
    expr: "all(filter(a, .index <= upto), {.index > len(b) || b[.index - 1].term == .term})"
`

// maxLogLen is the longest log of the workload; a cluster whose leader's
// log reaches it starts again from empty logs.
const maxLogLen = 40

// Write writes into dir the spec with the predicate (predicate.yaml), the
// same spec without it (plain.yaml), and a trace of a replicated log over
// nodes nodes and snapshots snapshots, seeded (log.trace): one event per
// snapshot (the leader appends, a follower catches up by one entry, the
// commit index follows the majority, a node applies, or a new leader is
// elected in a new term, and followers drop what disagrees with its log).
// It returns the paths of the three. It stops, writing no trace, when ctx
// is done.
func Write(ctx context.Context, dir string, nodes, snapshots int, seed uint64) (withPred, plain, tracePath string, err error) {
	withPred, plain = filepath.Join(dir, "predicate.yaml"), filepath.Join(dir, "plain.yaml")
	tracePath = filepath.Join(dir, "log.trace")
	if err := os.WriteFile(withPred, fmt.Appendf(nil, logSpec, AgreePredicate), 0o644); err != nil {
		return "", "", "", err
	}
	if err := os.WriteFile(plain, fmt.Appendf(nil, logSpec, ""), 0o644); err != nil {
		return "", "", "", err
	}
	spec, err := specs.Load(withPred)
	if err != nil {
		return "", "", "", err
	}
	schema, err := spectrace.Schema(spec)
	if err != nil {
		return "", "", "", err
	}
	w, err := trace.Create(tracePath, schema, trace.Options{System: "bench-log", CreatedBy: "augur bench", Overwrite: true})
	if err != nil {
		return "", "", "", err
	}
	type node struct {
		term, commit, applied int64
		log                   []int64 // the term of each entry; entry i has index i+1
	}
	r := rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc908))
	ns := make([]node, nodes)
	names := make([]string, nodes)
	for i := range ns {
		names[i] = fmt.Sprintf("n%d", i+1)
		ns[i].term = 1
	}
	leader := 0
	rows := make([]uint32, nodes)
	add := func(i, ts int) error {
		n := &ns[i]
		log := make([]any, len(n.log))
		for k, t := range n.log {
			log[k] = map[string]any{"term": t, "index": int64(k + 1)}
		}
		row, err := w.AddState(names[i], uint64(ts), []any{names[i], n.term, n.commit, n.applied, log})
		rows[i] = row
		return err
	}
	for i := range ns {
		if err := add(i, 0); err != nil {
			w.Abort()
			return "", "", "", err
		}
	}
	changed := make([]bool, nodes)
	for s := range snapshots {
		if err := ctx.Err(); err != nil {
			w.Abort()
			return "", "", "", err
		}
		clear(changed)
		ld := &ns[leader]
		switch ev := r.IntN(10); {
		case len(ld.log) >= maxLogLen:
			for i := range ns {
				ns[i] = node{term: ld.term}
				changed[i] = true
			}
		case ev < 4: // the leader appends
			ld.log = append(ld.log, ld.term)
			changed[leader] = true
		case ev < 8: // a follower catches up by one entry
			f := r.IntN(nodes)
			n := &ns[f]
			k := 0
			for k < len(n.log) && k < len(ld.log) && n.log[k] == ld.log[k] {
				k++
			}
			if f != leader && k < len(ld.log) {
				n.log = append(n.log[:k:k], ld.log[k])
				n.term = ld.term
				n.commit = min(ld.commit, int64(len(n.log)))
				changed[f] = true
			}
		case ev < 9: // the commit index follows the majority; a node applies
			matched := 0
			for i := range ns {
				if len(ns[i].log) >= len(ld.log) {
					matched++
				}
			}
			if matched > nodes/2 {
				ld.commit = int64(len(ld.log))
				changed[leader] = true
			}
			if a := r.IntN(nodes); ns[a].applied < ns[a].commit {
				ns[a].applied++
				changed[a] = true
			}
		default: // a new leader, in a new term
			leader = r.IntN(nodes)
			ns[leader].term = ld.term + 1
			changed[leader] = true
		}
		for i := range ns {
			if changed[i] || r.IntN(nodes*4) == 0 {
				if err := add(i, s); err != nil {
					w.Abort()
					return "", "", "", err
				}
			}
		}
		members := append([]uint32(nil), rows...)
		if err := w.AddSnapshot(trace.Snapshot{ID: uint64(s), TS: uint64(s), Members: members}); err != nil {
			w.Abort()
			return "", "", "", err
		}
	}
	return withPred, plain, tracePath, w.Close()
}
