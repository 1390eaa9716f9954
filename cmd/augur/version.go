package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/internal/buildinfo"
	"github.com/augur-dev/augur/reporter"
	"github.com/augur-dev/augur/trace"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of augur and of its formats",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "augur %s (trace format %d, report version %d)\n",
				buildinfo.Version(), trace.Version, reporter.Version)
			return nil
		},
	}
}
