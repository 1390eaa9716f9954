//go:build !unix

package trace

import (
	"errors"
	"os"
)

// lockDir is not supported here: a temporary directory left by a killed
// writer is never taken for stale, and stays.
func lockDir(string) (*os.File, error) { return nil, errors.ErrUnsupported }
