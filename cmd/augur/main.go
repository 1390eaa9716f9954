// Command augur infers almost-invariants of distributed systems from
// traces of their global state, and checks traces against them.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/augur-dev/augur/internal/shutdown"
)

func main() {
	os.Exit(runMain(os.Args[1:]))
}

// stopGrace is how long a command has to stop on its own after SIGINT,
// SIGTERM or SIGHUP before the process ends it (shutdown.Exit): every command
// watches its context, and this bounds the few loops that cannot.
const stopGrace = time.Second

// noGraceAnnotation marks a command that the process does not end
// after stopGrace: the monitor, a server whose shutdown drains the
// requests in progress within a timeout of its own.
const noGraceAnnotation = "augur/no-stop-grace"

// runMain runs args with a context that SIGINT, SIGTERM and SIGHUP (its
// terminal gone) cancel: a long command stops, leaving its output as it
// was, where the signal's default would kill it amid its temporary
// files.
func runMain(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if cmd, _, err := newRootCmd().Find(args); err != nil || cmd.Annotations[noGraceAnnotation] == "" {
		done := make(chan struct{})
		defer close(done)
		go watchdog(ctx, done, stopGrace, os.Stderr, shutdown.Exit)
	}
	return run(ctx, args, os.Stdout, os.Stderr)
}

// watchdog waits for ctx to be canceled and then, unless done is closed
// within grace, says so on stderr and calls exit with status 2, as an
// interrupted command exits.
func watchdog(ctx context.Context, done <-chan struct{}, grace time.Duration, stderr io.Writer, exit func(int)) {
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		fmt.Fprintf(stderr, "augur: interrupted; nothing written (ended %v after the signal, its temporary files removed)\n", grace)
		exit(2)
	}
}
