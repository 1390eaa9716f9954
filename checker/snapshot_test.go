package checker_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/ir"
)

func TestSetErrors(t *testing.T) {
	type noCommit struct {
		ID      string `augur:"id"`
		Term    int64  `augur:"term"`
		Vote    string `augur:"vote"`
		State   string `augur:"state"`
		Applied int64  `augur:"applied"`
	}
	type stringTerm struct {
		ID      string `augur:"id"`
		Term    string `augur:"term"`
		Vote    string `augur:"vote"`
		State   string `augur:"state"`
		Commit  int64  `augur:"commit"`
		Applied int64  `augur:"applied"`
	}
	tests := []struct {
		name  string
		state any
		msg   string
	}{
		{"missing variable", &noCommit{}, "state of node n9: *checker_test.noCommit does not fit spec raft.yaml: raft.yaml:13:3: variable commit is not a column of the trace (columns: node, id, term, vote, state, applied)"},
		{"wrong type", &stringTerm{}, "variable term: column term has type utf8, want Term (int64)"},
		{"not a struct", 3, "state of node n9: collector: cannot expose int: a state must be a struct"},
		{"nil", nil, "state of node n9: collector: cannot expose a nil state"},
		{"nil pointer", (*raftState)(nil), "collector: cannot expose a nil *checker_test.raftState"},
		{"not a trace value", map[string]any{"term": 3}, "state of node n9: variable term: int is not a value of a trace (nil, bool, int64, uint64, float64, string, []any or map[string]any)"},
		{"outside its enum", &raftState{ID: "n9", State: "boss"}, `state of node n9: state: "boss" is not a value of the enum state (follower, candidate, leader)`},
		{"outside its enum, decoded", map[string]any{"id": "n9", "state": "Leader"}, `state of node n9: state: "Leader" is not a value of the enum state (follower, candidate, leader)`},
		{"nested", map[string]any{"log": []any{map[string]any{"index": int32(1)}}}, "variable log: int32 is not a value of a trace"},
	}
	c := raftChecker(t, append(raftChecks[:len(raftChecks):len(raftChecks)], logCheck)...)
	s := snapshotOf(t, c, cluster(3))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, err := range []error{s.Set("n9", tt.state), s.Guard("n9", tt.state)} {
				if err == nil || !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("error = %v, want it to contain %q", err, tt.msg)
				}
				var ge *checker.GuardError
				if errors.As(err, &ge) {
					t.Errorf("error %v is a GuardError", err)
				}
			}
			if _, err := c.Prepare("n9", tt.state); err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Prepare error = %v, want it to contain %q", err, tt.msg)
			}
			if s.Len() != 3 {
				t.Errorf("after a failed Set, %d nodes, want 3", s.Len())
			}
		})
	}
	// Without the log check, a state need not hold a log, nor a valid one.
	s = snapshotOf(t, raftChecker(t, raftChecks...), cluster(3))
	if err := s.Set("n9", tests[len(tests)-1].state); err != nil {
		t.Errorf("Set of a state whose log no check reads: %v", err)
	}
}

