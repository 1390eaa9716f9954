package monitor

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/augur-dev/augur/ingest"
	"github.com/augur-dev/augur/trace"
)

// A recorder writes the trace a monitor saw: the states and the cuts,
// through a trace.Writer that puts the trace in place when it is closed,
// and a journal of the records applied, in the order applied, flushed
// after every push, from which augur collect rebuilds the trace after a
// crash.
type recorder struct {
	dir   string
	w     *trace.Writer
	f     *os.File
	buf   *bufio.Writer
	jpath string
}

// journalPath returns the journal of the recording at dir.
func journalPath(dir string) string {
	return filepath.Clean(dir) + ".journal.jsonl"
}

// createRecorder starts a recording at dir. It refuses to start when dir
// or its journal exists: an earlier recording is never replaced.
func createRecorder(dir string, schema trace.Schema, opts trace.Options) (*recorder, error) {
	j := journalPath(dir)
	if _, err := os.Stat(dir); err == nil {
		return nil, fmt.Errorf("monitor: record %s: already exists; the monitor does not replace a recording (choose another path)", dir)
	}
	f, err := os.OpenFile(j, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("monitor: record %s: the journal %s of an earlier monitor exists; rebuild its trace with augur collect --spec SPEC %s -o %s, or move it away", dir, j, j, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("monitor: record %s: %w", dir, err)
	}
	w, err := trace.Create(dir, schema, opts)
	if err != nil {
		f.Close()
		os.Remove(j)
		return nil, fmt.Errorf("monitor: record %s: %w", dir, err)
	}
	return &recorder{dir: dir, w: w, f: f, buf: bufio.NewWriterSize(f, 1<<16), jpath: j}, nil
}

func (r *recorder) addState(node string, ts uint64, vars []any, handle uint32) error {
	row, err := r.w.AddState(node, ts, vars)
	if err != nil {
		return err
	}
	if row != handle {
		return fmt.Errorf("state of %s at ts %d: row %d, but the monitor's handle is %d", node, ts, row, handle)
	}
	return nil
}

func (r *recorder) addSnapshot(c ingest.Cut) error {
	return r.w.AddSnapshot(trace.Snapshot{ID: c.Seq, TS: c.TS, Members: c.Members})
}

// journal appends the line of an applied record.
func (r *recorder) journal(line []byte) error {
	r.buf.Write(line)
	return r.buf.WriteByte('\n')
}

// flush writes the journal out to the operating system, so that it
// survives the monitor being killed.
func (r *recorder) flush() error {
	return r.buf.Flush()
}

// close finishes the trace, puts it in place and removes the journal,
// which it makes redundant.
func (r *recorder) close() error {
	if err := r.buf.Flush(); err != nil {
		r.abandon()
		return err
	}
	if err := r.f.Close(); err != nil {
		r.w.Abort()
		return err
	}
	if err := r.w.Close(); err != nil {
		return fmt.Errorf("%w; the journal %s holds the records", err, r.jpath)
	}
	return os.Remove(r.jpath)
}

// abandon discards the trace being written and keeps the journal.
func (r *recorder) abandon() {
	r.buf.Flush()
	r.f.Close()
	r.w.Abort()
}

// discard removes the trace being written and the journal, both of
// which the recorder created.
func (r *recorder) discard() {
	r.abandon()
	os.Remove(r.jpath)
}
