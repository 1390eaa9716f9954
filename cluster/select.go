package cluster

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/augur-dev/augur/evaluator"
)

// MaxShards bounds the shards of an evaluation: merge reads a stats file
// per shard, each holding every property's counts, and a count beyond it
// (1/99999999999, a typo) leaves shards no merge could gather.
const MaxShards = 1 << 16

// Selector says which shard a process evaluates, as augur infer's flags
// give it: explicitly, or from the environment of a batch engine.
type Selector struct {
	Shard  string // "x/N", or "" to take the shard from the environment
	Shards int    // N, with the index from $JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs)
	Block  int    // snapshots per block; see evaluator.Shard
}

// Resolve returns the shard to evaluate: from Shard "x/N", else from
// $JOB_COMPLETION_INDEX with Shards N, else from the Slurm job array
// variables $SLURM_ARRAY_TASK_ID and $SLURM_ARRAY_TASK_COUNT (counted
// from $SLURM_ARRAY_TASK_MIN, 0 if unset), else the whole trace as one
// shard. getenv reads the environment (os.Getenv).
func (s Selector) Resolve(getenv func(string) string) (evaluator.Shard, error) {
	if s.Block < 1 {
		return evaluator.Shard{}, fmt.Errorf("--block %d: want at least 1", s.Block)
	}
	sh := evaluator.Shard{Block: s.Block}
	var err error
	switch {
	case s.Shard != "":
		x, n, ok := strings.Cut(s.Shard, "/")
		if sh.Index, err = strconv.Atoi(x); ok && err == nil {
			sh.Count, err = strconv.Atoi(n)
		}
		if !ok || err != nil {
			return evaluator.Shard{}, fmt.Errorf("--shard %q: want x/N, as in 0/4", s.Shard)
		}
	case s.Shards > 0:
		v := getenv("JOB_COMPLETION_INDEX")
		if v == "" {
			return evaluator.Shard{}, fmt.Errorf("--shards %d takes the shard index from $JOB_COMPLETION_INDEX, which is not set (use --shard x/N)", s.Shards)
		}
		if sh.Index, err = strconv.Atoi(v); err != nil {
			return evaluator.Shard{}, fmt.Errorf("$JOB_COMPLETION_INDEX=%q: not a number", v)
		}
		sh.Count = s.Shards
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
	if sh.Count < 1 || sh.Count > MaxShards {
		return evaluator.Shard{}, fmt.Errorf("%d shards: want 1 to %d", sh.Count, MaxShards)
	}
	if err := sh.Check(); err != nil {
		return evaluator.Shard{}, err
	}
	return sh, nil
}
