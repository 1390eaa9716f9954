package spectrace

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
	"github.com/augur-dev/augur/trace/tracetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// toyTrace writes a small trace with a column of every kind, and columns
// Init must leave out or quote, and opens it.
func toyTrace(t *testing.T) *trace.Trace {
	t.Helper()
	utf8, i64 := arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64
	schema := trace.Schema{
		{Name: "term", Type: i64},
		{Name: "commit", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "load", Type: arrow.PrimitiveTypes.Float64},
		{Name: "up", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "state", Type: utf8},  // 3 values: an enum
		{Name: "leader", Type: utf8}, // 10 values: a string
		{Name: "mode", Type: utf8},   // values that need quotes
		{Name: "unset", Type: utf8},  // always null: a string
		{Name: "peers", Type: arrow.ListOf(utf8)},
		{Name: "log", Type: arrow.ListOf(arrow.StructOf(
			arrow.Field{Name: "term", Type: i64, Nullable: true},
			arrow.Field{Name: "index", Type: i64, Nullable: true},
		))},
		{Name: "acks", Type: arrow.MapOf(utf8, arrow.FixedWidthTypes.Boolean)},
		{Name: "bad-name", Type: i64},
		{Name: "set", Type: i64},
		{Name: "meta", Type: arrow.StructOf(arrow.Field{Name: "in", Type: i64, Nullable: true})},
	}
	b := tracetest.New(t, schema, trace.Options{System: "toy", CreatedBy: "specs test"})
	states := []string{"follower", "candidate", "leader"}
	modes := []string{"yes", "a b", "", "x,y"}
	for i := range 10 {
		node := fmt.Sprintf("n%d", i%2)
		row := b.State(node, uint64(i),
			int64(i), uint64(i), float64(i)/2, i%2 == 0,
			states[i%3], fmt.Sprintf("n%d", i), modes[i%4], nil,
			[]any{"n0", "n1"},
			[]any{map[string]any{"term": int64(1), "index": int64(i)}},
			map[string]any{"n0": true},
			int64(0), int64(0), map[string]any{"in": int64(1)},
		)
		if i%2 == 1 {
			b.Snapshot(trace.Snapshot{ID: uint64(i), TS: uint64(i), Members: []uint32{row - 1, row}})
		}
	}
	return b.Open()
}

func TestInit(t *testing.T) {
	tr := toyTrace(t)
	var b strings.Builder
	if err := Init(context.Background(), tr, &b); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "init.golden.yaml")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want, err := os.ReadFile(golden); err != nil || b.String() != string(want) {
		t.Errorf("output differs from %s (rerun with -update to accept), %v:\n%s", golden, err, b.String())
	}

	s, err := specs.Parse("init.yaml", []byte(b.String()))
	if err != nil {
		t.Fatalf("starter spec does not parse: %v", err)
	}
	if err := Check(s, tr.Schema); err != nil {
		t.Fatalf("starter spec does not check: %v", err)
	}
	state, _ := s.Lookup("state")
	mode, _ := s.Lookup("mode")
	if fmt.Sprint(state.Enum) != "[candidate follower leader]" || fmt.Sprintf("%q", mode.Enum) != `["" "a b" "x,y" "yes"]` {
		t.Errorf("enums: state %q, mode %q", state.Enum, mode.Enum)
	}
	for _, name := range []string{"leader", "unset"} {
		if typ, _ := s.Lookup(name); typ.Enum != nil {
			t.Errorf("%s is an enum", name)
		}
	}
	// The columns but the three left out, and node: leader and peers name
	// nodes, and no column gives a node's own name.
	if s.System != "toy" || len(s.Vars) != len(tr.Schema)-3+1 {
		t.Errorf("system %q, %d variables", s.System, len(s.Vars))
	}
	if node, ok := s.Lookup("node"); !ok || node.Name != "NodeID" {
		t.Errorf("node declared %v as %+v, want NodeID", ok, node)
	}

	var again strings.Builder
	if err := Init(context.Background(), tr, &again); err != nil || again.String() != b.String() {
		t.Errorf("Init is not deterministic (err %v)", err)
	}
}

