package evaluator_test

import (
	"context"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
)

// BenchmarkReference evaluates a handful of one- and two-node properties
// over 1,000 snapshots of three nodes.
//
//	go test -run - -bench Reference -benchmem ./evaluator
func BenchmarkReference(b *testing.B) {
	var snaps []snap
	for i := range 1000 {
		s := snap{}
		for n, name := range []string{"a", "b", "c"} {
			s[name] = st{"x": int64((i*7 + n*3) % 5), "y": int64(i % 3), "state": []string{"follower", "leader"}[(i+n)%2]}
		}
		snaps = append(snaps, s)
	}
	tr := writeTiny(b, snaps)
	var props []*grammar.Property
	for _, src := range []string{
		`forall n0, n1 in nodes: n0.x != n1.x or n0.y == n1.y`,
		`forall n0 in nodes: n0.x < 4`,
		`forall n0, n1 in nodes: n0.state != "leader" or n1.state != "leader"`,
		`forall n0 in nodes: n0.x <= n0.y or n0.state == "leader"`,
	} {
		p, err := grammar.Parse(src)
		if err != nil {
			b.Fatal(err)
		}
		props = append(props, p)
	}
	prog, err := evaluator.Compile(mustSpec(b), props)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*tr.NumSnapshots()*len(props))/b.Elapsed().Seconds(), "snapshot×props/s")
}
