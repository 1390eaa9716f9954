package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/pipeline"
)

// generateOptions are augur generate's arguments and flags.
type generateOptions struct {
	spec, trace string // trace is optional
	list        bool
	format      string
	stdout      io.Writer
}

// newGenerateCmd returns augur generate; runF, if not nil, runs instead
// of runGenerate.
func newGenerateCmd(runF func(*generateOptions) error) *cobra.Command {
	o := &generateOptions{}
	cmd := &cobra.Command{
		Use:   "generate SPEC [TRACE]",
		Short: "Count (and list) the properties a spec generates",
		Args:  cobra.RangeArgs(1, 2),
		RunE: runE(o, runF, runGenerate, func(cmd *cobra.Command, args []string) {
			o.spec, o.stdout = args[0], cmd.OutOrStdout()
			if len(args) == 2 {
				o.trace = args[1]
			}
		}),
	}
	cmd.Flags().BoolVar(&o.list, "list", false, "list the properties")
	cmd.Flags().StringVar(&o.format, "format", "text", "output format: text or json")
	return cmd
}

// runGenerate prints the classes of the pool of o.spec, and with o.list
// its properties.
func runGenerate(_ context.Context, o *generateOptions) error {
	pool, err := pipeline.Generate(o.spec, o.trace)
	if err != nil {
		return err
	}
	switch o.format {
	case "json":
		return pool.WriteJSON(o.stdout, o.list)
	case "text":
		return pool.WriteText(o.stdout, o.list)
	}
	return fmt.Errorf("unknown format %q (want text or json)", o.format)
}
