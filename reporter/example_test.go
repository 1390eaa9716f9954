package reporter_test

import (
	"fmt"
	"log"

	"github.com/augur-dev/augur/reporter"
)

// ReadFile reads a report that augur infer wrote with --format json, for
// a script or a program that acts on its entries.
func ExampleReadFile() {
	rep, err := reporter.ReadFile("testdata/report.json")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d snapshots, %d properties generated\n", rep.Snapshots, rep.Properties.Generated)
	for _, e := range rep.AlmostInvariants {
		fmt.Printf("almost-invariant %d: %s, holding rate %.3f, %d violating snapshots\n",
			e.Rank, e.Text, e.HoldingRate, e.ViolatingSnapshots)
	}
	for _, e := range rep.Invariants {
		fmt.Printf("invariant %d: %s\n", e.Rank, e.Text)
	}
	for _, w := range rep.Warnings {
		fmt.Println("warning:", w.Code)
	}
	// Output:
	// 1000 snapshots, 2 properties generated
	// almost-invariant 1: forall n0 in nodes: n0.a or n0.b, holding rate 0.998, 2 violating snapshots
	// invariant 1: forall n0 in nodes: n0.c
	// warning: derived-failed
}
