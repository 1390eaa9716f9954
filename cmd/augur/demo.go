package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/internal/demo"
)

func newDemoCmd() *cobra.Command {
	var (
		o    inferOptions
		keep string
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole pipeline on an embedded example",
		Long: `Demo collects the embedded example trace (a five-node replicated log with
leader election and three rare bugs planted), then infers and reports its
almost-invariants with the embedded spec. The snapshots where a planted bug
shows carry a bug:NAME tag, so the report shows which properties caught it.

With --keep DIR the spec and the trace stay in DIR, to try the other
commands on them.`,
		Example: `  augur demo
  augur demo --format md
  augur demo --keep /tmp/demo && augur infer /tmp/demo/demo.yaml /tmp/demo/demo.trace`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir := keep
			if dir == "" {
				tmp, err := os.MkdirTemp("", "augur-demo-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				dir = tmp
			} else if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			specPath := filepath.Join(dir, demo.SpecName)
			jsonlPath := filepath.Join(dir, demo.TraceName)
			tracePath := filepath.Join(dir, "demo.trace")
			if err := os.WriteFile(specPath, demo.Spec, 0o644); err != nil {
				return err
			}
			if err := os.WriteFile(jsonlPath, demo.Trace, 0o644); err != nil {
				return err
			}
			res, err := collector.CollectJSONL(tracePath, []string{jsonlPath}, collector.Options{
				System: "demo", Overwrite: true, CreatedBy: "augur demo",
			})
			if err != nil {
				return err
			}
			if !o.quiet {
				fmt.Fprintf(cmd.ErrOrStderr(), "collected %d snapshots of %d nodes into %s\n", res.Snapshots, res.Nodes, tracePath)
			}
			rep, err := infer(cmd.Context(), specPath, tracePath, &o, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			return writeReport(cmd.OutOrStdout(), rep, &o)
		},
	}
	o.addFlags(cmd)
	cmd.Flags().StringVar(&keep, "keep", "", "keep the demo's spec and trace in this directory")
	return cmd
}
