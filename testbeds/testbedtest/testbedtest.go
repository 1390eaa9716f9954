// Package testbedtest checks what every testbed must do: each bug
// manifests and tags only itself, bug-free runs under the default faults
// see crashes and lost messages but tag nothing, a seed always yields the
// same trace, byte for byte, and an unknown bug is refused.
package testbedtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/predict"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/trace"
)

// Check evaluates the checks of f on every snapshot of the trace at dir
// and returns their stats, in the order of f.Checks, with up to
// maxWitnesses violating snapshots each as [evaluator.Options] counts
// them: what the checks say of a run, to hold its tags against, with
// the evaluator alone (the pipeline is above the testbeds).
func Check(t *testing.T, dir string, spec *specs.Spec, f *checker.File, maxWitnesses int) []evaluator.Stats {
	t.Helper()
	tr, err := trace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	props, err := f.Properties()
	if err != nil {
		t.Fatal(err)
	}
	prog, err := evaluator.Compile(spec, props)
	if err != nil {
		t.Fatal(err)
	}
	run, err := evaluator.Run(t.Context(), tr, prog, evaluator.Options{MaxWitnesses: maxWitnesses, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return run.Stats
}

// Suite describes the runs that check a testbed.
type Suite struct {
	Testbed    testbeds.Testbed
	Seeds      map[string]uint64 // for each of Testbed.Bugs, a seed at which it manifests
	BugSteps   int               // steps of a run with a bug
	CleanSeeds uint64            // bug-free runs with seeds 1…CleanSeeds
	CleanSteps int               // steps of a bug-free run
}

// Run runs tb with a bug (or none) for steps from seed under its default
// faults and checks that it recorded a snapshot per step.
func Run(t *testing.T, tb testbeds.Testbed, bug string, seed uint64, steps int) testbeds.Stats {
	t.Helper()
	return run(t, tb, bug, seed, steps, filepath.Join(t.TempDir(), "run.trace"))
}

// config is the configuration of a run of tb with a bug (or none) for
// steps from seed under its default faults.
func config(tb testbeds.Testbed, bug string, seed uint64, steps int) testbeds.Config {
	return testbeds.Config{Nodes: tb.Nodes, Steps: steps, Seed: seed, Faults: tb.Faults, Bug: bug,
		ResetAfter: testbeds.DefaultResetAfter}
}

func run(t *testing.T, tb testbeds.Testbed, bug string, seed uint64, steps int, dir string) testbeds.Stats {
	t.Helper()
	return runConfig(t, tb, config(tb, bug, seed, steps), dir)
}

func runConfig(t *testing.T, tb testbeds.Testbed, cfg testbeds.Config, dir string) testbeds.Stats {
	t.Helper()
	steps := cfg.Steps
	st, err := tb.Run(t.Context(), cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Snapshots != steps {
		t.Errorf("%d snapshots, want %d", st.Snapshots, steps)
	}
	return st
}

// Test runs the suite.
func (s Suite) Test(t *testing.T) {
	tb := s.Testbed
	t.Run("BugsManifest", func(t *testing.T) {
		if bugs := slices.Sorted(maps.Keys(s.Seeds)); !slices.Equal(bugs, slices.Sorted(slices.Values(tb.Bugs))) {
			t.Errorf("seeds for bugs %v, want one for each of %v", bugs, tb.Bugs)
		}
		for _, bug := range tb.Bugs {
			seed, ok := s.Seeds[bug]
			if !ok {
				continue
			}
			st := Run(t, tb, bug, seed, s.BugSteps)
			if st.Tagged["bug:"+bug] == 0 {
				t.Errorf("%s, seed %d: no snapshot tagged bug:%s; tags %v", bug, seed, bug, st.Tagged)
			}
			for tag := range st.Tagged {
				if tag != "steady" && tag != "bug:"+bug {
					t.Errorf("%s: unexpected tag %s", bug, tag)
				}
			}
		}
	})
	t.Run("Correct", func(t *testing.T) {
		for seed := uint64(1); seed <= s.CleanSeeds; seed++ {
			st := Run(t, tb, "", seed, s.CleanSteps)
			for tag, n := range st.Tagged {
				if tag != "steady" {
					t.Errorf("seed %d: %d snapshots tagged %s", seed, n, tag)
				}
			}
			if st.Crashes == 0 || st.Dropped == 0 {
				t.Errorf("seed %d: faults missing: %+v", seed, st)
			}
		}
	})
	t.Run("Deterministic", func(t *testing.T) {
		// The second run also writes node-local records, which must not
		// change its trace.
		a, b := filepath.Join(t.TempDir(), "a.trace"), filepath.Join(t.TempDir(), "b.trace")
		run(t, tb, tb.Bugs[0], 6, 2000, a)
		local := t.TempDir()
		cfg := config(tb, tb.Bugs[0], 6, 2000)
		cfg.Local = func(node string) (collector.Sink, error) {
			return collector.CreateJSONLSink(filepath.Join(local, node+".jsonl"), collector.SinkOptions{})
		}
		runConfig(t, tb, cfg, b)
		for _, f := range DiffTraces(t, a, b) {
			t.Errorf("same seed, different %s", f)
		}
		for n := range tb.Nodes {
			b, err := os.ReadFile(filepath.Join(local, testbeds.Name(n)+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if lines := bytes.Count(b, []byte("\n")); lines < 2 || !bytes.HasSuffix(b, []byte(`"leave":true}`+"\n")) {
				t.Errorf("%s: %d node-local records, want states and a final leave", testbeds.Name(n), lines)
			}
		}
	})
	t.Run("Stops", func(t *testing.T) {
		// A run of many steps returns once its context is canceled, its
		// error wrapping context.Canceled, and neither a run nor a fork
		// boots more than testbeds.MaxNodes nodes.
		cfg := testbeds.Config{Nodes: tb.Nodes, Steps: 1 << 40}
		for _, what := range []string{"run", "fork"} {
			fork := what == "fork"
			if fork && tb.Fork == nil {
				continue
			}
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(50*time.Millisecond, cancel)
			var err error
			if fork {
				_, err = tb.Fork(ctx, cfg, cfg.Steps)
			} else {
				_, err = tb.Run(ctx, cfg, filepath.Join(t.TempDir(), "x.trace"))
			}
			cancel()
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "testbed "+what) {
				t.Errorf("%s canceled: %v, want testbed %s …: context canceled", what, err, what)
			}
		}
		many := testbeds.Config{Nodes: testbeds.MaxNodes + 1, Steps: 10}
		if _, err := tb.Run(t.Context(), many, filepath.Join(t.TempDir(), "x.trace")); err == nil {
			t.Errorf("Run of %d nodes succeeded", many.Nodes)
		}
		if tb.Fork != nil {
			if _, err := tb.Fork(t.Context(), many, 10); err == nil {
				t.Errorf("Fork of %d nodes succeeded", many.Nodes)
			}
		}
	})
	t.Run("UnknownBug", func(t *testing.T) {
		cfg := testbeds.Config{Nodes: tb.Nodes, Steps: 10, Bug: "nope"}
		if _, err := tb.Run(t.Context(), cfg, filepath.Join(t.TempDir(), "x.trace")); err == nil {
			t.Error("Run with an unknown bug succeeded")
		}
	})
}

// DiffTraces returns the files of trace a that differ from those of trace
// b, byte for byte.
func DiffTraces(t *testing.T, a, b string) []string {
	t.Helper()
	var diff []string
	for _, f := range []string{"manifest.json", "snapshots.arrow", "states.arrow"} {
		x, err := os.ReadFile(filepath.Join(a, f))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			diff = append(diff, f)
		}
	}
	return diff
}

// Guard runs tb with bug from seed for steps without a guard and with the
// checks file checks, and checks that the guard blocked changes and that
// the guarded run reached fewer bug-tagged snapshots than the unguarded
// one, which reached some.
func Guard(t *testing.T, tb testbeds.Testbed, bug string, seed uint64, steps int, checks string) (unguarded, guarded testbeds.Stats) {
	t.Helper()
	cfg := config(tb, bug, seed, steps)
	unguarded, err := tb.Run(t.Context(), cfg, filepath.Join(t.TempDir(), "run.trace"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Guard = checks
	guarded, err = tb.Run(t.Context(), cfg, filepath.Join(t.TempDir(), "guarded.trace"))
	if err != nil {
		t.Fatal(err)
	}
	tag := "bug:" + bug
	t.Logf("%s seed %d: %d bug-tagged snapshots, %d with the guard, which blocked %d of %d changes",
		bug, seed, unguarded.Tagged[tag], guarded.Tagged[tag], guarded.Blocked, guarded.Checked)
	if unguarded.Checked != 0 || unguarded.Blocked != 0 {
		t.Errorf("unguarded run checked %d changes, blocked %d", unguarded.Checked, unguarded.Blocked)
	}
	if unguarded.Tagged[tag] == 0 {
		t.Fatalf("%s did not manifest at seed %d", bug, seed)
	}
	if guarded.Blocked == 0 || guarded.Checked < guarded.Blocked {
		t.Errorf("guard blocked %d of %d changes, want some", guarded.Blocked, guarded.Checked)
	}
	if guarded.Tagged[tag] >= unguarded.Tagged[tag] {
		t.Errorf("%d bug-tagged snapshots with the guard, want fewer than %d without", guarded.Tagged[tag], unguarded.Tagged[tag])
	}
	return unguarded, guarded
}

// Predict checks the predictor on copies of tb's run with bug from seed,
// whose effects checks (a checks file) catch. It finds the first
// snapshot of the run's trace (one episode) that violates checks while
// the one before does not; the
// copy of the run at that step violates them too, and from the copy of
// the step before, which does not, the search finds a path of one or two
// events to a violation. The copy a search starts from is unchanged,
// and a second search returns the same.
func Predict(t *testing.T, tb testbeds.Testbed, bug string, seed uint64, checks string) {
	t.Helper()
	f, spec, err := checker.LoadWithSpec(checks)
	if err != nil {
		t.Fatal(err)
	}
	c, err := checker.Compile(spec, f)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config(tb, bug, seed, 5000)
	cfg.ResetAfter = -1
	dir := filepath.Join(t.TempDir(), "run.trace")
	runConfig(t, tb, cfg, dir)
	violating := map[int]bool{}
	for _, st := range Check(t, dir, spec, f, cfg.Steps) {
		for _, w := range st.Witnesses() {
			violating[int(w.Snapshot)] = true
		}
	}
	first := 1
	for ; first < cfg.Steps && (!violating[first] || violating[first-1]); first++ {
	}
	if first == cfg.Steps {
		t.Fatalf("no snapshot but the first violates %s", checks)
	}
	first += testbeds.Warmup + 1 // the step after which it was recorded
	fork := func(steps int) predict.Model {
		t.Helper()
		m, err := tb.Fork(t.Context(), cfg, steps)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	violates := func(steps int) bool {
		res, err := predict.Explore(fork(steps), c, predict.Options{Depth: 1})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Base) > 0
	}
	if !violates(first) || violates(first-1) {
		t.Fatalf("the copies at steps %d and %d: want only the second to violate %s", first-1, first, checks)
	}
	m := fork(first - 1)
	before := state(m)
	opts := predict.Options{Depth: 2, Budget: 10 * time.Second}
	res, err := predict.Explore(m, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Paths) == 0 {
		t.Fatalf("step %d violates %s; from step %d, %d states explored, no violating path", first, checks, first-1, res.States)
	}
	t.Logf("step %d violates; from step %d: %d states, %d paths, the first %s", first, first-1, res.States, len(res.Paths), &res.Paths[0])
	if after := state(m); after != before {
		t.Errorf("the search changed the model:\n%s\nwas\n%s", after, before)
	}
	again, err := predict.Explore(m, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	if again.States != res.States || len(again.Paths) != len(res.Paths) || again.Paths[0].String() != res.Paths[0].String() {
		t.Errorf("a second search explored %d states, %d paths; the first %d, %d", again.States, len(again.Paths), res.States, len(res.Paths))
	}
}

// state renders what the predictor sees of m: each node's state and hash,
// and the messages in flight.
func state(m predict.Model) string {
	var b strings.Builder
	for n := range m.Nodes() {
		if m.Live(n) {
			st, _ := json.Marshal(m.State(n))
			fmt.Fprintf(&b, "%s %x %s\n", m.Name(n), m.Hash(n), st)
		}
	}
	for _, msg := range m.Messages() {
		fmt.Fprintf(&b, "%d→%d %x %+v\n", msg.From, msg.Node, msg.Hash, msg.Msg)
	}
	return b.String()
}

// Steer runs tb with bug from seed for steps with and without steering by
// checks (a checks file, with the default prediction interval and
// budget, and the guard as fallback), and checks that steering predicted,
// that the steered run reached fewer bug-tagged snapshots and that it
// repeats exactly from its seed.
func Steer(t *testing.T, tb testbeds.Testbed, bug string, seed uint64, steps int, checks string) {
	t.Helper()
	plain := run(t, tb, bug, seed, steps, filepath.Join(t.TempDir(), "run.trace"))
	steer := func(dir string) testbeds.Stats {
		cfg := config(tb, bug, seed, steps)
		cfg.Steer = checks
		return runConfig(t, tb, cfg, dir)
	}
	a, b := filepath.Join(t.TempDir(), "a.trace"), filepath.Join(t.TempDir(), "b.trace")
	steered := steer(a)
	tag := "bug:" + bug
	t.Logf("%s seed %d: %d bug-tagged snapshots, %d steered: %d predictions, %d filters installed, %d events filtered, %d guard blocks",
		bug, seed, plain.Tagged[tag], steered.Tagged[tag], steered.Predictions, steered.Filters, steered.Filtered, steered.Blocked)
	if steered.Predictions == 0 || plain.Predictions != 0 {
		t.Errorf("%d predictions steered, %d plain; want some and none", steered.Predictions, plain.Predictions)
	}
	if steered.Tagged[tag] >= plain.Tagged[tag] {
		t.Errorf("%d bug-tagged snapshots steered, %d without; want fewer", steered.Tagged[tag], plain.Tagged[tag])
	}
	steer(b)
	for _, f := range DiffTraces(t, a, b) {
		t.Errorf("steered twice from one seed, different %s", f)
	}
}

// SteerClean runs tb bug-free from seeds 1 to seeds for steps each (after
// the warm-up) steered by checks with a budget of states per prediction,
// and checks that no ground-truth check fails: steering never turns a
// bug-free run into one with a violation.
func SteerClean(t *testing.T, tb testbeds.Testbed, checks string, seeds uint64, steps, states int) {
	t.Helper()
	for seed := uint64(1); seed <= seeds; seed++ {
		cfg := config(tb, "", seed, steps)
		cfg.Steer, cfg.SteerStates = checks, states
		st := runConfig(t, tb, cfg, filepath.Join(t.TempDir(), "clean.trace"))
		if st.Violations > 0 || st.Predictions == 0 {
			t.Errorf("bug-free seed %d steered: %d violations, %d predictions; want none and some", seed, st.Violations, st.Predictions)
		}
	}
}
