package testbeds

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// leadState is what a node of the leader system exposes.
type leadState struct {
	ID     string `augur:"id"`
	Leader string `augur:"leader"` // "" while it follows none
	Armed  bool   `augur:"armed"`
}

// leadSystem is a system whose first node leads from its first tick, the
// others following it once it does. Every leader but the first arms a
// timer (armed), as a correct system arms it at the first too; with
// unarmed, the first node leads unarmed, which is harmless there. With
// stray > 0, node n3 makes itself a leader, unarmed, from its tick
// number stray on: the damage. Its handlers can be taken back (a Checkpointer).
type leadSystem struct {
	unarmed bool
	stray   int
	nodes   []leadState
	ticks   []int
}

func newLeadSystem(nodes int, unarmed bool, stray int) *leadSystem {
	sys := &leadSystem{unarmed: unarmed, stray: stray, nodes: make([]leadState, nodes), ticks: make([]int, nodes)}
	for i := range sys.nodes {
		sys.nodes[i].ID = Name(i)
	}
	return sys
}

func (sys *leadSystem) Tick(n int) {
	sys.ticks[n]++
	st := &sys.nodes[n]
	switch {
	case n == 0 && st.Leader == "":
		st.Leader, st.Armed = st.ID, !sys.unarmed
	case n == 2 && sys.stray > 0 && sys.ticks[n] >= sys.stray:
		st.Leader, st.Armed = st.ID, false
	case n != 0 && st.Leader == "" && sys.nodes[0].Leader != "":
		st.Leader, st.Armed = sys.nodes[0].ID, true
	}
}

func (sys *leadSystem) Checkpoint(n int) func() {
	saved := sys.nodes[n]
	return func() { sys.nodes[n] = saved }
}

func (*leadSystem) Deliver(from, to int, m any) {}
func (*leadSystem) Propose(n int)               {}
func (*leadSystem) Crash(n int)                 {}
func (*leadSystem) Restart(n int)               {}
func (sys *leadSystem) State(n int) leadState   { return sys.nodes[n] }
func (*leadSystem) Check() []string             { return nil }

// following counts the nodes other than the first that follow it.
func (sys *leadSystem) following() int {
	k := 0
	for _, st := range sys.nodes[1:] {
		if st.Leader == sys.nodes[0].ID {
			k++
		}
	}
	return k
}

// TestGuardSystemStart checks that the guard lets the system's start
// through where the checks would refuse it, judges the other nodes'
// changes without the node it let through, and still refuses the damage:
// a guard learned from correct runs ("every leader is armed", "the
// followers of a leader are armed alike") refused the first node's
// unarmed start, and no node ever moved.
func TestGuardSystemStart(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "lead.yaml")
	checks := filepath.Join(dir, "lead.checks.yaml")
	write(t, spec, "system: lead\ntypes:\n  NodeID: string\nvariables:\n  id: NodeID\n  leader: NodeID\n  armed: bool\n")
	write(t, checks, `spec: lead.yaml
checks:
  - name: leader-armed
    property: 'forall n0 in nodes: n0.id != n0.leader or n0.armed'
  - name: followers-alike
    property: 'forall n0, n1 in nodes: n0.leader != n1.leader or n0.leader == "" or n0.armed == n1.armed'
`)
	for _, tc := range []struct {
		name             string
		unarmed          bool
		stray            int
		deviant, blocked int
		following        int
	}{
		{name: "correct", following: 3},
		{name: "harmless start", unarmed: true, deviant: 1, following: 3},
		{name: "harmless start, then damage", unarmed: true, stray: 5, deviant: 1, following: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sys *leadSystem
			cfg := Config{Nodes: 4, Steps: 20, Seed: 1, Guard: checks}
			st, err := Record(context.Background(), "lead", nil, cfg, filepath.Join(t.TempDir(), "r.trace"),
				func(*Sim) System[leadState] { sys = newLeadSystem(cfg.Nodes, tc.unarmed, tc.stray); return sys })
			if err != nil {
				t.Fatal(err)
			}
			if st.Deviant != tc.deviant || sys.following() != tc.following {
				t.Errorf("deviant nodes %d (by %v), %d nodes following the first; want %d and %d", st.Deviant, st.DeviantBy, sys.following(), tc.deviant, tc.following)
			}
			if tc.stray > 0 {
				if st.BlockedBy["leader-armed"] == 0 || st.Blocked != st.BlockedBy["leader-armed"] {
					t.Errorf("blocked %d changes (%v), want the stray leader's alone", st.Blocked, st.BlockedBy)
				}
			} else if st.Blocked != 0 {
				t.Errorf("blocked %d changes (%v), want none", st.Blocked, st.BlockedBy)
			}
		})
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
