package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/internal/safefile"
	"github.com/augur-dev/augur/reporter"
)

func newPromoteCmd() *cobra.Command {
	var (
		out               string
		almost, invariant string
		force             bool
	)
	cmd := &cobra.Command{
		Use:   "promote REPORT.json --select RANK,… -o CHECKS.yaml",
		Short: "Turn reported properties into checks",
		Long: `Promote writes the almost-invariants (--select) and invariants
(--invariants) with the given ranks of a JSON report into a checks file for
augur check. The checks file may be edited by hand: any property of the
language is welcome, exists included.`,
		Example: `  augur infer spec.yaml run.trace --format json -o report.json
  augur promote report.json --select 1,3 -o checks.yaml
  augur promote report.json --select 2 --invariants 1,2 -o checks.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("promote: -o CHECKS.yaml is required")
			}
			a, err := parseRanks("--select", almost)
			if err != nil {
				return err
			}
			inv, err := parseRanks("--invariants", invariant)
			if err != nil {
				return err
			}
			rep, err := reporter.ReadFile(args[0])
			if err != nil {
				return err
			}
			f, err := reporter.Promote(rep, args[0], out, a, inv)
			if err != nil {
				return err
			}
			if err := f.Write(out, force); err != nil {
				if errors.Is(err, safefile.ErrExists) {
					return fmt.Errorf("%w (use --force to replace it, hand-written checks included)", err)
				}
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d checks\n", out, len(f.Checks))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&almost, "select", "", "ranks of almost-invariants to promote, e.g. 1,3")
	f.StringVar(&invariant, "invariants", "", "ranks of invariants to promote")
	f.StringVarP(&out, "output", "o", "", "checks file to write")
	f.BoolVarP(&force, "force", "f", false, "replace an existing checks file")
	return cmd
}

func parseRanks(flag, s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var ranks []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s: %q is not a rank (1, 2, …)", flag, f)
		}
		ranks = append(ranks, n)
	}
	return ranks, nil
}