// TestInitNode checks that a starter spec declares node, the node's own
// name, when its variables name nodes and no column gives that name.
func TestInitNode(t *testing.T) {
	utf8 := arrow.BinaryTypes.String
	for _, tt := range []struct {
		name   string
		schema trace.Schema
		row    func(node string, i int) []any
		want   bool
	}{
		{"leader only", trace.Schema{{Name: "leader", Type: utf8}},
			func(string, int) []any { return []any{"n1"} }, true},
		{"an id column", trace.Schema{{Name: "id", Type: utf8}, {Name: "leader", Type: utf8}},
			func(node string, _ int) []any { return []any{node, "n1"} }, false},
		{"an id that is once another's", trace.Schema{{Name: "id", Type: utf8}, {Name: "leader", Type: utf8}},
			func(node string, i int) []any {
				if i == 3 {
					return []any{"n0", "n1"}
				}
				return []any{node, "n1"}
			}, true},
		{"no node names", trace.Schema{{Name: "state", Type: utf8}},
			func(string, int) []any { return []any{"up"} }, false},
	} {
		b := tracetest.New(t, tt.schema, trace.Options{System: "toy"})
		for i := range 6 {
			node := fmt.Sprintf("n%d", i%2)
			row := b.State(node, uint64(i), tt.row(node, i)...)
			if i%2 == 1 {
				b.Snapshot(trace.Snapshot{ID: uint64(i), TS: uint64(i), Members: []uint32{row - 1, row}})
			}
		}
		var out strings.Builder
		if err := Init(context.Background(), b.Open(), &out); err != nil {
			t.Fatal(err)
		}
		s, err := specs.Parse("init.yaml", []byte(out.String()))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if _, got := s.Lookup("node"); got != tt.want {
			t.Errorf("%s: node declared %v, want %v:\n%s", tt.name, got, tt.want, out.String())
		}
	}
}

// TestInitRestates checks that a starter spec says which integer column
// is another plus a constant in every state.
func TestInitRestates(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	schema := trace.Schema{{Name: "start", Type: i64}, {Name: "snap", Type: i64}, {Name: "copy", Type: i64},
		{Name: "other", Type: i64}, {Name: "once", Type: i64}, {Name: "late", Type: i64}, {Name: "one", Type: i64}}
	b := tracetest.New(t, schema, trace.Options{System: "toy"})
	for i := range 8 {
		x := int64(i * 3)
		late := any(x + 2) // start + 2, but null in the first state
		if i == 0 {
			late = nil
		}
		once := x + 5 // start + 5, but once start + 6
		if i == 4 {
			once++
		}
		row := b.State(fmt.Sprintf("n%d", i%2), uint64(i), x, x-1, x, int64(i*i), once, late, int64(7))
		if i%2 == 1 {
			b.Snapshot(trace.Snapshot{ID: uint64(i), TS: uint64(i), Members: []uint32{row - 1, row}})
		}
	}
	var out strings.Builder
	if err := Init(context.Background(), b.Open(), &out); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		column, says string // "" for nothing said
	}{
		{"start", ""},
		{"snap", "snap is start - 1 in every state of this trace: each of its relations restates one of start's"},
		{"copy", "copy equals start in every state"},
		{"other", ""},
		{"once", ""},
		{"late", ""},
		{"one", ""}, // one value: the ranges' rule gives it a type of its own
	} {
		i := strings.Index(out.String(), "\n  "+tt.column+": ")
		if i < 0 {
			t.Fatalf("no variable %s:\n%s", tt.column, out.String())
		}
		line, _, _ := strings.Cut(out.String()[i+1:], "\n")
		if got := strings.Contains(line, "in every state"); got != (tt.says != "") || tt.says != "" && !strings.Contains(line, tt.says) {
			t.Errorf("%s: %q, want it to say %q", tt.column, line, tt.says)
		}
	}
}

// TestInitFile writes the starter spec of a trace to a writer and to a
// file, which must agree, and refuses to write over the trace.
func TestInitFile(t *testing.T) {
	tr := toyTrace(t)
	var want strings.Builder
	if err := Init(context.Background(), tr, &want); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	if err := InitFile(context.Background(), tr.Dir, "", &got); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "spec.yaml")
	if err := InitFile(context.Background(), tr.Dir, out, nil); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() || string(file) != want.String() {
		t.Errorf("InitFile wrote\n%s\nand\n%s\nwant\n%s", got.String(), file, want.String())
	}
	if err := InitFile(context.Background(), tr.Dir, tr.Dir, nil); err == nil {
		t.Error("InitFile wrote over its trace")
	}
}

