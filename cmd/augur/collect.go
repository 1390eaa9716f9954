package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/specs"
)

func newCollectCmd() *cobra.Command {
	var (
		out, system, spec string
		force             bool
	)
	cmd := &cobra.Command{
		Use:   "collect FILE.jsonl... -o NAME.trace",
		Short: "Turn JSONL global snapshots into a trace",
		Long: `Collect reads newline-delimited JSON global snapshots, one object per line:

  {"snapshot": 7, "ts": 120, "tags": ["steady"], "nodes": {"n1": {...}, "n2": {...}}}

and writes the trace directory NAME.trace (Arrow files and a manifest). Types
are inferred from the JSON unless --spec fixes them. Nothing is written
unless the whole input is valid.`,
		Example: `  augur collect run.jsonl -o run.trace
  augur collect part1.jsonl part2.jsonl -o run.trace --system etcd-raft --force`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("collect: -o NAME.trace is required")
			}
			if _, err := os.Stat(out); err == nil && !force {
				return fmt.Errorf("collect: %s already exists (use --force to replace it)", out)
			}
			opts := collector.Options{System: system, Overwrite: force, CreatedBy: "augur " + version()}
			if spec != "" {
				s, err := specs.Load(spec)
				if err != nil {
					return err
				}
				if opts.Schema, err = s.Schema(); err != nil {
					return err
				}
				if opts.System == "" {
					opts.System = s.System
				}
			}
			if opts.System == "" {
				opts.System = strings.TrimSuffix(filepath.Base(out), ".trace")
			}
			res, err := collector.CollectJSONL(out, args, opts)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d snapshots, %d states, %d nodes, %d variables\n",
				out, res.Snapshots, res.States, res.Nodes, len(res.Schema))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "output", "o", "", "trace directory to write (NAME.trace)")
	f.StringVar(&system, "system", "", "system name for the manifest (default: the spec's, or the output name)")
	f.StringVar(&spec, "spec", "", "spec whose variable types fix the column types instead of inference")
	f.BoolVarP(&force, "force", "f", false, "replace an existing trace")
	return cmd
}
