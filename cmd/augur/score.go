package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

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
	intFlagP(cmd.Flags(), &o.k, "top", "k", 10, 1, "the number of top properties scored")
	cmd.Flags().StringSliceVar(&o.tags, "tag", nil, "a bug tag to score even if no reported property is violated in its snapshots")
	return cmd
}

func runScore(_ context.Context, o *scoreOptions) error {
	rep, err := reporter.ReadFile(o.report)
	if err != nil {
		return err
	}
	k, w := o.k, o.stdout
	top := min(k, len(rep.AlmostInvariants))
	fmt.Fprintf(w, "%s: %d almost-invariants, %d snapshots, top %d scored\n", o.report, len(rep.AlmostInvariants), rep.Snapshots, k)
	scores := reporter.Score(rep, k, o.tags)
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
			prec = float64(s.Relevant) / float64(top)
		}
		fmt.Fprintf(w, "%-28s %6s %11.0f%% %5s\n", s.Tag, recall, 100*prec, rank)
	}
	return nil
}
