package evaluator_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/evaluator/evaltest"
	"github.com/augur-dev/augur/specs"
)

// TestShardsUnion checks that the shards of a trace together evaluate
// every snapshot once: their summed stats equal one run's (counts
// exactly, score sums up to rounding), and the first witnesses in
// snapshot order are the same.
func TestShardsUnion(t *testing.T) {
	c := evaltest.NewCase(11, 120)
	spec, err := specs.Parse("random.yaml", []byte(c.Spec))
	if err != nil {
		t.Fatal(err)
	}
	tr := c.Trace(t, 11, 700)
	prog := c.Compile(t, spec)
	const maxW = 3
	opts := evaluator.Options{Workers: 2, MaxWitnesses: maxW}
	want, err := evaluator.Run(context.Background(), tr, prog, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range []struct{ count, block int }{{1, 0}, {2, 1}, {3, 7}, {3, 0}, {4, 300}} {
		t.Run(fmt.Sprintf("%d/%d", sh.count, sh.block), func(t *testing.T) {
			sum := &evaluator.Result{Stats: make([]evaluator.Stats, len(prog.Props))}
			for x := range sh.count {
				opts.Shard = evaluator.Shard{Index: x, Count: sh.count, Block: sh.block}
				got, err := evaluator.Run(context.Background(), tr, prog, opts)
				if err != nil {
					t.Fatal(err)
				}
				if n := opts.Shard.Size(tr.NumSnapshots()); got.Snapshots != n {
					t.Errorf("shard %d: %d snapshots, Size says %d", x, got.Snapshots, n)
				}
				sum.Snapshots += got.Snapshots
				for i := range sum.Stats {
					s := &sum.Stats[i]
					ws := append(s.Witnesses, got.Stats[i].Witnesses...)
					ms := append(s.Moments, got.Stats[i].Moments...)
					s.Witnesses, s.Moments = nil, nil
					s.Merge(&got.Stats[i], 0, 0)
					slices.SortStableFunc(ws, func(a, b evaluator.Witness) int { return int(a.Snapshot) - int(b.Snapshot) })
					s.Witnesses = ws[:min(len(ws), maxW)]
					slices.Sort(ms)
					s.Moments = ms[:min(len(ms), evaluator.MaxMoments)]
				}
			}
			if sum.Snapshots != want.Snapshots {
				t.Fatalf("shards cover %d snapshots, want %d", sum.Snapshots, want.Snapshots)
			}
			for i := range want.Stats {
				g, w := sum.Stats[i], want.Stats[i]
				if math.Abs(g.ScoreSum-w.ScoreSum) > 1e-9 {
					t.Fatalf("%s: score sum %v, want %v", prog.Props[i].Text, g.ScoreSum, w.ScoreSum)
				}
				g.ScoreSum = w.ScoreSum
				if len(g.Tags) == 0 && len(w.Tags) == 0 {
					g.Tags, w.Tags = nil, nil
				}
				if len(g.Witnesses) == 0 && len(w.Witnesses) == 0 {
					g.Witnesses, w.Witnesses = nil, nil
				}
				if len(g.Moments) == 0 && len(w.Moments) == 0 {
					g.Moments, w.Moments = nil, nil
				}
				if !reflect.DeepEqual(g, w) {
					t.Fatalf("%s:\nshards %+v\none    %+v", prog.Props[i].Text, g, w)
				}
			}
		})
	}
}

func TestShardCheck(t *testing.T) {
	for _, sh := range []evaluator.Shard{{Index: 3, Count: 3}, {Index: -1, Count: 2}, {Index: 1}, {Count: 2, Block: -1}} {
		if sh.Check() == nil {
			t.Errorf("%+v: no error", sh)
		}
	}
	ctx := context.Background()
	if _, err := evaluator.Run(ctx, nil, nil, evaluator.Options{Shard: evaluator.Shard{Index: 2, Count: 2}}); err == nil {
		t.Error("Run accepts shard 2/2")
	}
}
