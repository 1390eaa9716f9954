package main

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// guardedCommands holds, for every command augur runs, a command line
// that would work in the fixture (with tok, a token file, added) and
// the inputs it reads, the spec a checks file or a report names
// included. A new command needs a line here before
// TestOutputFlagsGuarded passes.
var guardedCommands = map[string]struct {
	args   string
	inputs []string
}{
	"augur bench":                 {"bench --snapshots 10", nil},
	"augur bench quality":         {"bench quality --seeds 1-1", nil},
	"augur bench steer":           {"bench steer --seeds 1-1 --testbeds chord --promoted chord=checks.yaml", []string{"checks.yaml"}},
	"augur bench testbeds":        {"bench testbeds --seeds 1-1 --testbeds randtree", nil},
	"augur check":                 {"check checks.yaml run.trace", []string{"checks.yaml", "spec.yaml", "run.trace", "run.trace/manifest.json"}},
	"augur collect":               {"collect run.jsonl --spec spec.yaml -o new.trace", []string{"run.jsonl", "spec.yaml"}},
	"augur demo":                  {"demo --steps 10 -q --baseline other.trace", []string{"other.trace", "other.trace/states.arrow"}},
	"augur explain":               {"explain spec.yaml run.trace n0.term>=0 --baseline other.trace", []string{"spec.yaml", "run.trace", "other.trace/manifest.json"}},
	"augur generate":              {"generate spec.yaml run.trace", []string{"spec.yaml", "run.trace", "run.trace/snapshots.arrow"}},
	"augur infer":                 {"infer spec.yaml run.trace -q --baseline other.trace", []string{"spec.yaml", "run.trace", "run.trace/manifest.json", "other.trace"}},
	"augur merge":                 {"merge p0.arrow p1.arrow -o m.arrow", []string{"p0.arrow", "p1.arrow"}},
	"augur learn":                 {"learn spec.yaml run.trace --vet other.trace -o l.yaml", []string{"spec.yaml", "run.trace", "run.trace/manifest.json", "other.trace"}},
	"augur monitor":               {"monitor checks.yaml --listen 127.0.0.1:0 --token-file tok", []string{"checks.yaml", "spec.yaml", "tok"}},
	"augur monitor load":          {"monitor load --nodes 2 --rates 10 --duration 1s --url http://127.0.0.1:1 --token-file tok", []string{"tok"}},
	"augur monitor push":          {"monitor push run.jsonl --url http://127.0.0.1:1 --token-file tok", []string{"run.jsonl", "tok"}},
	"augur monitor watch":         {"monitor watch --url http://127.0.0.1:1 --token-file tok", []string{"tok"}},
	"augur promote":               {"promote report.json --select 1 -o c.yaml", []string{"report.json", "spec.yaml"}},
	"augur report":                {"report spec.yaml run.trace stats.arrow", []string{"spec.yaml", "run.trace", "run.trace/states.arrow", "stats.arrow"}},
	"augur score":                 {"score report.json", []string{"report.json"}},
	"augur spec check":            {"spec check spec.yaml run.trace", []string{"spec.yaml", "run.trace", "run.trace/manifest.json"}},
	"augur spec init":             {"spec init run.trace", []string{"run.trace", "run.trace/manifest.json"}},
	"augur testbed list":          {"testbed list", nil},
	"augur testbed run":           {"testbed run randtree --steps 10 --guard checks.yaml --steer steer/checks.yaml -o new.trace", []string{"checks.yaml", "spec.yaml", "steer", "steer/checks.yaml"}},
	"augur testbed vet":           {"testbed vet randtree checks.yaml --seeds 1-1 -o v.yaml", []string{"checks.yaml", "spec.yaml"}},
	"augur version":               {"version", nil},
	"augur help":                  {"help", nil},
	"augur completion bash":       {"completion bash", nil},
	"augur completion fish":       {"completion fish", nil},
	"augur completion powershell": {"completion powershell", nil},
	"augur completion zsh":        {"completion zsh", nil},
}

// TestOutputFlagsGuarded points every output flag of every command, from
// the cobra tree, at every input of a command line of it, and checks that
// the command refuses with exit status 2 before it runs and leaves every
// file as it was (issue 31, item 1).
func TestOutputFlagsGuarded(t *testing.T) {
	fix := fixture(t)
	writeFile(t, filepath.Join(fix, "tok"), "a-token-of-at-least-sixteen-bytes\n")
	checks, err := os.ReadFile(filepath.Join(fix, "checks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(fix, "steer", "checks.yaml"), strings.Replace(string(checks), "spec: spec.yaml", "spec: ../spec.yaml", 1))
	cases := 0
	walkCommands(newRootCmd(), func(cmd *cobra.Command) {
		line, ok := guardedCommands[cmd.CommandPath()]
		if !ok {
			t.Errorf("%s: no command line in guardedCommands", cmd.CommandPath())
			return
		}
		cmd.Flags().AddFlagSet(cmd.InheritedFlags())
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if _, ok := f.Annotations[outputAnnotation]; !ok {
				return
			}
			for _, in := range line.inputs {
				cases++
				args := append(strings.Fields(line.args), "--"+f.Name, in)
				t.Run(strings.Join(args, " "), func(t *testing.T) {
					dir := t.TempDir()
					copyTree(t, fix, dir)
					refused(t, dir, args, `output `+regexp.QuoteMeta(in)+`: .*(input|trace directory|names a directory)`)
				})
			}
		})
	})
	t.Logf("%d output flags pointed at inputs", cases)
}

