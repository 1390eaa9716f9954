package recorder

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/trace"
	"github.com/augur-dev/augur/trace/tracetest"
)

type raftish struct {
	Term  int64    `augur:"term"`
	Role  string   `augur:"role"`
	Peers []string `augur:"peers"`
}

func TestRecorder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sim.trace")
	rec, err := New[*raftish](dir, trace.Options{System: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	a := &raftish{Term: 1, Role: "leader", Peers: []string{"b"}}
	b := &raftish{Term: 1, Role: "follower", Peers: []string{"a"}}
	steps := []struct {
		ts    uint64
		nodes map[string]*raftish
		tags  []string
	}{
		{10, map[string]*raftish{"b": b, "a": a}, []string{"start"}},
		{20, map[string]*raftish{"a": a, "b": {Term: 2, Role: "candidate", Peers: []string{"a"}}}, nil},
		{30, map[string]*raftish{"a": a}, []string{"bug:x"}},
	}
	for _, s := range steps {
		if err := rec.Snapshot(s.ts, s.nodes, s.tags...); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	const want = `schema term:int64 role:utf8 peers:list<utf8>
state 0 a ts=10 term=1 role=leader peers=[b]
state 1 b ts=10 term=1 role=follower peers=[a]
state 2 b ts=20 term=2 role=candidate peers=[a]
snapshot 0 ts=10 tags=["start"] a@0 b@1
snapshot 1 ts=20 tags=[] a@0 b@2
snapshot 2 ts=30 tags=["bug:x"] a@0
`
	if got := tracetest.Dump(t, dir); got != want {
		t.Errorf("trace:\n%s\nwant:\n%s", got, want)
	}

	var te *collector.TypeError
	if _, err := New[map[string]int](filepath.Join(t.TempDir(), "x.trace"), trace.Options{}); !errors.As(err, &te) {
		t.Errorf("New[map[string]int] = %v", err)
	}
	rec2, err := New[*raftish](filepath.Join(t.TempDir(), "y.trace"), trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rec2.Abort()
	if err := rec2.Snapshot(1, map[string]*raftish{"a": nil}); err == nil {
		t.Error("a nil state is recorded")
	}
}
