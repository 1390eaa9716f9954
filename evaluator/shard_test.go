package evaluator_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/evaluator/evaltest"
	"github.com/augur-dev/augur/specs"
)

// TestShardsUnion checks that the shards of a trace together evaluate
// every snapshot once: their summed stats equal one run's exactly, score
// sums included, in whatever order they are summed, and the first
// witnesses in snapshot order are the same.
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
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sh := range []struct{ count, block int }{{1, 0}, {2, 1}, {3, 7}, {3, 0}, {4, 300}, {5, 2}} {
		t.Run(fmt.Sprintf("%d/%d", sh.count, sh.block), func(t *testing.T) {
			parts := make([]*evaluator.Result, sh.count)
			for x := range sh.count {
				opts.Shard = evaluator.Shard{Index: x, Count: sh.count, Block: sh.block}
				got, err := evaluator.Run(context.Background(), tr, prog, opts)
				if err != nil {
					t.Fatal(err)
				}
				if n := opts.Shard.Size(tr.NumSnapshots()); got.Snapshots != n {
					t.Errorf("shard %d: %d snapshots, Size says %d", x, got.Snapshots, n)
				}
				parts[x] = got
			}
			// Score sums are exact, so the order of the merge does not
			// matter: in shard order, backwards, and shuffled.
			orders := [][]int{make([]int, sh.count), make([]int, sh.count), rng.Perm(sh.count)}
			for x := range sh.count {
				orders[0][x], orders[1][x] = x, sh.count-1-x
			}
			for _, order := range orders {
				sum := merge(parts, order, len(prog.Props), maxW)
				if sum.Snapshots != want.Snapshots {
					t.Fatalf("shards %v cover %d snapshots, want %d", order, sum.Snapshots, want.Snapshots)
				}
				for i := range want.Stats {
					g, w := sum.Stats[i], want.Stats[i]
					if len(g.Tags) == 0 && len(w.Tags) == 0 {
						g.Tags, w.Tags = nil, nil
					}
					if gw, ww := g.Witnesses(), w.Witnesses(); !reflect.DeepEqual(gw, ww) {
						t.Fatalf("%s, shards merged in order %v: witnesses\nshards %+v\none    %+v", prog.Props[i].Text, order, gw, ww)
					}
					g.SetWitnesses(nil) // compared above, built by the shards and kept by the run
					w.SetWitnesses(nil)
					if len(g.Moments) == 0 && len(w.Moments) == 0 {
						g.Moments, w.Moments = nil, nil
					}
					if !reflect.DeepEqual(g, w) {
						t.Fatalf("%s, shards merged in order %v:\nshards %+v\none    %+v", prog.Props[i].Text, order, g, w)
					}
				}
			}
		})
	}
}

// merge sums the stats of shards parts in the given order, keeping the
// first maxW witnesses and MaxMoments moments in snapshot order.
func merge(parts []*evaluator.Result, order []int, nprops, maxW int) *evaluator.Result {
	sum := &evaluator.Result{Stats: make([]evaluator.Stats, nprops)}
	for _, x := range order {
		sum.Snapshots += parts[x].Snapshots
		for i := range sum.Stats {
			s := &sum.Stats[i]
			ws := append(s.Witnesses(), parts[x].Stats[i].Witnesses()...)
			ms := append(s.Moments, parts[x].Stats[i].Moments...)
			s.Moments = nil
			s.Merge(&parts[x].Stats[i], 0, 0)
			slices.SortStableFunc(ws, func(a, b evaluator.Witness) int { return cmp.Compare(a.Snapshot, b.Snapshot) })
			s.SetWitnesses(ws[:min(len(ws), maxW)])
			slices.Sort(ms)
			s.Moments = ms[:min(len(ms), evaluator.MaxMoments)]
		}
	}
	return sum
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
