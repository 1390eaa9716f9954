package shutdown

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestMain runs exitChild instead of the tests in the child process of
// TestExit.
func TestMain(m *testing.M) {
	if dir := os.Getenv("SHUTDOWN_TEST_DIR"); dir != "" {
		exitChild(dir)
	}
	os.Exit(m.Run())
}

// exitChild tracks two temporary files and forgets one, starts a commit
// that takes 400 ms, and calls Exit while it runs; a second commit asked
// for once Exit waits must not run.
func exitChild(dir string) {
	in := func(name string) string { return filepath.Join(dir, name) }
	for _, name := range []string{"tracked.tmp", "untracked.tmp", "new"} {
		if err := os.WriteFile(in(name), []byte(name), 0o644); err != nil {
			panic(err)
		}
	}
	Track(in("tracked.tmp"))
	Track(in("untracked.tmp"))()
	started := make(chan struct{})
	go Commit(func() error {
		close(started)
		time.Sleep(400 * time.Millisecond)
		return os.Rename(in("new"), in("out"))
	})
	<-started
	go func() {
		time.Sleep(200 * time.Millisecond)
		Commit(func() error { return os.WriteFile(in("late"), nil, 0o644) })
	}()
	Exit(3)
}

func TestExit(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SHUTDOWN_TEST_DIR="+dir)
	err := cmd.Run()
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("child: %v, want exit status 3", err)
	}
	for name, want := range map[string]bool{"tracked.tmp": false, "untracked.tmp": true, "out": true, "new": false, "late": false} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s: present %v, want %v", name, err == nil, want)
		}
	}
}
