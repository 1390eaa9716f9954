package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/internal/safefile"
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
	out := &firstError{w: stdout}
	root.SetOut(out)
	root.SetErr(stderr)
	// The profile starts once guardOutputs has passed its output.
	guard := root.PersistentPreRunE
	var profile *safefile.File // the --cpuprofile, replaced whole like every output
	var profileOut *firstError // writes to profile; pprof drops their errors
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if err := guard(cmd, args); err != nil {
			return err
		}
		if err := checkWorkers(cmd); err != nil {
			return err
		}
		cpuprofile := root.PersistentFlags().Lookup("cpuprofile").Value.String()
		if cpuprofile == "" {
			return nil
		}
		p, err := safefile.Create(cpuprofile, 0o644)
		if err != nil {
			return err
		}
		w := &firstError{w: p}
		if err := pprof.StartCPUProfile(w); err != nil {
			p.Abort()
			return err
		}
		profile, profileOut = p, w
		return nil
	}
	err := root.ExecuteContext(ctx)
	if err == nil && out.err != nil {
		// What a command prints is its result: one lost to a full disk or
		// a closed descriptor is a failure, whatever the command returned.
		err = out.err
	}
	if profile != nil {
		// Stopped here, not in a post-run hook, so that a command that
		// fails still leaves a complete profile.
		pprof.StopCPUProfile()
		if profileOut.err != nil {
			profile.Abort()
			if err == nil {
				err = fmt.Errorf("--cpuprofile: %w", profileOut.err)
			}
		} else if cerr := profile.Commit(); err == nil {
			err = cerr
		}
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errViolations):
		return exitViolation
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		fmt.Fprintf(stderr, "augur: %s\n", printable(interrupted(err)))
		return exitError
	}
	fmt.Fprintf(stderr, "augur: %s\n", printable(err.Error()))
	// A positioned error list (specs, properties, checks) names its first
	// error and how many more there are: print the next ones below it, up
	// to maxErrors in all, and count the rest.
	var list diag.ErrorList
	if errors.As(err, &list) {
		for _, e := range list[1:min(len(list), maxErrors)] {
			fmt.Fprintf(stderr, "augur: %s\n", printable(e.Error()))
		}
		if len(list) > maxErrors {
			fmt.Fprintf(stderr, "augur: and %d more errors\n", len(list)-maxErrors)
		}
	}
	return exitError
}

// maxErrors bounds the errors of a list printed: a spec of 100,000
// variables not in the trace printed every error, 14 MB.
const maxErrors = 10

// maxWorkers bounds --workers: each worker evaluates its share of the
// properties with an engine of its own (about 1 MB on a small trace and
// pool, more on larger), and more workers than CPUs gain nothing; a
// million took 22 s to run out of memory under a 4 GiB limit.
const maxWorkers = 256

// checkWorkers refuses a --workers count of cmd above maxWorkers.
func checkWorkers(cmd *cobra.Command) error {
	f := cmd.Flags().Lookup("workers")
	if f == nil || f.Value.Type() != "int" {
		return nil
	}
	if n, err := strconv.Atoi(f.Value.String()); err == nil && n > maxWorkers {
		return fmt.Errorf("--workers %d: at most %d (each worker keeps its own engine; more than the CPUs, %d here, gain nothing)", n, maxWorkers, runtime.NumCPU())
	}
	return nil
}

// interrupted returns the message of err, an error of a command that a
// signal stopped, which wraps context.Canceled: its own words, which end
// in the canceled context's, with those replaced by "interrupted;
// nothing written" ("collect run.trace: context canceled" becomes
// "collect run.trace: interrupted; nothing written"). Every command says
// so through here: the libraries say only where their work stopped.
func interrupted(err error) string {
	where, ok := strings.CutSuffix(err.Error(), context.Canceled.Error())
	if !ok {
		where = ""
	}
	return where + "interrupted; nothing written"
}

// newRootCmd returns augur and its commands, whose outputs guardOutputs
// checks before any of them runs.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:               "augur",
		Short:             "Infer the almost-invariants of a distributed system from traces",
		SilenceUsage:      true,
		SilenceErrors:     true,
		PersistentPreRunE: guardOutputs,
	}
	outputFlag(root.PersistentFlags(), new(string), "cpuprofile", "", outFile, "write a CPU profile (pprof) to this file")
	root.AddCommand(
		newCollectCmd(),
		newSpecCmd(),
		newGenerateCmd(nil),
		newInferCmd(nil),
		newExplainCmd(nil),
		newMergeCmd(nil),
		newReportCmd(nil),
		newPromoteCmd(nil),
		newLearnCmd(nil),
		newCheckCmd(nil),
		newMonitorCmd(nil),
		newDemoCmd(nil),
		newBenchCmd(nil),
		newTestbedCmd(),
		newScoreCmd(nil),
		newVersionCmd(),
	)
	setHelp(root, helpSections())
	return root
}

// deprecateForce keeps the --force of the commands that used to refuse an
// existing output, so that old command lines still run: every command now
// replaces an existing output (see docs/reliability.md).
func deprecateForce(f *pflag.FlagSet) {
	f.BoolP("force", "f", false, "")
	f.MarkDeprecated("force", "an existing output is always replaced, atomically; inputs never are")
}

// plural returns "1 thing" or "n things".
func plural(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// runE returns a command's RunE: set, if not nil, fills in o from the
// command and its arguments; then runF runs with o, or, when runF is
// nil, run does. Tests of the flags pass a runF that keeps o.
func runE[O any](o *O, runF func(*O) error, run func(context.Context, *O) error, set func(cmd *cobra.Command, args []string)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if set != nil {
			set(cmd, args)
		}
		if runF != nil {
			return runF(o)
		}
		return run(cmd.Context(), o)
	}
}

// firstError is a writer that keeps the first error of writing to w.
type firstError struct {
	w   io.Writer
	err error
}

func (f *firstError) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n, err
}
