// Package shutdown ends the process for a command that does not stop on
// its own once signalled, without leaving what it writes half done: the
// temporary files and directories registered with Track are removed,
// and the process waits for a commit (Commit: the renames that put an
// output in place) in progress, and lets none start after.
//
// Commands stop on their own by watching their context; Exit is the
// bound on the few loops that cannot (a library call that takes no
// context, a write to a pipe no one reads), so that Ctrl-C always
// works.
package shutdown

import (
	"os"
	"sync"
)

var (
	mu      sync.Mutex // guards pending
	pending = map[*string]struct{}{}

	// commits is held for reading by each Commit and for writing, for
	// good, by Exit.
	commits sync.RWMutex
)

// Track registers path, a temporary file or directory of this process,
// for Exit to remove, until untrack is called.
func Track(path string) (untrack func()) {
	p := &path
	mu.Lock()
	pending[p] = struct{}{}
	mu.Unlock()
	return func() {
		mu.Lock()
		delete(pending, p)
		mu.Unlock()
	}
}

// Commit runs put, which puts an output in place, whole: Exit waits for
// a Commit that has started and ends the process before any other starts.
func Commit(put func() error) error {
	commits.RLock()
	defer commits.RUnlock()
	return put()
}

// Exit waits for the commits in progress, removes the paths tracked and
// ends the process with code.
func Exit(code int) {
	commits.Lock()
	mu.Lock()
	for p := range pending {
		os.RemoveAll(*p)
	}
	os.Exit(code)
}

// TempDir makes a new temporary directory, as os.MkdirTemp("", pattern)
// does, tracked until remove removes it.
func TempDir(pattern string) (dir string, remove func(), err error) {
	dir, err = os.MkdirTemp("", pattern)
	if err != nil {
		return "", nil, err
	}
	untrack := Track(dir)
	return dir, func() {
		os.RemoveAll(dir)
		untrack()
	}, nil
}
