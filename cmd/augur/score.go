package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/reporter"
)

// A tagScore is how a report fares on one bug tag.
type tagScore struct {
	Tag       string
	Relevant  int // relevant properties in the top k
	First     int // rank of the first relevant property, 0 if none
	Snapshots int64
}

// relevant reports whether most of e's violating snapshots carry tag.
func relevant(e *reporter.Entry, tag string) bool {
	return e.ViolatingSnapshots > 0 && 2*e.ViolatingTags[tag] > e.ViolatingSnapshots
}

// scoreReport scores the top k almost-invariants of rep on every bug tag
// that some property's violating snapshots carry.
func scoreReport(rep *reporter.Report, k int, tags []string) []tagScore {
	tags = slices.Clone(tags)
	for _, e := range rep.AlmostInvariants {
		for t := range e.ViolatingTags {
			if strings.HasPrefix(t, "bug:") && !slices.Contains(tags, t) {
				tags = append(tags, t)
			}
		}
	}
	slices.Sort(tags)
	var out []tagScore
	for _, t := range tags {
		s := tagScore{Tag: t}
		for i, e := range rep.AlmostInvariants {
			if !relevant(e, t) {
				continue
			}
			if s.First == 0 {
				s.First = i + 1
			}
			if i < k {
				s.Relevant++
			}
		}
		out = append(out, s)
	}
	return out
}

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
			scores := scoreReport(rep, k, tags)
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
