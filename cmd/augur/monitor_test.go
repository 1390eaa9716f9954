package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/augur-dev/augur/monitor"
)

// TestMonitorScripts runs the end-to-end scripts of augur monitor in
// testdata/monitor. They start a monitor in the background on a port of
// 127.0.0.1 it picks, and talk to it with these commands:
//
//	waitaddr FILE                    wait for the monitor's --addr-file; $ADDR is its address
//	fetch [-token T] METHOD PATH [FILE]  a request to $ADDR: prints the status, then the body
//	waitmetric LINE                  wait until GET /metrics (token $AUGUR_MONITOR_TOKEN) has LINE
//	sameviolations MONITOR CHECK     the violation lines a monitor printed are those of augur check --format json
func TestMonitorScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/monitor",
		UpdateScripts: *update,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitaddr":       cmdWaitAddr,
			"fetch":          cmdFetch,
			"waitmetric":     cmdWaitMetric,
			"sameviolations": cmdSameViolations,
		},
	})
}

func cmdWaitAddr(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitaddr FILE")
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(ts.MkAbs(args[0])); err == nil && len(bytes.TrimSpace(b)) > 0 {
			ts.Setenv("ADDR", string(bytes.TrimSpace(b)))
			return
		}
	}
	ts.Fatalf("no address in %s after 20s", args[0])
}

func cmdFetch(ts *testscript.TestScript, neg bool, args []string) {
	token := ""
	if len(args) >= 2 && args[0] == "-token" {
		token, args = args[1], args[2:]
	}
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: fetch [-token T] METHOD PATH [FILE]")
	}
	var body io.Reader
	if len(args) == 3 {
		b, err := os.ReadFile(ts.MkAbs(args[2]))
		ts.Check(err)
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(args[0], "http://"+ts.Getenv("ADDR")+args[1], body)
	ts.Check(err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	ts.Check(err)
	fmt.Fprintf(ts.Stdout(), "%d\n%s", resp.StatusCode, b)
}

func cmdWaitMetric(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitmetric LINE")
	}
	client := &http.Client{Timeout: 5 * time.Second}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		req, err := http.NewRequest("GET", "http://"+ts.Getenv("ADDR")+"/metrics", nil)
		ts.Check(err)
		req.Header.Set("Authorization", "Bearer "+ts.Getenv(monitor.TokenEnv))
		resp, err := client.Do(req)
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for l := range strings.Lines(string(b)) {
			if strings.TrimSpace(l) == args[0] {
				return
			}
		}
	}
	ts.Fatalf("no line %q in the metrics after 20s", args[0])
}

// cmdSameViolations compares the violation lines of a monitor with the
// witnesses of augur check --format json (run with enough witnesses).
func cmdSameViolations(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: sameviolations MONITOR-OUTPUT CHECK-JSON")
	}
	var online []string
	for l := range strings.Lines(ts.ReadFile(args[0])) {
		var v map[string]any
		ts.Check(json.Unmarshal([]byte(l), &v))
		b, _ := json.Marshal(v)
		online = append(online, string(b))
	}
	var report struct {
		Checks []struct {
			Name, Property string
			Violations     int64 `json:"violating_snapshots"`
			Witnesses      []struct {
				Snapshot, TS    uint64
				Binding, Values map[string]any
			}
		}
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[1])), &report))
	var offline []string
	for _, c := range report.Checks {
		if int64(len(c.Witnesses)) != c.Violations {
			ts.Fatalf("check %s: %d witnesses of %d violating snapshots: raise --max-witnesses", c.Name, len(c.Witnesses), c.Violations)
		}
		for _, w := range c.Witnesses {
			b, _ := json.Marshal(map[string]any{"check": c.Name, "property": c.Property, "snapshot": w.Snapshot,
				"ts": w.TS, "binding": w.Binding, "values": w.Values})
			offline = append(offline, string(b))
		}
	}
	slices.Sort(online)
	slices.Sort(offline)
	same := slices.Equal(online, offline)
	switch {
	case same && neg:
		ts.Fatalf("%s and %s hold the same %d violations", args[0], args[1], len(online))
	case !same && !neg:
		ts.Fatalf("online (%d):\n%s\noffline (%d):\n%s", len(online), strings.Join(online, "\n"), len(offline), strings.Join(offline, "\n"))
	}
}

