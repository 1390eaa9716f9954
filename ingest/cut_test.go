package ingest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/internal/memtest"
)

// runCutter runs a script of Cutter calls, one a line:
//
//	read N…               Read of each node
//	apply N TS state S    Apply of a state record whose state handle is S
//	apply N TS heartbeat  Apply of a heartbeat (or leave)
//	end N…                End of each node
//	seal TS               Seal
//	finish                Finish
//	counts                no call: the counts of incomplete and collapsed cuts
//
// A line may end in "-> OUT", what the call must return: the cuts it
// settles, as "#seq ts=T [members]" separated by ", ", or the counts as
// "incomplete=I collapsed=C". A line without "->" must settle no cut.
func runCutter(t *testing.T, opts CutOptions, script string) {
	t.Helper()
	c := NewCutter(opts)
	for i, line := range strings.Split(strings.TrimSpace(script), "\n") {
		cmd, want, _ := strings.Cut(line, "->")
		f := strings.Fields(cmd)
		var got []string
		switch f[0] {
		case "read":
			for _, n := range f[1:] {
				c.Read(n)
			}
		case "apply":
			ts, err := strconv.ParseUint(f[2], 10, 64)
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			r := Record{Node: f[1], TS: ts}
			switch f[3] {
			case "state":
				r.Event = collector.EventState
				s, err := strconv.ParseUint(f[4], 10, 32)
				if err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				r.State = uint32(s)
			case "heartbeat":
				r.Event = collector.EventHeartbeat
			case "leave":
				r.Event = collector.EventLeave
			}
			c.Apply(r)
		case "end":
			for _, n := range f[1:] {
				c.End(n)
			}
		case "seal":
			ts, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			c.Seal(ts)
		case "finish":
			c.Finish()
		case "counts":
			got = append(got, fmt.Sprintf("incomplete=%d collapsed=%d", c.Incomplete(), c.Collapsed()))
		default:
			t.Fatalf("line %d: unknown command %q", i+1, f[0])
		}
		for _, cut := range c.Cuts() {
			got = append(got, fmt.Sprintf("#%d ts=%d %v", cut.Seq, cut.TS, cut.Members))
		}
		if g, w := strings.Join(got, ", "), strings.TrimSpace(want); g != w {
			t.Errorf("line %d: %s\n got -> %s\nwant -> %s", i+1, strings.TrimSpace(cmd), g, w)
		}
	}
}