// TestInitFileCanceled checks that a done context stops spec init with
// its error, the output as it was and nothing on stdout.
func TestInitFileCanceled(t *testing.T) {
	tr := toyTrace(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	for _, o := range []string{out, ""} {
		if err := InitFile(ctx, tr.Dir, o, &stdout); !errors.Is(err, context.Canceled) {
			t.Errorf("InitFile(%q) with a done context = %v, want context.Canceled", o, err)
		}
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "old\n" || stdout.Len() > 0 {
		t.Errorf("InitFile with a done context left %q (%v) and wrote %q to stdout", b, err, stdout.String())
	}
}

// TestInitLongStrings checks that a string column of few values, one of
// them longer than maxEnumLen, is declared a string, not an enum whose
// values every generated property would copy.
func TestInitLongStrings(t *testing.T) {
	b := tracetest.New(t, trace.Schema{{Name: "v", Type: arrow.BinaryTypes.String}}, trace.Options{System: "long"})
	for i, v := range []string{"short", strings.Repeat("s", maxEnumLen+1), "short"} {
		b.Snapshot(trace.Snapshot{ID: uint64(i), TS: uint64(i), Members: []uint32{b.State("n0", uint64(i), v)}})
	}
	var out strings.Builder
	if err := Init(context.Background(), b.Open(), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\n  v: string\n") {
		t.Errorf("Init declared v otherwise than as a string:\n%s", out.String())
	}
}

// TestInitHugeNames checks that a starter spec leaves out, with a short
// comment, a column whose name, or a struct whose field names or number
// of fields, would make every property over it huge: collect takes the
// keys of a JSON object as a struct's fields, and a key of 10 MB (or
// 50,000 keys) declared as such ran augur infer out of memory.
func TestInitHugeNames(t *testing.T) {
	long := strings.Repeat("k", 10000)
	var many []arrow.Field
	manyVal := map[string]any{}
	for i := range maxFields + 1 {
		name := fmt.Sprintf("f%d", i)
		many = append(many, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64, Nullable: true})
		manyVal[name] = int64(i)
	}
	schema := trace.Schema{
		{Name: "term", Type: arrow.PrimitiveTypes.Int64},
		{Name: "acks", Type: arrow.StructOf(arrow.Field{Name: long, Type: arrow.FixedWidthTypes.Boolean, Nullable: true})},
		{Name: "wide", Type: arrow.StructOf(many...)},
		{Name: "v" + long, Type: arrow.PrimitiveTypes.Int64},
	}
	b := tracetest.New(t, schema, trace.Options{System: "names"})
	for i := range 3 {
		row := b.State("n0", uint64(i), int64(i), map[string]any{long: true}, manyVal, int64(i))
		b.Snapshot(trace.Snapshot{ID: uint64(i), TS: uint64(i), Members: []uint32{row}})
	}
	var out strings.Builder
	if err := Init(context.Background(), b.Open(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`# column "acks" left out: field "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"…: a name of 10000 bytes, longer than the 256 of a starter spec`,
		`# column "wide" left out: a struct of 257 fields, more than the 256 a starter spec compares`,
		`# column "vkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"… left out: a name of 10001 bytes`,
		"\n  term: ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the starter spec lacks %q", want)
		}
	}
	if out.Len() > 8<<10 {
		t.Errorf("a starter spec of %d bytes", out.Len())
	}
	if _, err := specs.Parse("s.yaml", []byte(out.String())); err != nil {
		t.Errorf("the starter spec does not parse: %v", err)
	}
}

// TestInitNestedNodeIDs checks that strings that name nodes are NodeIDs
// wherever they are, a record's field in a list or a map's item as well
// as a column, so that an iterator compares them with the node's own
// (forall e0 in n0.routes: e0.via != n0.id); and that a list of records
// is iterated, a list of strings not.
func TestInitNestedNodeIDs(t *testing.T) {
	utf8 := arrow.BinaryTypes.String
	schema := trace.Schema{
		{Name: "id", Type: utf8},
		{Name: "routes", Type: arrow.ListOf(arrow.StructOf(
			arrow.Field{Name: "via", Type: utf8, Nullable: true},
			arrow.Field{Name: "key", Type: utf8, Nullable: true},
		))},
		{Name: "owners", Type: arrow.MapOf(utf8, utf8)},
		{Name: "keys", Type: arrow.ListOf(utf8)},
	}
	b := tracetest.New(t, schema, trace.Options{System: "nested"})
	for i := range 30 {
		node, other := fmt.Sprintf("n%d", i%3), fmt.Sprintf("n%d", (i+1)%3)
		row := b.State(node, uint64(i), node,
			[]any{map[string]any{"via": other, "key": fmt.Sprintf("k%d", i)}},
			map[string]any{fmt.Sprintf("k%d", i): other},
			[]any{fmt.Sprintf("k%d", i)},
		)
		b.Snapshot(trace.Snapshot{ID: uint64(i), TS: uint64(i), Members: []uint32{row}})
	}
	var out strings.Builder
	if err := Init(context.Background(), b.Open(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\n  id: NodeID\n",
		"\n  routes: \"list<{via: NodeID, key: string}>\"\n",
		"\n  owners: map<string, NodeID>\n",
		"\n  keys: list<string>\n",
		"\n  iterate: [routes]  ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the starter spec lacks %q:\n%s", want, out.String())
		}
	}
}

