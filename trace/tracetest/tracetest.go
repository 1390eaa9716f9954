// Package tracetest builds small traces for tests.
package tracetest

import (
	"path/filepath"
	"testing"

	"github.com/augur-dev/augur/trace"
)

// Builder writes a trace into a test's temporary directory. Any error
// fails the test.
type Builder struct {
	t   testing.TB
	dir string
	w   *trace.Writer
}

// New starts a trace with the given state variables.
func New(t testing.TB, schema trace.Schema, opts trace.Options) *Builder {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "test.trace")
	w, err := trace.Create(dir, schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &Builder{t: t, dir: dir, w: w}
}

// State adds a node state and returns its row.
func (b *Builder) State(node string, ts uint64, vars ...any) uint32 {
	b.t.Helper()
	row, err := b.w.AddState(node, ts, vars)
	if err != nil {
		b.t.Fatal(err)
	}
	return row
}

// Snapshot adds a snapshot.
func (b *Builder) Snapshot(s trace.Snapshot) {
	b.t.Helper()
	if err := b.w.AddSnapshot(s); err != nil {
		b.t.Fatal(err)
	}
}

// Open finishes the trace and opens it; it is closed when the test ends.
func (b *Builder) Open() *trace.Trace {
	b.t.Helper()
	if err := b.w.Close(); err != nil {
		b.t.Fatal(err)
	}
	tr, err := trace.Open(b.dir)
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(func() { tr.Close() })
	return tr
}
