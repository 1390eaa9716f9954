package main

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/cluster"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/learn"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/testbeds"
)

// execute runs cmd with args and fails t on an error.
func execute(t *testing.T, cmd *cobra.Command, args ...string) {
	t.Helper()
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%s %v: %v", cmd.Name(), args, err)
	}
}

// TestInferFlags checks that augur infer's flags reach its options.
func TestInferFlags(t *testing.T) {
	tests := []struct {
		args []string
		want inferOptions
	}{
		{
			[]string{"s.yaml", "r.trace"},
			inferOptions{spec: "s.yaml", trace: "r.trace", format: "text", po: pipeline.Options{Evaluator: evaluator.Fast}, selector: cluster.Selector{Block: 1024}},
		},
		{
			[]string{"s.yaml", "r.trace", "--format", "json", "-o", "rep.json", "--top", "20", "--no-filter", "-q", "--baseline", "good.trace", "--baseline", "good2.trace", "--evaluator", "reference", "--workers", "3", "--all"},
			inferOptions{spec: "s.yaml", trace: "r.trace", format: "json", formatSet: true, outputs: []string{"rep.json"}, quiet: true, selector: cluster.Selector{Block: 1024},
				po: pipeline.Options{Evaluator: evaluator.Reference, Top: 20, NoFilter: true, Baselines: []string{"good.trace", "good2.trace"}, Workers: 3, All: true}},
		},
		{
			[]string{"s.yaml", "r.trace", "-o", "rep.json", "--output", "rep.html", "--stats", "run.stats"},
			inferOptions{spec: "s.yaml", trace: "r.trace", format: "text", outputs: []string{"rep.json", "rep.html"}, po: pipeline.Options{Evaluator: evaluator.Fast}, selector: cluster.Selector{Block: 1024}, stats: "run.stats"},
		},
		{
			[]string{"s.yaml", "r.trace", "--shard", "1/4", "--block", "7", "--stats", "p1.arrow"},
			inferOptions{spec: "s.yaml", trace: "r.trace", format: "text", po: pipeline.Options{Evaluator: evaluator.Fast}, sharded: true,
				selector: cluster.Selector{Shard: "1/4", Block: 7}, stats: "p1.arrow"},
		},
		{
			// --shards N leaves the index to $JOB_COMPLETION_INDEX, read
			// when the command runs, not when its flags are parsed.
			[]string{"s.yaml", "r.trace", "--shards", "3"},
			inferOptions{spec: "s.yaml", trace: "r.trace", format: "text", po: pipeline.Options{Evaluator: evaluator.Fast}, sharded: true,
				selector: cluster.Selector{Shards: 3, Block: 1024}},
		},
	}
	for _, tt := range tests {
		var got *inferOptions
		execute(t, newInferCmd(func(o *inferOptions) error { got = o; return nil }), tt.args...)
		got.stdout, got.stderr = nil, nil
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("infer %v:\n got %+v\nwant %+v", tt.args, *got, tt.want)
		}
	}
}

// TestTestbedRunFlags checks that augur testbed run's flags reach its
// options, and that an unset --nodes is told apart from a given one.
func TestTestbedRunFlags(t *testing.T) {
	var got *testbedRunOptions
	runF := func(o *testbedRunOptions) error { got = o; return nil }
	execute(t, newTestbedRunCmd(runF), "paxos", "-o", "p.trace", "--bug", "last-promise", "--seed", "7", "--steps", "300", "--faults", "drop=0.1", "--reset-after", "-1", "-f")
	want := testbedRunOptions{name: "paxos", out: "p.trace", faults: "drop=0.1",
		cfg: testbeds.Config{Steps: 300, Seed: 7, Bug: "last-promise", ResetAfter: -1}}
	got.stderr = nil
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("got %+v\nwant %+v", *got, want)
	}
	execute(t, newTestbedRunCmd(runF), "paxos", "-o", "p.trace", "--nodes", "5")
	if !got.nodesGiven || got.cfg.Nodes != 5 {
		t.Errorf("--nodes 5: nodesGiven %v, nodes %d", got.nodesGiven, got.cfg.Nodes)
	}
	execute(t, newTestbedRunCmd(runF), "randtree", "-o", "r.trace", "--guard", "checks.yaml")
	if got.cfg.Guard != "checks.yaml" {
		t.Errorf("--guard checks.yaml: cfg.Guard %q", got.cfg.Guard)
	}
}

