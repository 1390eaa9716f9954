package checker

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/evaluator/evaltest"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// This file checks the live checker against the evaluator's reference
// engine on the random specs, traces and properties of the evaluator's
// differential tests: snapshot by snapshot, a check fails in the live
// checker exactly where the reference counts violations, with the same
// counts and the same first failing binding; and Guard agrees with Check
// on the snapshot after the change.

// randomChecker compiles the case's properties that type-check as checks.
func randomChecker(t *testing.T, c *evaltest.Case) (*specs.Spec, *evaluator.Program, *Checker) {
	t.Helper()
	spec, err := specs.Parse("random.yaml", []byte(c.Spec))
	if err != nil {
		t.Fatalf("spec:\n%s\n%v", c.Spec, err)
	}
	prog := c.Compile(t, spec)
	f := &File{}
	for i, p := range prog.Props {
		f.Checks = append(f.Checks, Check{Name: fmt.Sprint("c", i), Property: p.Text})
	}
	ch, err := Compile(spec, f)
	if err != nil {
		t.Fatal(err)
	}
	return spec, prog, ch
}

// decodedTrace holds a trace's snapshots and its states, decoded as
// maps from variable names to values.
type decodedTrace struct {
	snaps  []trace.Snapshot
	states map[uint32]map[string]any
	nodes  map[uint32]string
}

func decodeTrace(t *testing.T, tr *trace.Trace) *decodedTrace {
	t.Helper()
	d := &decodedTrace{states: map[uint32]map[string]any{}, nodes: map[uint32]string{}}
	sr := tr.Snapshots()
	defer sr.Close()
	for sr.Next() {
		s := sr.Snapshot()
		d.snaps = append(d.snaps, trace.Snapshot{ID: s.ID, TS: s.TS, Members: slices.Clone(s.Members)})
	}
	if err := sr.Err(); err != nil {
		t.Fatal(err)
	}
	states := tr.States()
	defer states.Close()
	for row := range uint32(tr.NumStates()) {
		st, err := states.State(row)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]any{}
		for i, col := range tr.Schema {
			m[col.Name] = st.Vars[i]
		}
		d.states[row], d.nodes[row] = m, st.Node
	}
	return d
}

// fill makes s the snapshot of members: by Set, or by Put of states
// prepared once per row.
func (d *decodedTrace) fill(t *testing.T, s *Snapshot, members []uint32, prepared map[uint32]*State) {
	t.Helper()
	s.Reset()
	for _, row := range members {
		if prepared == nil {
			if err := s.Set(d.nodes[row], d.states[row]); err != nil {
				t.Fatal(err)
			}
			continue
		}
		st, ok := prepared[row]
		if !ok {
			var err error
			if st, err = s.c.Prepare(d.nodes[row], d.states[row]); err != nil {
				t.Fatal(err)
			}
			prepared[row] = st
		}
		if err := s.Put(st); err != nil {
			t.Fatal(err)
		}
	}
}

// liveStats checks every snapshot and sums what the reference sums.
func liveStats(t *testing.T, d *decodedTrace, ch *Checker, put bool) []evaluator.Stats {
	t.Helper()
	var prepared map[uint32]*State
	if put {
		prepared = map[uint32]*State{}
	}
	out := make([]evaluator.Stats, len(ch.props))
	wits := make([][]evaluator.Witness, len(ch.props))
	s := ch.NewSnapshot()
	for _, snap := range d.snaps {
		d.fill(t, s, snap.Members, prepared)
		s.ID, s.TS = snap.ID, snap.TS
		vs := s.Check()
		for i := range out {
			st, tl := &out[i], s.tally[i]
			if tl.bindings == 0 {
				continue
			}
			st.Support++
			st.Bindings += int64(tl.bindings)
			st.Violations += int64(tl.failing)
			st.ScoreSum = st.ScoreSum.Add(evaluator.ScoreOf(int64(tl.bindings-tl.failing), int64(tl.bindings)))
			if tl.failing == 0 {
				st.Perfect++
				continue
			}
			st.ViolatingSnapshots++
			st.Moments = append(st.Moments, snap.ID)
			k := slices.IndexFunc(vs, func(v Violation) bool { return v.Check == ch.props[i].check })
			if k < 0 {
				t.Fatalf("snapshot %d: %s: %d failing bindings, no violation", snap.ID, ch.props[i].text, tl.failing)
			}
			if v := vs[k]; v.Failing != tl.failing || v.Bindings != tl.bindings || v.Text != ch.props[i].text {
				t.Fatalf("snapshot %d: violation %+v, tally %+v", snap.ID, v, tl)
			}
			wits[i] = append(wits[i], vs[k].Witness)
		}
	}
	for i := range out {
		out[i].SetWitnesses(wits[i])
	}
	return out
}

// sameAsReference compares the live checker's sums with the reference's,
// field by field, score sums exactly.
func sameAsReference(t *testing.T, tr *trace.Trace, prog *evaluator.Program, ch *Checker, put bool) {
	t.Helper()
	d := decodeTrace(t, tr)
	n := max(1, len(d.snaps))
	res, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: evaluator.Reference, Workers: 1, MaxWitnesses: n, MaxMoments: n})
	if err != nil {
		t.Fatal(err)
	}
	got := liveStats(t, d, ch, put)
	for i := range res.Stats {
		r := &res.Stats[i]
		ws := r.Witnesses()
		for _, w := range ws {
			for k, v := range w.Values {
				w.Values[k] = boxLists(v)
			}
			for k, v := range w.Binding {
				w.Binding[k] = boxLists(v)
			}
		}
		want := evaluator.Stats{Support: r.Support, Bindings: r.Bindings, Violations: r.Violations, Perfect: r.Perfect,
			ViolatingSnapshots: r.ViolatingSnapshots, ScoreSum: r.ScoreSum, Moments: r.Moments}
		want.SetWitnesses(ws)
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("%s:\nlive      %+v\nreference %+v", prog.Props[i].Text, got[i], want)
		}
	}
}

