package pipeline

import (
	"context"
	"fmt"

	"github.com/augur-dev/augur/cluster"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/reporter"
)

// Shard evaluates shard sh of the trace, without filtering, into partial
// stats for cluster.Merge. Pruning depends on the snapshots seen so far,
// which differ between shards, and merged stats must equal a single
// run's, so o.NoFilter is implied.
func Shard(ctx context.Context, specPath, tracePath string, sh evaluator.Shard, o Options) (*cluster.Stats, error) {
	p, specHash, err := openHashed(ctx, specPath, tracePath)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.shard(ctx, specHash, sh, o)
}

// InferStats evaluates the whole trace as one shard, without filtering,
// and returns its stats with the report built from them, as [Shard] and
// [ReportStats] would in one run: the stats let augur report build the
// report again, in any format, without evaluating.
func InferStats(ctx context.Context, specPath, tracePath string, o Options) (*reporter.Report, *cluster.Stats, error) {
	p, specHash, err := openHashed(ctx, specPath, tracePath)
	if err != nil {
		return nil, nil, err
	}
	defer p.Close()
	st, err := p.shard(ctx, specHash, evaluator.Shard{}, o)
	if err != nil {
		return nil, nil, err
	}
	rep, err := p.Report(ctx, st.Result(), o)
	if err != nil {
		return nil, nil, err
	}
	return rep, st, nil
}

// shard evaluates shard sh of p's trace, without filtering, into stats
// stamped with specHash.
func (p *Pipeline) shard(ctx context.Context, specHash string, sh evaluator.Shard, o Options) (*cluster.Stats, error) {
	opts := evaluator.Options{Kind: o.Evaluator, Workers: o.Workers, Shard: sh, MaxWitnesses: evaluator.DefaultWitnesses, OnlyTag: o.OnlyTag, NoPatterns: true}
	what := "evaluating"
	if sh.Count > 1 {
		what = fmt.Sprintf("evaluating shard %d/%d", sh.Index, sh.Count)
	}
	res, err := p.Evaluate(ctx, opts, what, o.Progress)
	if err != nil {
		return nil, err
	}
	st := cluster.New(p.Program, res, sh, opts.MaxWitnesses)
	st.Spec, st.Trace = specHash, cluster.TraceHash(p.Trace.Manifest)
	return st, nil
}

// ReportStats builds the report of stats merged from shards (or written
// by one unsharded run). It generates the pool of the spec and trace
// again, which is deterministic, and checks that the stats were computed
// from this spec, this trace and this pool.
func ReportStats(ctx context.Context, specPath, tracePath string, st *cluster.Stats, o Options) (*reporter.Report, error) {
	p, specHash, err := openHashed(ctx, specPath, tracePath)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	if err := st.Check(specHash, cluster.TraceHash(p.Trace.Manifest), p.Program); err != nil {
		return nil, err
	}
	return p.Report(ctx, st.Result(), o)
}

// openHashed opens the pipeline of a spec and a trace, with the hash of
// the spec file that partial stats are stamped with.
func openHashed(ctx context.Context, specPath, tracePath string) (*Pipeline, string, error) {
	specHash, err := cluster.SpecHash(specPath)
	if err != nil {
		return nil, "", err
	}
	p, err := OpenContext(ctx, specPath, tracePath)
	if err != nil {
		return nil, "", err
	}
	return p, specHash, nil
}