// TestTestbedRunSteerFlags checks that augur testbed run's steering
// flags reach its configuration.
func TestTestbedRunSteerFlags(t *testing.T) {
	var got *testbedRunOptions
	runF := func(o *testbedRunOptions) error { got = o; return nil }
	execute(t, newTestbedRunCmd(runF), "paxos", "-o", "p.trace", "--steer", "c.yaml", "--predict-every", "5", "--budget", "300", "--no-fallback")
	want := testbeds.Config{Steps: 20000, Seed: 1, ResetAfter: testbeds.DefaultResetAfter, Steer: "c.yaml", PredictEvery: 5, SteerStates: 300, SteerAlone: true}
	if !reflect.DeepEqual(got.cfg, want) {
		t.Errorf("got %+v\nwant %+v", got.cfg, want)
	}
}

// TestBenchSteerFlags checks that augur bench steer's flags reach its
// options.
func TestBenchSteerFlags(t *testing.T) {
	var got *benchSteerOptions
	execute(t, newBenchSteerCmd(func(o *benchSteerOptions) error { got = o; return nil }), "--seeds", "41-48", "--testbeds", "paxos,chord",
		"--promoted", "paxos/lost-promise=p.yaml", "--modes", "promoted,promoted-guard", "--checks", "dir", "--steps", "100", "--workers", "2", "--predict-every", "5", "--budget", "50", "--format", "json")
	got.stdout, got.stderr = nil, nil
	want := benchSteerOptions{seeds: "41-48", testbeds: []string{"paxos", "chord"}, promoted: []string{"paxos/lost-promise=p.yaml"},
		modes: []string{"promoted", "promoted-guard"}, checks: "dir", format: "json", steps: 100, workers: 2, predictEvery: 5, budget: 50}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("got %+v\nwant %+v", *got, want)
	}
}

// TestLearnFlags checks that augur learn's arguments and flags reach its
// options.
func TestLearnFlags(t *testing.T) {
	var got *learnOptions
	execute(t, newLearnCmd(func(o *learnOptions) error { got = o; return nil }), "s.yaml", "a.trace", "b.trace", "-o", "c.yaml",
		"--vet", "x.trace,y.trace", "--min-support", "0.5", "--almost", "0.01", "--evaluator", "reference", "--workers", "2", "-q")
	got.stdout, got.stderr = nil, nil
	want := learnOptions{spec: "s.yaml", traces: []string{"a.trace", "b.trace"}, output: "c.yaml", vet: []string{"x.trace", "y.trace"},
		quiet: true, lo: learn.Options{Evaluator: evaluator.Reference, MinSupport: 0.5, Almost: 0.01, Workers: 2}}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("got %+v\nwant %+v", *got, want)
	}
}

// TestCheckFlags checks that augur check's flags reach its options.
func TestCheckFlags(t *testing.T) {
	var got *checkOptions
	execute(t, newCheckCmd(func(o *checkOptions) error { got = o; return nil }), "c.yaml", "r.trace", "--spec", "s.yaml", "--format", "json", "--max-witnesses", "0", "--workers", "1")
	want := checkOptions{opts: pipeline.CheckOptions{Checks: "c.yaml", Trace: "r.trace", Spec: "s.yaml", Format: "json", MaxWitnesses: pipeline.NoWitnesses, Workers: 1}}
	got.stdout = nil
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("got %+v\nwant %+v", *got, want)
	}
}
