package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/monitor"
)

// monitorOptions are augur monitor's arguments and flags.
type monitorOptions struct {
	checks, spec     string
	listen, addrFile string
	tokenFile        string
	record           string
	tlsCert, tlsKey  string
	maxBody          string
	maxNodes, nodes  int
	maxBuffered      int
	subscriberBuffer int
	failAfter        time.Duration
	failAfterTS      uint64
	collapse         bool
	quiet            bool
	stdout, stderr   io.Writer
}

// newMonitorCmd returns augur monitor and its subcommands; runF, if not
// nil, runs instead of runMonitor.
func newMonitorCmd(runF func(*monitorOptions) error) *cobra.Command {
	o := &monitorOptions{}
	cmd := &cobra.Command{
		Use:   "monitor CHECKS [--listen ADDR] [--token-file F] [--record OUT.trace]",
		Short: "Check a live system: take pushed node-local records, check each consistent cut",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.checks, o.stdout, o.stderr = args[0], cmd.OutOrStdout(), cmd.ErrOrStderr()
			if runF != nil {
				return runF(o)
			}
			return runMonitor(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.spec, "spec", "", "spec the checks are written against (default: the checks file's)")
	f.StringVar(&o.listen, "listen", "127.0.0.1:7070", "address to listen on")
	f.StringVar(&o.addrFile, "addr-file", "", "write the address listened on to this file once listening (for --listen 127.0.0.1:0)")
	f.StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token (default: $"+monitor.TokenEnv+")")
	f.StringVar(&o.record, "record", "", "write the trace of the cuts checked to this directory")
	f.StringVar(&o.tlsCert, "tls-cert", "", "TLS certificate file (PEM): serve HTTPS")
	f.StringVar(&o.tlsKey, "tls-key", "", "TLS key file (PEM)")
	f.StringVar(&o.maxBody, "max-body", "8MiB", "largest request body")
	intFlagP(f, &o.maxNodes, "max-nodes", "", monitor.DefaultMaxNodes, 1, "most distinct nodes")
	intFlagP(f, &o.nodes, "nodes", "", 0, 0, "hold the first cut until this many nodes have pushed")
	intFlagP(f, &o.maxBuffered, "max-buffered", "", monitor.DefaultMaxBuffered, 1, "most records held back while the cuts wait for a node; beyond, that node is declared failed")
	intFlagP(f, &o.subscriberBuffer, "stream-buffer", "", monitor.DefaultSubscriber, 1, "violation lines a stream may fall behind before it is disconnected")
	durationFlag(f, &o.failAfter, "fail-after", 0, false, "declare a node failed when the cuts have waited this long for it (0: only --max-buffered)")
	f.Uint64Var(&o.failAfterTS, "fail-after-ts", 0, "as augur collect --fail-after: a node is not live more than this logical time after its latest record")
	f.BoolVar(&o.collapse, "collapse", false, "as augur collect --collapse: skip cuts identical to the one before")
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
	var violations io.Writer
	if !o.quiet {
		violations = o.stdout
	}
	s, err := monitor.Run(ctx, monitor.RunConfig{
		Checks: o.checks, Spec: o.spec,
		Listen: o.listen, AddrFile: o.addrFile, TokenFile: o.tokenFile,
		TLSCert: o.tlsCert, TLSKey: o.tlsKey, MaxBody: o.maxBody,
		Options: monitor.Options{
			MaxNodes:         o.maxNodes,
			Nodes:            o.nodes,
			FailAfter:        o.failAfter,
			FailAfterTS:      o.failAfterTS,
			Collapse:         o.collapse,
			MaxBuffered:      o.maxBuffered,
			Record:           o.record,
			CreatedBy:        "augur " + version() + " monitor",
			Violations:       violations,
			SubscriberBuffer: o.subscriberBuffer,
			Log:              o.stderr,
		},
	})
	if err == nil && s.Violations > 0 {
		err = errViolations
	}
	return err
}
