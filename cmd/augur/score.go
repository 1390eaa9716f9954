package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/reporter"
)

func newScoreCmd() *cobra.Command {
	var (
		k    int
		tags []string
	)
	cmd := &cobra.Command{
		Use:   "score REPORT.json",
		Short: "Score a report against the bug tags of its trace",
		Long: `Score measures a JSON report (augur infer --format json) against the
ground truth of a testbed trace. A property is relevant to a bug tag when
most of its violating snapshots carry the tag. For each bug tag, recall is
whether a relevant property is among the top K almost-invariants,
precision@K the share of the top K that is relevant to it, and rank the
rank of the first relevant property (- when none is). The bug tags scored
are those of the reported properties' violating snapshots, and any given
with --tag.`,
		Example: `  augur score report.json
  augur score report.json --tag bug:lost-vote`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := reporter.ReadFile(args[0])
			if err != nil {
				return err
			}
			top := min(k, len(rep.AlmostInvariants))
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s: %d almost-invariants, %d snapshots, top %d scored\n", args[0], len(rep.AlmostInvariants), rep.Snapshots, k)
			scores := reporter.Score(rep, k, tags)
			if len(scores) == 0 {
				fmt.Fprintln(w, "no bug tags among the violating snapshots")
				return nil
			}
			fmt.Fprintf(w, "%-28s %6s %12s %5s\n", "tag", "recall", "precision@"+fmt.Sprint(k), "rank")
			for _, s := range scores {
				recall, rank, prec := "no", "-", 0.0
				if s.Relevant > 0 {
					recall = "yes"
				}
				if s.First > 0 {
					rank = fmt.Sprint(s.First)
				}
				if top > 0 {
					prec = float64(s.Relevant) / float64(k)
				}
				fmt.Fprintf(w, "%-28s %6s %11.0f%% %5s\n", s.Tag, recall, 100*prec, rank)
			}
			return nil
		},
	}
	cmd.Flags().IntVarP(&k, "top", "k", 10, "the number of top properties scored")
	cmd.Flags().StringSliceVar(&tags, "tag", nil, "a bug tag to score even if no reported property is violated in its snapshots")
	return cmd
}
