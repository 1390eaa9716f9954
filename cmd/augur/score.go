package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/reporter"
)

// scoreOptions are augur score's arguments and flags.
type scoreOptions struct {
	report string
	k      int
	tags   []string
	stdout io.Writer
}

// newScoreCmd returns augur score; runF, if not nil, runs instead of
// runScore.
func newScoreCmd(runF func(*scoreOptions) error) *cobra.Command {
	o := &scoreOptions{}
	cmd := &cobra.Command{
		Use:   "score REPORT.json",
		Short: "Score a report against the bug tags of its trace",
		Args:  cobra.ExactArgs(1),
		RunE: runE(o, runF, runScore, func(cmd *cobra.Command, args []string) {
			o.report, o.stdout = args[0], cmd.OutOrStdout()
		}),
	}
	cliflag.IntP(cmd.Flags(), &o.k, "top", "k", 10, 1, "the number of top properties scored")
	cmd.Flags().StringSliceVar(&o.tags, "tag", nil, "a bug tag to score even if no reported property is violated in its snapshots")
	return cmd
}

func runScore(_ context.Context, o *scoreOptions) error {
	return reporter.WriteScores(o.stdout, o.report, o.k, o.tags)
}
