package tracetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/trace"
)

// Dump renders the trace at dir compactly, for tests to compare: the
// schema, one line per state and one line per snapshot with its members
// as node@row. Any error fails the test.
func Dump(t testing.TB, dir string) string {
	t.Helper()
	tr, err := trace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "schema %s\n", SchemaString(tr.Schema))
	states := tr.States()
	defer states.Close()
	nodeOf := map[uint32]string{}
	for row := range uint32(tr.NumStates()) {
		s, err := states.State(row)
		if err != nil {
			t.Fatal(err)
		}
		nodeOf[row] = s.Node
		fmt.Fprintf(&b, "state %d %s ts=%d", row, s.Node, s.TS)
		for i, c := range tr.Schema {
			fmt.Fprintf(&b, " %s=%v", c.Name, s.Vars[i])
		}
		b.WriteByte('\n')
	}
	sr := tr.Snapshots()
	defer sr.Close()
	for sr.Next() {
		s := sr.Snapshot()
		fmt.Fprintf(&b, "snapshot %d ts=%d tags=%q", s.ID, s.TS, s.Tags)
		for _, m := range s.Members {
			fmt.Fprintf(&b, " %s@%d", nodeOf[m], m)
		}
		b.WriteByte('\n')
	}
	if err := sr.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// SchemaString renders a schema as "a:int64 b:list<utf8>".
func SchemaString(s trace.Schema) string {
	var parts []string
	for _, c := range s {
		parts = append(parts, c.Name+":"+typeString(c.Type))
	}
	return strings.Join(parts, " ")
}

func typeString(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.ListType:
		return "list<" + typeString(t.Elem()) + ">"
	case *arrow.StructType:
		var fs []string
		for _, f := range t.Fields() {
			fs = append(fs, f.Name+":"+typeString(f.Type))
		}
		return "struct<" + strings.Join(fs, " ") + ">"
	case *arrow.MapType:
		return "map<" + typeString(t.KeyType()) + "," + typeString(t.ItemType()) + ">"
	}
	return t.String()
}
