package loadgen

import (
	"context"
	"fmt"
	"io"
	"os"

	"time"

	"github.com/augur-dev/augur/monitor"
)

// Sweep is a load test over numbers of nodes and rates: augur monitor
// load.
type Sweep struct {
	Nodes, Rates []int
	// Config is every run's configuration but Nodes, Rate and Token.
	// With a URL, the sweep loads that monitor once, with the first of
	// Nodes and of Rates, with the token in TokenFile (see
	// monitor.ReadToken); else each run gets a monitor of its own, Exe
	// ("" means this binary) run with MonitorFlags as RunSpawned runs
	// it, its stderr going to Stderr.
	Config       Config
	TokenFile    string
	Exe          string
	MonitorFlags []string
	Stderr       io.Writer
}

// Run runs the sweep and writes a table to w, a row a run as it ends.
func (s *Sweep) Run(ctx context.Context, w io.Writer) error {
	fmt.Fprintf(w, "%5s %8s %10s %8s %9s %9s %9s %8s %11s %7s %s\n",
		"nodes", "rate/s", "records/s", "cuts/s", "p50", "p99", "peak RSS", "max held", "seen/plants", "dropped", "failed")
	for _, n := range s.Nodes {
		for _, rate := range s.Rates {
			cfg := s.Config
			cfg.Nodes, cfg.Rate = n, rate
			var (
				res *Result
				err error
			)
			if cfg.URL != "" {
				if cfg.Token, err = monitor.ReadToken(s.TokenFile); err == nil {
					res, err = Run(ctx, cfg)
				}
			} else {
				exe := s.Exe
				if exe == "" {
					exe, err = os.Executable()
				}
				if err == nil {
					res, err = RunSpawned(ctx, cfg, exe, s.MonitorFlags, s.Stderr)
				}
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%5d %8d %10.0f %8.0f %9s %9s %8.1fM %8d %5d/%-5d %7d %s\n",
				n, rate, res.RecordsPerSecond(), res.CutsPerSecond(), res.P50.Round(time.Millisecond), res.P99.Round(time.Millisecond),
				float64(res.PeakRSS)/(1<<20), res.MaxBuffered, res.Seen, res.Planted, res.Dropped, res.NodesFailed)
			if cfg.URL != "" {
				return nil
			}
		}
	}
	return nil
}
