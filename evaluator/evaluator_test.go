package evaluator_test

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
	"github.com/augur-dev/augur/trace/tracetest"
)

const tinySpec = `
system: tiny
types:
  NodeID: string
  Num: int64
variables:
  id: NodeID
  x: Num
  y: Num
  state: {enum: [follower, leader]}
  peers: set<NodeID>
  log: "list<{term: Num, index: Num}>"
derived:
  last: {type: Num, expr: "len(log) == 0 ? 0 : log[len(log)-1].index"}
generate:
  iterate: [peers, log]
`

var tinySchema = trace.Schema{
	{Name: "id", Type: arrow.BinaryTypes.String},
	{Name: "x", Type: arrow.PrimitiveTypes.Int64},
	{Name: "y", Type: arrow.PrimitiveTypes.Int64},
	{Name: "state", Type: arrow.BinaryTypes.String},
	{Name: "peers", Type: arrow.ListOf(arrow.BinaryTypes.String)},
	{Name: "log", Type: arrow.ListOf(arrow.StructOf(
		arrow.Field{Name: "term", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "index", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	))},
}

// st is a node state for tiny traces; unset fields are null.
type st map[string]any

// snap is a snapshot: node name → state.
type snap map[string]st

// writeTiny writes snapshots as a trace, one state row per node and
// snapshot.
func writeTiny(t testing.TB, snaps []snap, tags ...[]string) *trace.Trace {
	t.Helper()
	b := tracetest.New(t, tinySchema, trace.Options{BatchRows: 3})
	for i, s := range snaps {
		var members []uint32
		for node, state := range s {
			vars := make([]any, len(tinySchema))
			for c, col := range tinySchema {
				vars[c] = state[col.Name]
			}
			vars[0] = node
			members = append(members, b.State(node, uint64(i), vars...))
		}
		ts := trace.Snapshot{ID: uint64(i), TS: uint64(i), Members: members}
		if i < len(tags) {
			ts.Tags = tags[i]
		}
		b.Snapshot(ts)
	}
	return b.Open()
}

func mustSpec(t testing.TB) *specs.Spec {
	t.Helper()
	s, err := specs.Parse("tiny.yaml", []byte(tinySpec))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// compileTiny parses props and compiles them against tinySpec.
func compileTiny(t testing.TB, props ...string) *evaluator.Program {
	t.Helper()
	return compileSpec(t, mustSpec(t), props...)
}

// compileSpec parses props and compiles them against spec.
func compileSpec(t testing.TB, spec *specs.Spec, props ...string) *evaluator.Program {
	t.Helper()
	var ps []*grammar.Property
	for _, s := range props {
		p, err := grammar.Parse(s)
		if err != nil {
			t.Fatalf("parse %q: %v", s, err)
		}
		ps = append(ps, p)
	}
	prog, err := evaluator.Compile(spec, ps)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

func evaluate(t testing.TB, tr *trace.Trace, opts evaluator.Options, props ...string) []evaluator.Stats {
	t.Helper()
	res, err := evaluator.Run(context.Background(), tr, compileTiny(t, props...), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res.Stats
}

func i64(n int64) int64 { return n }

// dyadic returns x, a multiple of 2^-64, as a Score.
func dyadic(x float64) evaluator.Score {
	i, f := math.Modf(x)
	return evaluator.Score{Int: uint64(i), Frac: uint64(math.Ldexp(f, 64))}
}

// kinds are the evaluators every hand-computed case runs on.
var kinds = []evaluator.Kind{evaluator.Reference, evaluator.Fast}

// TestHoldingRates checks holding rates computed by hand.
func TestHoldingRates(t *testing.T) {
	two := []snap{
		{"a": {"x": i64(1), "y": i64(1)}, "b": {"x": i64(1), "y": nil}},
		{"a": {"x": i64(1), "y": nil}, "b": {"x": i64(2), "y": nil}},
	}
	three := []snap{
		{"a": {"x": i64(1)}, "b": {"x": i64(1)}, "c": {"x": i64(2)}},
		{"a": {"x": i64(1)}},
	}
	logs := []snap{
		{"a": {"x": i64(5), "log": []any{}}, "b": {"x": i64(5), "log": nil}},
		{"a": {"x": i64(5), "log": []any{map[string]any{"term": i64(1), "index": i64(4)}, map[string]any{"term": i64(2), "index": i64(6)}}}},
		{"a": {"x": i64(5), "peers": []any{"b", "c"}}, "b": {"x": i64(5), "peers": []any{"a"}}},
	}
	leaders := []snap{
		{"a": {"state": "leader"}, "b": {"state": "follower"}},
		{"a": {"state": "follower"}, "b": {"state": "follower"}},
		{"a": {"state": "leader"}, "b": {"state": "leader"}},
	}
	sets := []snap{
		{"a": {"peers": []any{"b", "c"}}, "b": {"peers": []any{"c", "b", "b"}}},
		{},
		{"a": {"peers": []any{"b"}}, "b": {"peers": nil}},
	}
	tests := []struct {
		name  string
		snaps []snap
		prop  string
		want  evaluator.Stats // only the counts and ScoreSum are compared
	}{
		{"single node", two, `forall n0 in nodes: n0.x == 1`,
			evaluator.Stats{Support: 2, Bindings: 4, Violations: 1, Perfect: 1, ViolatingSnapshots: 1, ScoreSum: dyadic(1.5)}},
		{"null equals null", two, `forall n0, n1 in nodes: n0.y == n1.y`,
			// Snapshot 0: 1 against null, both ways; snapshot 1: null == null.
			evaluator.Stats{Support: 2, Bindings: 4, Violations: 2, Perfect: 1, ViolatingSnapshots: 1, ScoreSum: dyadic(1)}},
		{"less is false on null", two, `forall n0 in nodes: n0.x <= n0.y`,
			evaluator.Stats{Support: 2, Bindings: 4, Violations: 3, Perfect: 0, ViolatingSnapshots: 2, ScoreSum: dyadic(0.5)}},
		{"not less on null holds", two, `forall n0 in nodes: not n0.x <= n0.y`,
			evaluator.Stats{Support: 2, Bindings: 4, Violations: 1, Perfect: 1, ViolatingSnapshots: 1, ScoreSum: dyadic(1.5)}},
		{"set", two, `forall n0 in nodes: set(n0.y)`,
			evaluator.Stats{Support: 2, Bindings: 4, Violations: 3, ViolatingSnapshots: 2, ScoreSum: dyadic(0.5)}},
		{"distinct pairs", three, `forall n0, n1 in nodes: n0.x == n1.x`,
			// 6 ordered pairs of distinct nodes in snapshot 0, 2 equal;
			// snapshot 1 has one node: vacuous.
			evaluator.Stats{Support: 1, Bindings: 6, Violations: 4, ViolatingSnapshots: 1, ScoreSum: evaluator.ScoreOf(2, 6)}},
		{"iterator over empty and null lists", logs, `forall n0 in nodes: forall e0 in n0.log: e0.index < n0.x`,
			// Snapshot 0: no element anywhere, vacuous; 1: 4 < 5 holds,
			// 6 < 5 fails; 2: no logs, vacuous.
			evaluator.Stats{Support: 1, Bindings: 2, Violations: 1, ViolatingSnapshots: 1, ScoreSum: dyadic(0.5)}},
		{"iterator over a set", logs, `forall n0 in nodes: forall e0 in n0.peers: e0 != n0.id`,
			evaluator.Stats{Support: 1, Bindings: 3, Perfect: 1, ScoreSum: dyadic(1)}},
		{"null container is empty", logs, `forall n0 in nodes: n0.id in n0.peers or empty(n0.peers)`,
			// Snapshots 0 and 1: no peers; 2: neither node is its own peer.
			evaluator.Stats{Support: 3, Bindings: 5, Violations: 2, Perfect: 2, ViolatingSnapshots: 1, ScoreSum: dyadic(2)}},
		{"derived", logs, `forall n0 in nodes: n0.last == 0`,
			// last is 0 for an empty log, 6 for a's log in snapshot 1, and
			// null where len(log) fails on a null log.
			evaluator.Stats{Support: 3, Bindings: 5, Violations: 4, ViolatingSnapshots: 3, ScoreSum: dyadic(0.5)}},
		{"two leaders", leaders, `forall n0, n1 in nodes: n0.state != "leader" or n1.state != "leader"`,
			evaluator.Stats{Support: 3, Bindings: 6, Violations: 2, Perfect: 2, ViolatingSnapshots: 1, ScoreSum: dyadic(2)}},
		{"exists: one binding per snapshot", leaders, `exists n0 in nodes: n0.state == "leader"`,
			evaluator.Stats{Support: 3, Bindings: 3, Violations: 1, Perfect: 2, ViolatingSnapshots: 1, ScoreSum: dyadic(2)}},
		{"separate groups may bind the same node", three, `forall n0 in nodes: forall n1 in nodes: n0.x == n1.x`,
			// Snapshot 0: 9 pairs, 5 equal: (a,a) (a,b) (b,a) (b,b) (c,c);
			// snapshot 1: (a,a).
			evaluator.Stats{Support: 2, Bindings: 10, Violations: 4, Perfect: 1, ViolatingSnapshots: 1, ScoreSum: evaluator.ScoreOf(5, 9).Add(evaluator.ScoreOf(1, 1))}},
		{"sets compare as sets", sets, `forall n0, n1 in nodes: n0.peers == n1.peers`,
			// Snapshot 1 has no node: vacuous.
			evaluator.Stats{Support: 2, Bindings: 4, Violations: 2, Perfect: 1, ViolatingSnapshots: 1, ScoreSum: dyadic(1)}},
		{"exists is vacuous without nodes", sets, `exists n0 in nodes: empty(n0.peers)`,
			evaluator.Stats{Support: 2, Bindings: 2, Violations: 1, Perfect: 1, ViolatingSnapshots: 1, ScoreSum: dyadic(1)}},
		{"forall exists: groups are not distinct", leaders, `forall n0 in nodes: exists n1 in nodes: n1.state == n0.state`,
			evaluator.Stats{Support: 3, Bindings: 6, Perfect: 3, ScoreSum: dyadic(3)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := writeTiny(t, tt.snaps)
			for _, kind := range kinds {
				got := evaluate(t, tr, evaluator.Options{Kind: kind, Workers: 1}, tt.prop)[0]
				if got.Support != tt.want.Support || got.Bindings != tt.want.Bindings || got.Violations != tt.want.Violations ||
					got.Perfect != tt.want.Perfect || got.ViolatingSnapshots != tt.want.ViolatingSnapshots ||
					got.ScoreSum != tt.want.ScoreSum {
					t.Errorf("%s, %s:\ngot  %+v\nwant %+v", kind, tt.prop, got, tt.want)
				}
			}
		})
	}
}

func TestWitness(t *testing.T) {
	leaders := []snap{
		{"a": {"state": "leader", "x": i64(1)}, "b": {"state": "follower", "x": i64(1)}},
		{"a": {"state": "leader", "x": i64(2)}, "b": {"state": "leader", "x": i64(2)}},
	}
	tr := writeTiny(t, leaders, []string{"steady"}, []string{"bug:two-leaders", "steady"})
	for _, kind := range kinds {
		t.Run(kind.String(), func(t *testing.T) { testWitness(t, tr, kind) })
	}
}

func testWitness(t *testing.T, tr *trace.Trace, kind evaluator.Kind) {
	got := evaluate(t, tr, evaluator.Options{Kind: kind}, `forall a, b in nodes: a.state != "leader" or b.state != "leader" or a.x != b.x`)[0]
	// One witness per violating snapshot: its first violating binding.
	want := []evaluator.Witness{
		{Snapshot: 1, TS: 1, Binding: map[string]any{"n0": "a", "n1": "b"},
			Values: map[string]any{"n0.state": "leader", "n1.state": "leader", "n0.x": int64(2), "n1.x": int64(2)}},
	}
	if !reflect.DeepEqual(got.Witnesses(), want) {
		t.Errorf("witnesses = %+v\nwant %+v", got.Witnesses(), want)
	}
	if wantTags := map[string]int64{"bug:two-leaders": 1, "steady": 1}; !reflect.DeepEqual(got.Tags, wantTags) {
		t.Errorf("tags = %v, want %v", got.Tags, wantTags)
	}
	// The literals are sorted by text: n0.state != "leader" (bit 0),
	// n0.x != n1.x (bit 1), n1.state != "leader" (bit 2). In snapshot 0,
	// (a, b) makes literal 2 true and (b, a) literal 0; in snapshot 1 none
	// holds.
	var pat [16]int64
	pat[0b000] = 2
	pat[0b001] = 1
	pat[0b100] = 1
	if got.Patterns != pat {
		t.Errorf("patterns = %v, want %v", got.Patterns, pat)
	}
}

// keepAbove prunes properties whose holding rate is below a threshold.
type keepAbove struct {
	every int
	rate  float64
}

func (k keepAbove) Every() int { return k.every }
func (k keepAbove) Keep(_ int, s *evaluator.Stats, _, _ int64) bool {
	return s.Support == 0 || s.HoldingRate() >= k.rate
}

// TestWorkers checks that results do not depend on the number of workers,
// with and without pruning.
func TestWorkers(t *testing.T) {
	var snaps []snap
	for i := range 1500 {
		s := snap{}
		for n, name := range []string{"a", "b", "c"} {
			s[name] = st{"x": int64((i*7 + n*3) % 5), "y": int64(i % 3), "state": []string{"follower", "leader"}[(i+n)%2]}
		}
		snaps = append(snaps, s)
	}
	tr := writeTiny(t, snaps)
	props := []string{
		`forall n0, n1 in nodes: n0.x != n1.x or n0.y == n1.y`,
		`forall n0 in nodes: n0.x < 4`,
		`forall n0, n1 in nodes: n0.state != "leader" or n1.state != "leader"`,
		`forall n0 in nodes: n0.x <= n0.y or n0.state == "leader"`,
	}
	for _, kind := range kinds {
		for _, pruner := range []evaluator.Pruner{nil, keepAbove{every: 300, rate: 0.7}} {
			want := evaluate(t, tr, evaluator.Options{Kind: kind, Workers: 1, Pruner: pruner}, props...)
			for _, workers := range []int{2, 3, 8} {
				got := evaluate(t, tr, evaluator.Options{Kind: kind, Workers: workers, Pruner: pruner}, props...)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s, pruner %v, %d workers: stats differ from 1 worker:\ngot  %+v\nwant %+v", kind, pruner, workers, got, want)
				}
			}
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		prop, msg string
	}{
		{`forall n0 in nodes: n0.nope == 1`, "1:21: unknown variable nope in n0.nope"},
		{`forall n0 in nodes: n0.x == n0.id`, "1:21: n0.x == n0.id: cannot compare Num with NodeID"},
		{`forall n0 in nodes: n0.state == "leadr"`, `1:33: "leadr" is not a value of state (follower, leader)`},
		{`forall n0 in nodes: n0.state < n0.state`, "1:21: n0.state < n0.state: state values are not ordered"},
		{`forall n0 in nodes: forall e0 in n0.x: e0 == 1`, "1:34: cannot iterate over n0.x of type Num"},
		{`forall n0 in nodes: n0.x in n0.y`, "1:29: n0.y is not a container"},
		{`forall n0 in nodes: n0`, "1:21: n0 is a node"},
		{`forall n0 in nodes: f(n0.x)`, "1:21: unknown predicate f"},
		{`forall n0 in nodes: n0.log.term == 1`, "has no field term"},
	}
	for _, tt := range tests {
		p, err := grammar.Parse(tt.prop)
		if err != nil {
			t.Fatalf("parse %q: %v", tt.prop, err)
		}
		_, err = evaluator.Compile(mustSpec(t), []*grammar.Property{p})
		if err == nil || !contains(err.Error(), tt.msg) {
			t.Errorf("Compile(%q) = %v, want error containing %q", tt.prop, err, tt.msg)
		}
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub))
}

// TestOnlyTag checks that Options.OnlyTag evaluates just the snapshots
// carrying the tag, and that Result.Tags counts the evaluated snapshots'
// tags.
func TestOnlyTag(t *testing.T) {
	snaps := []snap{
		{"a": {"x": i64(1)}}, // steady
		{"a": {"x": i64(9)}}, // in flight: fails x < 5
		{"a": {"x": i64(2)}}, // steady
	}
	tr := writeTiny(t, snaps, []string{"steady"}, []string{"bug:b"}, []string{"steady", "bug:b"})
	spec := mustSpec(t)
	p, err := grammar.Parse("forall n in nodes: n.x < 5")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := evaluator.Compile(spec, []*grammar.Property{p})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range kinds {
		for _, tt := range []struct {
			only       string
			snapshots  int
			violations int64
			tags       map[string]int64
			pruned     bool
		}{
			// Pruned after 2 snapshots, with one still to come.
			{"", 3, 1, map[string]int64{"steady": 2, "bug:b": 2}, true},
			// 2 snapshots, the last of the trace: nothing left to prune for.
			{"steady", 2, 0, map[string]int64{"steady": 2, "bug:b": 1}, false},
			{"nowhere", 0, 0, nil, false},
		} {
			res, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: kind, OnlyTag: tt.only, Pruner: supportPruner{}})
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats[0]
			if res.Snapshots != tt.snapshots || st.Violations != tt.violations || !reflect.DeepEqual(res.Tags, tt.tags) || st.Pruned != tt.pruned {
				t.Errorf("%s, only %q: %d snapshots, %d violations, tags %v, pruned %v; want %d, %d, %v, %v",
					kind, tt.only, res.Snapshots, st.Violations, res.Tags, st.Pruned, tt.snapshots, tt.violations, tt.tags, tt.pruned)
			}
		}
	}
}

// supportPruner prunes, after any snapshot, the properties evaluated on
// two snapshots or more; Run must not ask after the last one.
type supportPruner struct{}

func (supportPruner) Every() int                                       { return 1 }
func (supportPruner) Keep(_ int, st *evaluator.Stats, _, _ int64) bool { return st.Support < 2 }

// TestMaxWitnesses checks Options.MaxWitnesses at its boundary: zero
// keeps DefaultWitnesses, NoWitnesses none, and a count that many.
func TestMaxWitnesses(t *testing.T) {
	var snaps []snap
	for i := range 10 {
		snaps = append(snaps, snap{"a": {"x": int64(i)}, "b": {"x": int64(0)}})
	}
	tr := writeTiny(t, snaps)
	prog := compileTiny(t, "forall n0, n1 in nodes: n0.x <= n1.x") // fails at a, b from snapshot 1 on
	for _, tt := range []struct {
		max, want int
	}{{0, evaluator.DefaultWitnesses}, {evaluator.NoWitnesses, 0}, {1, 1}, {5, 5}} {
		for _, kind := range []evaluator.Kind{evaluator.Reference, evaluator.Fast} {
			res, err := evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: kind, MaxWitnesses: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Stats[0].NumWitnesses(); got != tt.want {
				t.Errorf("%s, MaxWitnesses %d: %d witnesses, want %d", kind, tt.max, got, tt.want)
			}
		}
	}
}
