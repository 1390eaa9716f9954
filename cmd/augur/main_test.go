package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "update the expected output in testdata/script")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"augur":           func() { os.Exit(runMain(os.Args[1:])) },
		"augur-readtrace": func() { os.Exit(auditRead()) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script. $TESTDATA
// is the repository's testdata directory, $SPECS its specs directory.
func TestScripts(t *testing.T) {
	testdata, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	specs, err := filepath.Abs("../../specs")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// waitopen PREFIX waits until a process has a file open whose
			// path begins with PREFIX, made absolute in $WORK: a command
			// started in the background has then set up its signal
			// handling (runMain does first), which a fixed sleep cannot
			// know on a busy machine.
			"waitopen": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: waitopen PREFIX")
				}
				prefix := ts.MkAbs(args[0])
				const timeout = time.Minute
				for deadline := time.Now().Add(timeout); !hasOpen(prefix); time.Sleep(20 * time.Millisecond) {
					if time.Now().After(deadline) {
						ts.Fatalf("no process opened a file at %s* within %v", prefix, timeout)
					}
				}
			},
			// snapshots N FILE writes N global snapshots of two nodes.
			"snapshots": func(ts *testscript.TestScript, neg bool, args []string) {
				n, err := strconv.Atoi(args[0])
				ts.Check(err)
				var b strings.Builder
				for i := range n {
					fmt.Fprintf(&b, `{"snapshot":%d,"nodes":{"a":{"x":%d},"b":{"x":%d}}}`+"\n", i, i, i%7)
				}
				ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
			},
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("TESTDATA", testdata)
			env.Setenv("SPECS", specs)
			return nil
		},
	})
}

// hasOpen reports whether a process has a file open whose path begins
// with prefix, as /proc/PID/fd tells.
func hasOpen(prefix string) bool {
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if path, err := os.Readlink(fd); err == nil && strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}
