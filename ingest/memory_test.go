package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/collector/arrowsink"
	"github.com/augur-dev/augur/internal/memtest"
	"github.com/augur-dev/augur/trace"
)

// A huge value costs memory in proportion to its size: collecting a trace
// reads a line that holds a string of 6 MiB up to three times (to tell the
// kind of the input from its first line, to infer the types, to write the
// trace), each time into one allocation of its size, and the trace's
// columns take the string once more each, rounded up to 8 MiB. Nothing
// copies it besides: not the JSON decoder, not the hash that finds
// unchanged states. (Before, each read grew the line 64 KiB at a time and
// encoding/json copied it twice: about 20 times the string.)
func TestCollectHugeValueMemory(t *testing.T) {
	const size = 6 << 20
	big := strings.Repeat("x", size)
	tests := []struct {
		name, input string
		reads       int // of the string, as parts of lines
		columns     int // of the trace that hold it
	}{
		{"global snapshots", fmt.Sprintf(`{"snapshot": 1, "nodes": {"n1": {"blob": %q, "n": 1}, "n2": {"blob": "x", "n": 2}}}
{"snapshot": 2, "nodes": {"n1": {"blob": %[1]q, "n": 1}, "n2": {"blob": "y", "n": 2}}}
{"snapshot": 3, "nodes": {"n1": {"blob": "z", "n": 3}, "n2": {"blob": "y", "n": 2}}}
`, big), 5, 1}, // the first line three times, the second twice; one state
		{"node-local, in a list too", fmt.Sprintf(`{"node": "n1", "ts": 1, "state": {"blob": %q, "list": ["a", %[1]q]}}
{"node": "n2", "ts": 1, "state": {"blob": "x", "list": []}}
{"node": "n1", "ts": 2, "state": {"blob": "z", "list": []}}
{"node": "n2", "ts": 2, "heartbeat": true}
`, big), 6, 2}, // the first line, with it twice, three times
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.jsonl")
			if err := os.WriteFile(in, []byte(tt.input), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out.trace")
			var err error
			n := memtest.Allocated(func() { _, err = Collect(t.Context(), out, []string{in}, Options{}) })
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("collect allocated %d MiB", n>>20)
			if limit := uint64(tt.reads*size + tt.columns*8<<20 + 4<<20); n > limit {
				t.Errorf("collect allocated %d MiB for a string of %d MiB, more than %d MiB", n>>20, size>>20, limit>>20)
			}
			if v := column(t, out, "blob")[0]; v != big {
				t.Errorf("row 0 holds %.20q", v)
			}
		})
	}
}

