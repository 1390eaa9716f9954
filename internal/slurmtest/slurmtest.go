// Package slurmtest runs a private single-node Slurm cluster for tests:
// munged, slurmctld and slurmd as children of the test, with their
// configuration, state, spool, logs and munge key and socket in a
// temporary directory, on free loopback ports, and stopped by PID when
// the test ends, whether it passed or not.
//
// .ci/run installs Slurm from Debian's packages (slurm-wlm, munge); where
// Slurm is missing, or the test does not run as root (the daemons do, as
// SlurmUser and SlurmdUser), Require skips the test, or fails it under CI
// ($CI=true), where a skipped test would pass unnoticed.
package slurmtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The bounds of the waits of setting up and stopping a cluster.
const (
	startTimeout = 20 * time.Second // daemons up and the node idle
	stopTimeout  = 10 * time.Second // per daemon, after SIGTERM; then SIGKILL
	drainTimeout = 15 * time.Second // jobs left at the end cancelled and gone
)

// minJobAge is how long, in seconds, slurmctld keeps a finished job.
const minJobAge = 3600

// NodeName and Partition name the cluster's only node and partition.
const (
	NodeName  = "localhost"
	Partition = "augur"
)

// programs are the Slurm and MUNGE programs a cluster needs.
var programs = []string{"munged", "slurmctld", "slurmd", "sbatch", "sinfo", "squeue", "scontrol", "scancel"}

// lookPath finds a program on $PATH or in the sbin directories, which a
// user's $PATH may lack.
func lookPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/sbin"} {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found", name)
}

// Missing says why a cluster cannot start here, or returns "" if it can.
func Missing() string {
	var missing []string
	for _, name := range programs {
		if _, err := lookPath(name); err != nil {
			missing = append(missing, name)
		}
	}
	switch {
	case len(missing) > 0:
		return "Slurm not installed (no " + strings.Join(missing, ", ") + "): apt-get install slurm-wlm munge, as .ci/run does"
	case os.Geteuid() != 0:
		return "the Slurm daemons run as root here (SlurmUser=root), and this test does not"
	}
	return ""
}

// Require skips t when a cluster cannot start here, and fails it instead
// when $CI is true.
func Require(t testing.TB) {
	t.Helper()
	why := Missing()
	if why == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(why + " ($CI is true: the Slurm test must run)")
	}
	t.Skip(why)
}

// Cluster is a running single-node Slurm cluster.
type Cluster struct {
	Dir  string // everything the cluster writes
	Conf string // its slurm.conf
	env  []string
	t    testing.TB
	ctld *daemon
}

