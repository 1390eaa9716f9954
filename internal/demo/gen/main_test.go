package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"testing"
)

// line is one decoded snapshot of a trace.
type line struct {
	Snapshot int                  `json:"snapshot"`
	TS       int64                `json:"ts"`
	Tags     []string             `json:"tags"`
	Nodes    map[string]nodeState `json:"nodes"`
}

func (l line) tagged(tag string) bool { return slices.Contains(l.Tags, tag) }

// buggy reports whether any injected bug shows in the snapshot.
func (l line) buggy() bool {
	return l.tagged(tagTwoLeaders) || l.tagged(tagApplyEarly) || l.tagged(tagCommitBeyond)
}

func lastIndex(n nodeState) int64 {
	if len(n.Log) == 0 {
		return 0
	}
	return n.Log[len(n.Log)-1].Index
}

func gen(t *testing.T, cfg config) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := generate(&buf, cfg); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// parse decodes a trace strictly: every line one snapshot object, every
// node exactly the fields of nodeState.
func parse(t *testing.T, trace []byte) []line {
	t.Helper()
	fields := []string{"applied", "commit", "id", "lead", "log", "peers", "state", "term", "vote"}
	var lines []line
	sc := bufio.NewScanner(bytes.NewReader(trace))
	sc.Buffer(nil, 1<<20)
	for no := 1; sc.Scan(); no++ {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var l line
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("line %d: %v", no, err)
		}
		var raw struct {
			Nodes map[string]map[string]json.RawMessage
		}
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatalf("line %d: %v", no, err)
		}
		for id, n := range raw.Nodes {
			if keys := slices.Sorted(maps.Keys(n)); !slices.Equal(keys, fields) {
				t.Fatalf("line %d: node %s has fields %v, want %v", no, id, keys, fields)
			}
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

func TestDeterministic(t *testing.T) {
	a, b := gen(t, defaults), gen(t, defaults)
	if !bytes.Equal(a, b) {
		t.Fatal("two runs with the same seed differ")
	}
	other := defaults
	other.seed = 2
	if bytes.Equal(a, gen(t, other)) {
		t.Fatal("seeds 1 and 2 give the same trace")
	}
}

// TestCommittedTrace checks that ../demo.jsonl is what go generate makes.
func TestCommittedTrace(t *testing.T) {
	committed, err := os.ReadFile("../demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, gen(t, defaults)) {
		t.Fatal("demo.jsonl is stale: run go generate ./internal/demo")
	}
}

func TestFormat(t *testing.T) {
	cfg := defaults
	lines := parse(t, gen(t, cfg))
	if len(lines) != cfg.snapshots {
		t.Fatalf("got %d snapshots, want %d", len(lines), cfg.snapshots)
	}
	for i, l := range lines {
		if l.Snapshot != i {
			t.Fatalf("line %d: snapshot %d, want %d", i+1, l.Snapshot, i)
		}
		if i > 0 && l.TS <= lines[i-1].TS {
			t.Fatalf("snapshot %d: ts %d does not increase", i, l.TS)
		}
		if len(l.Nodes) <= cfg.nodes/2 {
			t.Fatalf("snapshot %d: only %d live nodes", i, len(l.Nodes))
		}
		for key, n := range l.Nodes {
			if n.ID != key {
				t.Fatalf("snapshot %d: node %s has id %q", i, key, n.ID)
			}
			var peers []string
			for j := range cfg.nodes {
				if name(j) != n.ID {
					peers = append(peers, name(j))
				}
			}
			if !slices.Equal(n.Peers, peers) {
				t.Fatalf("snapshot %d: %s has peers %v", i, n.ID, n.Peers)
			}
			if len(n.Log) == 0 || len(n.Log) > logWindow {
				t.Fatalf("snapshot %d: %s exposes %d log entries", i, n.ID, len(n.Log))
			}
			for k := 1; k < len(n.Log); k++ {
				if n.Log[k].Index != n.Log[k-1].Index+1 || n.Log[k].Term < n.Log[k-1].Term {
					t.Fatalf("snapshot %d: %s has log %v", i, n.ID, n.Log)
				}
			}
		}
	}
}

// TestBugsRare checks that each planted bug shows in the default trace, in
// at most 1% of its snapshots, and only where its anomaly is visible.
func TestBugsRare(t *testing.T) {
	cfg := defaults
	lines := parse(t, gen(t, cfg))
	shows := map[string]func(line) bool{
		tagTwoLeaders: func(l line) bool {
			for _, a := range l.Nodes {
				for _, b := range l.Nodes {
					if a.Term == b.Term && a.Lead != "" && b.Lead != "" && a.Lead != b.Lead {
						return true
					}
				}
			}
			return false
		},
		tagApplyEarly: func(l line) bool {
			return slices.ContainsFunc(slices.Collect(maps.Values(l.Nodes)), func(n nodeState) bool { return n.Applied > n.Commit })
		},
		tagCommitBeyond: func(l line) bool {
			return slices.ContainsFunc(slices.Collect(maps.Values(l.Nodes)), func(n nodeState) bool { return n.Commit > lastIndex(n) })
		},
	}
	for tag, visible := range shows {
		count := 0
		for _, l := range lines {
			if !l.tagged(tag) {
				continue
			}
			count++
			if !visible(l) {
				t.Errorf("snapshot %d is tagged %s but does not show it", l.Snapshot, tag)
			}
		}
		t.Logf("%s: %d snapshots", tag, count)
		if count == 0 || count > cfg.snapshots/100 {
			t.Errorf("%s shows in %d of %d snapshots, want 1 to 1%%", tag, count, cfg.snapshots)
		}
	}
}

// TestInvariants checks, over several seeds, that the protocol is correct
// wherever no injected bug shows, so that the tags are trustworthy ground
// truth.
func TestInvariants(t *testing.T) {
	for seed := range uint64(20) {
		cfg := defaults
		cfg.seed = seed + 1
		for _, l := range parse(t, gen(t, cfg)) {
			if l.buggy() {
				continue
			}
			if err := checkInvariants(l); err != nil {
				t.Fatalf("seed %d, snapshot %d: %v", cfg.seed, l.Snapshot, err)
			}
		}
	}
}

func checkInvariants(l line) error {
	var leaders []nodeState
	for _, n := range l.Nodes {
		if n.State == leader {
			leaders = append(leaders, n)
		}
	}
	if len(leaders) > 1 {
		return fmt.Errorf("%d leaders", len(leaders))
	}
	for _, n := range l.Nodes {
		switch {
		case n.Applied > n.Commit:
			return fmt.Errorf("%s: applied %d > commit %d", n.ID, n.Applied, n.Commit)
		case n.Commit > lastIndex(n):
			return fmt.Errorf("%s: commit %d > last index %d", n.ID, n.Commit, lastIndex(n))
		case (n.Lead == n.ID) != (n.State == leader):
			return fmt.Errorf("%s: %s with lead %q", n.ID, n.State, n.Lead)
		case n.State != follower && n.Vote != n.ID:
			return fmt.Errorf("%s: %s voted for %q", n.ID, n.State, n.Vote)
		}
		for _, e := range n.Log {
			if e.Term > n.Term {
				return fmt.Errorf("%s: entry %d of term %d in term %d", n.ID, e.Index, e.Term, n.Term)
			}
		}
		for _, ld := range leaders {
			if n.Term > ld.Term {
				return fmt.Errorf("%s: term %d above leader %s's term %d", n.ID, n.Term, ld.ID, ld.Term)
			}
		}
		for _, m := range l.Nodes {
			if n.Term == m.Term && n.Lead != "" && m.Lead != "" && n.Lead != m.Lead {
				return fmt.Errorf("%s and %s disagree on the leader of term %d", n.ID, m.ID, n.Term)
			}
		}
	}
	return nil
}
