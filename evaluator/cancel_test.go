package evaluator_test

import (
	"context"
	"errors"
	"testing"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
)

// keepAll is a Pruner that prunes nothing, every n snapshots: it makes
// Run evaluate in chunks of n.
type keepAll int

func (k keepAll) Every() int               { return int(k) }
func (keepAll) Keep(*evaluator.Stats) bool { return true }

// TestRunCanceled checks that both evaluators stop with the context's
// error, and no result, when it is canceled before the run or between
// chunks of snapshots.
func TestRunCanceled(t *testing.T) {
	var snaps []snap
	for i := range 100 {
		snaps = append(snaps, snap{"a": {"x": int64(i % 5)}, "b": {"x": int64(i % 3)}})
	}
	tr := writeTiny(t, snaps)
	p, err := grammar.Parse("forall n0, n1 in nodes: n0.x <= n1.x")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := evaluator.Compile(mustSpec(t), []*grammar.Property{p})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []evaluator.Kind{evaluator.Reference, evaluator.Fast} {
		t.Run(kind.String()+"/before", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			res, err := evaluator.Run(ctx, tr, prog, evaluator.Options{Kind: kind, Workers: 2})
			if !errors.Is(err, context.Canceled) || res != nil {
				t.Errorf("Run = %v, %v; want nil, context.Canceled", res, err)
			}
		})
		t.Run(kind.String()+"/between-chunks", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var seen []int
			opts := evaluator.Options{Kind: kind, Workers: 2, Pruner: keepAll(10), Progress: func(done, total int) {
				seen = append(seen, done)
				cancel()
			}}
			res, err := evaluator.Run(ctx, tr, prog, opts)
			if !errors.Is(err, context.Canceled) || res != nil {
				t.Errorf("Run = %v, %v; want nil, context.Canceled", res, err)
			}
			if len(seen) != 1 || seen[0] != 10 {
				t.Errorf("progress reported %v, want one chunk of 10 snapshots before the cancel took effect", seen)
			}
		})
	}
	if _, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: 9}); err == nil {
		t.Error("Run with an unknown evaluator kind: no error")
	}
}