// Start starts a cluster in a new temporary directory of t and waits until
// its node takes jobs; t's cleanup cancels the jobs left and stops every
// daemon. Start fails t if the cluster does not come up in 20 seconds.
func Start(t testing.TB) *Cluster {
	t.Helper()
	Require(t)
	c := &Cluster{Dir: t.TempDir(), t: t}
	// slurm.conf cannot hold a path with # or white space, which
	// t.TempDir takes from the names of subtests: then another.
	if strings.ContainsAny(c.Dir, "# \t\n\"'") {
		dir, err := os.MkdirTemp("", "slurmtest")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		c.Dir = dir
	}
	c.Conf = c.path("slurm.conf")
	c.env = environ(c.Conf)
	for _, sub := range []string{"state", "spool"} {
		if err := os.Mkdir(c.path(sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 1024)
	rand.Read(key)
	if err := os.WriteFile(c.path("munge.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	conf, err := c.config()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.Conf, conf, 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	// --force: munged wants every directory above its socket to be
	// searchable by all, and t.TempDir's are private to us.
	munged := c.start("munged", "--foreground", "--force",
		"--key-file="+c.path("munge.key"), "--socket="+c.path("munge.socket"),
		"--pid-file="+c.path("munged.pid"), "--seed-file="+c.path("munged.seed"))
	c.await(ctx, "munged's socket", []*daemon{munged}, func() error {
		_, err := os.Stat(c.path("munge.socket"))
		return err
	})
	c.ctld = c.start("slurmctld", "-D")
	slurmd := c.start("slurmd", "-D", "-N", NodeName)
	t.Cleanup(c.drain)
	c.await(ctx, "node "+NodeName+" idle", []*daemon{munged, c.ctld, slurmd}, func() error {
		// sinfo retries for long when slurmctld does not answer.
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		out, err := c.Command(ctx, "sinfo", "--noheader", "--nodes", NodeName, "--format", "%T").CombinedOutput()
		switch state := strings.TrimSpace(string(out)); {
		case err != nil:
			return fmt.Errorf("sinfo: %v: %s", err, out)
		case state != "idle":
			return fmt.Errorf("node %s is %q", NodeName, state)
		}
		return nil
	})
	return c
}

// environ returns the environment of the Slurm commands of the cluster
// configured in conf: the test's, without the variables of any Slurm job
// the test itself runs in.
func environ(conf string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SLURM_") {
			env = append(env, kv)
		}
	}
	return append(env, "SLURM_CONF="+conf)
}

// Env returns the environment that Slurm's commands need to talk to the
// cluster: the test's, with $SLURM_CONF.
func (c *Cluster) Env() []string { return append([]string(nil), c.env...) }

// Command returns the Slurm command name with args, run in the cluster's
// environment (Env).
func (c *Cluster) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	path, err := lookPath(name)
	if err != nil {
		path = name
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = c.Env()
	return cmd
}

func (c *Cluster) path(name string) string { return filepath.Join(c.Dir, name) }

// config returns slurm.conf: one node with the CPUs and memory slurmd
// finds, no accounting, no cgroups, and a scheduler that starts a job as
// soon as it can (batch_sched_delay=0). MinJobAge keeps a finished job in
// slurmctld for an hour, longer than any test runs, so that Wait and Jobs
// see every job a test submitted however slow the machine: with no
// accounting, slurmctld is the only place that knows a job, and once it
// purges one, scontrol says "Invalid job id specified".
func (c *Cluster) config() ([]byte, error) {
	hw, err := hardware()
	if err != nil {
		return nil, err
	}
	ctldPort, slurmdPort, err := freePorts()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, kv := range [][2]any{
		{"ClusterName", "augurtest"},
		{"SlurmctldHost", NodeName + "(127.0.0.1)"},
		{"SlurmctldPort", ctldPort},
		{"SlurmdPort", slurmdPort},
		{"SlurmUser", "root"},
		{"SlurmdUser", "root"},
		{"AuthType", "auth/munge"},
		{"CredType", "cred/munge"},
		{"AuthInfo", "socket=" + c.path("munge.socket")},
		{"StateSaveLocation", c.path("state")},
		{"SlurmdSpoolDir", c.path("spool")},
		{"SlurmctldPidFile", c.path("slurmctld.pid")},
		{"SlurmdPidFile", c.path("slurmd.pid")},
		{"ProctrackType", "proctrack/linuxproc"},
		{"TaskPlugin", "task/none"},
		{"MpiDefault", "none"},
		{"SwitchType", "switch/none"},
		{"SelectType", "select/cons_tres"},
		{"SelectTypeParameters", "CR_CPU"},
		{"SchedulerType", "sched/builtin"},
		{"SchedulerParameters", "batch_sched_delay=0"},
		{"JobCompType", "jobcomp/none"},
		{"JobAcctGatherType", "jobacct_gather/none"},
		{"AccountingStorageType", "accounting_storage/none"},
		{"MailProg", "/bin/true"},
		{"ReturnToService", 2},
		{"MinJobAge", minJobAge},
		{"KillWait", 2},
		{"NodeName", NodeName + " NodeAddr=127.0.0.1 " + hw + " State=UNKNOWN"},
		{"PartitionName", Partition + " Nodes=" + NodeName + " Default=YES MaxTime=INFINITE State=UP"},
	} {
		fmt.Fprintf(&b, "%s=%v\n", kv[0], kv[1])
	}
	return b.Bytes(), nil
}

// hardware returns the node's CPUs, sockets, cores, threads and memory as
// slurm.conf takes them, from slurmd -C: slurmd drains a node configured
// with more than it finds.
func hardware() (string, error) {
	path, err := lookPath("slurmd")
	if err != nil {
		return "", err
	}
	out, err := exec.Command(path, "-C").Output()
	if err != nil {
		return "", fmt.Errorf("slurmd -C: %v", err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	fields := strings.Fields(line)
	if len(fields) < 2 || !strings.HasPrefix(fields[0], "NodeName=") {
		return "", fmt.Errorf("slurmd -C printed %q, want NodeName=… CPUs=…", line)
	}
	return strings.Join(fields[1:], " "), nil
}

// freePorts returns two TCP ports free on the loopback interface.
func freePorts() (int, int, error) {
	var ports [2]int
	for i := range ports {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return 0, 0, err
		}
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports[0], ports[1], nil
}

// A daemon is one of the cluster's processes.
type daemon struct {
	name string
	log  string // its stdout and stderr
	cmd  *exec.Cmd
	done chan struct{} // closed when it exited
	err  error         // its exit, once done
}

// start starts the daemon name with args, in the foreground, and registers
// its stop with t's cleanup.
func (c *Cluster) start(name string, args ...string) *daemon {
	c.t.Helper()
	path, err := lookPath(name)
	if err != nil {
		c.t.Fatal(err)
	}
	d := &daemon{name: name, log: c.path(name + ".log"), done: make(chan struct{})}
	log, err := os.Create(d.log)
	if err != nil {
		c.t.Fatal(err)
	}
	defer log.Close()
	d.cmd = exec.Command(path, args...)
	d.cmd.Env = c.env
	d.cmd.Dir = c.Dir
	d.cmd.Stdout, d.cmd.Stderr = log, log
	// Should the test binary die without cleaning up (a go test
	// -timeout panic), the daemons die with it.
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := d.cmd.Start(); err != nil {
		c.t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		d.err = d.cmd.Wait()
		close(d.done)
	}()
	c.t.Cleanup(func() { c.stop(d) })
	return d
}

// stop ends d by its PID: SIGTERM, then SIGKILL if it has not exited
// within stopTimeout. It logs d's output if the test failed.
func (c *Cluster) stop(d *daemon) {
	select {
	case <-d.done:
	default:
		d.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.done:
		case <-time.After(stopTimeout):
			c.t.Errorf("%s (pid %d) still running %v after SIGTERM: killed", d.name, d.cmd.Process.Pid, stopTimeout)
			d.cmd.Process.Kill()
			<-d.done
		}
	}
	if c.t.Failed() {
		c.t.Logf("%s (pid %d) exited: %v; its log:\n%s", d.name, d.cmd.Process.Pid, d.err, tail(d.log, 40))
	}
}

// await polls ready until it returns nil, and fails the test if ctx ends
// first or one of the daemons exits.
func (c *Cluster) await(ctx context.Context, what string, daemons []*daemon, ready func() error) {
	c.t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, d := range daemons {
			select {
			case <-d.done:
				c.t.Fatalf("waiting for %s: %s exited: %v\n%s", what, d.name, d.err, tail(d.log, 40))
			default:
			}
		}
		err := ready()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			c.t.Fatalf("waiting for %s: not within %v: %v", what, startTimeout, err)
		case <-tick.C:
		}
	}
}

// drain cancels the jobs still in the cluster, if any, and waits until
// they are gone, so that no job step outlives slurmd.
func (c *Cluster) drain() {
	select {
	case <-c.ctld.done:
		return // no job can be cancelled, nor started
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	jobs := func() (string, error) {
		out, err := c.Command(ctx, "squeue", "--noheader", "--format", "%i %T").CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("squeue: %v: %s", err, out)
		}
		return strings.TrimSpace(string(out)), nil
	}
	left, err := jobs()
	if err != nil || left == "" {
		return
	}
	c.t.Logf("cancelling the jobs left:\n%s", left)
	if out, err := c.Command(ctx, "scancel", "--partition", Partition).CombinedOutput(); err != nil {
		c.t.Errorf("scancel: %v: %s", err, out)
		return
	}
	for left != "" {
		select {
		case <-ctx.Done():
			c.t.Errorf("jobs still there %v after scancel:\n%s", drainTimeout, left)
			return
		case <-time.After(200 * time.Millisecond):
		}
		if left, err = jobs(); err != nil {
			c.t.Error(err)
			return
		}
	}
}

// A Job is one job of the cluster, or one task of a job array, as
// scontrol show job describes it.
type Job struct {
	ID       string // JobId
	Task     string // ArrayTaskId; "" if not in an array
	State    string // JobState: COMPLETED, FAILED, CANCELLED…
	Reason   string // Reason, such as DependencyNeverSatisfied
	ExitCode string // ExitCode, status:signal
}

// Ended reports whether j has ended, whether it succeeded or not.
func (j Job) Ended() bool {
	switch j.State {
	case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
		"BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY":
		return true
	}
	return false // PENDING, RUNNING, COMPLETING, CONFIGURING, SUSPENDED, REQUEUED…
}

// String returns j as "job 3 task 1: FAILED (NonZeroExitCode), exit 1:0".
func (j Job) String() string {
	s := "job " + j.ID
	if j.Task != "" {
		s += " task " + j.Task
	}
	s += ": " + j.State
	if j.Reason != "" && j.Reason != "None" {
		s += " (" + j.Reason + ")"
	}
	return s + ", exit " + j.ExitCode
}

// ErrUnknownJob is returned by Jobs and Wait for a job that slurmctld does
// not know (scontrol: "Invalid job id specified"): since the cluster keeps
// finished jobs for an hour (MinJobAge), one it never had.
var ErrUnknownJob = errors.New("slurmctld does not know the job")

// pollInterval is how often Wait asks slurmctld for the jobs' states.
const pollInterval = 250 * time.Millisecond

// Wait polls the jobs ids, or the tasks of job arrays, until every one has
// ended (Job.Ended), and returns them in the order of ids. A failing
// scontrol is asked again at the next poll, unless it says the job is
// unknown (ErrUnknownJob). If ctx ends first, Wait's error gives the
// states last seen and scontrol's last failure, if any.
func (c *Cluster) Wait(ctx context.Context, ids ...string) ([]Job, error) {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	start := time.Now()
	var seen []Job   // the last poll answered
	var failed error // the last poll failed, before ctx ended
	for polls := 1; ; polls++ {
		all, err := c.jobs(ctx, ids)
		switch {
		case errors.Is(err, ErrUnknownJob):
			return nil, err
		case err != nil:
			if ctx.Err() == nil {
				failed = err
			}
		case !slices.ContainsFunc(all, func(j Job) bool { return !j.Ended() }):
			return all, nil
		default:
			seen, failed = all, nil
		}
		select {
		case <-ctx.Done():
			var b strings.Builder
			fmt.Fprintf(&b, "jobs %s not ended after %v (%d polls)", strings.Join(ids, ", "), time.Since(start).Round(time.Millisecond), polls)
			if seen == nil {
				b.WriteString("; scontrol never answered")
			} else {
				b.WriteString("; last seen:")
				for _, j := range seen {
					fmt.Fprintf(&b, "\n\t%v", j)
				}
			}
			if failed != nil {
				fmt.Fprintf(&b, "\nthen %v", failed)
			}
			return nil, errors.New(b.String())
		case <-tick.C:
		}
	}
}

// jobs returns the jobs or array tasks of ids, in their order.
func (c *Cluster) jobs(ctx context.Context, ids []string) ([]Job, error) {
	var all []Job
	for _, id := range ids {
		js, err := c.Jobs(ctx, id)
		if err != nil {
			return nil, err
		}
		all = append(all, js...)
	}
	return all, nil
}

// Jobs returns job id, or the tasks of job array id.
func (c *Cluster) Jobs(ctx context.Context, id string) ([]Job, error) {
	out, err := c.Command(ctx, "scontrol", "--oneliner", "show", "job", id).CombinedOutput()
	if err != nil {
		if bytes.Contains(out, []byte("Invalid job id specified")) {
			return nil, fmt.Errorf("scontrol show job %s: %w (MinJobAge=%d s): %s", id, ErrUnknownJob, minJobAge, bytes.TrimSpace(out))
		}
		return nil, fmt.Errorf("scontrol show job %s: %v: %s", id, err, out)
	}
	var jobs []Job
	for line := range strings.Lines(string(out)) {
		var j Job
		for _, f := range strings.Fields(line) {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "JobId":
				j.ID = v
			case "ArrayTaskId":
				j.Task = v
			case "JobState":
				j.State = v
			case "Reason":
				j.Reason = v
			case "ExitCode":
				j.ExitCode = v
			}
		}
		if j.ID != "" {
			jobs = append(jobs, j)
		}
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("scontrol show job %s: no job in %q", id, out)
	}
	return jobs, nil
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
