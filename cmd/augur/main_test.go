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
			// sleep DURATION
			"sleep": func(ts *testscript.TestScript, neg bool, args []string) {
				d, err := time.ParseDuration(args[0])
				ts.Check(err)
				time.Sleep(d)
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
