package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/monitor"
	"github.com/augur-dev/augur/monitor/loadgen"
)

// monitorLoadOptions are augur monitor load's flags.
type monitorLoadOptions struct {
	sweep          loadgen.Sweep // but Nodes, Rates, MonitorFlags and Stderr
	nodes, rates   string
	monitorFlags   string
	stdout, stderr io.Writer
}

// newMonitorLoadCmd returns augur monitor load; runF, if not nil, runs
// instead of runMonitorLoad.
func newMonitorLoadCmd(runF func(*monitorLoadOptions) error) *cobra.Command {
	o := &monitorLoadOptions{}
	cmd := &cobra.Command{
		Use:   "load [--nodes 5,16,64] [--rates 1000,10000]",
		Short: "Load-test a monitor on loopback",
		Args:  cobra.NoArgs,
		RunE: runE(o, runF, runMonitorLoad, func(cmd *cobra.Command, args []string) {
			o.stdout, o.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.nodes, "nodes", "5,16,64", "numbers of nodes, comma-separated")
	f.StringVar(&o.rates, "rates", "1000,10000", "states per second of all nodes together, comma-separated")
	c := &o.sweep.Config
	cliflag.Duration(f, &c.Duration, "duration", 5*time.Second, true, "how long the nodes expose states")
	cliflag.Duration(f, &c.Flush, "flush", 0, false, "the sinks' flush interval (default: httpsink.Sink's, 200ms)")
	cliflag.Duration(f, &c.SilentAfter, "silent-after", 0, false, "node 1 stops pushing, without leaving, this far into the run")
	cliflag.IntP(f, &c.PlantEvery, "plant-every", "", 100, 1, "a node plants a violation every this many states")
	f.StringVar(&o.monitorFlags, "monitor-flags", "", "more flags for the monitors started, space-separated")
	f.StringVar(&c.URL, "url", "", "load the monitor at this URL instead of starting one")
	f.StringVar(&o.sweep.TokenFile, "token-file", "", "with --url: the monitor's token (default: $"+monitor.TokenEnv+")")
	f.Uint64Var(&c.Seed, "seed", 1, "seed of the nodes' choice of peers")
	return cmd
}

// parseInts parses the comma-separated positive numbers of flag, each at
// most most, for why.
func parseInts(flag, s string, most int, why string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%s: bad number %q", flag, f)
		}
		if n > most {
			return nil, fmt.Errorf("%s: %d is over %d (%s)", flag, n, most, why)
		}
		out = append(out, n)
	}
	return out, nil
}

func runMonitorLoad(ctx context.Context, o *monitorLoadOptions) error {
	nodes, err := parseInts("--nodes", o.nodes, loadgen.MaxNodes, loadgen.MaxNodesWhy)
	if err != nil {
		return err
	}
	rates, err := parseInts("--rates", o.rates, loadgen.MaxRate, loadgen.MaxRateWhy)
	if err != nil {
		return err
	}
	sw := o.sweep
	sw.Nodes, sw.Rates, sw.MonitorFlags, sw.Stderr = nodes, rates, strings.Fields(o.monitorFlags), o.stderr
	return sw.Run(ctx, o.stdout)
}
