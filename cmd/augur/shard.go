package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/cluster"
	"github.com/augur-dev/augur/evaluator"
)

// shardFlags are the flags of augur infer that evaluate one shard of a
// trace into partial stats (DESIGN §6, package cluster).
type shardFlags struct {
	shard  string // x/N
	shards int    // N, with the index from JOB_COMPLETION_INDEX
	block  int
	stats  string
}

func (f *shardFlags) addFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.shard, "shard", "", "evaluate shard x of N (x/N, 0 ≤ x < N) and write partial stats to --stats")
	fs.IntVar(&f.shards, "shards", 0, "number of shards N, the index coming from $JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs)")
	fs.IntVar(&f.block, "block", evaluator.DefaultShardBlock, "shard x evaluates the snapshots S with (S / block) mod N == x")
	fs.StringVar(&f.stats, "stats", "", "write the (partial) stats to this Arrow file instead of a report; no filtering (merge with augur merge, report with augur report)")
}

// any reports whether a sharding flag was given.
func (f *shardFlags) any(cmd *cobra.Command) bool {
	for _, name := range []string{"shard", "shards", "block"} {
		if cmd.Flags().Changed(name) {
			return true
		}
	}
	return false
}

// resolve returns the shard to evaluate: from --shard x/N, else from
// $JOB_COMPLETION_INDEX with --shards N, else from the Slurm job array
// variables $SLURM_ARRAY_TASK_ID and $SLURM_ARRAY_TASK_COUNT (counted
// from $SLURM_ARRAY_TASK_MIN, 0 if unset), else the whole trace as one
// shard.
func (f *shardFlags) resolve(getenv func(string) string) (evaluator.Shard, error) {
	if f.block < 1 {
		return evaluator.Shard{}, fmt.Errorf("--block %d: want at least 1", f.block)
	}
	sh := evaluator.Shard{Block: f.block}
	var err error
	switch {
	case f.shard != "":
		x, n, ok := strings.Cut(f.shard, "/")
		if sh.Index, err = strconv.Atoi(x); ok && err == nil {
			sh.Count, err = strconv.Atoi(n)
		}
		if !ok || err != nil {
			return evaluator.Shard{}, fmt.Errorf("--shard %q: want x/N, as in 0/4", f.shard)
		}
	case f.shards > 0:
		v := getenv("JOB_COMPLETION_INDEX")
		if v == "" {
			return evaluator.Shard{}, fmt.Errorf("--shards %d takes the shard index from $JOB_COMPLETION_INDEX, which is not set (use --shard x/N)", f.shards)
		}
		if sh.Index, err = strconv.Atoi(v); err != nil {
			return evaluator.Shard{}, fmt.Errorf("$JOB_COMPLETION_INDEX=%q: not a number", v)
		}
		sh.Count = f.shards
	case getenv("SLURM_ARRAY_TASK_ID") != "":
		id, count, lo := getenv("SLURM_ARRAY_TASK_ID"), getenv("SLURM_ARRAY_TASK_COUNT"), getenv("SLURM_ARRAY_TASK_MIN")
		if lo == "" {
			lo = "0"
		}
		i, err1 := strconv.Atoi(id)
		n, err2 := strconv.Atoi(count)
		m, err3 := strconv.Atoi(lo)
		if err1 != nil || err2 != nil || err3 != nil {
			return evaluator.Shard{}, fmt.Errorf("Slurm job array: $SLURM_ARRAY_TASK_ID=%q, $SLURM_ARRAY_TASK_COUNT=%q, $SLURM_ARRAY_TASK_MIN=%q: want numbers", id, count, lo)
		}
		sh.Index, sh.Count = i-m, n
	case getenv("JOB_COMPLETION_INDEX") != "":
		return evaluator.Shard{}, fmt.Errorf("$JOB_COMPLETION_INDEX is set: give the number of shards with --shards N")
	default:
		sh.Count = 1
	}
	if sh.Count < 1 {
		return evaluator.Shard{}, fmt.Errorf("%d shards: want at least 1", sh.Count)
	}
	if err := sh.Check(); err != nil {
		return evaluator.Shard{}, err
	}
	return sh, nil
}

// inferShard evaluates one shard of the trace, without filtering, and
// writes its partial stats.
func inferShard(ctx context.Context, specPath, tracePath string, o *inferOptions, stderr io.Writer) error {
	if o.shard.stats == "" {
		return fmt.Errorf("sharded evaluation writes partial stats: give --stats PART.arrow")
	}
	if o.output != "" {
		return fmt.Errorf("--output is for reports; with --stats, infer writes stats (make the report with augur report)")
	}
	sh, err := o.shard.resolve(os.Getenv)
	if err != nil {
		return err
	}
	kind, err := evaluator.ParseKind(o.evaluator)
	if err != nil {
		return err
	}
	specHash, err := cluster.SpecHash(specPath)
	if err != nil {
		return err
	}
	p, err := prepare(specPath, tracePath)
	if err != nil {
		return err
	}
	defer p.tr.Close()
	// No Pruner: pruning depends on the snapshots seen so far, which
	// differ between shards, and merged stats must equal a single run's.
	opts := evaluator.Options{Kind: kind, Workers: o.workers, Shard: sh, MaxWitnesses: evaluator.DefaultWitnesses}
	res, err := evaluate(ctx, p.tr, p.prog, opts, fmt.Sprintf("evaluating shard %d/%d", sh.Index, sh.Count), o.quiet, stderr)
	if err != nil {
		return err
	}
	st := cluster.New(p.prog, res, sh, opts.MaxWitnesses)
	st.Spec, st.Trace = specHash, cluster.TraceHash(p.tr.Manifest)
	return cluster.Write(o.shard.stats, st)
}
