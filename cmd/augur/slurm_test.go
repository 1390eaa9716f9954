package main

import (
	"bufio"
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
// end of the job it waits for.
const jobTimeout = 90 * time.Second

// TestSlurm runs the shipped job script, deploy/slurm/augur-infer.sbatch,
// on a private single-node Slurm cluster (internal/slurmtest): three shards
// of augur infer --stats as a job array, submitted with --wait, and the
// merge job depending on it, as its header says to submit them. The merged
// report must equal, byte for byte, the report of one run without
// filtering. A failing array task must fail the array job and cancel the
// merge job. The jobs run augur from $PATH, this test binary (TestMain).
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
		if shards.err != nil || merge.err != nil {
			t.Fatalf("shards: %v; merge: %v\n%s", shards.err, merge.err, jobLogs(dir))
		}
		for _, j := range jobs(t, c, shards.id, merge.id) {
			if j.State != "COMPLETED" {
				t.Errorf("job %s (task %q): %s, %s, exit %s\n%s", j.ID, j.Task, j.State, j.Reason, j.ExitCode, jobLogs(dir))
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
		var exit *exec.ExitError
		if !errors.As(shards.err, &exit) {
			t.Errorf("sbatch --wait of the shards: %v, want a non-zero exit", shards.err)
		}
		// sbatch --wait exits 0 for a job cancelled before it ran: the
		// merge job's state tells.
		if merge.err != nil {
			t.Errorf("sbatch --wait of the merge job: %v", merge.err)
		}
		want := map[string]string{"0": "COMPLETED", "1": "COMPLETED", "3": "FAILED"}
		for _, j := range jobs(t, c, shards.id) {
			if j.State != want[j.Task] {
				t.Errorf("task %s: %s (exit %s), want %s", j.Task, j.State, j.ExitCode, want[j.Task])
			}
		}
		if m := jobs(t, c, merge.id)[0]; m.State != "CANCELLED" || m.Reason != "DependencyNeverSatisfied" {
			t.Errorf("merge job: %s, %s; want CANCELLED, DependencyNeverSatisfied", m.State, m.Reason)
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

// A submission is a job submitted with sbatch --wait.
type submission struct {
	id  string
	err error // sbatch's exit: the highest exit of the job's tasks
}

// submit submits script as the job array given by array, working in dir,
// with sbatch --wait, and as soon as Slurm has its id, the merge job
// depending on it, as the script's header says. It waits for both.
func submit(t *testing.T, c *slurmtest.Cluster, script, dir, spec, tr, out, array string) (shards, merge submission) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), jobTimeout)
	defer cancel()
	env := []string{"SPEC=" + spec, "TRACE=" + tr, "OUT=" + out, "FORMAT=json"}
	shardCmd, shardID := sbatch(ctx, t, c, env, dir, array, script)
	mergeCmd, mergeID := sbatch(ctx, t, c, env, dir, "--dependency=afterok:"+shardID, "--kill-on-invalid-dep=yes", script, "merge")
	shards = submission{shardID, shardCmd.Wait()}
	merge = submission{mergeID, mergeCmd.Wait()}
	if ctx.Err() != nil {
		t.Fatalf("jobs not done within %v\n%s", jobTimeout, jobLogs(dir))
	}
	return shards, merge
}

// sbatch starts sbatch --parsable --wait with args and env, the job
// working in dir with one CPU a task, and returns it with the id of the
// job it submitted.
func sbatch(ctx context.Context, t *testing.T, c *slurmtest.Cluster, env []string, dir string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := c.Command(ctx, "sbatch", append([]string{"--parsable", "--wait", "--chdir", dir, "--cpus-per-task=1"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// --parsable prints "id" or "id;cluster" once the job is submitted.
	line, err := bufio.NewReader(stdout).ReadString('\n')
	id, _, _ := strings.Cut(strings.TrimSpace(line), ";")
	if id == "" {
		err = errors.Join(err, cmd.Wait())
		t.Fatalf("sbatch %v printed no job id: %v\n%s", args, err, &stderr)
	}
	return cmd, id
}

// jobs returns the jobs and array tasks of ids, failing t if Slurm does
// not know one.
func jobs(t *testing.T, c *slurmtest.Cluster, ids ...string) []slurmtest.Job {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var all []slurmtest.Job
	for _, id := range ids {
		js, err := c.Jobs(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, js...)
	}
	return all
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
