package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/augur-dev/augur/trace"
)

// The corruption audit of issue 12 is a test behind a flag, not a
// program of its own: it runs augur as the test binary, which
// testscript.Main has put on $PATH, so that each corrupted trace is read
// and inferred on in a process of its own, where a panic, a fatal error or
// an exhausted memory limit is seen and counted instead of ending the run.
// It writes only to temporary directories.
//
//	go test ./cmd/augur -run TestAudit -audit 3000 -timeout 2h -v
//	go test ./cmd/augur -run TestAudit -audit 1 -audit-first 1234 -v   # one case again
//	go test ./cmd/augur -run TestAudit -audit 300 -audit-first 3000 -audit-full -v
var (
	auditN     = flag.Int("audit", 0, "corrupt this many traces, re-sign their manifests and run the reader and augur infer on each (0: skip TestAudit)")
	auditFirst = flag.Int("audit-first", 0, "number of the first audit case (cases are numbered, each with its own random stream)")
	auditSeed  = flag.Uint64("audit-seed", 12, "seed of the audit's random streams")
	auditKeep  = flag.String("audit-keep", "", "keep the traces of failing audit cases under this directory")
	auditFull  = flag.Bool("audit-full", false, "infer with the testbeds' specs as they are, not with one literal per property")
)

// auditMemory is the address space each child may use (ulimit -v, KiB):
// a run that would exhaust it dies of a fatal error, which the audit counts.
const auditMemory = 4 << 20

// auditRead opens the trace named by its argument and reads every snapshot
// and state: the reader's part of the audit, run as the command
// augur-readtrace.
func auditRead() int {
	tr, err := trace.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "augur-readtrace:", err)
		return 2
	}
	defer tr.Close()
	sr := tr.Snapshots()
	defer sr.Close()
	for sr.Next() {
	}
	st := tr.States()
	defer st.Close()
	for row := range tr.NumStates() {
		if _, err := st.State(uint32(row)); err != nil {
			fmt.Fprintln(os.Stderr, "augur-readtrace:", err)
			return 2
		}
	}
	if err := sr.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "augur-readtrace:", err)
		return 2
	}
	return 0
}

// auditBase is a trace of testdata/testbeds, in memory, with a spec for
// it whose pool is small (one literal; -audit-full keeps two), so that an
// infer takes a fraction of a second and the audit reaches thousands of
// cases.
type auditBase struct {
	name  string
	files map[string][]byte
	spec  string // path
}

// outcome is what became of one process of the audit.
type outcome uint8

const (
	outcomeInvalid outcome = iota
	accepted               // exit 0
	rejected               // exit 2 with an error message
	crashed                // a panic or a fatal error (out of memory included)
	killed                 // killed by a signal
	hung                   // still running after the time limit
)

var outcomeText = [...]string{accepted: "accepted", rejected: "rejected", crashed: "panic or fatal error", killed: "killed", hung: "hung"}

func (o outcome) String() string { return outcomeText[o] }

