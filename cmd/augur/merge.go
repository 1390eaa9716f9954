package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/cluster"
)

// mergeOptions are augur merge's arguments and flags.
type mergeOptions struct {
	parts  []string
	output string
}

// newMergeCmd returns augur merge; runF, if not nil, runs instead of
// runMerge.
func newMergeCmd(runF func(*mergeOptions) error) *cobra.Command {
	o := &mergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge PART... -o STATS",
		Short: "Merge the partial stats of the shards of an evaluation",
		Args:  cobra.MinimumNArgs(1),
		RunE: runE(o, runF, runMerge, func(cmd *cobra.Command, args []string) {
			o.parts = args
		}),
	}
	outputFlag(cmd.Flags(), &o.output, "output", "o", outFile, "merged stats file (Arrow)")
	return cmd
}

func runMerge(ctx context.Context, o *mergeOptions) error {
	if o.output == "" {
		return fmt.Errorf("give the merged stats file with -o STATS")
	}
	return cluster.MergeFiles(ctx, o.output, o.parts...)
}
