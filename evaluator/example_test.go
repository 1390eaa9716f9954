package evaluator_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// This example evaluates "at most one leader" over three snapshots of two
// nodes, the last of which has two leaders.
func Example() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	w, err := trace.Create(filepath.Join(dir, "x.trace"), trace.Schema{{Name: "state", Type: arrow.BinaryTypes.String}}, trace.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for i, states := range [][2]string{{"leader", "follower"}, {"follower", "leader"}, {"leader", "leader"}} {
		a, _ := w.AddState("a", uint64(i), []any{states[0]})
		b, _ := w.AddState("b", uint64(i), []any{states[1]})
		if err := w.AddSnapshot(trace.Snapshot{ID: uint64(i), TS: uint64(i), Members: []uint32{a, b}}); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	tr, err := trace.Open(filepath.Join(dir, "x.trace"))
	if err != nil {
		log.Fatal(err)
	}
	defer tr.Close()

	spec, err := specs.Parse("spec.yaml", []byte("variables:\n  state: {enum: [follower, leader]}\n"))
	if err != nil {
		log.Fatal(err)
	}
	p, err := grammar.Parse(`forall x, y in nodes: x.state != "leader" or y.state != "leader"`)
	if err != nil {
		log.Fatal(err)
	}
	prog, err := evaluator.Compile(spec, []*grammar.Property{p})
	if err != nil {
		log.Fatal(err)
	}
	res, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{})
	if err != nil {
		log.Fatal(err)
	}
	st := res.Stats[0]
	fmt.Println(prog.Props[0].Text)
	fmt.Printf("holding rate %.4f; %d of %d bindings fail, first at snapshot %d with %v\n",
		st.HoldingRate(), st.Violations, st.Bindings, st.Witnesses()[0].Snapshot, st.Witnesses()[0].Binding)
	// Output:
	// forall n0, n1 in nodes: n0.state != "leader" or n1.state != "leader"
	// holding rate 0.6667; 2 of 6 bindings fail, first at snapshot 2 with map[n0:a n1:b]
}