// TestAudit corrupts -audit traces at random (bytes flipped anywhere,
// runs overwritten, words set to extreme values, chunks copied, files
// cut), re-signs their manifests' SHA-256 so that the checksum does not
// catch the damage, and runs augur-readtrace and augur infer on each. It
// fails on any panic, fatal error, kill or hang, naming the case.
func TestAudit(t *testing.T) {
	if *auditN == 0 {
		t.Skip("run with -audit N")
	}
	augur, err := exec.LookPath("augur")
	if err != nil {
		t.Fatal(err)
	}
	read, err := exec.LookPath("augur-readtrace")
	if err != nil {
		t.Fatal(err)
	}
	bases := auditBases(t)
	type tally struct {
		sync.Mutex
		counts  map[string]int
		maxRSS  int64
		failed  []string
		started time.Time
	}
	tl := tally{counts: map[string]int{}, started: time.Now()}
	cases := make(chan int)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			dir := t.TempDir()
			for i := range cases {
				b, damage := corruptCase(t, bases, i, filepath.Join(dir, "c.trace"))
				for _, run := range []struct {
					what string
					argv []string
				}{
					{"read", []string{read, filepath.Join(dir, "c.trace")}},
					{"infer", []string{augur, "infer", b.spec, filepath.Join(dir, "c.trace"), "-q", "--workers", "1", "-o", filepath.Join(dir, "report.txt")}},
				} {
					o, rss, stderr := auditRun(run.argv)
					tl.Lock()
					tl.counts[run.what+" "+o.String()]++
					tl.maxRSS = max(tl.maxRSS, rss)
					if o != accepted && o != rejected {
						tl.failed = append(tl.failed, fmt.Sprintf("case %d (%s, %s): %s %s: %s", i, b.name, damage, run.what, o, firstLines(stderr, 3)))
						keepCase(t, dir, i)
					}
					tl.Unlock()
				}
			}
		})
	}
	for i := *auditFirst; i < *auditFirst+*auditN; i++ {
		cases <- i
	}
	close(cases)
	wg.Wait()
	var lines []string
	for k, n := range tl.counts {
		lines = append(lines, fmt.Sprintf("%s: %d", k, n))
	}
	slices.Sort(lines)
	t.Logf("audit of %d corrupted traces (cases %d..%d, seed %d) in %s, peak RSS of a child %d MiB:\n  %s",
		*auditN, *auditFirst, *auditFirst+*auditN-1, *auditSeed, time.Since(tl.started).Round(time.Second), tl.maxRSS>>10, strings.Join(lines, "\n  "))
	for _, f := range tl.failed {
		t.Error(f)
	}
}

