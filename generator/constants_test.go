package generator

import (
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
	"github.com/augur-dev/augur/trace/tracetest"
)

const mineSpec = `
system: mine
types:
  NodeID: string
  Term: uint64
variables:
  node: NodeID
  id: NodeID
  term: Term
  role: {enum: [leader, follower]}
  flag: bool
  meta: "{zone: string, rank: int64}"
  big: int64
  peers: set<NodeID>
derived:
  next: {type: Term, expr: "term + 1"}
generate:
  max_nodes: 1
  max_literals: 1
  max_per_class: 100
  constants: {max_distinct: 3}
`

// mineTrace writes a trace for mineSpec: term, next and big take four
// values, the others at most three.
func mineTrace(t *testing.T) *trace.Trace {
	t.Helper()
	schema := trace.Schema{
		{Name: "id", Type: arrow.BinaryTypes.String},
		{Name: "term", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "role", Type: arrow.BinaryTypes.String},
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "meta", Type: arrow.StructOf(
			arrow.Field{Name: "zone", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "rank", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		)},
		// A trace collected from JSON stores integers as int64.
		{Name: "big", Type: arrow.PrimitiveTypes.Int64},
		{Name: "peers", Type: arrow.ListOf(arrow.BinaryTypes.String)},
	}
	b := tracetest.New(t, schema, trace.Options{System: "mine"})
	meta := func(zone, rank any) map[string]any { return map[string]any{"zone": zone, "rank": rank} }
	b.State("a", 0, "a", uint64(1), "leader", true, meta("x", int64(1)), int64(1), []any{"b"})
	b.State("b", 1, "b", uint64(2), "follower", nil, meta("y", int64(2)), int64(2), []any{})
	b.State("a", 2, "a", uint64(3), nil, false, nil, int64(3), nil)
	b.State("b", 3, "b", uint64(4), "follower", nil, meta("x", nil), int64(4), []any{"a"})
	b.Snapshot(trace.Snapshot{ID: 1, TS: 3, Members: []uint32{2, 3}})
	return b.Open()
}

func parseSpec(t *testing.T, src string) *specs.Spec {
	t.Helper()
	spec, err := specs.Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func TestMineConstants(t *testing.T) {
	tr := mineTrace(t)
	tests := []struct {
		name        string
		maxDistinct int
		trace       *trace.Trace
		want        Constants
	}{
		// Node names (a, b) are not constants.
		{"three", 3, tr, Constants{
			"role":      {"follower", "leader"},
			"flag":      {false, true},
			"meta.zone": {"x", "y"},
			"meta.rank": {int64(1), int64(2)},
		}},
		{"four", 4, tr, Constants{
			"term":      {uint64(1), uint64(2), uint64(3), uint64(4)},
			"role":      {"follower", "leader"},
			"flag":      {false, true},
			"meta.zone": {"x", "y"},
			"meta.rank": {int64(1), int64(2)},
			"big":       {int64(1), int64(2), int64(3), int64(4)},
			"next":      {uint64(2), uint64(3), uint64(4), uint64(5)},
		}},
		{"disabled", 0, tr, Constants{"role": {"follower", "leader"}}},
		{"no trace", 3, nil, Constants{"role": {"follower", "leader"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := parseSpec(t, mineSpec)
			spec.Generate.Constants.MaxDistinct = tt.maxDistinct
			got, err := MineConstants(tt.trace, spec)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
			// The constants fit Generate.
			pool, err := Generate(spec, got)
			if err != nil {
				t.Fatal(err)
			}
			text := listing(pool, true)
			for path, vals := range tt.want {
				if path == "flag" || len(vals) == 0 {
					continue // bools get no constants
				}
				if !strings.Contains(text, "n0."+path+" == ") && !strings.Contains(text, " == n0."+path) {
					t.Errorf("no constant of %s in the pool", path)
				}
			}
		})
	}
}

// TestMineConstantsLongStrings checks that a string longer than
// MaxConstantLen is not mined: every property with it as a literal would
// copy it (issue 31, case 4: a 5 MB string took 7 GB and 5 minutes).
func TestMineConstantsLongStrings(t *testing.T) {
	b := tracetest.New(t, trace.Schema{{Name: "s", Type: arrow.BinaryTypes.String}}, trace.Options{System: "long"})
	longest, tooLong := strings.Repeat("y", MaxConstantLen), strings.Repeat("x", MaxConstantLen+1)
	b.State("a", 0, "short")
	b.State("b", 1, tooLong)
	b.State("a", 2, longest)
	b.Snapshot(trace.Snapshot{ID: 1, TS: 2, Members: []uint32{1, 2}})
	spec := parseSpec(t, "system: long\nvariables:\n  s: string\n")
	got, err := MineConstants(b.Open(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Constants{"s": {"short", longest}}); !reflect.DeepEqual(got, want) {
		var lens []int
		for _, v := range got["s"] {
			lens = append(lens, len(v.(string)))
		}
		t.Errorf("constants of s of %v bytes, want %d and %d", lens, len("short"), MaxConstantLen)
	}
}

func TestMineConstantsErrors(t *testing.T) {
	tr := mineTrace(t)
	spec := parseSpec(t, mineSpec+"\n")
	spec.Vars = append(spec.Vars, &specs.Var{Name: "gone", Type: &specs.Type{Kind: specs.Bool}})
	if _, err := MineConstants(tr, spec); err == nil || !strings.Contains(err.Error(), "variable gone is not in the trace") {
		t.Errorf("missing variable: %v", err)
	}
	spec = parseSpec(t, mineSpec)
	spec.Vars[1].Type = &specs.Type{Kind: specs.Bool} // id is a string column
	if _, err := MineConstants(tr, spec); err == nil || !strings.Contains(err.Error(), "id is a (string), not a bool") {
		t.Errorf("type mismatch: %v", err)
	}
}
