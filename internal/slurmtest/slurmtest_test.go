package slurmtest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestJobString(t *testing.T) {
	for _, tc := range []struct {
		j     Job
		want  string
		ended bool
	}{
		{Job{ID: "4", Task: "3", State: "FAILED", Reason: "NonZeroExitCode", ExitCode: "1:0"}, "job 4 task 3: FAILED (NonZeroExitCode), exit 1:0", true},
		{Job{ID: "2", State: "RUNNING", Reason: "None", ExitCode: "0:0"}, "job 2: RUNNING, exit 0:0", false},
		{Job{ID: "5", State: "CANCELLED", Reason: "DependencyNeverSatisfied", ExitCode: "0:0"}, "job 5: CANCELLED (DependencyNeverSatisfied), exit 0:0", true},
		{Job{ID: "1", Task: "1-2", State: "PENDING", Reason: "Resources", ExitCode: "0:0"}, "job 1 task 1-2: PENDING (Resources), exit 0:0", false},
		{Job{ID: "3", State: "COMPLETING", ExitCode: "0:0"}, "job 3: COMPLETING, exit 0:0", false},
	} {
		if got := tc.j.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
		if got := tc.j.Ended(); got != tc.ended {
			t.Errorf("%v: Ended() = %v, want %v", tc.j, got, tc.ended)
		}
	}
}

// TestWait waits for a job that ends; for a job that does not end within
// the deadline, which the error names with its state; and for a job Slurm
// never had, which fails at once.
func TestWait(t *testing.T) {
	c := Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	submit := func(script string) string {
		t.Helper()
		out, err := c.Command(ctx, "sbatch", "--parsable", "--chdir", c.Dir, "--output", "/dev/null", "--wrap", script).CombinedOutput()
		if err != nil {
			t.Fatalf("sbatch: %v: %s", err, out)
		}
		id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
		return id
	}

	quick, slow := submit("exit 3"), submit("sleep 60")
	jobs, err := c.Wait(ctx, quick)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].State != "FAILED" || jobs[0].ExitCode != "3:0" {
		t.Errorf("Wait(%s) = %v, want one job FAILED with exit 3:0", quick, jobs)
	}

	short, cancelShort := context.WithTimeout(ctx, time.Second)
	defer cancelShort()
	_, err = c.Wait(short, slow)
	if err == nil || !strings.Contains(err.Error(), "job "+slow+": RUNNING") && !strings.Contains(err.Error(), "job "+slow+": PENDING") {
		t.Errorf("Wait for a job of 60 s within 1 s: %v, want it named with its state", err)
	}

	start := time.Now()
	if _, err := c.Wait(ctx, "9999"); !errors.Is(err, ErrUnknownJob) {
		t.Errorf("Wait(9999) = %v, want ErrUnknownJob", err)
	} else if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Wait(9999) took %v, want it to fail at the first poll", d)
	}
}
