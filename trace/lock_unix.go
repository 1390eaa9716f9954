//go:build unix

package trace

import (
	"os"
	"syscall"
)

// lockDir takes an exclusive lock on dir, held until the returned file is
// closed (or its process dies), or fails at once if another holds it.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