// A monitor's decoder copies a pushed line once, which the values decoded
// from it share.
func TestLocalDecoderHugeValueMemory(t *testing.T) {
	const size = 6 << 20
	big := strings.Repeat("x", size)
	line := []byte(fmt.Sprintf(`{"node": "n1", "ts": 1, "state": {"blob": %q}}`, big))
	d, err := NewLocalDecoder(trace.Schema{{Name: "blob", Type: arrow.BinaryTypes.String}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var r *LocalRecord
	n := memtest.Allocated(func() { r, err = d.Decode("push", 1, line) })
	if err != nil {
		t.Fatal(err)
	}
	if r.Vars[0] != big {
		t.Errorf("blob %.20q", r.Vars[0])
	}
	if n > size+1<<20 {
		t.Errorf("decoding a string of %d MiB allocated %d MiB", size>>20, n>>20)
	}
}

// A list of integers costs collect a few times its 8 bytes a number: the
// lines that hold it are read three times (to tell the kind of input,
// to infer the types, to write the trace), the list is decoded twice and
// the trace's column takes it once, growing. Nothing boxes its numbers.
// (Before, 200,000 allocated 58 MiB here, 11 MiB after; 2,000,000 cost
// augur collect 179 MB of peak RSS, 92 MB after.)
func TestCollectIntegerListMemory(t *testing.T) {
	const n = 200_000
	var b strings.Builder
	fmt.Fprintf(&b, `{"snapshot": 1, "nodes": {"n1": {"log": [], "term": 1}}}`+"\n")
	fmt.Fprintf(&b, `{"snapshot": 2, "nodes": {"n1": {"log": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprint(&b, 1_000_000+i)
	}
	fmt.Fprintf(&b, `], "term": 2}}}`+"\n")
	fmt.Fprintf(&b, `{"snapshot": 3, "nodes": {"n1": {"log": [7], "term": 2}}}`+"\n")
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	a := memtest.Least(3, func(run int) {
		_, err = Collect(t.Context(), filepath.Join(dir, fmt.Sprintf("out%d.trace", run)), []string{in}, Options{})
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("collect allocated %d KiB for %d integers (%d KiB of text)", a>>10, n, b.Len()>>10)
	if limit := uint64(3*b.Len() + 2*8*n + 4*8*n + 4<<20); a > limit {
		t.Errorf("collect allocated %d KiB for %d integers, more than %d KiB", a>>10, n, limit>>10)
	}
	if l, _ := column(t, filepath.Join(dir, "out0.trace"), "log")[1].([]any); len(l) != n || l[n-1] != int64(1_000_000+n-1) {
		t.Errorf("row 1's log has %d values", len(l))
	}
}

// A huge value in a node-local Arrow stream is held by its record batch
// and the trace's column, and not copied besides: a string shares the
// batch, a list of integers is a []int64 over it. (Before, the string
// was copied and each integer boxed in an []any: a string of 6 MiB and
// 200,000 integers allocated 32 MiB here, 21 MiB after; augur collect
// of a stream with a 60 MB string peaked at 197 MB, 140 MB after, and
// one with 2,000,000 integers at 113 MB, 49 MB after.)
func TestCollectStreamHugeValueMemory(t *testing.T) {
	const size, n = 6 << 20, 200_000
	type state struct {
		Blob string  `augur:"blob"`
		Log  []int64 `augur:"log"`
	}
	big := state{Blob: strings.Repeat("x", size), Log: make([]int64, n)}
	for i := range big.Log {
		big.Log[i] = 1_000_000 + int64(i)
	}
	dir := t.TempDir()
	var inputs []string
	for _, name := range []string{"n1", "n2"} {
		path := filepath.Join(dir, name+".arrow")
		sink, err := arrowsink.Create(path, arrowsink.Options{})
		if err != nil {
			t.Fatal(err)
		}
		node := collector.NewNode(name, sink)
		for i, st := range []state{{Blob: "a"}, big, {Blob: "b", Log: []int64{1}}} {
			if name == "n2" && i == 1 {
				st = state{Blob: "c"}
			}
			if err := node.Expose(st); err != nil {
				t.Fatal(err)
			}
			node.Heartbeat()
		}
		node.Leave()
		if err := node.Close(); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, path)
	}
	var err error
	a := memtest.Least(3, func(run int) {
		_, err = Collect(t.Context(), filepath.Join(dir, fmt.Sprintf("out%d.trace", run)), inputs, Options{})
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("collect allocated %d KiB", a>>10)
	// The batch once, and the trace's columns, which grow by doubling.
	if limit := uint64(3*size + 3*8*n + 2<<20); a > limit {
		t.Errorf("collect of a string of %d MiB and %d integers allocated %d KiB, more than %d KiB", size>>20, n, a>>10, limit>>10)
	}
	out := filepath.Join(dir, "out0.trace")
	blobs, logs := column(t, out, "blob"), column(t, out, "log")
	found := false
	for row, b := range blobs {
		if b == big.Blob {
			l, _ := logs[row].([]any)
			found = len(l) == n && l[n-1] == big.Log[n-1]
		}
	}
	if !found {
		t.Errorf("no state holds the huge value")
	}
}

// column returns the values of variable name in every state row of the
// trace at path, in order.
func column(t *testing.T, path, name string) []any {
	t.Helper()
	tr, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	c := tr.Schema.Index(name)
	if c < 0 {
		t.Fatalf("%s has no variable %s", path, name)
	}
	sr := tr.States()
	defer sr.Close()
	var vals []any
	for row := range uint32(tr.NumStates()) {
		st, err := sr.State(row)
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, st.Vars[c])
	}
	return vals
}