// TestGuard guards changes of state of a raft cluster of four nodes, n00
// leading term 3, against the five raft checks and the log check.
func TestGuard(t *testing.T) {
	tests := []struct {
		name   string
		node   string
		change func(*raftState)
		fails  []string // checks, in order
		at     map[string]any
		values map[string]any
	}{
		{name: "commit advances", node: "n02", change: func(s *raftState) { s.Commit = 19 }},
		{name: "new term", node: "n03", change: func(s *raftState) { s.Term, s.State, s.Vote = 4, "candidate", "n03" }},
		{name: "second leader", node: "n01", change: func(s *raftState) { s.State, s.Vote = "leader", "n01" },
			fails:  []string{"one-leader-per-term", "leader-commit-highest-in-term"},
			at:     map[string]any{"n0": "n00", "n1": "n01"},
			values: map[string]any{"n0.state": "leader", "n0.term": int64(3), "n1.state": "leader", "n1.term": int64(3)}},
		{name: "applied past commit", node: "n02", change: func(s *raftState) { s.Applied = 19 },
			fails:  []string{"applied-le-commit"},
			at:     map[string]any{"n0": "n02"},
			values: map[string]any{"n0.applied": int64(19), "n0.commit": int64(18)}},
		{name: "joins with a taken id", node: "n09", change: func(s *raftState) { s.ID = "n01" },
			fails:  []string{"distinct-ids"},
			at:     map[string]any{"n0": "n01", "n1": "n09"},
			values: map[string]any{"n0.id": "n01", "n1.id": "n01"}},
		{name: "committed entry lost", node: "n03", change: func(s *raftState) { s.Log = append([]entry{}, s.Log[:5]...) },
			fails:  []string{"committed-entries-everywhere"},
			at:     map[string]any{"n0": "n00", "n1": "n03", "e0": map[string]any{"index": int64(6), "term": int64(1)}},
			values: map[string]any{"e0": map[string]any{"index": int64(6), "term": int64(1)}, "e0.index": int64(6), "n0.commit": int64(19), "n1.commit": int64(18), "n1.log": toAnyLog(cluster(1)[0].Log[:5])}},
	}
	c := raftChecker(t, append(raftChecks[:len(raftChecks):len(raftChecks)], logCheck)...)
	states := cluster(4)
	s := snapshotOf(t, c, states)
	s.ID, s.TS = 7, 70
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := *cluster(4)[2]
			next.ID = tt.node
			if i := nodeIndex(states, tt.node); i >= 0 {
				next = *states[i]
			}
			tt.change(&next)
			err := s.Guard(tt.node, &next)
			if vs := s.Check(); vs != nil {
				t.Fatalf("Guard changed the snapshot: %v", vs[0].Error())
			}
			if tt.fails == nil {
				if err != nil {
					t.Fatalf("Guard: %v", err)
				}
				return
			}
			var ge *checker.GuardError
			if !errors.As(err, &ge) {
				t.Fatalf("Guard error %v, want a GuardError", err)
			}
			var names []string
			for _, v := range ge.Violations {
				names = append(names, v.Check.Name)
			}
			if !reflect.DeepEqual(names, tt.fails) || ge.Node != tt.node {
				t.Errorf("node %s violates %v, want %s violating %v", ge.Node, names, tt.node, tt.fails)
			}
			var v *checker.Violation
			if !errors.As(err, &v) || v != &ge.Violations[0] {
				t.Fatalf("errors.As(%v) does not find the first violation", err)
			}
			if w := v.Witness; w.Snapshot != 7 || w.TS != 70 || !reflect.DeepEqual(w.Binding, tt.at) || !reflect.DeepEqual(w.Values, tt.values) {
				t.Errorf("witness %+v, want binding %v, values %v", w, tt.at, tt.values)
			}
			if !strings.HasPrefix(err.Error(), "checker: next state of node "+tt.node+": check "+tt.fails[0]+" fails: ") {
				t.Errorf("error %q", err)
			}
		})
	}
}

func nodeIndex(states []*raftState, id string) int {
	for i, st := range states {
		if st.ID == id {
			return i
		}
	}
	return -1
}

func toAnyLog(log []entry) []any {
	out := make([]any, len(log))
	for i, e := range log {
		out[i] = map[string]any{"index": e.Index, "term": e.Term}
	}
	return out
}

// TestGuardExists guards against a check whose exists reads every node:
// when the leader steps down, the bindings of the other nodes fail.
func TestGuardExists(t *testing.T) {
	c := raftChecker(t, checker.Check{Name: "some-leader", Property: `forall n0 in nodes: exists n1 in nodes: n1.state == "leader"`})
	states := cluster(3)
	states[0].State, states[2].State = "follower", "leader"
	s := snapshotOf(t, c, states)
	next := *states[2]
	next.State = "follower"
	var v *checker.Violation
	if err := s.Guard("n02", &next); !errors.As(err, &v) {
		t.Fatalf("Guard error %v, want a violation", err)
	}
	if want := map[string]any{"n0": "n00"}; !reflect.DeepEqual(v.Witness.Binding, want) || v.Failing != 3 || v.Bindings != 3 {
		t.Errorf("violation %+v, want binding %v, 3 of 3 bindings failing", v, want)
	}
}

func TestSnapshotNodes(t *testing.T) {
	c := raftChecker(t, raftChecks...)
	states := cluster(3)
	s := snapshotOf(t, c, states)
	// n01 and n02 both lead term 3.
	states[2].State, states[2].Vote = "leader", "n02"
	if err := s.Set("n02", states[2]); err != nil {
		t.Fatal(err)
	}
	vs := s.Check()
	if len(vs) != 2 || vs[0].Check.Name != "one-leader-per-term" || vs[0].Failing != 2 || vs[0].Bindings != 6 {
		t.Fatalf("Check = %+v, want one-leader-per-term failing at 2 of 6 bindings", vs)
	}
	if !s.Remove("n02") || s.Remove("n02") || s.Len() != 2 || s.Check() != nil {
		t.Errorf("after Remove: %d nodes, Check %v", s.Len(), s.Check())
	}
	s.Reset()
	if s.Len() != 0 || s.Check() != nil {
		t.Errorf("after Reset: %d nodes, Check %v", s.Len(), s.Check())
	}

	// Prepared states are shared, and stay as they were prepared.
	var prepared []*checker.State
	for _, st := range states {
		p, err := c.Prepare(st.ID, st)
		if err != nil {
			t.Fatal(err)
		}
		prepared = append(prepared, p)
	}
	states[2].Term = 4
	other := c.NewSnapshot()
	for _, p := range prepared {
		if err := s.Put(p); err != nil {
			t.Fatal(err)
		}
		if err := other.Put(p); err != nil {
			t.Fatal(err)
		}
	}
	if vs := s.Check(); len(vs) != 2 || !reflect.DeepEqual(vs, other.Check()) {
		t.Errorf("Check of prepared states = %+v, want the same two violations in both snapshots", vs)
	}
	if err := raftChecker(t, raftChecks...).NewSnapshot().Put(prepared[0]); err == nil {
		t.Error("Put of a state prepared by another checker did not fail")
	}
	if prepared[1].Node() != "n01" {
		t.Errorf("Node() = %q", prepared[1].Node())
	}
}

