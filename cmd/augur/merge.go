package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/cluster"
)

func newMergeCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "merge PART... -o STATS",
		Short: "Merge the partial stats of the shards of an evaluation",
		Long: `Merge sums the partial stats written by the N shards of
'augur infer --shard x/N --stats PART' into the stats of the whole trace,
equal to those of a single run without filtering. It refuses missing or
duplicate shards and shards of another spec, trace, shard count or block.
Make the report with 'augur report'.`,
		Example: `  augur merge part0.arrow part1.arrow part2.arrow -o stats.arrow
  augur report spec.yaml run.trace stats.arrow`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output == "" {
				return fmt.Errorf("give the merged stats file with -o STATS")
			}
			parts := make([]*cluster.Stats, len(args))
			for i, path := range args {
				p, err := cluster.Read(path)
				if err != nil {
					return err
				}
				parts[i] = p
			}
			merged, err := cluster.Merge(parts)
			if err != nil {
				return err
			}
			return cluster.Write(output, merged)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "merged stats file (Arrow)")
	return cmd
}
