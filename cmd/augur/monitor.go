package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/internal/buildinfo"
	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/monitor"
)

// monitorOptions are augur monitor's arguments and flags.
type monitorOptions struct {
	cfg            monitor.RunConfig // but Violations, Log and CreatedBy
	quiet          bool
	stdout, stderr io.Writer
}

// newMonitorCmd returns augur monitor and its subcommands; runF, if not
// nil, runs instead of runMonitor.
func newMonitorCmd(runF func(*monitorOptions) error) *cobra.Command {
	o := &monitorOptions{}
	cmd := &cobra.Command{
		Use:   "monitor CHECKS [--listen ADDR] [--token-file F] [--record OUT.trace]",
		Short: "Check a live system: take pushed node-local records, check each consistent cut",
		Args:  cobra.ExactArgs(1),
		// Its shutdown drains the pushes in progress, for at most
		// monitor.ServeOptions' ShutdownTimeout.
		Annotations: map[string]string{noGraceAnnotation: "true"},
		RunE: runE(o, runF, runMonitor, func(cmd *cobra.Command, args []string) {
			o.cfg.Checks, o.stdout, o.stderr = args[0], cmd.OutOrStdout(), cmd.ErrOrStderr()
		}),
	}
	f, c, mo := cmd.Flags(), &o.cfg, &o.cfg.Options
	f.StringVar(&c.Spec, "spec", "", "spec the checks are written against (default: the checks file's)")
	f.StringVar(&c.Listen, "listen", "127.0.0.1:7070", "address to listen on")
	outputFlag(f, &c.AddrFile, "addr-file", "", outFile, "write the address listened on to this file once listening (for --listen 127.0.0.1:0)")
	f.StringVar(&c.TokenFile, "token-file", "", "file holding the bearer token (default: $"+monitor.TokenEnv+")")
	outputFlag(f, &mo.Record, "record", "", outTrace, "write the trace of the cuts checked to this directory")
	f.StringVar(&c.TLSCert, "tls-cert", "", "TLS certificate file (PEM): serve HTTPS")
	f.StringVar(&c.TLSKey, "tls-key", "", "TLS key file (PEM)")
	f.StringVar(&c.MaxBody, "max-body", "8MiB", "largest request body")
	f.StringVar(&c.MaxInflight, "max-inflight", "64MiB", "most bytes of request bodies read and checked at once; a push beyond is refused with 503")
	f.StringVar(&c.MaxRecord, "max-record", "64KiB", "longest record line (a node's state)")
	cliflag.IntIn(f, &mo.MaxStreams, "max-streams", monitor.DefaultMaxStreams, 1, monitor.LimitStreams, monitor.LimitStreamsWhy, "most violation streams open at once")
	cliflag.IntIn(f, &mo.MaxNodes, "max-nodes", monitor.DefaultMaxNodes, 1, monitor.LimitNodes, monitor.LimitNodesWhy, "most distinct nodes")
	cliflag.IntP(f, &mo.MaxNodeName, "max-node-name", "", monitor.DefaultMaxNodeName, 1, "longest node name, in bytes")
	cliflag.IntIn(f, &mo.Nodes, "nodes", 0, 0, monitor.LimitNodes, monitor.LimitNodesWhy, "hold the first cut until this many nodes have pushed")
	cliflag.IntP(f, &mo.MaxBuffered, "max-buffered", "", monitor.DefaultMaxBuffered, 1, "most records held back while the cuts wait for a node; beyond, that node is declared failed")
	f.StringVar(&c.MaxHeld, "max-held", "64MiB", "most bytes of records held back, across nodes; beyond, the node the cuts wait for is declared failed")
	cliflag.IntIn(f, &mo.SubscriberBuffer, "stream-buffer", monitor.DefaultSubscriber, 1, monitor.LimitSubscriber, monitor.LimitSubscriberWhy, "violation lines a stream may fall behind before it is disconnected")
	cliflag.Duration(f, &mo.FailAfter, "fail-after", 0, false, "declare a node failed when the cuts have waited this long for it (0: only --max-buffered)")
	f.Uint64Var(&mo.FailAfterTS, "fail-after-ts", 0, "as augur collect --fail-after: a node is not live more than this logical time after its latest record")
	f.BoolVar(&mo.Collapse, "collapse", false, "as augur collect --collapse: skip cuts identical to the one before")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "do not print the violation lines")
	cmd.AddCommand(newMonitorPushCmd(nil), newMonitorWatchCmd(nil), newMonitorLoadCmd(nil))
	return cmd
}

// runMonitor serves until SIGINT or SIGTERM (or ctx ends), and returns
// errViolations if a check was violated.
func runMonitor(ctx context.Context, o *monitorOptions) error {
	// The signals are caught before the address is written: requests
	// that come once it is wait in the listener's queue.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := o.cfg
	cfg.Options.CreatedBy, cfg.Options.Log = "augur "+buildinfo.Version()+" monitor", o.stderr
	if !o.quiet {
		cfg.Options.Violations = o.stdout
	}
	s, err := monitor.Run(ctx, cfg)
	if err == nil && s.Violations > 0 {
		err = errViolations
	}
	return err
}