// TestDecodedState checks that a decoded state, as a trace holds it, and
// the struct it was exposed from are the same state.
func TestDecodedState(t *testing.T) {
	c := raftChecker(t, raftChecks...)
	states := cluster(2)
	states[1].State, states[1].Vote = "leader", "n01"
	decoded := map[string]any{"id": "n01", "term": int64(3), "vote": "n01", "state": "leader", "commit": int64(18), "applied": int64(18), "extra": "ignored"}
	for _, st := range []any{states[1], decoded} {
		s := snapshotOf(t, c, states[:1])
		if err := s.Set("n01", st); err != nil {
			t.Fatal(err)
		}
		vs := s.Check()
		if len(vs) != 2 || !reflect.DeepEqual(vs[0].Witness.Values, map[string]any{"n0.state": "leader", "n0.term": int64(3), "n1.state": "leader", "n1.term": int64(3)}) {
			t.Errorf("%T: Check = %+v", st, vs)
		}
	}
}

// TestSteadyStateAllocs pins Set, Guard and Check at no allocation once
// a snapshot's buffers have grown, for pointers to structs and for
// decoded states.
func TestSteadyStateAllocs(t *testing.T) {
	c := raftChecker(t, append(raftChecks[:len(raftChecks):len(raftChecks)], logCheck)...)
	states := cluster(5)
	s := snapshotOf(t, c, states)
	next := *states[3]
	next.Commit = 19
	decoded := map[string]any{"id": "n03", "term": int64(3), "vote": "n00", "state": "follower", "commit": int64(19), "applied": int64(18), "log": toAnyLog(next.Log)}
	for name, f := range map[string]func(){
		"Set":           func() { check(t, s.Set("n03", states[3])) },
		"Set decoded":   func() { check(t, s.Set("n03", decoded)) },
		"Guard":         func() { check(t, s.Guard("n03", &next)) },
		"Guard decoded": func() { check(t, s.Guard("n03", decoded)) },
		"Check": func() {
			if s.Check() != nil {
				t.Fatal("violation")
			}
		},
	} {
		if n := testing.AllocsPerRun(50, f); n != 0 {
			t.Errorf("%s: %v allocations, want 0", name, n)
		}
	}
}

// TestWitnessHugeLog checks that a violation's witness keeps the head of
// a huge log, saying its length, converting only what it keeps (issue
// 31: the witness held the log whole, each entry a map).
func TestWitnessHugeLog(t *testing.T) {
	const n = 1 << 20
	c := raftChecker(t, checker.Check{Name: "no-log", Property: "forall n0 in nodes: empty(n0.log)"})
	st := cluster(1)[0]
	st.Log = make([]entry, n)
	for i := range st.Log {
		st.Log[i] = entry{Index: int64(i + 1), Term: 1}
	}
	s := snapshotOf(t, c, []*raftState{st})
	var vs []checker.Violation
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	vs = s.Check()
	runtime.ReadMemStats(&after)
	if len(vs) != 1 {
		t.Fatalf("%d violations, want 1", len(vs))
	}
	w := vs[0].Witness
	data, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"/values/n0.log": n}; !reflect.DeepEqual(w.Cut, want) || len(data) > 2*ir.MaxValueJSON {
		t.Errorf("witness of %d bytes of JSON, cut %v; want at most %d, cut %v", len(data), w.Cut, 2*ir.MaxValueJSON, want)
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > 256<<10 {
		t.Errorf("Check allocated %d KiB, want at most 256", a>>10)
	}
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentSnapshots shares a checker and prepared states between
// goroutines, each with its snapshot (run with -race).
func TestConcurrentSnapshots(t *testing.T) {
	c := raftChecker(t, append(raftChecks[:len(raftChecks):len(raftChecks)], logCheck)...)
	states := cluster(4)
	shared, err := c.Prepare(states[3].ID, states[3])
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			s := c.NewSnapshot()
			decoded := map[string]any{"id": "n01", "term": int64(3), "vote": "n00", "state": "follower", "commit": int64(18), "applied": int64(18), "log": toAnyLog(states[1].Log)}
			for i := range 200 {
				var err error
				switch (g + i) % 3 {
				case 0:
					err = s.Set("n00", states[0])
				case 1:
					err = s.Set("n01", decoded)
				default:
					err = s.Put(shared)
				}
				if err == nil {
					next := *states[2]
					err = s.Guard("n02", &next)
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
