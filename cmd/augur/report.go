package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/cluster"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/pipeline"
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
			o.infer.formatSet = cmd.Flags().Changed("format")
		}),
	}
	f := cmd.Flags()
	o.infer.reportFlags(f)
	cliflag.IntP(f, &o.infer.po.Top, "top", "", 0, 0, "entries per list (default: the spec's report.size)")
	f.BoolVar(&o.infer.po.All, "all", false, "list every anomaly, also those violated at too many moments to stand out")
	return cmd
}

func runReport(ctx context.Context, o *reportOptions) error {
	o.infer.po.Evaluator, o.infer.quiet = evaluator.Fast, true
	po, err := o.infer.pipelineOptions()
	if err != nil {
		return err
	}
	st, err := cluster.ReadContext(ctx, o.stats)
	if err != nil {
		return err
	}
	rep, err := pipeline.ReportStats(ctx, o.infer.spec, o.infer.trace, st, po)
	if err != nil {
		return err
	}
	return o.infer.writeReports(rep, o.infer.spec)
}