// TestCutter feeds node-local records to a Cutter and checks the cuts it
// settles after each call.
func TestCutter(t *testing.T) {
	tests := []struct {
		name   string
		opts   CutOptions
		script string
	}{{
		// The cut at 1 is made when a later record is applied; n1 has
		// a record at 1, so it is complete. n2's heartbeat at 4 is a
		// record after the cut at 3.
		name: "two nodes",
		script: `
read n1 n1 n1 n2 n2 n2
apply n1 1 state 0
apply n2 2 state 1    -> #0 ts=1 [0]
apply n1 3 state 2    -> #1 ts=2 [0 1]
apply n2 4 heartbeat  -> #2 ts=3 [2 1]
apply n1 5 leave
apply n2 6 leave
finish
counts                -> incomplete=0 collapsed=0`,
	}, {
		// Seal makes the cut at the last state's time once the caller
		// knows that no record at or before it remains, as the next
		// Apply would have made it; a Seal before it does nothing.
		name: "seal",
		script: `
read n1 n1 n1 n2 n2
apply n1 1 state 0
seal 1                -> #0 ts=1 [0]
apply n2 2 state 1
seal 1
apply n1 3 heartbeat  -> #1 ts=2 [0 1]
seal 3
apply n2 4 leave
apply n1 5 leave
finish
counts                -> incomplete=0 collapsed=0`,
	}, {
		// A node not yet seen is not live; states at the same time make
		// one cut.
		name: "equal times",
		script: `
read n1 n2 n1
apply n1 1 state 0
apply n2 1 state 1
apply n1 2 heartbeat  -> #0 ts=1 [0 1]
end n1 n2
finish`,
	}, {
		// The cut at 2 waits for n1, which has no record at or after 2
		// yet; the Read of its next record completes it, and the cut at
		// 3 made meanwhile waits behind it.
		name: "waits for a read",
		script: `
read n1 n2 n2 n2
apply n1 1 state 0
apply n2 2 state 1    -> #0 ts=1 [0]
apply n2 3 state 2
apply n2 4 leave
read n1               -> #1 ts=2 [0 1], #2 ts=3 [0 2]
apply n1 5 leave
finish
counts                -> incomplete=0 collapsed=0`,
	}, {
		// n1 ends without a record after the cuts that wait for it: they
		// are incomplete. So is the cut at 4, made after n1 ended while
		// it is live without a record at 4.
		name: "end makes waiting cuts incomplete",
		script: `
read n1 n2 n2 n2
apply n1 1 state 0
apply n2 2 state 1    -> #0 ts=1 [0]
apply n2 3 state 2
apply n2 4 state 3
end n1
counts                -> incomplete=2 collapsed=0
end n2
finish
counts                -> incomplete=3 collapsed=0`,
	}, {
		// n1 ends while its one record is still to be applied: the cut
		// at 1 is complete, but the cut at 2, at which n1 is live
		// without a record at or after 2, is incomplete at once.
		name: "ended node",
		script: `
read n1 n2 n2
end n1
apply n1 1 state 0
apply n2 2 state 1    -> #0 ts=1 [0]
apply n2 3 heartbeat
counts                -> incomplete=1 collapsed=0
end n2
finish
counts                -> incomplete=1 collapsed=0`,
	}, {
		// With a timeout of 2, n2 is live until 4: the cut at 3 waits for
		// it and is incomplete when it ends; at 5 it is no longer live,
		// and the numbers of the cuts written skip the incomplete one.
		name: "fail after",
		opts: CutOptions{FailAfter: 2},
		script: `
read n1 n1 n1 n1 n2
apply n1 1 state 0
apply n2 2 state 1    -> #0 ts=1 [0]
apply n1 3 state 2    -> #1 ts=2 [0 1]
apply n1 5 state 3
end n2
apply n1 6 leave      -> #3 ts=5 [3]
end n1
finish
counts                -> incomplete=1 collapsed=0`,
	}, {
		// A node that leaves is not live; a later state makes it rejoin.
		name: "leave and rejoin",
		script: `
read n1 n1 n1 n2 n2 n2 n2
apply n1 1 state 0
apply n2 2 state 1    -> #0 ts=1 [0]
apply n2 3 leave      -> #1 ts=2 [0 1]
apply n1 4 state 2
apply n2 5 state 1    -> #2 ts=4 [2]
apply n1 6 leave      -> #3 ts=5 [2 1]
apply n2 7 leave
finish`,
	}, {
		// An unchanged state makes a cut equal to the one before:
		// Collapse drops it and counts it.
		name: "collapse",
		opts: CutOptions{Collapse: true},
		script: `
read n1 n1 n1 n1
apply n1 1 state 0
apply n1 3 state 0    -> #0 ts=1 [0]
apply n1 5 state 1
apply n1 6 leave      -> #2 ts=5 [1]
finish
counts                -> incomplete=0 collapsed=1`,
	}, {
		// The last cut is made by Finish.
		name: "finish cuts",
		script: `
read n1 n2
apply n1 1 state 0
apply n2 1 state 1
end n1 n2
finish                -> #0 ts=1 [0 1]`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runCutter(t, tt.opts, tt.script)
		})
	}
}

// A Cutter's memory is proportional to the records, whatever the number
// of nodes. Here each of 20,000 nodes has one record, so that every cut
// waits for the nodes before it until they end (as in collect of one
// file): the pending cuts used to hold a copy of their members each (827
// MiB; 85 MiB when nodes time out), and each cut looked at every node.
func TestCutterManyNodes(t *testing.T) {
	const nodes = 20_000
	tests := []struct {
		name                  string
		opts                  CutOptions
		snapshots, incomplete int
	}{
		// Only the first cut is complete: every later one waits for
		// nodes that end without another record.
		{"live until they end", CutOptions{}, 1, nodes - 1},
		// A node times out 1,000 after its record: each cut waits for
		// the up to 1,000 nodes before it, which end.
		{"timing out", CutOptions{FailAfter: 1000}, 1, nodes - 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var snapshots int
			c := NewCutter(tt.opts)
			n := memtest.Allocated(func() {
				for i := range nodes {
					name := "n" + strconv.Itoa(i)
					c.Read(name)
					c.Apply(Record{Node: name, TS: uint64(i + 1), Event: collector.EventState, State: uint32(i)})
					snapshots += len(c.Cuts())
				}
				c.Finish()
				snapshots += len(c.Cuts())
			})
			if snapshots != tt.snapshots || c.Incomplete() != tt.incomplete {
				t.Errorf("%d snapshots, %d incomplete; want %d, %d", snapshots, c.Incomplete(), tt.snapshots, tt.incomplete)
			}
			t.Logf("%d nodes: allocated %d MiB", nodes, n>>20)
			if limit := uint64(32 << 20); n > limit {
				t.Errorf("%d nodes with a record each allocated %d MiB, more than %d MiB", nodes, n>>20, limit>>20)
			}
		})
	}
}
