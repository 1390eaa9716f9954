package evaluator

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
	"github.com/augur-dev/augur/trace/tracetest"
)

// TestFastSteadyStateAllocs pins that, once its rows are prepared, the
// fast engine evaluates snapshots without allocating: nothing per binding,
// per atom or per property.
func TestFastSteadyStateAllocs(t *testing.T) {
	spec, err := specs.Parse("s.yaml", []byte(`
types: {Num: int64, Name: string}
variables:
  id: Name
  x: Num
  y: Num
  peers: set<Name>
  log: "list<{term: Num}>"
`))
	if err != nil {
		t.Fatal(err)
	}
	schema := trace.Schema{
		{Name: "id", Type: arrow.BinaryTypes.String},
		{Name: "x", Type: arrow.PrimitiveTypes.Int64},
		{Name: "y", Type: arrow.PrimitiveTypes.Int64},
		{Name: "peers", Type: arrow.ListOf(arrow.BinaryTypes.String)},
		{Name: "log", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "term", Type: arrow.PrimitiveTypes.Int64, Nullable: true}))},
	}
	b := tracetest.New(t, schema, trace.Options{})
	nodes := []string{"a", "b", "c", "d"}
	var snaps []trace.Snapshot
	// Two states per node; each snapshot changes one node, and one node
	// is down in some.
	var rows [2][]uint32
	for v := range rows {
		for n, name := range nodes {
			log := []any{map[string]any{"term": int64(v)}, map[string]any{"term": int64(n)}}
			rows[v] = append(rows[v], b.State(name, uint64(v), name, int64(n+2*v), int64((n+v)%2), []any{"a", "c"}, log))
		}
	}
	state := make([]int, len(nodes))
	for i := range 12 {
		state[i%len(nodes)] ^= 1
		var members []uint32
		for n := range nodes {
			if i%5 == 4 && n == 2 {
				continue
			}
			members = append(members, rows[state[n]][n])
		}
		s := trace.Snapshot{ID: uint64(i), TS: uint64(i), Members: members, Tags: []string{"steady"}}
		b.Snapshot(s)
		snaps = append(snaps, s)
	}
	tr := b.Open()
	prog := compileSources(t, spec,
		`forall n0 in nodes: n0.x <= n0.y or n0.id in n0.peers`,
		`forall n0, n1 in nodes: n0.x < n1.x or n0.y == n1.y`,
		`forall n0, n1 in nodes: n0.x != n1.y or n0.id in n1.peers or n0.peers subset n1.peers or n1.x == 3 or empty(n0.log)`,
		`forall n0, n1, n2 in nodes: n0.x <= n1.x or n1.x <= n2.x`,
		`forall n0, n1 in nodes: forall e0 in n0.log: e0.term <= n1.x or e0.term == n0.y`,
	)
	pl := newPlan(prog)
	if len(pl.fallback) > 0 {
		t.Fatalf("%d properties left to the reference", len(pl.fallback))
	}
	e, err := newFast(tr, prog, pl, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	n := len(prog.Props)
	tk := &task{ctx: context.Background(), active: make([]bool, n), acc: make([]Stats, n), hi: n, wits: 1, moments: MaxMoments}
	for i := range tk.active {
		tk.active[i] = true
	}
	// Preparing a new state row allocates (decoding does); the steady
	// state is that of rows already prepared.
	prepared := map[uint32]*frow{}
	for _, r := range append(rows[0], rows[1]...) {
		st, err := e.ref.states.State(r)
		if err != nil {
			t.Fatal(err)
		}
		prepared[r] = e.prepare(e.ref.decode(st, r))
	}
	run := func() {
		e.start(tk)
		for i := range snaps {
			for _, r := range snaps[i].Members {
				e.cache[r] = prepared[r]
			}
			if err := e.eval(&snaps[i], nil); err != nil {
				t.Fatal(err)
			}
		}
		e.finish()
	}
	run() // sizes the buffers and tables, takes the witnesses
	if allocs := testing.AllocsPerRun(50, run); allocs > 0 {
		t.Errorf("%v allocations per pass over %d snapshots, want 0", allocs, len(snaps))
	}
	if tk.acc[1].Support == 0 || tk.acc[4].Bindings == 0 {
		t.Errorf("nothing evaluated: %+v", tk.acc)
	}
}

