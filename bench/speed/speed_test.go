package speed

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/catalog"
	"github.com/augur-dev/augur/testbeds/etcdraft"
	"github.com/augur-dev/augur/trace"
)

// TestRun times both evaluators on a small etcd raft run with churn and
// three literals, and reads what Run writes.
func TestRun(t *testing.T) {
	var out strings.Builder
	err := Run(context.Background(), &out, Options{Nodes: 3, Snapshots: 40, Seed: 1, Props: 100, Workers: []int{1, 2},
		Kinds: []evaluator.Kind{evaluator.Reference, evaluator.Fast}, Workload: "etcdraft", Literals: 3, Churn: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, re := range []string{
		`(?m)^workload: etcd raft testbed, 3 nodes, 40 snapshots, [0-9]+ states, 100 properties, seed 1, 2 events a snapshot, up to 3 literals \(prepared in `,
		`(?m)^churn: [0-9]+% of nodes and [0-9]+% of two-node bindings change per snapshot$`,
		`(?m)^ +reference +2 `,
		`(?m)^fast/reference: [0-9.]+× evaluating, [0-9.]+× end to end at 1 worker, [0-9.]+× evaluating, [0-9.]+× end to end at 2 workers \([0-9]+% of nodes and [0-9]+% of two-node bindings change per snapshot\); results and reports identical$`,
	} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("output does not match %s:\n%s", re, out.String())
		}
	}
}

// TestRunPeriodic times both evaluators on periodic snapshots of a busy
// cluster, most of whose nodes change between two.
func TestRunPeriodic(t *testing.T) {
	var out strings.Builder
	err := Run(context.Background(), &out, Options{Nodes: 6, Snapshots: 40, Seed: 1, Props: 100, Workers: []int{1},
		Kinds: []evaluator.Kind{evaluator.Reference, evaluator.Fast}, Workload: "periodic", Literals: 3, Churn: 6})
	if err != nil {
		t.Fatal(err)
	}
	for _, re := range []string{
		`(?m)^workload: periodic snapshots of a raft-like cluster, 6 nodes, 40 snapshots, [0-9]+ states, 100 properties, seed 1, 6 events a snapshot, up to 3 literals \(prepared in `,
		`(?m)^churn: [5-7][0-9]% of nodes and [7-9][0-9]% of two-node bindings change per snapshot$`,
		`(?m)^fast/reference: [0-9.]+× evaluating, [0-9.]+× end to end at 1 worker \([0-9]+% of nodes and [0-9]+% of two-node bindings change per snapshot\); results and reports identical$`,
	} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("output does not match %s:\n%s", re, out.String())
		}
	}
}

