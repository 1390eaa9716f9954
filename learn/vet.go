package learn

import (
	"context"
	"errors"
	"fmt"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
	"github.com/augur-dev/augur/trace"
)

// Vetting is what [Vet] found: how many changes of state the runs made,
// and the checks that would have refused some of them.
type Vetting struct {
	Changes int       // changes of a live node's state replayed
	Refused []Refusal // in the order of the checks file
}

// Refusal is a check that refuses legitimate changes.
type Refusal struct {
	Check    string // its name
	Property string
	Refusals int    // changes it would refuse
	First    string // the first: the run, and the violation
}

// Names returns the names of the refusing checks.
func (v *Vetting) Names() map[string]bool {
	names := make(map[string]bool, len(v.Refused))
	for _, r := range v.Refused {
		names[r.Check] = true
	}
	return names
}

// Vet replays the runs at traces, believed good, against the checks of f,
// written against spec, as the testbeds' immediate safety check guards a
// run: from one snapshot to the next, each change of the state of a node
// live in both goes through checker.Snapshot.Guard with the earlier
// snapshot's other states, and a check refuses it when it adds failing
// bindings among those involving the node (one that already fails does
// not stop the node from changing). Nodes that join (start or restart)
// or leave (crash) are not guarded, as the testbeds guard neither. A
// check that would refuse a change of a good run refuses a legitimate
// one.
func Vet(ctx context.Context, spec *specs.Spec, f *checker.File, traces []string) (*Vetting, error) {
	ch, err := checker.Compile(spec, f)
	if err != nil {
		return nil, err
	}
	v := &Vetting{}
	counts := make([]int, len(f.Checks))
	firsts := make([]string, len(f.Checks))
	index := make(map[*checker.Check]int, len(f.Checks))
	for i := range f.Checks {
		index[&f.Checks[i]] = i
	}
	for _, path := range traces {
		if err := vetRun(ctx, spec, ch, path, v, func(c *checker.Check, why string) {
			i := index[c]
			if counts[i] == 0 {
				firsts[i] = fmt.Sprintf("%s: %s", path, why)
			}
			counts[i]++
		}); err != nil {
			return nil, err
		}
	}
	for i, n := range counts {
		if n > 0 {
			c := &f.Checks[i]
			v.Refused = append(v.Refused, Refusal{Check: c.Name, Property: c.Property, Refusals: n, First: firsts[i]})
		}
	}
	return v, nil
}

// vetRun replays the run at path against ch, counting its changes in v
// and telling refuse each check that refuses one, with the violation.
func vetRun(ctx context.Context, spec *specs.Spec, ch *checker.Checker, path string, v *Vetting, refuse func(c *checker.Check, why string)) error {
	tr, err := trace.Open(path)
	if err != nil {
		return err
	}
	defer tr.Close()
	if err := spectrace.Check(spec, tr.Schema); err != nil {
		return fmt.Errorf("spec does not fit trace %s: %w", path, err)
	}
	states := tr.States()
	defer states.Close()
	sr := tr.Snapshots()
	defer sr.Close()
	s := ch.NewSnapshot()
	type state struct {
		row  uint32
		vars map[string]any
	}
	cur := map[string]state{} // of each live node
	type change struct {
		node string
		state
	}
	var changes []change
	live := map[string]bool{}
	for n := 0; sr.Next(); n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		snap := sr.Snapshot()
		s.ID, s.TS = snap.ID, snap.TS
		changes = changes[:0]
		clear(live)
		for _, row := range snap.Members {
			st, err := states.State(row)
			if err != nil {
				return err
			}
			live[st.Node] = true
			if prev, ok := cur[st.Node]; !ok || prev.row != row {
				m := make(map[string]any, len(st.Vars))
				for i, col := range tr.Schema {
					m[col.Name] = st.Vars[i]
				}
				changes = append(changes, change{st.Node, state{row, m}})
			}
		}
		for node := range cur {
			if !live[node] {
				s.Remove(node)
				delete(cur, node)
			}
		}
		for _, c := range changes {
			prev, ok := cur[c.node]
			if !ok {
				continue // joins
			}
			v.Changes++
			next, err := guard(s, c.node, c.vars)
			if err != nil {
				return err
			}
			if next == nil {
				continue
			}
			now, err := guard(s, c.node, prev.vars)
			if err != nil {
				return err
			}
			for _, vi := range next.Violations {
				if failing(now, vi.Check) < vi.Failing {
					refuse(vi.Check, vi.Error())
				}
			}
		}
		for _, c := range changes {
			if err := s.Set(c.node, c.vars); err != nil {
				return err
			}
			cur[c.node] = c.state
		}
	}
	return sr.Err()
}

// guard returns the checks that fail on s with vars as node's state, at
// bindings involving node, or nil if none does.
func guard(s *checker.Snapshot, node string, vars map[string]any) (*checker.GuardError, error) {
	var ge *checker.GuardError
	if err := s.Guard(node, vars); err != nil && !errors.As(err, &ge) {
		return nil, err
	}
	return ge, nil
}

// failing returns the failing bindings of check c in ge, 0 if it is not
// among them.
func failing(ge *checker.GuardError, c *checker.Check) int {
	if ge == nil {
		return 0
	}
	for _, v := range ge.Violations {
		if v.Check == c {
			return v.Failing
		}
	}
	return 0
}
