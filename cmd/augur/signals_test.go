package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/trace"
)

// signalCPU is the CPU time a command may take between a signal and its
// exit. It is CPU time, not wall time, so that a loaded machine does not
// make the test fail: the machine running go test ./... is often busy
// with other packages.
const signalCPU = time.Second

// TestSignals starts each long command on an input that keeps it busy
// for seconds, signals it once it has worked 0.2 s of CPU, and checks
// that it exits with status 2 within signalCPU of CPU time, saying it
// was interrupted, with nothing on stdout, no temporary file left, and
// its output as it was before (issue 31, item 3).
func TestSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("writes inputs of seconds of work")
	}
	dir := t.TempDir()
	in := func(name string) string { return filepath.Join(dir, name) }
	// One snapshot of 1,000 nodes: a property over three nodes has 10^9
	// bindings, one over two 10^6.
	writeIntTrace(t, in("wide.trace"), 1000, 1, 2)
	// 200,000 states of 20 integers, over a second of CPU for spec init.
	writeIntTrace(t, in("ints.trace"), 1, 200000, 20)
	// Properties over three of the 1,000 nodes: minutes of work for infer.
	wide := "system: wide\ntypes:\n  X: int64\nvariables:\n  x0: X\n  x1: X\ngenerate:\n  max_nodes: 3\n"
	if err := os.WriteFile(in("wide.yaml"), []byte(wide), 0o644); err != nil {
		t.Fatal(err)
	}
	augur(t, "collect", "../../testdata/small.jsonl", "-o", in("small.trace"))
	for x := range 2 {
		augur(t, "infer", "../../testdata/small.yaml", in("small.trace"), "-q", "--shard", fmt.Sprintf("%d/2", x), "--stats", in(fmt.Sprintf("p%d.arrow", x)))
	}
	checks := "checks:\n  - name: three\n    property: 'forall n0, n1, n2 in nodes: n0.x0 != n1.x0 or n1.x1 <= n2.x1'\n"
	if err := os.WriteFile(in("three.yaml"), []byte(checks), 0o644); err != nil {
		t.Fatal(err)
	}
	var big strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&big, `{"snapshot":%d,"nodes":{"a":{"x":%d},"b":{"x":%d}}}`+"\n", i, i, i%7)
	}
	if err := os.WriteFile(in("big.jsonl"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	augur(t, "collect", "../../testdata/small.jsonl", "-o", in("run.trace"))
	// report reads stats of 66,000 properties and generates and compiles
	// the pool again: seconds of CPU, which took no context.
	writeIntTrace(t, in("vars.trace"), 3, 20, 8)
	augur(t, "spec", "init", in("vars.trace"), "-o", in("vars.yaml"))
	augur(t, "infer", in("vars.yaml"), in("vars.trace"), "-q", "--stats", in("vars.arrow"))
	// learn generates and compiles its pool first, over 12 integers:
	// about two seconds of CPU, which took no context.
	writeIntTrace(t, in("learn.trace"), 3, 20, 12)
	augur(t, "spec", "init", in("learn.trace"), "-o", in("learn.yaml"))
	// merge reads every part whole after checking their headers: 16
	// shards, since a part given twice is refused before any is read.
	parts := []string{"merge"}
	for x := range 16 {
		p := in(fmt.Sprintf("s%d.arrow", x))
		augur(t, "infer", "../../testdata/small.yaml", in("small.trace"), "-q", "--shard", fmt.Sprintf("%d/16", x), "--stats", p)
		parts = append(parts, p)
	}

	for _, c := range []struct {
		name   string
		args   []string
		sig    syscall.Signal
		output string // the output file or directory, "" for stdout alone
	}{
		{"check 10^9 bindings", []string{"check", in("three.yaml"), in("wide.trace")}, syscall.SIGINT, ""},
		{"spec init", []string{"spec", "init", in("ints.trace"), "-o", in("spec.yaml")}, syscall.SIGTERM, in("spec.yaml")},
		{"merge", append(parts, "-o", in("merged.arrow")), syscall.SIGTERM, in("merged.arrow")},
		{"infer", []string{"infer", in("wide.yaml"), in("wide.trace"), "-q", "--no-filter", "--format", "json", "-o", in("report.json")}, syscall.SIGINT, in("report.json")},
		{"collect", []string{"collect", in("big.jsonl"), "-o", in("run.trace")}, syscall.SIGINT, in("run.trace")},
		{"report", []string{"report", in("vars.yaml"), in("vars.trace"), in("vars.arrow"), "-o", in("vars.txt")}, syscall.SIGHUP, in("vars.txt")},
		{"learn", []string{"learn", in("learn.yaml"), in("learn.trace"), "-o", in("learned.yaml")}, syscall.SIGINT, in("learned.yaml")},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := ""
			if c.output != "" {
				if _, err := os.Stat(c.output); errors.Is(err, os.ErrNotExist) {
					if err := os.WriteFile(c.output, []byte("an earlier output\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				before = fileContents(t, c.output)
			}
			cmd := exec.Command("augur", c.args...)
			cmd.Dir = dir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			var worked time.Duration
			for worked < 200*time.Millisecond {
				select {
				case err := <-exited:
					t.Fatalf("augur %s ended (%v) before it was signaled, after %v of CPU; give it more work\n%s", c.name, err, worked, stderr.String())
				case <-time.After(10 * time.Millisecond):
				}
				worked = cpuTime(t, cmd.Process.Pid)
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			signaled := time.Now()
			var err error
			select {
			case err = <-exited:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-exited
				t.Fatalf("augur %s still ran 30 s after %v", c.name, c.sig)
			}
			st := cmd.ProcessState
			after := st.UserTime() + st.SystemTime() - worked
			t.Logf("%v at %v of CPU; exited after %v (%v of CPU)", c.sig, worked.Round(time.Millisecond), time.Since(signaled).Round(time.Millisecond), after.Round(time.Millisecond))
			if st.ExitCode() != exitError || !strings.Contains(stderr.String(), "interrupted; nothing written") {
				t.Errorf("exit %v, stderr %q; want status 2 and 'interrupted; nothing written'", err, stderr.String())
			}
			if after > signalCPU {
				t.Errorf("took %v of CPU after %v, more than %v", after, c.sig, signalCPU)
			}
			if stdout.Len() > 0 {
				t.Errorf("partial output on stdout: %.200q", stdout.String())
			}
			if c.output != "" && fileContents(t, c.output) != before {
				t.Errorf("%s changed", c.output)
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				if strings.Contains(e.Name(), "tmp") {
					t.Errorf("left %s", e.Name())
				}
			}
		})
	}
}

// TestInterrupted checks the one message of a command that a signal
// stopped: the words of the error, where the work stopped, with the
// canceled context's replaced.
func TestInterrupted(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{context.Canceled, "interrupted; nothing written"},
		{fmt.Errorf("collect run.trace: %w", context.Canceled), "collect run.trace: interrupted; nothing written"},
		{fmt.Errorf("bench: %w", fmt.Errorf("testbed run x.trace: %w", context.Canceled)), "bench: testbed run x.trace: interrupted; nothing written"},
		{errors.Join(context.Canceled, errors.New("and more")), "interrupted; nothing written"},
	} {
		if got := interrupted(tt.err); got != tt.want {
			t.Errorf("interrupted(%q) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// writeIntTrace writes a trace of the given numbers of nodes, snapshots
// and int64 columns x0, x1, …, each state new.
func writeIntTrace(t *testing.T, dir string, nodes, snapshots, cols int) {
	t.Helper()
	var schema trace.Schema
	for c := range cols {
		schema = append(schema, trace.Column{Name: "x" + strconv.Itoa(c), Type: arrow.PrimitiveTypes.Int64})
	}
	w, err := trace.Create(dir, schema, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vars := make([]any, cols)
	members := make([]uint32, nodes)
	for i := range snapshots {
		for n := range members {
			for c := range vars {
				vars[c] = int64((i+n)*(c+1) + c)
			}
			if members[n], err = w.AddState(fmt.Sprintf("n%04d", n), uint64(i), vars); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.AddSnapshot(trace.Snapshot{ID: uint64(i), TS: uint64(i), Members: members}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// fileContents returns the content of the file at path, or of every file
// of the directory, for comparison.
func fileContents(t *testing.T, path string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		fmt.Fprintf(&b, "%s %d %x\n", p, len(data), data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// cpuTime returns the CPU time, user and system, that process pid has
// used so far, from /proc.
func cpuTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0 // gone: the caller sees it exit
	}
	// Fields 14 and 15, utime and stime in clock ticks (1/100 s on
	// Linux), follow the command name, which is in parentheses.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// TestWatchdog checks that the process is ended a grace after the
// signal when the command has not returned, and only then.
func TestWatchdog(t *testing.T) {
	const grace = 50 * time.Millisecond
	for _, tt := range []struct {
		name     string
		signaled bool
		returns  time.Duration // when the command returns; 0: never
		ended    bool
	}{
		{"not signaled", false, 200 * time.Millisecond, false},
		{"stops on its own", true, grace / 5, false},
		{"does not stop", true, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.signaled {
				cancel()
			}
			done, exited := make(chan struct{}), make(chan int, 1)
			if tt.returns > 0 {
				time.AfterFunc(tt.returns, func() { close(done) })
			}
			var stderr bytes.Buffer
			go func() {
				watchdog(ctx, done, grace, &stderr, func(code int) { exited <- code })
				close(exited)
			}()
			select {
			case code, ok := <-exited:
				if ended := ok; ended != tt.ended || (ok && code != exitError) {
					t.Errorf("ended %v with status %d, want ended %v with status %d", ended, code, tt.ended, exitError)
				}
				if ok && !strings.Contains(stderr.String(), "interrupted; nothing written") {
					t.Errorf("stderr %q", stderr.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("watchdog neither ended the process nor returned")
			}
		})
	}
}

// TestSignalDeafWrite checks that a command blocked in a write that
// never completes, to a named pipe that its reader never reads, ends
// soon after SIGINT, its other outputs as they were (issue 31).
func TestSignalDeafWrite(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "stats.fifo")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	held, err := os.OpenFile(pipe, os.O_RDWR, 0) // open, never read
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	augur(t, "collect", "../../testdata/small.jsonl", "-o", filepath.Join(dir, "small.trace"))
	cmd := exec.Command("augur", "infer", "../../testdata/small.yaml", filepath.Join(dir, "small.trace"), "-q", "--stats", pipe)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// The stats are written once the run is done: wait until the pipe
	// holds what it can.
	for {
		select {
		case err := <-exited:
			t.Fatalf("augur infer ended (%v) before it was signaled: %s", err, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		var n int
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, held.Fd(), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno == 0 && n > 0 {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatal("augur infer still ran 30 s after SIGINT, blocked writing to a pipe no one reads")
	}
	if code := cmd.ProcessState.ExitCode(); code != exitError || !strings.Contains(stderr.String(), "interrupted; nothing written") {
		t.Errorf("exit status %d, stderr %q; want 2 and 'interrupted; nothing written'", code, stderr.String())
	}
}
