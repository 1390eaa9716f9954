package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

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
				version(), trace.Version, reporter.Version)
			return nil
		},
	}
}

// version returns the module version, or the VCS revision of a build
// from a checkout.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 && (v == "" || v == "(devel)") {
			v = "devel " + s.Value[:12]
		}
	}
	if v == "" {
		v = "(devel)"
	}
	return v
}
