package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/augur-dev/augur/internal/slurmtest"
)

// jobTimeout bounds each submission of the Slurm test, from sbatch to the
// end of the jobs it waits for: a few seconds on an idle machine, and
// under ten on one running go test ./... beside it.
const jobTimeout = 2 * time.Minute

// TestSlurm runs the shipped job script, deploy/slurm/augur-infer.sbatch,
// on a private single-node Slurm cluster (internal/slurmtest): three shards
// of augur infer --stats as a job array and the merge job depending on it,
// submitted as its header says, then waited for by polling their states
// (slurmtest.Cluster.Wait). The merged report must equal, byte for byte,
// the report of one run without filtering. A failing array task must fail
// the array job and cancel the merge job. The jobs run augur from $PATH, this test binary (TestMain).
func TestSlurm(t *testing.T) {
	c := slurmtest.Start(t)
	bin, err := exec.LookPath("augur")
	if err != nil {
		t.Fatalf("the jobs run augur from $PATH: %v", err)
	}
	t.Logf("the jobs run %s", bin)
	script, err := filepath.Abs("../../deploy/slurm/augur-infer.sbatch")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := filepath.Abs("../../testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	tr := filepath.Join(dir, "run.trace")
	augur(t, "collect", "../../testdata/small.jsonl", "-o", tr)
	// A report names its spec by a path relative to itself: one run's
	// goes where the merge job writes its own.
	out := filepath.Join(dir, "out")
	one := filepath.Join(out, "one.json")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	augur(t, "infer", spec, tr, "-q", "--no-filter", "--format", "json", "-o", one)

	// The node has as many CPUs as this machine (two here): one CPU a
	// task lets two shards run at once.
	t.Run("shards", func(t *testing.T) {
		shards, merge := submit(t, c, script, dir, spec, tr, out, "--array=0-2")
		for _, j := range append(shards, merge...) {
			if j.State != "COMPLETED" {
				t.Errorf("%v, want COMPLETED\n%s", j, jobLogs(dir))
			}
		}
		want, err := os.ReadFile(one)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(out, "report.json"))
		if err != nil {
			t.Fatalf("the merge job wrote no report: %v\n%s", err, jobLogs(dir))
		}
		if !bytes.Equal(got, want) {
			t.Errorf("the merged report differs from one run's:\n--- merged\n%s\n--- one run\n%s", got, want)
		}
	})

	// An array with a gap: task 3 is shard 3 of 3 tasks, out of range,
	// and fails; tasks 0 and 1 write their parts.
	t.Run("failing shard", func(t *testing.T) {
		out := filepath.Join(dir, "bad")
		shards, merge := submit(t, c, script, dir, spec, tr, out, "--array=0-1,3")
		want := map[string]string{"0": "COMPLETED", "1": "COMPLETED", "3": "FAILED"}
		for _, j := range shards {
			if j.State != want[j.Task] {
				t.Errorf("%v, want %s", j, want[j.Task])
			}
		}
		if m := merge[0]; m.State != "CANCELLED" || m.Reason != "DependencyNeverSatisfied" {
			t.Errorf("merge %v; want CANCELLED (DependencyNeverSatisfied)", m)
		}
		if log := jobLogs(dir); !strings.Contains(log, "shard index 3 out of range for 3 shards") {
			t.Errorf("no task says why it failed:\n%s", log)
		}
		for _, name := range []string{"stats.arrow", "report.json"} {
			if _, err := os.Stat(filepath.Join(out, name)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: %v, want none", name, err)
			}
		}
	})
}

// submit submits script as the job array given by array, working in dir,
// and the merge job depending on it, as the script's header says, waits
// until every task of both has ended, and returns their final states:
// the array's tasks, then the merge job.
func submit(t *testing.T, c *slurmtest.Cluster, script, dir, spec, tr, out, array string) (shards, merge []slurmtest.Job) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), jobTimeout)
	defer cancel()
	env := []string{"SPEC=" + spec, "TRACE=" + tr, "OUT=" + out, "FORMAT=json"}
	shardID := sbatch(ctx, t, c, env, dir, array, script)
	mergeID := sbatch(ctx, t, c, env, dir, "--dependency=afterok:"+shardID, "--kill-on-invalid-dep=yes", script, "merge")
	all, err := c.Wait(ctx, shardID, mergeID)
	if err != nil {
		t.Fatalf("%v\n%s", err, jobLogs(dir))
	}
	// The merge job is no array: one record, the last.
	return all[:len(all)-1], all[len(all)-1:]
}

// sbatch runs sbatch --parsable with args and env, the job working in dir
// with one CPU a task, and returns the id of the job it submitted.
func sbatch(ctx context.Context, t *testing.T, c *slurmtest.Cluster, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := c.Command(ctx, "sbatch", append([]string{"--parsable", "--chdir", dir, "--cpus-per-task=1"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	// --parsable prints "id" or "id;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if err != nil || id == "" {
		t.Fatalf("sbatch %v printed no job id: %v\n%s", args, err, &stderr)
	}
	return id
}

// jobLogs returns the output files of the jobs that ran in dir.
func jobLogs(dir string) string {
	paths, _ := filepath.Glob(filepath.Join(dir, "augur-infer-*.out"))
	var b strings.Builder
	for _, p := range paths {
		data, err := os.ReadFile(p)
		fmt.Fprintf(&b, "--- %s %v\n%s", filepath.Base(p), err, data)
	}
	return b.String()
}
