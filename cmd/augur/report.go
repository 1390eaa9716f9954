package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/cluster"
	"github.com/augur-dev/augur/reporter"
)

func newReportCmd() *cobra.Command {
	var o inferOptions
	cmd := &cobra.Command{
		Use:   "report SPEC TRACE STATS",
		Short: "Report the almost-invariants from merged stats",
		Long: `Report builds the report of stats written by 'augur merge' (or by
'augur infer --stats' without sharding). It generates the property pool of
the spec and trace again, which is deterministic, checks that the stats
were computed from this spec, this trace and this pool, and ranks them as
'augur infer' does.`,
		Example: `  augur report spec.yaml run.trace stats.arrow
  augur report spec.yaml run.trace stats.arrow --format json -o report.json`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			specPath, tracePath := args[0], args[1]
			if !validFormat(o.format) {
				return fmt.Errorf("unknown format %q (want %s)", o.format, strings.Join(reporter.Formats, ", "))
			}
			st, err := cluster.Read(args[2])
			if err != nil {
				return err
			}
			specHash, err := cluster.SpecHash(specPath)
			if err != nil {
				return err
			}
			p, err := prepare(specPath, tracePath)
			if err != nil {
				return err
			}
			defer p.tr.Close()
			if err := st.Check(specHash, cluster.TraceHash(p.tr.Manifest), p.prog); err != nil {
				return err
			}
			rep, err := buildReport(p, st.Result(), nil, specPath, tracePath, &o)
			if err != nil {
				return err
			}
			if o.format == "html" {
				if rep.Timeline, err = timeline(cmd.Context(), p, rep, 0); err != nil {
					return err
				}
			}
			return writeReport(cmd.OutOrStdout(), rep, &o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "text", "output format: "+strings.Join(reporter.Formats, ", "))
	f.IntVar(&o.top, "top", 0, "entries per list (default: the spec's report.size)")
	f.StringVarP(&o.output, "output", "o", "", "write the report to this file instead of stdout")
	return cmd
}
