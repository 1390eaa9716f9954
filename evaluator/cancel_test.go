package evaluator_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/augur-dev/augur/evaluator"
)

// keepAll is a Pruner that prunes nothing, every n snapshots: it makes
// Run evaluate in chunks of n.
type keepAll int

func (k keepAll) Every() int                                  { return int(k) }
func (keepAll) Keep(int, *evaluator.Stats, int64, int64) bool { return true }

// TestRunCanceled checks that both evaluators stop with the context's
// error, and no result, when it is canceled before the run or between
// chunks of snapshots.
func TestRunCanceled(t *testing.T) {
	var snaps []snap
	for i := range 100 {
		snaps = append(snaps, snap{"a": {"x": int64(i % 5)}, "b": {"x": int64(i % 3)}})
	}
	tr := writeTiny(t, snaps)
	prog := compileTiny(t, "forall n0, n1 in nodes: n0.x <= n1.x")
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

// TestRunCanceledInSnapshot checks that both evaluators stop soon after
// the context is canceled in the middle of one snapshot of a billion bindings (three nodes of 1,000, under
// MaxBindings): they look at the context every few thousand bindings,
// not only between snapshots.
func TestRunCanceledInSnapshot(t *testing.T) {
	tr := manyNodes(t, 1000, 1)
	for _, src := range []string{
		"forall n0, n1, n2 in nodes: n0.x != n1.x or n1.y <= n2.y",
		// quantifiers inside the prefix's, which the fast evaluator leaves
		// to the reference
		"forall n0 in nodes: exists n1, n2 in nodes: n1.x == n2.x or n0.x < 0",
	} {
		prog := compileTiny(t, src)
		for _, kind := range []evaluator.Kind{evaluator.Reference, evaluator.Fast} {
			t.Run(kind.String(), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				defer cancel()
				start := time.Now()
				res, err := evaluator.Run(ctx, tr, prog, evaluator.Options{Kind: kind, Workers: 1})
				took := time.Since(start)
				if !errors.Is(err, context.DeadlineExceeded) || res != nil {
					t.Fatalf("%s: Run = %v, %v; want nil, context.DeadlineExceeded", src, res, err)
				}
				// Uncanceled, the snapshot takes over a minute. The bound is
				// loose for a loaded machine (idle: 0.1 to 0.6 s); augur's
				// TestSignals bounds the CPU time after a signal.
				if took > 10*time.Second {
					t.Errorf("%s: Run returned %v after it began, canceled at 0.1 s", src, took.Round(time.Millisecond))
				}
			})
		}
	}
}
