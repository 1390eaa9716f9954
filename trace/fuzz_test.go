package trace_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/augur-dev/augur/internal/ipcfile"
	"github.com/augur-dev/augur/trace"
)

// FuzzOpen reads whole traces made of the two Arrow files it is given,
// with a manifest signed for them and counting what they hold, as a
// forger would write it: so the checksum and the counts let the bytes
// through to the reader, which must fail with ErrCorrupt or read every
// snapshot and state, never panic, hang or exhaust memory.
//
// The seeds are writeTrace's trace and the first snapshots of each trace
// in testdata/testbeds, rewritten small. Run it with
//
//	go test ./trace -run '^$' -fuzz FuzzOpen -fuzztime 2m
//
// The fuzzer minimizes every input that reaches new code, for up to a
// minute each, and early in a run most inputs do: add
// -fuzzminimizetime 100x to spend the time fuzzing instead.
func FuzzOpen(f *testing.F) {
	for _, dir := range fuzzSeeds(f) {
		states, err := os.ReadFile(filepath.Join(dir, trace.StatesFile))
		if err != nil {
			f.Fatal(err)
		}
		snaps, err := os.ReadFile(filepath.Join(dir, trace.SnapshotsFile))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(states, snaps)
	}
	f.Fuzz(func(t *testing.T, states, snapshots []byte) {
		m := trace.Manifest{Format: trace.Format, Version: trace.Version, SHA256: map[string]string{}}
		for name, data := range map[string][]byte{trace.StatesFile: states, trace.SnapshotsFile: snapshots} {
			sum := sha256.Sum256(data)
			m.SHA256[name] = hex.EncodeToString(sum[:])
		}
		m.States, m.Nodes = countRows(states, true)
		m.Snapshots, _ = countRows(snapshots, false)
		js, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		// In memory: writing three files for each input would take ten
		// times as long as reading them.
		tr, err := trace.OpenBytes("f.trace", js, states, snapshots)
		if err == nil {
			err = readTrace(tr)
			tr.Close()
		}
		if err != nil && !errors.Is(err, trace.ErrCorrupt) {
			t.Fatalf("error %v is not ErrCorrupt", err)
		}
	})
}

// countRows counts the rows of an Arrow file, and the distinct strings of
// its first column if nodes is set, as a forger would, through ipcfile so
// that a damaged file cannot crash the count. It returns 0 for a file it
// cannot read.
func countRows(data []byte, nodes bool) (rows, distinct int) {
	f, err := ipcfile.Open("fuzz", bytes.NewReader(data), int64(len(data)), ipcfile.Options{})
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	seen := map[string]bool{}
	for i := range f.NumBatches() {
		rows += int(f.BatchRows(i))
		if !nodes {
			continue
		}
		rec, err := f.Batch(i)
		if err != nil {
			continue
		}
		if col, ok := rec.Column(0).(*array.String); ok {
			for j := range col.Len() {
				seen[col.Value(j)] = true
			}
		}
		rec.Release()
	}
	return rows, len(seen)
}

// fuzzSeeds returns writeTrace's trace and, for each system with a trace
// in testdata/testbeds, a copy of its first two snapshots and the states
// they use, in batches of one or two rows: seeds must be small, since the
// fuzzer minimizes every input that finds new code byte by byte, and
// still have several batches.
func fuzzSeeds(f *testing.F) []string {
	dirs := []string{writeTrace(f)}
	// One trace of each system: the variants with a planted bug have the
	// same schema.
	src := []string{"chord", "etcdraft", "paxos", "randtree"}
	for i, s := range src {
		s = filepath.Join("..", "testdata", "testbeds", s+".trace")
		tr, err := trace.Open(s)
		if err != nil {
			f.Fatal(err)
		}
		dir := filepath.Join(f.TempDir(), filepath.Base(s))
		w, err := trace.Create(dir, tr.Schema, trace.Options{BatchRows: 1 + i%2})
		if err != nil {
			f.Fatal(err)
		}
		sr := tr.Snapshots()
		st := tr.States()
		rows := map[uint32]uint32{}
		for n := 0; n < 2 && sr.Next(); n++ {
			snap := *sr.Snapshot()
			var members []uint32
			for _, r := range snap.Members {
				if _, ok := rows[r]; !ok {
					s, err := st.State(r)
					if err != nil {
						f.Fatal(err)
					}
					if rows[r], err = w.AddState(s.Node, s.TS, s.Vars); err != nil {
						f.Fatal(err)
					}
				}
				members = append(members, rows[r])
			}
			snap.Members = members
			if err := w.AddSnapshot(snap); err != nil {
				f.Fatal(err)
			}
		}
		if err := sr.Err(); err != nil {
			f.Fatal(err)
		}
		sr.Close()
		st.Close()
		tr.Close()
		if err := w.Close(); err != nil {
			f.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	return dirs
}
