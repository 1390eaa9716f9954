// Command augur infers almost-invariants of distributed systems from
// traces of their global state, and checks traces against them.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(runMain(os.Args[1:]))
}

// runMain runs args with a context that SIGINT and SIGTERM cancel: a
// long command stops, leaving its output as it was.
func runMain(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, os.Stdout, os.Stderr)
}