// auditBases loads the testbed traces and writes their light specs.
func auditBases(t *testing.T) []auditBase {
	dirs, err := filepath.Glob("../../testdata/testbeds/*.trace")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no testbed traces: %v", err)
	}
	var bases []auditBase
	specDir := t.TempDir()
	for _, dir := range dirs {
		name := strings.TrimSuffix(filepath.Base(dir), ".trace")
		system, _, _ := strings.Cut(name, "-")
		spec, err := os.ReadFile(filepath.Join("../../specs", system+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		light := spec
		if !*auditFull {
			light = bytes.Replace(spec, []byte("max_literals: 2"), []byte("max_literals: 1"), 1)
		}
		b := auditBase{name: name, files: map[string][]byte{}, spec: filepath.Join(specDir, system+".yaml")}
		if err := os.WriteFile(b.spec, light, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{trace.ManifestFile, trace.StatesFile, trace.SnapshotsFile} {
			if b.files[f], err = os.ReadFile(filepath.Join(dir, f)); err != nil {
				t.Fatal(err)
			}
		}
		bases = append(bases, b)
	}
	return bases
}

// corruptCase writes case i to dir: a base trace, one or both of whose
// Arrow files are damaged, with a manifest re-signed to match. It returns
// the base and a description of the damage.
func corruptCase(t *testing.T, bases []auditBase, i int, dir string) (auditBase, string) {
	rng := rand.New(rand.NewPCG(*auditSeed, uint64(i)))
	b := bases[rng.IntN(len(bases))]
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	names := []string{trace.StatesFile, trace.SnapshotsFile}
	damaged := names[rng.IntN(2):][:1]
	if rng.IntN(8) == 0 {
		damaged = names
	}
	var what []string
	var m map[string]any
	if err := json.Unmarshal(b.files[trace.ManifestFile], &m); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		data := bytes.Clone(b.files[name])
		if slices.Contains(damaged, name) {
			var damage string
			data, damage = corrupt(rng, data)
			what = append(what, name+" "+damage)
			sum := sha256.Sum256(data)
			m["sha256"].(map[string]any)[name] = hex.EncodeToString(sum[:])
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, trace.ManifestFile), out, 0o644); err != nil {
		t.Fatal(err)
	}
	return b, strings.Join(what, ", ")
}

// corrupt damages data in one of several ways, chosen by rng, and says
// how.
func corrupt(rng *rand.Rand, data []byte) ([]byte, string) {
	n := len(data)
	switch rng.IntN(6) {
	case 0: // a few bytes flipped anywhere
		c := 1 + rng.IntN(8)
		for range c {
			data[rng.IntN(n)] ^= byte(1 + rng.IntN(255))
		}
		return data, fmt.Sprintf("%d bytes flipped", c)
	case 1: // bytes flipped in the metadata at either end (schema, footer)
		c := 1 + rng.IntN(4)
		for range c {
			p := rng.IntN(min(n, 512))
			if rng.IntN(2) == 0 {
				p = n - 1 - p
			}
			data[p] ^= byte(1 + rng.IntN(255))
		}
		return data, fmt.Sprintf("%d metadata bytes flipped", c)
	case 2: // a run overwritten with random bytes
		p := rng.IntN(n)
		l := min(1+rng.IntN(64), n-p)
		for j := range l {
			data[p+j] = byte(rng.IntN(256))
		}
		return data, fmt.Sprintf("%d bytes at %d overwritten", l, p)
	case 3: // an aligned word set to an extreme value
		p := rng.IntN(n/4) * 4
		v := []uint32{0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffff8, uint32(n), 1 << 20}[rng.IntN(8)]
		binary.LittleEndian.PutUint32(data[p:], v)
		return data, fmt.Sprintf("word at %d set to %#x", p, v)
	case 4: // a chunk copied over another place
		l := 1 + rng.IntN(min(256, n))
		src, dst := rng.IntN(n-l+1), rng.IntN(n-l+1)
		copy(data[dst:dst+l], data[src:src+l])
		return data, fmt.Sprintf("%d bytes copied from %d to %d", l, src, dst)
	default: // cut short
		c := rng.IntN(n)
		return data[:c], fmt.Sprintf("cut at %d of %d bytes", c, n)
	}
}

// auditRun runs argv with a memory limit and a time limit, and returns
// what became of it, its peak RSS in KiB and its stderr.
func auditRun(argv []string) (outcome, int64, []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", fmt.Sprintf(`ulimit -v %d && exec "$0" "$@"`, auditMemory)}, argv...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var rss int64
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss
		}
	}
	s := stderr.Bytes()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return hung, rss, s
	case bytes.Contains(s, []byte("panic: ")) || bytes.Contains(s, []byte("fatal error: ")) || bytes.Contains(s, []byte("goroutine ")):
		return crashed, rss, s
	case err == nil:
		return accepted, rss, s
	case errors.As(err, &ee) && ee.ExitCode() == 2 && len(bytes.TrimSpace(s)) > 0:
		return rejected, rss, s
	case errors.As(err, &ee) && ee.ProcessState.Sys().(syscall.WaitStatus).Signaled():
		return killed, rss, s
	}
	return crashed, rss, s
}

// keepCase copies the trace of a failing case under -audit-keep.
func keepCase(t *testing.T, dir string, i int) {
	if *auditKeep == "" {
		return
	}
	dst := filepath.Join(*auditKeep, fmt.Sprintf("case%d.trace", i))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Error(err)
		return
	}
	for _, f := range []string{trace.ManifestFile, trace.StatesFile, trace.SnapshotsFile} {
		data, err := os.ReadFile(filepath.Join(dir, "c.trace", f))
		if err == nil {
			err = os.WriteFile(filepath.Join(dst, f), data, 0o644)
		}
		if err != nil {
			t.Error(err)
		}
	}
}

// firstLines returns the first n lines of b, joined by " | ".
func firstLines(b []byte, n int) string {
	lines := strings.SplitN(strings.TrimSpace(string(b)), "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], " | ")
}
