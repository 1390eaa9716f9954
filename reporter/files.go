package reporter

import (
	"fmt"
	"io"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/internal/clobber"
)

// PromoteFile writes the entries of the JSON report at reportPath with
// the given ranks (see [Promote]) into the checks file output, which may
// not be the report: augur promote.
func PromoteFile(reportPath, output string, almost, invariants []int) (*checker.File, error) {
	if err := clobber.Check(output, reportPath); err != nil {
		return nil, err
	}
	rep, err := ReadFile(reportPath)
	if err != nil {
		return nil, err
	}
	f, err := Promote(rep, reportPath, output, almost, invariants)
	if err != nil {
		return nil, err
	}
	return f, f.Write(output)
}

// WriteScores writes the scores of the JSON report at reportPath against
// its bug tags and tags (see [Score]) as a table: augur score.
func WriteScores(w io.Writer, reportPath string, k int, tags []string) error {
	rep, err := ReadFile(reportPath)
	if err != nil {
		return err
	}
	top := min(k, len(rep.AlmostInvariants))
	fmt.Fprintf(w, "%s: %d almost-invariants, %d snapshots, top %d scored\n", reportPath, len(rep.AlmostInvariants), rep.Snapshots, k)
	scores := Score(rep, k, tags)
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
