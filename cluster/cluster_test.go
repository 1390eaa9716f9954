package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// Hex SHA-256s standing for a spec and a trace.
var (
	specSum  = strings.Repeat("5e", 32)
	traceSum = strings.Repeat("7a", 32)
)

// part returns shard x of n over two properties, with made-up stats.
func part(x, n int) *Stats {
	st := []evaluator.Stats{
		{Support: int64(10 + x), Bindings: 60, Violations: int64(x), Perfect: 9, ViolatingSnapshots: 1, ScoreSum: evaluator.Score{Int: uint64(9 + x), Frac: 1 << 63},
			Tags: map[string]int64{"bug:a": 1, "b": int64(x + 1)}},
		{Support: 3, Bindings: 3, Perfect: 3, ScoreSum: evaluator.Score{Int: 3}, Pruned: x == 1, PrunedAfter: int64(x)},
	}
	st[0].Patterns[3] = int64(x + 2)
	st[0].SetWitnesses([]evaluator.Witness{{Snapshot: uint64(100 + x), TS: 7, Binding: map[string]any{"n0": "n1"},
		Values: map[string]any{"n0.term": int64(1) << 60, "n0.log": []any{1.5, "x", nil, true}}}})
	return &Stats{
		Header: Header{Spec: specSum, Trace: traceSum, Properties: 2, Shard: evaluator.Shard{Index: x, Count: n, Block: 4},
			Merged: n == 1, Snapshots: 10 + x, MaxWitnesses: 2},
		IDs:      []string{"aaa", "bbb"},
		Stats:    st,
		Failures: []evaluator.ExprFailures{{Kind: "derived", Name: "d", Inputs: 1, Snapshot: uint64(50 - x), Error: "boom"}},
		Tags:     map[string]int64{"steady": int64(x + 1)},
	}
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []*Stats{part(1, 3), part(0, 1), {Header: Header{Spec: specSum, Trace: traceSum, Shard: evaluator.Shard{Count: 1, Block: 1}, Merged: true}}} {
		path := filepath.Join(dir, "s.arrow")
		if err := Write(path, s); err != nil {
			t.Fatal(err)
		}
		got, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.Path != path {
			t.Errorf("path %q", got.Path)
		}
		if !reflect.DeepEqual(got.Header, s.Header) {
			t.Errorf("header %+v, want %+v", got.Header, s.Header)
		}
		if !reflect.DeepEqual(got.Failures, s.Failures) || !reflect.DeepEqual(got.Tags, s.Tags) {
			t.Errorf("failures %+v, want %+v", got.Failures, s.Failures)
		}
		// Witness values come back as JSON numbers, which print as written.
		if g, w := asJSON(t, got.Stats), asJSON(t, s.Stats); g != w || !reflect.DeepEqual(got.IDs, s.IDs) && len(s.IDs) > 0 {
			t.Errorf("stats\n%s\nwant\n%s", g, w)
		}
		for i := range s.Stats {
			if g, w := asJSON(t, got.Stats[i].Witnesses()), asJSON(t, s.Stats[i].Witnesses()); g != w {
				t.Errorf("witnesses of property %d\n%s\nwant\n%s", i, g, w)
			}
		}
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "x.arrow")
	if _, err := Read(tr); err == nil {
		t.Error("missing file: no error")
	}
	if err := os.WriteFile(tr, []byte("not arrow"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(tr); err == nil || !strings.Contains(err.Error(), "x.arrow") {
		t.Errorf("garbage: %v", err)
	}
}

func TestMerge(t *testing.T) {
	m, err := Merge([]*Stats{part(2, 3), part(0, 3), part(1, 3)})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Merged || m.Shard != (evaluator.Shard{Index: 0, Count: 3, Block: 4}) || m.Snapshots != 33 {
		t.Errorf("header %+v", m.Header)
	}
	s := m.Stats[0]
	if s.Support != 33 || s.Violations != 3 || s.ScoreSum != (evaluator.Score{Int: 31, Frac: 1 << 63}) || // 9.5 + 10.5 + 11.5
		s.Patterns[3] != 9 || s.Tags["b"] != 6 || s.Tags["bug:a"] != 3 {
		t.Errorf("sums %+v", s)
	}
	if ws := s.Witnesses(); len(ws) != 2 || ws[0].Snapshot != 100 || ws[1].Snapshot != 101 {
		t.Errorf("witnesses %+v, want snapshots 100, 101", ws)
	}
	if p := m.Stats[1]; !p.Pruned || p.PrunedAfter != 2 || m.Result().Pruned != 1 {
		t.Errorf("pruning %+v", p)
	}
	want := []evaluator.ExprFailures{{Kind: "derived", Name: "d", Inputs: 3, Snapshot: 48, Error: "boom"}}
	if m.Tags["steady"] != 6 || m.Result().Tags["steady"] != 6 {
		t.Errorf("tags %v, want steady: 6", m.Tags)
	}
	if !reflect.DeepEqual(m.Failures, want) || !reflect.DeepEqual(m.Result().Failures, want) {
		t.Errorf("failures %+v, want %+v", m.Failures, want)
	}
}

func TestMergeRefusals(t *testing.T) {
	named := func(s *Stats, path string) *Stats { s.Path = path; return s }
	with := func(x int, f func(*Stats)) *Stats {
		s := named(part(x, 3), "odd.arrow")
		f(s)
		return s
	}
	p0, p1, p2 := named(part(0, 3), "p0.arrow"), named(part(1, 3), "p1.arrow"), named(part(2, 3), "p2.arrow")
	tests := []struct {
		parts []*Stats
		want  string
	}{
		{nil, "no partial stats"},
		{[]*Stats{p0, p2}, "missing shard 1 of 3 (have p0.arrow, p2.arrow)"},
		{[]*Stats{p0, p1, p1, p2}, "shard 1/3 given twice: p1.arrow and p1.arrow"},
		{[]*Stats{p0, p1, with(2, func(s *Stats) { s.Spec = "other" })}, "cannot merge p0.arrow and odd.arrow: different specs"},
		{[]*Stats{p0, p1, with(2, func(s *Stats) { s.Trace = "other" })}, "cannot merge p0.arrow and odd.arrow: different traces"},
		{[]*Stats{p0, p1, with(2, func(s *Stats) { s.Shard.Count = 4 })}, "different shard counts (3 and 4)"},
		{[]*Stats{p0, p1, with(2, func(s *Stats) { s.Shard.Block = 8 })}, "different blocks (4 and 8)"},
		{[]*Stats{p0, p1, with(2, func(s *Stats) { s.IDs = []string{"aaa", "ccc"} })}, "different properties (2 and 2; first difference at row 1)"},
		{[]*Stats{p0, p1, with(2, func(s *Stats) { s.MaxWitnesses = 1 })}, "different witness limits"},
		{[]*Stats{with(0, func(s *Stats) { s.Merged = true })}, "odd.arrow is already merged"},
	}
	for _, tt := range tests {
		_, err := Merge(tt.parts)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v", tt.want, err)
		}
	}
}

func TestCheck(t *testing.T) {
	prog := &evaluator.Program{Props: []*evaluator.Prop{{ID: "aaa"}, {ID: "bbb"}}}
	m, err := Merge([]*Stats{part(0, 2), part(1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Check(specSum, traceSum, prog); err != nil {
		t.Error(err)
	}
	for _, tt := range []struct {
		s          *Stats
		spec, tr   string
		prog, want string
	}{
		{m, "other", traceSum, "", "another spec"},
		{m, specSum, "other", "", "another trace"},
		{part(1, 2), specSum, traceSum, "", "holds shard 1 of 2 only"},
		{m, specSum, traceSum, "short", "does not hold the properties"},
	} {
		p := prog
		if tt.prog != "" {
			p = &evaluator.Program{Props: prog.Props[:1]}
		}
		if err := tt.s.Check(tt.spec, tt.tr, p); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v", tt.want, err)
		}
	}
}

func TestTraceHash(t *testing.T) {
	a := TraceHash(&trace.Manifest{SHA256: map[string]string{"a": "1", "b": "2"}})
	b := TraceHash(&trace.Manifest{SHA256: map[string]string{"b": "2", "a": "1"}})
	c := TraceHash(&trace.Manifest{SHA256: map[string]string{"a": "1", "b": "3"}})
	if a != b || a == c {
		t.Errorf("hashes %s %s %s", a, b, c)
	}
}

// TestSpecHash hashes a spec file, and refuses what specs.Load refuses
// before reading it: a named pipe (without blocking), a device and a file
// over specs.MaxFileSize.
func TestSpecHash(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte("system: s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h, err := SpecHash(spec); err != nil || h != "c88389c8ba393121f1c161b429170a3d6674713dec8e86af7425ce50b4d36ebe" {
		t.Errorf("SpecHash = %q, %v", h, err)
	}
	for path, want := range badFiles(t, specs.MaxFileSize) {
		if _, err := SpecHash(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("SpecHash(%s) = %v, want an error saying %q", path, err, want)
		}
	}
}

// TestReadBounds: a stats file is read whole, so Read refuses one over
// MaxFileSize before reading it (a sparse file of 1 GiB more was read
// into memory, and a file of 40 GiB ran out of it), and what is not a
// regular file, without blocking.
func TestReadBounds(t *testing.T) {
	for path, want := range badFiles(t, MaxFileSize) {
		if _, err := Read(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Read(%s) = %v, want an error saying %q", path, err, want)
		}
	}
}

// badFiles returns inputs to refuse, each with what the error says: a
// named pipe, a device and a sparse file of limit+1 bytes.
func badFiles(t *testing.T, limit int64) map[string]string {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, limit+1); err != nil {
		t.Fatal(err)
	}
	return map[string]string{fifo: "is a named pipe", "/dev/zero": "is a device", big: "more than"}
}

// TestMergeFiles merges parts written to files, as augur merge does, and
// refuses to write over a part.
func TestMergeFiles(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("part%d.arrow", i))
		if err := Write(p, part(i, 3)); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	out := filepath.Join(dir, "stats.arrow")
	if err := MergeFiles(context.Background(), out, paths...); err != nil {
		t.Fatal(err)
	}
	got, err := Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Merged || got.Snapshots != 33 {
		t.Errorf("merged header %+v", got.Header)
	}
	if err := MergeFiles(context.Background(), paths[0], paths...); err == nil {
		t.Error("MergeFiles wrote over a part")
	}
	if err := MergeFiles(context.Background(), out, paths[:2]...); err == nil {
		t.Error("MergeFiles merged two of three shards")
	}
	// A shard given twice, or missing, is refused from the headers,
	// before any part is read whole: here a part whose content does not
	// match its digest, which only the whole read finds, comes last (it
	// was read, and its error given, before the duplicate was seen).
	damaged := filepath.Join(dir, "damaged.arrow")
	data, err := os.ReadFile(paths[2])
	if err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := r.Schema().Metadata().GetValue(keyDigest)
	r.Close()
	other := []byte(sum)
	other[0] = "10"[min(int(other[0]-'0'), 1)] // another hex digit: the header still parses
	data = bytes.ReplaceAll(data, []byte(sum), other)
	if err := os.WriteFile(damaged, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(damaged); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("the damaged part reads: %v", err)
	}
	for _, parts := range [][]string{{paths[0], paths[1], paths[1], damaged}, {paths[0], damaged, paths[0]}} {
		if err := MergeFiles(context.Background(), out, parts...); err == nil || !strings.Contains(err.Error(), "given twice") {
			t.Errorf("MergeFiles(%v) = %v, want a shard given twice", parts, err)
		}
	}
	if err := MergeFiles(context.Background(), out, paths[0], damaged); err == nil || !strings.Contains(err.Error(), "missing shard 1 of 3") {
		t.Errorf("MergeFiles of shards 0 and 2 = %v, want shard 1 missing", err)
	}
	// Interrupted (augur merge on SIGINT), it writes nothing.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	interrupted := filepath.Join(dir, "interrupted.arrow")
	if err := MergeFiles(ctx, interrupted, paths...); !errors.Is(err, context.Canceled) {
		t.Errorf("MergeFiles after ctx is done: %v, want context.Canceled", err)
	}
	if _, err := os.Stat(interrupted); !os.IsNotExist(err) {
		t.Errorf("interrupted merge left %s: %v", interrupted, err)
	}
}
