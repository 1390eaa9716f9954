package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/cluster"
	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/reporter"
)

// reportOptions are augur report's arguments and flags.
type reportOptions struct {
	infer inferOptions // the report flags of infer: format, top, output
	stats string
}

// newReportCmd returns augur report; runF, if not nil, runs instead of
// runReport.
func newReportCmd(runF func(*reportOptions) error) *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report SPEC TRACE STATS",
		Short: "Report the almost-invariants from merged stats",
		Args:  cobra.ExactArgs(3),
		RunE: runE(o, runF, runReport, func(cmd *cobra.Command, args []string) {
			o.infer.spec, o.infer.trace, o.stats = args[0], args[1], args[2]
			o.infer.stdout, o.infer.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.infer.format, "format", "text", "output format: "+strings.Join(reporter.Formats, ", "))
	cliflag.IntP(f, &o.infer.po.Top, "top", "", 0, 0, "entries per list (default: the spec's report.size)")
	outputFlag(f, &o.infer.po.Output, "output", "o", outFile, "write the report to this file instead of stdout")
	f.BoolVar(&o.infer.po.All, "all", false, "list every anomaly, also those violated at too many moments to stand out")
	return cmd
}

func runReport(ctx context.Context, o *reportOptions) error {
	o.infer.evaluator, o.infer.quiet = "fast", true
	po, err := o.infer.pipelineOptions()
	if err != nil {
		return err
	}
	st, err := cluster.Read(o.stats)
	if err != nil {
		return err
	}
	rep, err := pipeline.ReportStats(ctx, o.infer.spec, o.infer.trace, st, po)
	if err != nil {
		return err
	}
	return rep.WriteFile(o.infer.format, o.infer.po.Output, o.infer.stdout)
}