// TestNodeBindings checks the count of a node-only scope's bindings and
// that it refuses counts beyond 2^62 rather than wrap.
func TestNodeBindings(t *testing.T) {
	sc := func(groups ...int) *scope {
		s := &scope{nodeOnly: true}
		for _, k := range groups {
			s.quants = append(s.quants, pquant{group: make([]int32, k), dom: -1})
		}
		return s
	}
	for _, c := range []struct {
		sc     *scope
		n, nb  int
		inside bool
	}{
		{sc(2), 2000, 2000 * 1999, true},
		{sc(1, 2), 10, 10 * 10 * 9, true},
		{sc(3), 2, 0, true},
		{sc(5), 10000, 0, false},
		{sc(4), 10000, 10000 * 9999 * 9998 * 9997, true},
	} {
		nb, ok := nodeBindings(c.sc, c.n)
		if nb != c.nb || ok != c.inside {
			t.Errorf("%d groups over %d nodes: %d, %v; want %d, %v", len(c.sc.quants), c.n, nb, ok, c.nb, c.inside)
		}
	}
}

// TestFastDuplicateMembers checks that the fast engine, which leaves a
// snapshot listing a node twice to the reference, counts the snapshots
// around it as the reference does. Traces cannot hold such snapshots
// (the writer and the reader refuse them), so they are given to the
// engines directly.
func TestFastDuplicateMembers(t *testing.T) {
	spec, err := specs.Parse("s.yaml", []byte("types: {Num: int64, Name: string}\nvariables: {id: Name, x: Num}\n"))
	if err != nil {
		t.Fatal(err)
	}
	schema := trace.Schema{
		{Name: "id", Type: arrow.BinaryTypes.String},
		{Name: "x", Type: arrow.PrimitiveTypes.Int64},
	}
	b := tracetest.New(t, schema, trace.Options{})
	var rows []uint32
	for n, name := range []string{"a", "b", "c"} {
		rows = append(rows, b.State(name, 0, name, int64(n)))
	}
	b.Snapshot(trace.Snapshot{Members: rows})
	tr := b.Open()
	prog := compileSources(t, spec, `forall n0 in nodes: n0.x <= 1`, `forall n0, n1 in nodes: n0.x < n1.x or n0.x == 2`)
	var snaps []trace.Snapshot
	for i := range 12 {
		members := rows[:2+i%2]
		if i%5 == 2 {
			members = append([]uint32{rows[0]}, rows...) // a twice
		}
		snaps = append(snaps, trace.Snapshot{ID: uint64(i), Members: members})
	}
	ref, err := newReference(tr, prog)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.close()
	fa, err := newFast(tr, prog, newPlan(prog), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fa.close()
	var got [2][]Stats
	for k, e := range []engine{ref, fa} {
		n := len(prog.Props)
		tk := &task{ctx: context.Background(), active: make([]bool, n), acc: make([]Stats, n), hi: n, moments: MaxMoments}
		for i := range tk.active {
			tk.active[i] = true
		}
		for chunk := range 2 { // runs go on from one chunk into the next
			e.start(tk)
			for i := range snaps[chunk*6 : chunk*6+6] {
				if err := e.eval(&snaps[chunk*6+i], nil); err != nil {
					t.Fatal(err)
				}
			}
			e.finish()
		}
		got[k] = tk.acc
	}
	for i := range prog.Props {
		if r, f := got[0][i], got[1][i]; r.Support != f.Support || r.Violations != f.Violations || r.ScoreSum != f.ScoreSum || r.Perfect != f.Perfect || r.ViolatingSnapshots != f.ViolatingSnapshots {
			t.Errorf("%s:\nfast      %+v\nreference %+v", prog.Props[i].Text, f, r)
		}
	}
	if got[0][0].Support == 0 {
		t.Error("nothing counted")
	}
}

// TestFastRowsReused pins that the fast engine prepares the rows of new
// states without allocating once it has rows to take again: at high
// churn, most rows live a few snapshots, and allocating each cost a
// twentieth of the CPU time. Every snapshot here changes two of four
// nodes to states the engine has not met in the last reuseAge
// snapshots.
func TestFastRowsReused(t *testing.T) {
	spec, err := specs.Parse("s.yaml", []byte(`
types: {Num: int64, Name: string}
variables:
  id: Name
  x: Num
  log: "list<{term: Num}>"
`))
	if err != nil {
		t.Fatal(err)
	}
	schema := trace.Schema{
		{Name: "id", Type: arrow.BinaryTypes.String},
		{Name: "x", Type: arrow.PrimitiveTypes.Int64},
		{Name: "log", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "term", Type: arrow.PrimitiveTypes.Int64, Nullable: true}))},
	}
	b := tracetest.New(t, schema, trace.Options{})
	nodes := []string{"a", "b", "c", "d"}
	const versions = 150 // states per node, each met once a pass
	rows := make([][]uint32, len(nodes))
	for n, name := range nodes {
		for v := range versions {
			log := []any{map[string]any{"term": int64(v % 7)}, map[string]any{"term": int64(n)}}
			rows[n] = append(rows[n], b.State(name, uint64(v), name, int64((v+n)%5), log))
		}
	}
	var snaps []trace.Snapshot
	state := make([]int, len(nodes))
	for i := range 2 * versions {
		for _, n := range []int{i % len(nodes), (i + 1) % len(nodes)} {
			state[n] = (state[n] + 1) % versions
		}
		var members []uint32
		for n := range nodes {
			members = append(members, rows[n][state[n]])
		}
		s := trace.Snapshot{ID: uint64(i), TS: uint64(i), Members: members}
		b.Snapshot(s)
		snaps = append(snaps, s)
	}
	tr := b.Open()
	prog := compileSources(t, spec,
		`forall n0, n1 in nodes: n0.x < n1.x or n0.id == "a"`,
		`forall n0 in nodes: forall e0 in n0.log: e0.term <= n0.x`,
	)
	pl := newPlan(prog)
	e, err := newFast(tr, prog, pl, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	// The states decoded once, as the decoder gives them to the engines.
	states := make([][]*nodeState, len(snaps))
	for i, s := range snaps {
		for _, r := range s.Members {
			st, err := e.ref.states.State(r)
			if err != nil {
				t.Fatal(err)
			}
			states[i] = append(states[i], e.ref.decode(st, r))
		}
	}
	n := len(prog.Props)
	tk := &task{ctx: context.Background(), active: make([]bool, n), acc: make([]Stats, n), hi: n, wits: 1, moments: MaxMoments}
	for i := range tk.active {
		tk.active[i] = true
	}
	run := func() {
		e.start(tk)
		for i := range snaps {
			if err := e.eval(&snaps[i], states[i]); err != nil {
				t.Fatal(err)
			}
		}
		e.finish()
	}
	run() // interns the values, fills the rows to take again
	if allocs := testing.AllocsPerRun(5, run); allocs > 0 {
		t.Errorf("%v allocations per pass over %d snapshots, want 0", allocs, len(snaps))
	}
	if e.head == len(e.retired) {
		t.Error("no row retired")
	}
}

// compileSources parses the properties srcs and compiles them against
// spec.
func compileSources(t *testing.T, spec *specs.Spec, srcs ...string) *Program {
	t.Helper()
	props := make([]*grammar.Property, len(srcs))
	for i, src := range srcs {
		p, err := grammar.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		props[i] = p
	}
	prog, err := Compile(spec, props)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}
