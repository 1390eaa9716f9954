package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/internal/clobber"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/catalog"
	"github.com/augur-dev/augur/testbeds/etcdraft"
)

// demoOptions are augur demo's flags.
type demoOptions struct {
	infer inferOptions
	keep  string
	bug   string
	seed  uint64
	steps int
}

// newDemoCmd returns augur demo; runF, if not nil, runs instead of
// runDemo.
func newDemoCmd(runF func(*demoOptions) error) *cobra.Command {
	o := &demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole pipeline on a testbed run of etcd raft",
		Args:  cobra.NoArgs,
		RunE: runE(o, runF, runDemo, func(cmd *cobra.Command, args []string) {
			o.infer.stdout, o.infer.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			o.infer.formatSet = cmd.Flags().Changed("format")
		}),
	}
	o.infer.addFlags(cmd)
	f := cmd.Flags()
	outputFlag(f, &o.keep, "keep", "", outDir, "keep the demo's spec and trace in this directory")
	f.StringVar(&o.bug, "bug", "apply-uncommitted", "the bug to inject into etcd raft (see augur testbed list)")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the run")
	cliflag.IntP(f, &o.steps, "steps", "", 20000, 1, "snapshots to record")
	return cmd
}

func runDemo(ctx context.Context, o *demoOptions) error {
	po, err := o.infer.pipelineOptions()
	if err != nil {
		return err
	}
	dir, cleanup, err := clobber.WorkDir(o.keep, "augur-demo-", o.infer.po.Baselines...)
	if err != nil {
		return err
	}
	defer cleanup()
	cfg := testbeds.Config{Steps: o.steps, Seed: o.seed, Bug: o.bug}
	specPath, tracePath, st, err := catalog.Record(ctx, dir, "demo", etcdraft.Testbed, cfg)
	if err != nil {
		return err
	}
	if !o.infer.quiet {
		// Without --keep the trace goes with the demo: no path to name.
		where := "; --keep DIR keeps the spec and trace"
		if o.keep != "" {
			where = " into " + tracePath
		}
		fmt.Fprintf(o.infer.stderr, "recorded %d snapshots of etcd raft with bug %s (%d tagged)%s\n",
			st.Snapshots, o.bug, st.Tagged["bug:"+o.bug], where)
	}
	for _, out := range o.infer.outputs {
		if err := clobber.Check(out, append([]string{specPath, tracePath}, o.infer.po.Baselines...)...); err != nil {
			return err
		}
	}
	rep, err := pipeline.Infer(ctx, specPath, tracePath, po)
	if err != nil {
		return err
	}
	return o.infer.writeReports(rep, specPath)
}