// TestMeasureChurn counts the changes of a trace written by hand.
func TestMeasureChurn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "churn.trace")
	w, err := trace.Create(path, trace.Schema{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	row := func(node string, x int64) uint32 {
		r, err := w.AddState(node, 0, []any{x})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a0, a1, b0, c0 := row("a", 0), row("a", 1), row("b", 0), row("c", 0)
	for i, members := range [][]uint32{
		{a0, b0, c0},
		{a1, b0, c0}, // 1 of 3 nodes changed, 4 of 6 bindings
		{a1, b0},     // a node left: 2 of 2, 2 of 2
	} {
		if err := w.AddSnapshot(trace.Snapshot{ID: uint64(i), Members: members}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	got, err := MeasureChurn(tr)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Churn{Nodes: 3.0 / 5, Bindings: 6.0 / 8}); got != want {
		t.Errorf("churn %+v, want %+v", got, want)
	}
}

func TestRunRefuses(t *testing.T) {
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{Workers: []int{1, 0}, Workload: "etcdraft"}, "--workers 0: want at least 1"},
		{Options{Workers: []int{1}, Literals: 4, Workload: "etcdraft"}, "--literals 4: want 2 or 3"},
		{Options{Nodes: testbeds.MaxNodes + 1, Workload: "etcdraft"}, "--nodes 257: want 1 to 256"},
		{Options{Nodes: 1000000, Workload: "periodic"}, "--nodes 1000000: want 1 to 256"},
		{Options{Nodes: -1, Workload: "predicate"}, "--nodes -1: want 1 to 256"},
		{Options{Workers: []int{1}, Workload: "nope"}, "--workload nope: want etcdraft, periodic or predicate"},
	} {
		if err := Run(context.Background(), nil, tt.o); err == nil || err.Error() != tt.want {
			t.Errorf("Run(%+v): %v, want %q", tt.o, err, tt.want)
		}
	}
}

// TestThin keeps every third snapshot of a recorded run, with the states
// it uses; canceled, it leaves the trace as it was.
func TestThin(t *testing.T) {
	dir := t.TempDir()
	_, path, _, err := catalog.Record(t.Context(), dir, "run", etcdraft.Testbed, testbeds.Config{Steps: 50, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	before := snapshots(t, path)
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Thin(canceled, path, 3); !errors.Is(err, context.Canceled) {
		t.Fatalf("Thin canceled: %v, want context canceled", err)
	}
	if got := snapshots(t, path); !reflect.DeepEqual(got, before) {
		t.Fatalf("a canceled Thin changed the trace: %d snapshots, were %d", len(got), len(before))
	}
	if err := Thin(t.Context(), path, 3); err != nil {
		t.Fatal(err)
	}
	after := snapshots(t, path)
	if len(after) != len(before)/3 {
		t.Fatalf("%d snapshots thinned by 3 to %d", len(before), len(after))
	}
	for i, s := range after {
		if want := before[3*i+2]; s != want {
			t.Errorf("snapshot %d: %s, want %s", i, s, want)
		}
	}
}

// snapshots returns each snapshot of the trace at path as text: its id,
// time and tags, and its members' nodes, times and variables.
func snapshots(t *testing.T, path string) []string {
	t.Helper()
	tr, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var out []string
	sr := tr.Snapshots()
	defer sr.Close()
	for sr.Next() {
		s := sr.Snapshot()
		text := fmt.Sprintf("%d@%d %v:", s.ID, s.TS, s.Tags)
		for _, row := range s.Members {
			st, err := tr.States().State(row)
			if err != nil {
				t.Fatal(err)
			}
			text += fmt.Sprintf(" %s@%d%v", st.Node, st.TS, st.Vars)
		}
		out = append(out, text)
	}
	if err := sr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOptionsDefaults checks Options at the boundary of each field: zero
// takes augur bench's default, AllProps (any negative count) the whole
// pool, and a value given stays.
func TestOptionsDefaults(t *testing.T) {
	def := Options{Nodes: DefaultNodes, Snapshots: DefaultSnapshots, Props: DefaultProps, Workers: []int{1},
		Kinds: []evaluator.Kind{evaluator.Reference, evaluator.Fast}, Workload: "etcdraft", Literals: 2, Churn: 1}
	given := Options{Nodes: 1, Snapshots: 1, Seed: 3, Props: 1, Workers: []int{2}, Kinds: []evaluator.Kind{evaluator.Fast},
		Workload: "periodic", Literals: 3, Churn: 16, Keep: "k"}
	for _, tt := range []struct {
		o, want Options
		pool    int // what pipeline.Sample is given
	}{
		{Options{}, def, DefaultProps},
		{given, given, 1},
		{Options{Props: AllProps}, withProps(def, AllProps), 0},
		{Options{Props: -7}, withProps(def, -7), 0},
	} {
		got := tt.o.withDefaults()
		if !reflect.DeepEqual(got, tt.want) || got.pool() != tt.pool {
			t.Errorf("withDefaults(%+v) = %+v, pool %d; want %+v, pool %d", tt.o, got, got.pool(), tt.want, tt.pool)
		}
	}
}

func withProps(o Options, props int) Options {
	o.Props = props
	return o
}

// TestWritePeriodicStops: a periodic trace of 2^40 snapshots stops once
// its context is canceled, leaving nothing, its error wrapping
// context.Canceled.
func TestWritePeriodicStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.trace")
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	if err := WritePeriodic(ctx, path, 4, 1<<40, 1, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("WritePeriodic canceled: %v, want context canceled", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a canceled WritePeriodic left %s: %v", path, err)
	}
}
