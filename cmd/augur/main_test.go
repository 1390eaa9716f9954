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
			// bootsnapshots N FILE writes N snapshots of three nodes
			// recorded from boot: until snapshot 5 every variable is 0,
			// so clock < lease fails there and never after; a bug
			// acknowledges an unsent message (acked > sent) at node n2
			// in snapshots N/3 and 2N/3.
			"bootsnapshots": func(ts *testscript.TestScript, neg bool, args []string) {
				n, err := strconv.Atoi(args[0])
				ts.Check(err)
				var b strings.Builder
				for i := range n {
					b.WriteString(`{"snapshot":` + strconv.Itoa(i) + `,"nodes":{`)
					for j, node := range []string{"n1", "n2", "n3"} {
						clock, lease, sent, acked := 0, 0, 0, 0
						if i >= 5 {
							clock, lease, sent = 10*i+j, 10*i+j+25, 1000+i
							acked = sent - 1
						}
						if node == "n2" && (i == n/3 || i == 2*n/3) {
							acked = sent + 1
						}
						if j > 0 {
							b.WriteByte(',')
						}
						fmt.Fprintf(&b, `%q:{"clock":%d,"lease":%d,"sent":%d,"acked":%d}`, node, clock, lease, sent, acked)
					}
					b.WriteString("}}\n")
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
