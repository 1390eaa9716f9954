package catalog_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/catalog"
	"github.com/augur-dev/augur/trace"
)

func TestLookup(t *testing.T) {
	for _, tb := range catalog.All {
		got, err := catalog.Lookup(tb.Name)
		if err != nil || got.Name != tb.Name {
			t.Errorf("Lookup(%q) = %q, %v", tb.Name, got.Name, err)
		}
		if _, err := specs.Testbed(tb.Name); err != nil {
			t.Errorf("testbed %s has no spec: %v", tb.Name, err)
		}
	}
	_, err := catalog.Lookup("zab")
	if err == nil || !strings.Contains(err.Error(), `"zab"`) || !strings.Contains(err.Error(), "etcdraft") {
		t.Errorf("Lookup(zab) = %v, want an error naming it and the testbeds", err)
	}
}

// TestRecord checks that a recorded run comes with a spec that fits it,
// and that the testbed's defaults fill what the config leaves out.
func TestRecord(t *testing.T) {
	tb, err := catalog.Lookup("chord")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	specPath, tracePath, st, err := catalog.Record(t.Context(), dir, "run", tb, testbeds.Config{Steps: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if specPath != filepath.Join(dir, "run.yaml") || tracePath != filepath.Join(dir, "run.trace") {
		t.Errorf("Record wrote %s and %s", specPath, tracePath)
	}
	if st.Snapshots != 200 {
		t.Errorf("recorded %d snapshots, want 200", st.Snapshots)
	}
	spec, err := specs.Load(specPath)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Open(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := spectrace.Check(spec, tr.Schema); err != nil {
		t.Errorf("the testbed's spec does not fit its trace: %v", err)
	}
	if got := tr.Manifest.CreatedBy; !strings.Contains(got, "--nodes "+strconv.Itoa(tb.Nodes)) || !strings.Contains(got, "--faults "+tb.Faults.String()) {
		t.Errorf("created by %q, want the testbed's default nodes (%d) and faults", got, tb.Nodes)
	}
}

// TestRunRefuses checks that Run refuses a bad command line, and a
// --guard it cannot use, naming the reason, and writes no trace.
func TestRunRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	spec, err := filepath.Abs(filepath.Join("..", "..", "specs", "chord.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run.trace")
	tests := []struct {
		testbed, out, bug, faults, guard, want string
	}{
		{testbed: "zab", out: out, want: `testbed run: unknown testbed "zab"`},
		{testbed: "paxos", want: "testbed run: -o OUT.trace is required"},
		{testbed: "paxos", out: out, bug: "nope", want: `testbed run: paxos has no bug "nope" (want one of `},
		{testbed: "paxos", out: out, faults: "drop=2", want: "drop"},
		{testbed: "randtree", out: out, guard: filepath.Join(dir, "missing.yaml"), want: "missing.yaml"},
		{testbed: "randtree", out: out, guard: write("nospec.yaml", "checks:\n  - name: a\n    property: \"forall n0 in nodes: n0.joined\"\n"), want: "names no spec"},
		{testbed: "randtree", out: out, guard: write("chord.yaml", "spec: "+spec+"\nchecks:\n  - name: a\n    property: \"forall n0 in nodes: n0.joined\"\n"), want: `spec of "chord", not of testbed randtree`},
		{testbed: "chord", out: out, guard: write("bad.yaml", "spec: "+spec+"\nchecks:\n  - name: a\n    property: \"forall n0 in nodes: n0.nope\"\n"), want: "nope"},
	}
	for _, tt := range tests {
		_, err := catalog.Run(context.Background(), tt.testbed, tt.out, testbeds.Config{Steps: 10, Seed: 1, Bug: tt.bug, Guard: tt.guard}, tt.faults)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want one naming %q", tt, err, tt.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%+v: wrote a trace", tt)
		}
	}
}

// TestRunStats runs a guarded testbed and reads what WriteStats writes
// of it.
func TestRunStats(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run.trace")
	guard, err := filepath.Abs(filepath.Join("..", "..", "specs", "randtree.checks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := testbeds.Config{Steps: 200, Seed: 1, Guard: guard, ResetAfter: testbeds.DefaultResetAfter}
	st, err := catalog.Run(context.Background(), "randtree", out, cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	if st.Snapshots != 200 {
		t.Errorf("%d snapshots, want 200", st.Snapshots)
	}
	var b strings.Builder
	catalog.WriteStats(&b, out, cfg, st)
	for _, want := range []string{out + ": 200 snapshots in ", "\n  steady: ", "\n  guard " + guard + ": "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("stats lack %q:\n%s", want, b.String())
		}
	}
}

// TestOnRecord checks that a run tells OnRecord of every snapshot it
// records, in order, as augur testbed run's progress needs: with
// warm-ups recorded too, and under steering, whose predictions make a
// run slow.
func TestOnRecord(t *testing.T) {
	for _, tt := range []struct {
		testbed string
		cfg     testbeds.Config
	}{
		{"etcdraft", testbeds.Config{Steps: 60, Seed: 1, RecordWarmup: true}},
		{"randtree", testbeds.Config{Steps: 60, Seed: 1, Bug: "stale-child", Steer: filepath.Join("..", "..", "specs", "randtree.checks.yaml"), SteerStates: 50}},
	} {
		t.Run(tt.testbed, func(t *testing.T) {
			var got []int
			cfg := tt.cfg
			cfg.OnRecord = func(n int) { got = append(got, n) }
			st, err := catalog.Run(context.Background(), tt.testbed, filepath.Join(t.TempDir(), "run.trace"), cfg, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != st.Snapshots || st.Snapshots != cfg.Steps {
				t.Fatalf("OnRecord called %d times for %d snapshots, want %d", len(got), st.Snapshots, cfg.Steps)
			}
			for i, n := range got {
				if n != i+1 {
					t.Fatalf("call %d of OnRecord said %d snapshots, want %d", i+1, n, i+1)
				}
			}
		})
	}
}

// TestRunCanceled checks that every testbed stops once its context is
// done, mid-run: the error wraps context.Canceled and names the trace,
// and nothing is left in the directory, neither the trace nor its
// temporary directory.
func TestRunCanceled(t *testing.T) {
	for _, tb := range catalog.All {
		t.Run(tb.Name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "run.trace")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			cfg := testbeds.Config{Steps: 1000, Seed: 1}
			cfg.OnRecord = func(n int) {
				if n == 50 {
					cancel()
				}
			}
			st, err := catalog.Run(ctx, tb.Name, out, cfg, "")
			if !errors.Is(err, context.Canceled) || err.Error() != "testbed run "+out+": context canceled" {
				t.Errorf("err = %v, want testbed run %s: context canceled", err, out)
			}
			if st.Snapshots != 50 {
				t.Errorf("stopped after %d snapshots, want 50", st.Snapshots)
			}
			if ents, _ := os.ReadDir(dir); len(ents) > 0 {
				t.Errorf("left %v", ents)
			}
		})
	}
}

// TestRunDefaults runs a testbed with a bug at the boundaries of
// Config's options: zero takes the defaults (the testbed's nodes and
// faults, episodes reset DefaultResetAfter snapshots after a violation),
// and none is explicit: faults "none" runs without faults, NoReset keeps
// one episode, ResetAtViolation records no snapshot after a violation.
func TestRunDefaults(t *testing.T) {
	run := func(cfg testbeds.Config, faults string) testbeds.Stats {
		t.Helper()
		cfg.Steps, cfg.Seed, cfg.Bug = 3000, 2, "lost-vote"
		st, err := catalog.Run(t.Context(), "etcdraft", filepath.Join(t.TempDir(), "run.trace"), cfg, faults)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	def := run(testbeds.Config{}, "")
	if def.Crashes == 0 || def.Dropped == 0 || def.Violations == 0 || def.Episodes < 2 {
		t.Errorf("zero config: %d crashes, %d dropped, %d violations in %d episodes; want the default faults, the bug and episodes", def.Crashes, def.Dropped, def.Violations, def.Episodes)
	}
	for _, none := range []struct {
		cfg    testbeds.Config
		faults string
	}{{testbeds.Config{}, "none"}, {testbeds.Config{NoFaults: true}, ""}} {
		if st := run(none.cfg, none.faults); st.Crashes != 0 || st.Dropped != 0 || st.Partitions != 0 {
			t.Errorf("NoFaults %v, faults %q: %d crashes, %d dropped, %d partitions", none.cfg.NoFaults, none.faults, st.Crashes, st.Dropped, st.Partitions)
		}
	}
	if st := run(testbeds.Config{ResetAfter: testbeds.DefaultResetAfter}, ""); !reflect.DeepEqual(st.Tagged, def.Tagged) || st.Episodes != def.Episodes {
		t.Errorf("ResetAfter %d: %d episodes, tags %v; zero gave %d, %v", testbeds.DefaultResetAfter, st.Episodes, st.Tagged, def.Episodes, def.Tagged)
	}
	if st := run(testbeds.Config{ResetAfter: testbeds.NoReset}, ""); st.Episodes != 1 {
		t.Errorf("NoReset: %d episodes, want 1", st.Episodes)
	}
	const tag = "bug:lost-vote"
	if st := run(testbeds.Config{ResetAfter: testbeds.ResetAtViolation}, ""); st.Tagged[tag] == 0 || st.Tagged[tag] > st.Violations || st.Tagged[tag] >= def.Tagged[tag] {
		t.Errorf("ResetAtViolation: %d snapshots tagged %s in %d violating episodes, want one at most each, fewer than the default's %d", st.Tagged[tag], tag, st.Violations, def.Tagged[tag])
	}
}