// TestOutputFlagsAnnotated checks that every flag whose value may name a
// file is either an output flag (see outputFlag) or known to be read
// only, so that a new output flag cannot miss the guard.
func TestOutputFlagsAnnotated(t *testing.T) {
	notWritten := map[string]bool{
		"baseline": true, "bug": true, "checks": true, "evaluator": true, "evaluators": true, "faults": true,
		"family": true, "format": true, "guard": true, "invariants": true, "length": true, "listen": true,
		"max-body": true, "max-held": true, "max-inflight": true, "max-record": true, "modes": true, "monitor-flags": true, "nodes": true, "only-tag": true, "promoted": true, "rates": true,
		"seeds": true, "select": true, "shard": true, "spec": true, "steer": true, "system": true, "tag": true,
		"testbeds": true, "tls-cert": true, "tls-key": true, "token-file": true, "url": true, "vet": true, "workload": true,
	}
	walkCommands(newRootCmd(), func(cmd *cobra.Command) {
		cmd.Flags().AddFlagSet(cmd.InheritedFlags())
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			_, out := f.Annotations[outputAnnotation]
			if flagPaths(f) == nil || out || notWritten[f.Name] {
				return
			}
			t.Errorf("%s --%s: neither an output flag nor known to be read only", cmd.CommandPath(), f.Name)
		})
	})
}

// walkCommands calls visit on every runnable command of the tree of
// root, the help and completion commands cobra adds included.
func walkCommands(root *cobra.Command, visit func(*cobra.Command)) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			if s.Runnable() {
				visit(s)
			}
			walk(s)
		}
	}
	walk(root)
}

// refused runs augur with args in dir and checks that it fails with exit
// status 2, stderr matching the regular expression want, and every file
// under dir unchanged. A command that should have been refused at once
// is stopped after a while, so that a monitor does not serve forever.
func refused(t *testing.T, dir string, args []string, want string) {
	t.Helper()
	before := sums(t, dir)
	t.Chdir(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	if code := run(ctx, args, &stdout, &stderr); code != exitError {
		t.Errorf("exit %d, want %d\nstderr: %s", code, exitError, stderr.String())
	}
	if !regexp.MustCompile(want).MatchString(stderr.String()) {
		t.Errorf("stderr %q does not match %q", stderr.String(), want)
	}
	if after := sums(t, dir); !maps.Equal(before, after) {
		t.Errorf("files changed:\nbefore %v\nafter  %v", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
	}
}

// TestCPUProfileReplaced checks that --cpuprofile replaces its file as
// every output does, renaming a complete profile over it, so that a
// file hard-linked to it keeps its content (it was written in place).
func TestCPUProfileReplaced(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, fixture(t), dir)
	t.Chdir(dir)
	writeFile(t, "notes.txt", "kept\n")
	if err := os.Link("notes.txt", "cpu.prof"); err != nil {
		t.Fatal(err)
	}
	augur(t, "spec", "check", "spec.yaml", "run.trace", "--cpuprofile", "cpu.prof")
	if got, err := os.ReadFile("notes.txt"); err != nil || string(got) != "kept\n" {
		t.Errorf("notes.txt hard-linked to the profile = %q, %v; want it kept", got, err)
	}
	if info, err := os.Stat("cpu.prof"); err != nil || info.Size() == 0 {
		t.Errorf("profile: %v, %v; want a profile", info, err)
	}
	if tmp, _ := filepath.Glob(".cpu.prof.tmp-*"); len(tmp) > 0 {
		t.Errorf("temporary files left: %q", tmp)
	}
}

// TestCPUProfileLost checks that a profile that cannot be written fails
// the command: pprof drops its write errors, and a profile into /dev/full
// exited 0 with nothing written.
func TestCPUProfileLost(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here:", err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"version", "--cpuprofile", "/dev/full"}, &stdout, &stderr)
	if code != exitError || !strings.Contains(stderr.String(), "--cpuprofile: write /dev/full: no space left on device") {
		t.Errorf("exit %d, stderr %q; want status 2 saying why", code, stderr.String())
	}
}

// TestOutputsAsASet checks that infer replaces its reports and stats as a
// set: when one of them cannot be written (here a named pipe no process
// reads), the others are as they were, not half the set new (issue 31).
func TestOutputsAsASet(t *testing.T) {
	dir := t.TempDir()
	in := func(name string) string { return filepath.Join(dir, name) }
	augur(t, "collect", "../../testdata/small.jsonl", "-o", in("small.trace"))
	if err := syscall.Mkfifo(in("out.md"), 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	for _, name := range []string{"out.json", "out.arrow"} {
		if err := os.WriteFile(in(name), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"infer", "../../testdata/small.yaml", in("small.trace"), "-q",
		"--stats", in("out.arrow"), "-o", in("out.json"), "-o", in("out.md")}, &stdout, &stderr)
	if code != exitError || !strings.Contains(stderr.String(), "no process reads") {
		t.Fatalf("exit %d, stderr %q; want status 2 naming the pipe", code, stderr.String())
	}
	for _, name := range []string{"out.json", "out.arrow"} {
		if data, _ := os.ReadFile(in(name)); string(data) != "old" {
			t.Errorf("%s was replaced by a run that failed to write out.md", name)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "tmp") {
			t.Errorf("left %s", e.Name())
		}
	}
}

// failingWriter fails every write, as standard output on a full disk.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestStdoutLost checks that a command whose result is lost writing to
// standard output fails, whatever it returns: version and testbed list
// exited 0 into a full disk.
func TestStdoutLost(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"testbed", "list"}} {
		var stderr bytes.Buffer
		code := run(context.Background(), args, failingWriter{}, &stderr)
		if code != exitError || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("%v into a full disk: exit %d, stderr %q; want status 2 saying why", args, code, stderr.String())
		}
	}
}
