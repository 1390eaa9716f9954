package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/augur-dev/augur/internal/cliflag"
	"github.com/augur-dev/augur/internal/infile"
	"github.com/augur-dev/augur/monitor"
	"github.com/spf13/cobra"
)

// monitorClientOptions are the flags of augur monitor push and watch.
type monitorClientOptions struct {
	url, tokenFile string
	files          []string
	batch          int
	stdout         io.Writer
}

// newMonitorPushCmd returns augur monitor push; runF, if not nil, runs
// instead of runMonitorPush.
func newMonitorPushCmd(runF func(*monitorClientOptions) error) *cobra.Command {
	o := &monitorClientOptions{}
	cmd := &cobra.Command{
		Use:   "push --url URL FILE...",
		Short: "Replay node-local JSONL files to a monitor",
		Args:  cobra.MinimumNArgs(1),
		RunE: runE(o, runF, runMonitorPush, func(cmd *cobra.Command, args []string) {
			o.files, o.stdout = args, cmd.OutOrStdout()
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.url, "url", "http://127.0.0.1:7070", "the monitor's base URL")
	f.StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token (default: $"+monitor.TokenEnv+")")
	cliflag.IntP(f, &o.batch, "batch", "", 256, 1, "records per request")
	return cmd
}

// newMonitorWatchCmd returns augur monitor watch; runF, if not nil, runs
// instead of runMonitorWatch.
func newMonitorWatchCmd(runF func(*monitorClientOptions) error) *cobra.Command {
	o := &monitorClientOptions{}
	cmd := &cobra.Command{
		Use:   "watch --url URL",
		Short: "Print the violations a monitor streams",
		Args:  cobra.NoArgs,
		RunE: runE(o, runF, runMonitorWatch, func(cmd *cobra.Command, args []string) {
			o.stdout = cmd.OutOrStdout()
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.url, "url", "http://127.0.0.1:7070", "the monitor's base URL")
	f.StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token (default: $"+monitor.TokenEnv+")")
	return cmd
}

// maxPushFile bounds a file monitor push replays: the records of all its
// files are read whole, to be merged in timestamp order.
const maxPushFile = 512 << 20

func runMonitorPush(ctx context.Context, o *monitorClientOptions) error {
	// Refused before monitor.ReadLines reads them whole: a named pipe
	// blocked push until a writer came, /dev/zero was read until memory
	// ran out, and so was a sparse file of 8 GiB.
	for _, name := range o.files {
		f, _, err := infile.OpenLimited(name, maxPushFile)
		if err != nil {
			return err
		}
		f.Close()
	}
	token, err := monitor.ReadToken(o.tokenFile)
	if err != nil {
		return err
	}
	c := &monitor.Client{URL: o.url, Token: token, HTTP: &http.Client{Timeout: 30 * time.Second}}
	records, late, requests, err := c.PushFiles(ctx, o.batch, o.files...)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.stdout, "pushed %d records in %s", records, plural(int64(requests), "request"))
	if late > 0 {
		fmt.Fprintf(o.stdout, " (%d late)", late)
	}
	fmt.Fprintln(o.stdout)
	return nil
}

func runMonitorWatch(ctx context.Context, o *monitorClientOptions) error {
	token, err := monitor.ReadToken(o.tokenFile)
	if err != nil {
		return err
	}
	return (&monitor.Client{URL: o.url, Token: token}).Watch(ctx, o.stdout)
}
