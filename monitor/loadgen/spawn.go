package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/augur-dev/augur/internal/shutdown"
)

// RunSpawned runs cfg against a monitor of its own: the augur binary exe
// run as augur monitor on Spec and Checks in a temporary directory, on a
// loopback port, with a fresh token and the extra flags monitorFlags; its
// stderr goes to stderr. cfg.URL and cfg.Token are set here. The monitor
// is stopped (SIGTERM) and the directory removed when the run ends.
func RunSpawned(ctx context.Context, cfg Config, exe string, monitorFlags []string, stderr io.Writer) (*Result, error) {
	dir, remove, err := shutdown.TempDir("augur-load-")
	if err != nil {
		return nil, err
	}
	defer remove()
	cfg.Token = fmt.Sprintf("load-%d", time.Now().UnixNano())
	files := map[string]string{"spec.yaml": Spec, "checks.yaml": Checks, "token": cfg.Token}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			return nil, err
		}
	}
	addrFile := filepath.Join(dir, "addr")
	args := []string{"monitor", filepath.Join(dir, "checks.yaml"), "--listen", "127.0.0.1:0", "--addr-file", addrFile,
		"--token-file", filepath.Join(dir, "token"), "-q", "--nodes", strconv.Itoa(cfg.Nodes)}
	cmd := exec.CommandContext(ctx, exe, append(args, monitorFlags...)...)
	cmd.Stderr = stderr
	// The monitor ends with this process, however it ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(addrFile); err == nil && len(b) > 0 {
			cfg.URL = "http://" + strings.TrimSpace(string(b))
			break
		}
		if time.Now().After(deadline) {
			return nil, errors.New("load: the monitor did not start")
		}
	}
	return Run(ctx, cfg)
}
