package predict_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/predict"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/chord"
	"github.com/augur-dev/augur/testbeds/etcdraft"
	"github.com/augur-dev/augur/testbeds/paxos"
	"github.com/augur-dev/augur/testbeds/randtree"
)

// BenchmarkExplore measures consequence prediction on copies of the
// testbeds, 1,000 steps into a bug-free run of seed 1 under their default
// faults, with their ground-truth checks: the states explored per second
// and the depth reached within a budget (the depth bound is out of
// reach). etcd raft is forked by replay: each state runs the 1,000 steps
// again.
//
//	go test -run - -bench Explore -benchtime 3x ./predict
func BenchmarkExplore(b *testing.B) {
	for _, tb := range []testbeds.Testbed{chord.Testbed, etcdraft.Testbed, paxos.Testbed, randtree.Testbed} {
		c, err := checker.Open("../specs/" + tb.Name + ".checks.yaml")
		if err != nil {
			b.Fatal(err)
		}
		m, err := tb.Fork(b.Context(), testbeds.Config{Nodes: tb.Nodes, Seed: 1, Faults: tb.Faults}, 1000)
		if err != nil {
			b.Fatal(err)
		}
		for _, budget := range []time.Duration{100 * time.Millisecond, time.Second} {
			b.Run(fmt.Sprintf("%s/budget=%v", tb.Name, budget), func(b *testing.B) {
				var states, depth int
				var elapsed time.Duration
				for b.Loop() {
					res, err := predict.Explore(m, c, predict.Options{Depth: 1000, Budget: budget})
					if err != nil {
						b.Fatal(err)
					}
					states, depth, elapsed = states+res.States, depth+res.Depth, elapsed+res.Elapsed
				}
				b.ReportMetric(float64(states)/elapsed.Seconds(), "states/s")
				b.ReportMetric(float64(depth)/float64(b.N), "depth")
			})
		}
	}
}
