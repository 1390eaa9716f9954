package evaluator

import (
	"reflect"
	"strings"
	"testing"

	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// TestWitnessLog checks that a witnessLog gives back, chunk after chunk,
// the witnesses that building each at once gives (witness, what Run did
// before the log): the first max pending ones in order, their bindings
// and the values of the paths of their bound variables, a value it cuts
// as the witness cuts it. A witness whose values all fit keeps them
// unbuilt, one that cuts a value is built at once, and the slots of the
// pending ones go at the end of each chunk.
func TestWitnessLog(t *testing.T) {
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
	prog := compileSources(t, spec,
		"forall n0, n1 in nodes: n0.x <= n1.x or n0.log == n1.log",
		"forall n0 in nodes: forall e0 in n0.log: e0.term <= n0.x",
		"forall n0 in nodes: exists n1 in nodes: n1.x > n0.x", // n1.x is no path of the binding
	)
	entries := func(n int) []any {
		log := make([]any, n)
		for i := range log {
			log[i] = map[string]any{"term": int64(i)}
		}
		return log
	}
	node := func(name string, x int64, log []any) *nodeState {
		return &nodeState{name: name, vals: []any{name, x, log}}
	}
	a, b := node("a", 1, entries(2)), node("b", 2, nil)
	long := node("c", 3, entries(5000)) // its log is cut in a witness
	snaps := make([]*trace.Snapshot, 8)
	for i := range snaps {
		snaps[i] = &trace.Snapshot{ID: uint64(10 + i), TS: uint64(100 + i)}
	}
	type add struct {
		snap  int
		slots []any
	}
	tests := []struct {
		name   string
		prop   int
		max    int
		chunks [][]add // pending witnesses added, chunk by chunk
		built  []bool  // of each witness kept, whether the log built it at once
	}{
		{"one", 0, 3, [][]add{{{0, []any{a, b}}}}, []bool{false}},
		{"chunks", 0, 3, [][]add{{{0, []any{a, b}}}, {{1, []any{b, a}}, {2, []any{a, b}}}}, []bool{false, false, false}},
		{"past max in a chunk", 0, 2, [][]add{{{0, []any{a, b}}, {1, []any{b, a}}, {2, []any{b, a}}}}, []bool{false, false}},
		{"past max over chunks", 0, 2, [][]add{{{0, []any{b, a}}}, {{1, []any{a, b}}, {3, []any{b, a}}}}, []bool{false, false}},
		{"cut", 0, 3, [][]add{{{0, []any{a, long}}, {1, []any{a, b}}}, {{4, []any{long, b}}}}, []bool{true, false, true}},
		{"element", 1, 3, [][]add{{{0, []any{a, map[string]any{"term": int64(7)}}}}, {{5, []any{long, map[string]any{"term": nil}}}}}, []bool{false, false}}, // n0.log is a domain, no path
		{"cut element", 1, 3, [][]add{{{0, []any{a, map[string]any{"term": strings.Repeat("t", 5000)}}}}}, []bool{true}},
		{"exists", 2, 3, [][]add{{{6, []any{b}}, {7, []any{a}}}}, []bool{false, false}},
	}
	for _, tt := range tests {
		p := prog.Props[tt.prop]
		var st Stats
		var want []Witness
		for _, chunk := range tt.chunks {
			for _, w := range chunk {
				st.addWitness(snaps[w.snap], w.slots, tt.max)
				if len(want) < tt.max {
					want = append(want, witness(p, snaps[w.snap], w.slots))
				}
			}
			st.logWitnesses(p, tt.max)
			if st.pending() {
				t.Fatalf("%s: witnesses pending after logWitnesses", tt.name)
			}
			if st.wits.slots != nil {
				t.Errorf("%s: slots %v kept past the chunk", tt.name, st.wits.slots)
			}
		}
		if got := st.Witnesses(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: witnesses\n%+v\nwant\n%+v", tt.name, got, want)
		}
		if st.NumWitnesses() != len(want) {
			t.Errorf("%s: NumWitnesses %d, want %d", tt.name, st.NumWitnesses(), len(want))
		}
		for i, lw := range st.wits.ws {
			if (lw.built != nil) != tt.built[i] {
				t.Errorf("%s: witness %d built at once: %v, want %v", tt.name, i, lw.built != nil, tt.built[i])
			}
		}
	}
}

// TestSetWitnesses checks that stats given witnesses (read from a file,
// merged) give them back, and that Merge keeps the first ones up to its
// limit.
func TestSetWitnesses(t *testing.T) {
	ws := []Witness{
		{Snapshot: 1, TS: 2, Binding: map[string]any{"n0": "a"}, Values: map[string]any{"n0.x": int64(1)}},
		{Snapshot: 5, TS: 6, Binding: map[string]any{"n0": "b"}, Values: map[string]any{"n0.x": nil}, Cut: map[string]int{"/values/n0.log": 9000}},
	}
	var s Stats
	if s.Witnesses() != nil || s.NumWitnesses() != 0 {
		t.Fatalf("zero stats: witnesses %v", s.Witnesses())
	}
	s.SetWitnesses(ws)
	if got := s.Witnesses(); !reflect.DeepEqual(got, ws) || s.NumWitnesses() != 2 {
		t.Errorf("witnesses %+v, want %+v", got, ws)
	}
	for _, tt := range []struct{ max, want int }{{0, 0}, {1, 1}, {2, 2}, {5, 2}} {
		var m Stats
		m.Merge(&s, tt.max, 0)
		if got := m.Witnesses(); m.NumWitnesses() != tt.want || !reflect.DeepEqual(got, ws[:tt.want]) && tt.want > 0 {
			t.Errorf("Merge keeping %d: witnesses %+v, want the first %d", tt.max, got, tt.want)
		}
	}
	s.SetWitnesses(nil)
	if s.Witnesses() != nil || s.NumWitnesses() != 0 {
		t.Errorf("after SetWitnesses(nil): %v", s.Witnesses())
	}
}