// TestInitValueTypes writes a starter spec for a trace of a version
// vector keyed by node, session ids, lock names held in a list, a map
// keyed by lock name, and a list of session ids: each entry of the
// vector gets its own type, the session ids one type, and the lock names,
// which the map's keys share, stay string.
func TestInitValueTypes(t *testing.T) {
	utf8, i64 := arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64
	schema := trace.Schema{
		{Name: "vv", Type: arrow.StructOf(
			arrow.Field{Name: "n0", Type: i64, Nullable: true},
			arrow.Field{Name: "n1", Type: i64, Nullable: true},
			arrow.Field{Name: "n2", Type: i64, Nullable: true},
		)},
		{Name: "session", Type: utf8},
		{Name: "sessions", Type: arrow.ListOf(utf8)},
		{Name: "locks", Type: arrow.ListOf(utf8)},
		{Name: "holders", Type: arrow.MapOf(utf8, i64)},
	}
	b := tracetest.New(t, schema, trace.Options{System: "values"})
	for i := range 30 {
		node := fmt.Sprintf("n%d", i%3)
		s, l := fmt.Sprintf("c%d#%d", i%4, i/4), fmt.Sprintf("lock-%d", i)
		row := b.State(node, uint64(i),
			map[string]any{"n0": int64(i), "n1": int64(i + 1), "n2": int64(i + 2)},
			s, []any{s}, []any{l}, map[string]any{l: int64(i)},
		)
		b.Snapshot(trace.Snapshot{ID: uint64(i), TS: uint64(i), Members: []uint32{row}})
	}
	var out strings.Builder
	if err := Init(context.Background(), b.Open(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\n  vv: \"{n0: VvN0, n1: VvN1, n2: VvN2}\"\n",
		"\n  session: Session\n",
		"\n  sessions: list<Session>\n",
		"\n  locks: list<string>\n",
		"\n  holders: map<string, Holders>\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the starter spec lacks %q:\n%s", want, out.String())
		}
	}
}

// TestInitHugeList writes a starter spec for a trace whose state holds a
// list of 2^20 int64 (8 MiB), unsorted and beside a list of strings. Init
// reads the lists typed, as the trace holds them, so that it allocates
// about the record batch they are read from; read boxed, each element
// took an interface and most an allocation more (spec init of ten states
// with a 2M-integer list each peaked at 260 MB).
func TestInitHugeList(t *testing.T) {
	const n = 1 << 20
	big := make([]int64, n)
	for i := range big {
		big[i] = int64(i*7919%n) + 1<<40
	}
	utf8 := arrow.BinaryTypes.String
	schema := trace.Schema{
		{Name: "id", Type: utf8},
		{Name: "nums", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)},
		{Name: "peers", Type: arrow.ListOf(utf8)},
	}
	b := tracetest.New(t, schema, trace.Options{System: "huge"})
	rows := []uint32{
		b.State("n0", 1, "n0", big, []string{"n1"}),
		b.State("n1", 1, "n1", []int64{big[3], big[7]}, []string{"n0"}),
	}
	b.Snapshot(trace.Snapshot{ID: 1, TS: 1, Members: rows})
	tr := b.Open()
	var out strings.Builder
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := Init(context.Background(), tr, &out)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(2*8*n); got > limit {
		t.Errorf("Init of a list of %d MiB allocated %d KiB, more than %d KiB", 8*n>>20, got>>10, limit>>10)
	}
	for _, want := range []string{"\n  nums: list<Nums>\n", "\n  peers: list<NodeID>\n", "\n  Nums: int64  "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the starter spec lacks %q:\n%s", want, out.String())
		}
	}
}
