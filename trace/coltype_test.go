package trace

import (
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/coltype"
)

// TestColumnType checks that column types name themselves as Arrow names
// their Arrow types, and convert there and back unchanged, so that a
// message about a Go state's type reads as one about a trace's column.
func TestColumnType(t *testing.T) {
	entry := coltype.StructOf(
		coltype.Field{Name: "term", Type: coltype.Uint64Type},
		coltype.Field{Name: "cmd", Type: coltype.StringType},
	)
	for _, ct := range []*coltype.Type{
		coltype.BoolType, coltype.Int64Type, coltype.Uint64Type, coltype.Float64Type, coltype.StringType,
		coltype.ListOf(entry),
		coltype.MapOf(coltype.StringType, coltype.ListOf(coltype.Float64Type)),
		coltype.StructOf(coltype.Field{Name: "log", Type: coltype.ListOf(entry)}, coltype.Field{Name: "up", Type: coltype.BoolType}),
	} {
		dt := ArrowType(ct)
		if dt.String() != ct.String() {
			t.Errorf("ArrowType(%s) is named %s", ct, dt)
		}
		if back := ColumnType(dt); !reflect.DeepEqual(back, ct) {
			t.Errorf("ColumnType(ArrowType(%s)) = %+v", ct, back)
		}
	}
	// A type no state variable has keeps its Arrow name.
	if ct := ColumnType(arrow.FixedWidthTypes.Date32); ct.Kind != coltype.Other || ct.String() != "date32" {
		t.Errorf("ColumnType(date32) = %+v", ct)
	}
}