// boxLists returns v with its typed lists ([]int64, []uint64, []float64,
// []string), at any depth, made []any: the evaluator's witnesses keep the
// lists it decodes typed (trace.TypedStates), the live checker's hold
// []any.
func boxLists(v any) any {
	switch x := v.(type) {
	case []int64:
		return boxAll(x)
	case []uint64:
		return boxAll(x)
	case []float64:
		return boxAll(x)
	case []string:
		return boxAll(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = boxLists(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = boxLists(e)
		}
		return out
	}
	return v
}

func boxAll[T any](l []T) []any {
	out := make([]any, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// TestCheckMatchesReference compares Check with the reference evaluator
// on random specs, traces and properties, with states set by Set and by
// Put of prepared states.
func TestCheckMatchesReference(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 8
	}
	for seed := range uint64(n) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c := evaltest.NewCase(seed, 120)
			_, prog, ch := randomChecker(t, c)
			tr := c.Trace(t, seed, 30)
			sameAsReference(t, tr, prog, ch, seed%2 == 1)
		})
	}
}

// TestCheckManyNodes compares Check with the reference on snapshots of
// nine nodes, all live.
func TestCheckManyNodes(t *testing.T) {
	c := evaltest.NewCase(3, 80)
	c.Nodes = 9
	_, prog, ch := randomChecker(t, c)
	sameAsReference(t, c.Trace(t, 3, 8), prog, ch, false)
}

// TestGuardMatchesCheck checks Guard against Check on the snapshot after
// the change: for each change of a node's state in random traces, the
// guarded node's bindings are those of the new snapshot less those of the
// snapshot without the node, and so are their failing ones; a check with
// a node quantifier after the prefix is checked whole. The first failing
// binding is that of Check when Check's involves the node.
func TestGuardMatchesCheck(t *testing.T) {
	n := 30
	if testing.Short() {
		n = 6
	}
	for seed := range uint64(n) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c := evaltest.NewCase(1000+seed, 100)
			if seed%3 == 0 {
				c.Nodes = 6
			}
			_, _, ch := randomChecker(t, c)
			d := decodeTrace(t, c.Trace(t, seed, 25))
			guarded, after := ch.NewSnapshot(), ch.NewSnapshot()
			for k := 1; k < len(d.snaps); k++ {
				prev, next := d.snaps[k-1].Members, d.snaps[k].Members
				for _, row := range next {
					if slices.Contains(prev, row) {
						continue
					}
					node := d.nodes[row]
					d.fill(t, guarded, prev, nil)
					guarded.ID, guarded.TS = uint64(k), uint64(10*k)
					err := guarded.Guard(node, d.states[row])
					tallies := slices.Clone(guarded.tally)

					d.fill(t, after, prev, nil)
					after.ID, after.TS = guarded.ID, guarded.TS
					if err := after.Set(node, d.states[row]); err != nil {
						t.Fatal(err)
					}
					whole := after.Check()
					withNode := slices.Clone(after.tally)
					after.Remove(node)
					after.Check()
					without := after.tally

					var ge *GuardError
					if err != nil && !errors.As(err, &ge) {
						t.Fatalf("Guard: %v", err)
					}
					for i, p := range ch.props {
						want := withNode[i]
						if !p.global {
							want = tally{withNode[i].bindings - without[i].bindings, withNode[i].failing - without[i].failing}
						}
						if tallies[i] != want {
							t.Fatalf("snapshot %d, node %s: %s: Guard tally %+v, want %+v", k, node, p.text, tallies[i], want)
						}
						var gv, wv *Violation
						if ge != nil {
							gv = findViolation(ge.Violations, p)
						}
						wv = findViolation(whole, p)
						if (gv != nil) != (want.failing > 0) {
							t.Fatalf("snapshot %d, node %s: %s: Guard violation %v, %d failing bindings", k, node, p.text, gv, want.failing)
						}
						if gv == nil {
							continue
						}
						if p.global || involves(p, wv.Witness, node) {
							if !reflect.DeepEqual(gv.Witness, wv.Witness) {
								t.Fatalf("snapshot %d, node %s: %s: Guard witness %v, Check's %v", k, node, p.text, gv.Witness, wv.Witness)
							}
						} else if !involves(p, gv.Witness, node) {
							t.Fatalf("snapshot %d, node %s: %s: Guard witness %v without the node", k, node, p.text, gv.Witness)
						}
					}
				}
			}
		})
	}
}

func findViolation(vs []Violation, p *prop) *Violation {
	for i := range vs {
		if vs[i].Check == p.check {
			return &vs[i]
		}
	}
	return nil
}

// involves reports whether witness w binds node to a node variable of p.
func involves(p *prop, w evaluator.Witness, node string) bool {
	for slot, name := range p.Vars[:p.Bound()] {
		if p.node[slot] && w.Binding[name] == node {
			return true
		}
	}
	return false
}
