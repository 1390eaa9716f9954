package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitOK        = 0
	exitViolation = 1 // augur check found a violation
	exitError     = 2 // bad usage, bad input, or a failure
)

// errViolations makes augur check exit with exitViolation after printing
// its findings.
var errViolations = errors.New("checks violated")

// run executes the command line args and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	var cpuprofile string
	root.PersistentFlags().StringVar(&cpuprofile, "cpuprofile", "", "write a CPU profile (pprof) to this file")
	var profile *os.File
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if cpuprofile == "" {
			return nil
		}
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		profile = f
		return nil
	}
	err := root.ExecuteContext(ctx)
	if profile != nil {
		// Stopped here, not in a post-run hook, so that a command that
		// fails still leaves a complete profile.
		pprof.StopCPUProfile()
		if cerr := profile.Close(); err == nil {
			err = cerr
		}
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errViolations):
		return exitViolation
	}
	var list interface{ Unwrap() []error }
	if errors.As(err, &list) && len(list.Unwrap()) > 1 {
		// Positioned error lists (specs, properties): show every error,
		// after the context they were wrapped in.
		if ctx, ok := strings.CutSuffix(err.Error(), ": "+list.(error).Error()); ok {
			fmt.Fprintf(stderr, "augur: %s:\n", ctx)
		}
		for _, e := range list.Unwrap() {
			fmt.Fprintf(stderr, "augur: %v\n", e)
		}
		return exitError
	}
	fmt.Fprintf(stderr, "augur: %v\n", err)
	return exitError
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "augur",
		Short: "Infer the almost-invariants of a distributed system from traces",
		Long: `augur finds the bugs that hide in distributed systems by inferring their
almost-invariants: properties over the state of several nodes that hold in
all but a few snapshots of a long run.

A typical session:

  augur collect run.jsonl -o run.trace      # JSONL snapshots → trace
  augur spec init run.trace > spec.yaml     # starter spec, then edit it
  augur infer spec.yaml run.trace           # ranked almost-invariants
  augur infer spec.yaml run.trace --format json -o report.json
  augur promote report.json --select 1,3 -o checks.yaml
  augur check checks.yaml other.trace       # exit 1 on any violation

Exit status: 0 on success, 1 when augur check finds a violation, 2 on
errors.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(
		newCollectCmd(),
		newSpecCmd(),
		newGenerateCmd(nil),
		newInferCmd(nil),
		newMergeCmd(nil),
		newReportCmd(nil),
		newPromoteCmd(nil),
		newCheckCmd(nil),
		newDemoCmd(nil),
		newBenchCmd(nil),
		newTestbedCmd(),
		newScoreCmd(nil),
		newVersionCmd(),
	)
	return root
}
