package checker_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/specs"
)

// A node refuses a change of state that would break a promoted check:
// n2 times out and would become leader of a term n1 already leads.
func ExampleSnapshot_Guard() {
	spec, err := specs.Parse("raft.yaml", []byte(`
types: {NodeID: string, Term: int64}
variables:
  id: NodeID
  term: Term
  state: {enum: [follower, candidate, leader]}
`))
	if err != nil {
		log.Fatal(err)
	}
	c, err := checker.Compile(spec, &checker.File{Checks: []checker.Check{{
		Name:     "one-leader-per-term",
		Property: `forall n0, n1 in nodes: n0.term != n1.term or n0.state != "leader" or n1.state != "leader"`,
	}}})
	if err != nil {
		log.Fatal(err)
	}

	// The node state a service has, and exposes to the collector.
	type node struct {
		ID    string `augur:"id"`
		Term  int64  `augur:"term"`
		State string `augur:"state"`
	}
	nodes := []*node{{"n1", 3, "leader"}, {"n2", 3, "follower"}, {"n3", 3, "follower"}}
	snap := c.NewSnapshot()
	for _, n := range nodes {
		if err := snap.Set(n.ID, n); err != nil {
			log.Fatal(err)
		}
	}

	// setState is how every state change of a node goes: guarded, then
	// applied and recorded, or refused.
	setState := func(n *node, next node) {
		err := snap.Guard(n.ID, &next)
		var v *checker.Violation
		if errors.As(err, &v) {
			fmt.Printf("%s refuses term %d %s: %s fails at %v\n", n.ID, next.Term, next.State, v.Check.Name, v.Witness.Binding)
			return
		} else if err != nil {
			log.Fatal(err)
		}
		*n = next
		if err := snap.Set(n.ID, n); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s is now %s of term %d\n", n.ID, n.State, n.Term)
	}
	n2 := nodes[1]
	setState(n2, node{"n2", 3, "leader"}) // a second leader in term 3
	setState(n2, node{"n2", 4, "leader"}) // a new term
	// Output:
	// n2 refuses term 3 leader: one-leader-per-term fails at map[n0:n1 n1:n2]
	// n2 is now leader of term 4
}