// TestMonitorSIGTERM checks that SIGTERM stops augur monitor cleanly: it
// makes its last cuts, closes the recording and returns.
func TestMonitorSIGTERM(t *testing.T) {
	dir := t.TempDir()
	checks := filepath.Join(dir, "checks.yaml")
	os.WriteFile(filepath.Join(dir, "spec.yaml"), []byte("system: toy\nvariables:\n  term: int64\n  role: string\n"), 0o644)
	os.WriteFile(checks, []byte("spec: spec.yaml\nchecks:\n  - name: one-leader\n    property: 'forall n0, n1 in nodes: n0.term != n1.term or n0.role != \"leader\" or n1.role != \"leader\"'\n"), 0o644)
	t.Setenv(monitor.TokenEnv, "tok")
	addr := filepath.Join(dir, "addr")
	var stdout, stderr bytes.Buffer
	o := &monitorOptions{cfg: monitor.RunConfig{Checks: checks, Listen: "127.0.0.1:0", AddrFile: addr, MaxBody: "1MiB",
		Options: monitor.Options{Record: filepath.Join(dir, "live.trace"), MaxNodes: 10, MaxBuffered: 1000, SubscriberBuffer: 10}},
		stdout: &stdout, stderr: &stderr}
	done := make(chan error, 1)
	go func() { done <- runMonitor(context.Background(), o) }()
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == ""; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(addr); err == nil && len(b) > 0 {
			base = "http://" + strings.TrimSpace(string(b))
		}
		if time.Now().After(deadline) {
			t.Fatalf("no address: %s", stderr.String())
		}
	}
	req, _ := http.NewRequest("POST", base+"/v1/records", strings.NewReader(
		`{"node":"n1","ts":1,"state":{"term":1,"role":"leader"}}`+"\n"+`{"node":"n2","ts":2,"state":{"term":1,"role":"leader"}}`+"\n"+`{"node":"n1","ts":3,"heartbeat":true}`+"\n"))
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	}
	// The signal handler is installed before the address is written.
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, errViolations) {
			t.Fatalf("runMonitor: %v, want the violation reported; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("SIGTERM did not stop the monitor")
	}
	if _, err := os.Stat(filepath.Join(dir, "live.trace", "manifest.json")); err != nil {
		t.Errorf("no recorded trace: %v\n%s", err, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "live.trace.journal.jsonl")); !os.IsNotExist(err) {
		t.Errorf("journal left: %v", err)
	}
	if !strings.Contains(stdout.String(), `"snapshot":1,"ts":2,"binding":{"n0":"n1","n1":"n2"}`) {
		t.Errorf("stdout:\n%s", stdout.String())
	}
}

// TestMonitorFlags checks that augur monitor's flags reach its options.
func TestMonitorFlags(t *testing.T) {
	var got *monitorOptions
	cmd := newMonitorCmd(func(o *monitorOptions) error { got = o; return nil })
	execute(t, cmd, "c.yaml", "--listen", ":9", "--token-file", "tok", "--record", "r.trace", "--tls-cert", "c.pem", "--tls-key", "k.pem",
		"--max-body", "1MiB", "--max-inflight", "3MiB", "--max-record", "1KiB", "--max-held", "2MiB", "--max-streams", "5", "--max-nodes", "7", "--nodes", "3", "--fail-after", "2s", "--fail-after-ts", "40", "--collapse", "-q", "--spec", "s.yaml")
	want := monitorOptions{cfg: monitor.RunConfig{Checks: "c.yaml", Spec: "s.yaml", Listen: ":9", TokenFile: "tok", TLSCert: "c.pem", TLSKey: "k.pem",
		MaxBody: "1MiB", MaxInflight: "3MiB", MaxRecord: "1KiB", MaxHeld: "2MiB", Options: monitor.Options{Record: "r.trace", MaxNodes: 7, MaxNodeName: monitor.DefaultMaxNodeName, Nodes: 3, MaxBuffered: 1 << 16, SubscriberBuffer: 4096, MaxStreams: 5,
			FailAfter: 2 * time.Second, FailAfterTS: 40, Collapse: true}}, quiet: true}
	got.stdout, got.stderr = nil, nil
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("got %+v\nwant %+v", *got, want)
	}
}
