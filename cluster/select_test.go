package cluster

import (
	"testing"

	"github.com/augur-dev/augur/evaluator"
)

func TestSelectorResolve(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		s    Selector
		env  func(string) string
		want evaluator.Shard
		err  bool
	}{
		{s: Selector{Block: 8}, env: env(), want: evaluator.Shard{Index: 0, Count: 1, Block: 8}},
		{s: Selector{Shard: "2/5", Block: 8}, env: env("SLURM_ARRAY_TASK_ID", "1"), want: evaluator.Shard{Index: 2, Count: 5, Block: 8}},
		{s: Selector{Shards: 4, Block: 1}, env: env("JOB_COMPLETION_INDEX", "3"), want: evaluator.Shard{Index: 3, Count: 4, Block: 1}},
		{s: Selector{Block: 2}, env: env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "3"), want: evaluator.Shard{Index: 2, Count: 3, Block: 2}},
		{s: Selector{Block: 2}, env: env("SLURM_ARRAY_TASK_ID", "3", "SLURM_ARRAY_TASK_COUNT", "3", "SLURM_ARRAY_TASK_MIN", "1"), want: evaluator.Shard{Index: 2, Count: 3, Block: 2}},
		{s: Selector{Shard: "2", Block: 1}, env: env(), err: true},
		{s: Selector{Shard: "2/2", Block: 1}, env: env(), err: true},
		{s: Selector{Shard: "1/99999999999", Block: 1}, env: env(), err: true},
		{s: Selector{Shard: "0/65536", Block: 1}, env: env(), want: evaluator.Shard{Index: 0, Count: MaxShards, Block: 1}},
		{s: Selector{Shard: "0/2", Block: 0}, env: env(), err: true},
		{s: Selector{Shards: 2, Block: 1}, env: env(), err: true},
		{s: Selector{Block: 1}, env: env("JOB_COMPLETION_INDEX", "1"), err: true},
		{s: Selector{Block: 1}, env: env("SLURM_ARRAY_TASK_ID", "1"), err: true},
	}
	for i, tt := range tests {
		got, err := tt.s.Resolve(tt.env)
		if (err != nil) != tt.err || (!tt.err && got != tt.want) {
			t.Errorf("%d: %+v, %v; want %+v, error %v", i, got, err, tt.want, tt.err)
		}
	}
}
