package monitor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRun serves the toy checks with Run, pushes two leaders through a
// Client, follows the stream with Watch, and stops the monitor.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	tokenFile, addrFile := filepath.Join(dir, "token"), filepath.Join(dir, "addr")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var log, violations syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type ran struct {
		s   Stats
		err error
	}
	done := make(chan ran, 1)
	go func() {
		s, err := Run(ctx, RunConfig{Checks: "testdata/checks.yaml", Listen: "127.0.0.1:0", AddrFile: addrFile,
			TokenFile: tokenFile, MaxBody: "1MiB", Options: Options{Violations: &violations, Log: &log}})
		done <- ran{s, err}
	}()
	var c *Client
	for deadline := time.Now().Add(10 * time.Second); c == nil; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(addrFile); err == nil && len(b) > 0 {
			c = &Client{URL: "http://" + strings.TrimSpace(string(b)), Token: token}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no address: %s", log.String())
		}
	}
	var watched syncBuffer
	watching := make(chan error, 1)
	go func() { watching <- c.Watch(context.Background(), &watched) }()
	// Push only once the watcher is subscribed: a violation before it
	// subscribed is not streamed to it, and a monitor stopped before its
	// request arrived would end it with EOF.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m, err := c.Metrics(ctx); err == nil && m["augur_monitor_subscribers"] == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watcher never subscribed: %s", log.String())
		}
	}
	if _, err := c.Push(ctx, []byte(twoLeaders)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(violations.String(), "one-leader"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no violation: %s", log.String())
		}
	}
	cancel()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.s.Records != 4 || r.s.Violations == 0 {
		t.Errorf("stats %+v", r.s)
	}
	if err := <-watching; err != nil {
		t.Errorf("watch: %v", err)
	}
	if watched.String() != violations.String() {
		t.Errorf("watched:\n%s\nwant the violation lines:\n%s", watched.String(), violations.String())
	}
	for _, want := range []string{"augur monitor: 1 check of testdata/checks.yaml, listening on http://127.0.0.1:", "augur monitor: 4 records (0 late)"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}

// TestRunRefuses checks that Run refuses a bad configuration before it
// listens.
func TestRunRefuses(t *testing.T) {
	t.Setenv(TokenEnv, token)
	for _, tt := range []struct {
		cfg  RunConfig
		want string
	}{
		{RunConfig{Checks: "testdata/checks.yaml", MaxBody: "lots"}, "--max-body: bad size"},
		{RunConfig{Checks: "testdata/checks.yaml", MaxBody: "1MiB", MaxInflight: "0"}, "--max-inflight: bad size"},
		{RunConfig{Checks: "testdata/checks.yaml", MaxBody: "1MiB", MaxRecord: "2GiB"}, "--max-record: 2GiB is over 1GiB"},
		{RunConfig{Checks: "testdata/checks.yaml", MaxBody: "1MiB", MaxHeld: "-1"}, "--max-held: bad size"},
		{RunConfig{Checks: "testdata/checks.yaml", MaxBody: "1MiB", TLSCert: "c.pem"}, "--tls-cert and --tls-key go together"},
		{RunConfig{Checks: "testdata/none.yaml", MaxBody: "1MiB"}, "none.yaml"},
	} {
		if _, err := Run(context.Background(), tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Run(%+v): %v, want %q", tt.cfg, err, tt.want)
		}
	}
}

// TestRunFailedStartKeepsAddrFile checks that a monitor that cannot
// start (its recording exists) leaves the address file as it was: it is
// written only once the monitor can serve, and never removed.
func TestRunFailedStartKeepsAddrFile(t *testing.T) {
	t.Setenv(TokenEnv, token)
	dir := t.TempDir()
	addrFile, record := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "existing.trace")
	if err := os.WriteFile(addrFile, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(record, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), RunConfig{Checks: "testdata/checks.yaml", Listen: "127.0.0.1:0", AddrFile: addrFile,
		MaxBody: "1MiB", Options: Options{Record: record}})
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("Run with an existing recording: %v, want it refused", err)
	}
	if b, err := os.ReadFile(addrFile); err != nil || string(b) != "keep me\n" {
		t.Errorf("address file after a failed start: %q, %v; want it unchanged", b, err)
	}
}
