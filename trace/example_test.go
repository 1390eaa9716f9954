package trace_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/trace"
)

// Open reads a trace: its manifest, the schema of its state variables,
// and its snapshots in order, each naming the state rows of its nodes.
// The trace read here is written first, with two nodes over three
// snapshots; augur collect and the testbeds write theirs the same way.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "augur-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.trace")

	schema := trace.Schema{
		{Name: "term", Type: arrow.PrimitiveTypes.Int64},
		{Name: "state", Type: arrow.BinaryTypes.String},
	}
	w, err := trace.Create(path, schema, trace.Options{System: "toy"})
	if err != nil {
		log.Fatal(err)
	}
	add := func(node string, ts uint64, term int64, state string) uint32 {
		row, err := w.AddState(node, ts, []any{term, state})
		if err != nil {
			log.Fatal(err)
		}
		return row
	}
	a1, b1 := add("n1", 1, 1, "leader"), add("n2", 1, 1, "follower")
	b2 := add("n2", 2, 2, "candidate") // n2's state changes; n1's is stored once
	a3 := add("n1", 3, 2, "follower")
	for _, s := range []trace.Snapshot{
		{ID: 0, TS: 1, Members: []uint32{a1, b1}},
		{ID: 1, TS: 2, Members: []uint32{a1, b2}, Tags: []string{"election"}},
		{ID: 2, TS: 3, Members: []uint32{a3, b2}},
	} {
		if err := w.AddSnapshot(s); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	tr, err := trace.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer tr.Close()
	fmt.Printf("%s: %d snapshots, %d states, %d nodes\n", tr.Manifest.System, tr.NumSnapshots(), tr.NumStates(), tr.Manifest.Nodes)
	for _, c := range tr.Schema {
		fmt.Printf("variable %s: %s\n", c.Name, c.Type)
	}
	snaps, states := tr.Snapshots(), tr.States()
	defer snaps.Close()
	defer states.Close()
	for n := 0; n < 2 && snaps.Next(); n++ {
		s := snaps.Snapshot()
		fmt.Printf("snapshot %d (ts %d) %v:", s.ID, s.TS, s.Tags)
		for _, row := range s.Members {
			st, err := states.State(row)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf(" %s=%v", st.Node, st.Vars)
		}
		fmt.Println()
	}
	if err := snaps.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// toy: 3 snapshots, 4 states, 2 nodes
	// variable term: int64
	// variable state: utf8
	// snapshot 0 (ts 1) []: n1=[1 leader] n2=[1 follower]
	// snapshot 1 (ts 2) [election]: n1=[1 leader] n2=[2 candidate]
}
