package spectrace

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// raftSchema is a schema that testdata/raft.yaml checks against. term is
// int64, as in a trace collected from JSON, and log entries carry a field
// the spec does not mention.
func raftSchema() trace.Schema {
	utf8, u64 := arrow.BinaryTypes.String, arrow.PrimitiveTypes.Uint64
	return trace.Schema{
		{Name: "id", Type: utf8},
		{Name: "term", Type: arrow.PrimitiveTypes.Int64},
		{Name: "vote", Type: utf8},
		{Name: "state", Type: utf8},
		{Name: "commit", Type: u64},
		{Name: "peers", Type: arrow.ListOf(utf8)},
		{Name: "log", Type: arrow.ListOf(arrow.StructOf(
			arrow.Field{Name: "term", Type: u64, Nullable: true},
			arrow.Field{Name: "index", Type: u64, Nullable: true},
			arrow.Field{Name: "data", Type: utf8, Nullable: true},
		))},
		{Name: "progress", Type: arrow.MapOf(utf8, u64)},
	}
}

func TestCheck(t *testing.T) {
	s, err := specs.Load("../testdata/raft.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(s, raftSchema()); err != nil {
		t.Fatalf("Check: %v", err)
	}

	utf8, u64 := arrow.BinaryTypes.String, arrow.PrimitiveTypes.Uint64
	tests := []struct {
		name   string
		column string
		typ    arrow.DataType // nil removes the column
		want   string
	}{
		{"unknown variable", "vote", nil,
			"../testdata/raft.yaml:12:3: variable vote is not a column of the trace (columns: node, id, term, state, commit, peers, log, progress)"},
		{"scalar mismatch", "term", utf8,
			"../testdata/raft.yaml:11:3: variable term: column term has type utf8, want Term (uint64)"},
		{"enum mismatch", "state", arrow.PrimitiveTypes.Int64,
			"../testdata/raft.yaml:13:3: variable state: column state has type int64, want state (enum)"},
		{"list of non-list", "peers", utf8,
			"../testdata/raft.yaml:15:3: variable peers: column peers has type utf8, want set<NodeID>"},
		{"list element", "peers", arrow.ListOf(arrow.FixedWidthTypes.Boolean),
			"../testdata/raft.yaml:15:3: variable peers: column peers has type list<item: bool, nullable>, want set<NodeID>: at peers[], bool is not NodeID (string)"},
		{"struct field type", "log", arrow.ListOf(arrow.StructOf(
			arrow.Field{Name: "term", Type: u64}, arrow.Field{Name: "index", Type: utf8})),
			"../testdata/raft.yaml:16:3: variable log: column log has type list<item: struct<term: uint64, index: utf8>, nullable>, want list<Entry>: at log[].index, utf8 is not Index (uint64)"},
		{"struct field missing", "log", arrow.ListOf(arrow.StructOf(arrow.Field{Name: "term", Type: u64})),
			"../testdata/raft.yaml:16:3: variable log: column log has type list<item: struct<term: uint64>, nullable>, want list<Entry>: at log[].index, no such field in struct<term: uint64>"},
		{"map key", "progress", arrow.MapOf(arrow.PrimitiveTypes.Int64, u64),
			"../testdata/raft.yaml:17:3: variable progress: column progress has type map<int64, uint64, items_nullable>, want map<NodeID, Index>"},
		{"map value", "progress", arrow.MapOf(utf8, arrow.FixedWidthTypes.Boolean),
			"../testdata/raft.yaml:17:3: variable progress: column progress has type map<utf8, bool, items_nullable>, want map<NodeID, Index>: at progress[key], bool is not Index (uint64)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var schema trace.Schema
			for _, c := range raftSchema() {
				if c.Name == tt.column {
					if tt.typ == nil {
						continue
					}
					c.Type = tt.typ
				}
				schema = append(schema, c)
			}
			err := Check(s, schema)
			var list diag.ErrorList
			if !errors.As(err, &list) || len(list) != 1 {
				t.Fatalf("Check: %v, want one error", err)
			}
			if got := list[0].Error(); got != tt.want {
				t.Errorf("Check:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestCheckCompatibility(t *testing.T) {
	tests := []struct {
		typ  string
		col  arrow.DataType
		want bool
	}{
		{"bool", arrow.FixedWidthTypes.Boolean, true},
		{"bool", arrow.PrimitiveTypes.Int64, false},
		{"int64", arrow.PrimitiveTypes.Uint64, true},
		{"uint64", arrow.PrimitiveTypes.Int64, true},
		{"int64", arrow.PrimitiveTypes.Float64, false},
		{"float64", arrow.PrimitiveTypes.Int64, true},
		{"float64", arrow.PrimitiveTypes.Float64, true},
		{"string", arrow.BinaryTypes.String, true},
		{"string", arrow.BinaryTypes.Binary, false},
		{"list<int64>", arrow.ListOf(arrow.PrimitiveTypes.Int64), true},
		{"set<int64>", arrow.ListOf(arrow.PrimitiveTypes.Int64), true},
		{"map<string, int64>", arrow.ListOf(arrow.PrimitiveTypes.Int64), false},
		{"{a: int64}", arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), false},
		{"{a: {b: bool}}", arrow.StructOf(arrow.Field{Name: "a", Type: arrow.StructOf(arrow.Field{Name: "b", Type: arrow.FixedWidthTypes.Boolean})}), true},
	}
	for _, tt := range tests {
		typ, err := specs.ParseType(tt.typ, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := &specs.Spec{Vars: []*specs.Var{{Name: "x", Type: typ}}}
		if err := Check(s, trace.Schema{{Name: "x", Type: tt.col}}); (err == nil) != tt.want {
			t.Errorf("%s vs column %s: %v, want compatible=%v", tt.typ, tt.col, err, tt.want)
		}
	}
}

func TestCheckNode(t *testing.T) {
	s, err := specs.Parse("node.yaml", []byte("types: {NodeID: string}\nvariables:\n  node: NodeID\n  n: int64\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = Check(s, nil)
	want := "node.yaml:4:3: variable n is not a column of the trace (columns: node)"
	if err == nil || err.Error() != want {
		t.Errorf("Check = %v, want %s", err, want)
	}
}

func TestSchemaFitsCheck(t *testing.T) {
	s, err := specs.Load("../testdata/raft.yaml")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := Schema(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(s, schema); err != nil {
		t.Errorf("a spec does not fit its own schema: %v", err)
	}
}

// TestSchemaBounds checks that a spec whose variables a trace cannot
// hold is refused at the variable, in the spec, before a collector
// creates the trace (which named only the trace).
func TestSchemaBounds(t *testing.T) {
	var many strings.Builder
	many.WriteString("variables:\n")
	for i := range trace.MaxVariables + 1 {
		fmt.Fprintf(&many, "  v%d: int64\n", i)
	}
	deep := "variables:\n  term: " + strings.Repeat("list<", trace.MaxDepth) + "int64" + strings.Repeat(">", trace.MaxDepth) + "\n"
	for _, tt := range []struct{ name, src, want string }{
		{"too many variables", many.String(), fmt.Sprintf("s.yaml:%d:3: variable v%d: one more than the %d a trace may hold", trace.MaxVariables+2, trace.MaxVariables, trace.MaxVariables)},
		{"nested too deep", deep, "s.yaml:2:3: variable term: type nests more than 32 deep"},
	} {
		s, err := specs.Parse("s.yaml", []byte(tt.src))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if _, err := Schema(s); err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %s", tt.name, err, tt.want)
		}
	}
}
