package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/ingest"
	"github.com/augur-dev/augur/internal/buildinfo"
	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
)

func newCollectCmd() *cobra.Command {
	var (
		out, system, spec string
		local             ingest.Options
	)
	cmd := &cobra.Command{
		Use:   "collect FILE... -o NAME.trace",
		Short: "Turn JSONL snapshots or node-local exposures into a trace",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("collect: -o NAME.trace is required")
			}
			opts := local
			opts.System, opts.Overwrite, opts.CreatedBy = system, true, "augur "+buildinfo.Version()
			if spec != "" {
				s, err := specs.Load(spec)
				if err != nil {
					return err
				}
				if opts.Schema, err = spectrace.Schema(s); err != nil {
					return err
				}
				opts.CheckValue = s.EnumCheck()
				if opts.System == "" {
					opts.System = s.System
				}
			}
			if opts.System == "" {
				opts.System = strings.TrimSuffix(filepath.Base(out), ".trace")
			}
			res, err := ingest.Collect(cmd.Context(), out, args, opts)
			if err != nil {
				return err
			}
			res.WriteSummary(cmd.OutOrStdout(), cmd.ErrOrStderr(), out)
			return nil
		},
	}
	f := cmd.Flags()
	outputFlag(f, &out, "output", "o", outTrace, "trace directory to write (NAME.trace)")
	f.StringVar(&system, "system", "", "system name for the manifest (default: the spec's, or the output name)")
	f.StringVar(&spec, "spec", "", "spec whose variable types fix the column types instead of inference")
	deprecateForce(f)
	f.Uint64Var(&local.FailAfter, "fail-after", 0, "node-local input: a node is not live more than this logical time after its latest record (0: until it leaves)")
	f.BoolVar(&local.Collapse, "collapse", false, "node-local input: drop snapshots identical to the one before")
	f.BoolVar(&local.Lenient, "lenient", false, "node-local input: skip and count bad records instead of failing")
	cliflag.IntP(f, &local.Window, "window", "", 0, 0, "node-local input: out-of-order window of an input, in records (default 4096)")
	return cmd
}
