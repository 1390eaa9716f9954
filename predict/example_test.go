package predict_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/predict"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/randtree"
)

// From a copy of a RandTree run with the stale-child bug, taken one step
// before the run breaks "children and siblings are disjoint", the
// predictor finds the message whose delivery breaks it.
func ExampleExplore() {
	c, err := checker.Open("../specs/randtree.checks.yaml")
	if err != nil {
		log.Fatal(err)
	}
	cfg := testbeds.Config{Nodes: 7, Seed: 1, Faults: testbeds.DefaultFaults(), Bug: randtree.BugStaleChild}
	m, err := randtree.Fork(context.Background(), cfg, 561)
	if err != nil {
		log.Fatal(err)
	}
	res, err := predict.Explore(m, c, predict.Options{Depth: 2, Budget: time.Minute, MaxPaths: 1000})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("complete: %v, %d states, %d violating paths, the first:\n", res.Complete, res.States, len(res.Paths))
	p := res.Paths[0]
	for _, e := range p.Events {
		fmt.Printf("  %s %s→%s %+v\n", e.Kind, m.Name(e.From), m.Name(e.Node), e.Msg)
	}
	v := p.Violations[0]
	fmt.Printf("  %s fails at %v\n", v.Check.Name, v.Witness.Binding)
	// Output:
	// complete: true, 814 states, 75 violating paths, the first:
	//   deliver n1→n6 {root:0 siblings:[2]}
	//   children-siblings-disjoint fails at map[e0:n3 n0:n6]
}
