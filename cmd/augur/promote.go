package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/reporter"
)

// promoteOptions are augur promote's arguments and flags.
type promoteOptions struct {
	report            string
	output            string
	almost, invariant string
	stdout            io.Writer
}

// newPromoteCmd returns augur promote; runF, if not nil, runs instead of
// runPromote.
func newPromoteCmd(runF func(*promoteOptions) error) *cobra.Command {
	o := &promoteOptions{}
	cmd := &cobra.Command{
		Use:   "promote REPORT.json --select RANK,… -o CHECKS.yaml",
		Short: "Turn reported properties into checks",
		Args:  cobra.ExactArgs(1),
		RunE: runE(o, runF, runPromote, func(cmd *cobra.Command, args []string) {
			o.report, o.stdout = args[0], cmd.OutOrStdout()
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.almost, "select", "", "ranks of almost-invariants to promote, e.g. 1,3")
	f.StringVar(&o.invariant, "invariants", "", "ranks of invariants to promote")
	outputFlag(f, &o.output, "output", "o", outFile, "checks file to write")
	deprecateForce(f)
	return cmd
}

func runPromote(_ context.Context, o *promoteOptions) error {
	if o.output == "" {
		return fmt.Errorf("promote: -o CHECKS.yaml is required")
	}
	a, err := parseRanks("--select", o.almost)
	if err != nil {
		return err
	}
	inv, err := parseRanks("--invariants", o.invariant)
	if err != nil {
		return err
	}
	f, err := reporter.PromoteFile(o.report, o.output, a, inv)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.stdout, "%s: %d checks\n", o.output, len(f.Checks))
	return nil
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
		if slices.Contains(ranks, n) {
			// Twice the same check, under two names, is a typo's work.
			return nil, fmt.Errorf("%s: rank %d is given twice", flag, n)
		}
		ranks = append(ranks, n)
	}
	return ranks, nil
}
