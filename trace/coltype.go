package trace

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/coltype"
)

// ArrowType returns the Arrow type of column type t: lists of nullable
// elements, maps of nullable items and structs of nullable fields, as the
// writers of traces make them. It panics for a type of kind
// coltype.Other, which has none.
func ArrowType(t *coltype.Type) arrow.DataType {
	switch t.Kind {
	case coltype.Bool:
		return arrow.FixedWidthTypes.Boolean
	case coltype.Int64:
		return arrow.PrimitiveTypes.Int64
	case coltype.Uint64:
		return arrow.PrimitiveTypes.Uint64
	case coltype.Float64:
		return arrow.PrimitiveTypes.Float64
	case coltype.String:
		return arrow.BinaryTypes.String
	case coltype.List:
		return arrow.ListOf(ArrowType(t.Elem))
	case coltype.Map:
		return arrow.MapOf(ArrowType(t.Key), ArrowType(t.Elem))
	case coltype.Struct:
		fields := make([]arrow.Field, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = arrow.Field{Name: f.Name, Type: ArrowType(f.Type), Nullable: true}
		}
		return arrow.StructOf(fields...)
	}
	panic(fmt.Sprintf("trace: no Arrow type for %s", t))
}

// ColumnType returns Arrow type dt as a column type, named as Arrow names
// it. A type that no state variable has (see [CheckType]) is of kind
// coltype.Other.
func ColumnType(dt arrow.DataType) *coltype.Type {
	t := &coltype.Type{Name: dt.String()}
	switch dt := dt.(type) {
	case *arrow.BooleanType:
		t.Kind = coltype.Bool
	case *arrow.Int64Type:
		t.Kind = coltype.Int64
	case *arrow.Uint64Type:
		t.Kind = coltype.Uint64
	case *arrow.Float64Type:
		t.Kind = coltype.Float64
	case *arrow.StringType:
		t.Kind = coltype.String
	case *arrow.ListType:
		t.Kind, t.Elem = coltype.List, ColumnType(dt.Elem())
	case *arrow.MapType:
		t.Kind, t.Key, t.Elem = coltype.Map, ColumnType(dt.KeyType()), ColumnType(dt.ItemType())
	case *arrow.StructType:
		t.Kind = coltype.Struct
		for _, f := range dt.Fields() {
			t.Fields = append(t.Fields, coltype.Field{Name: f.Name, Type: ColumnType(f.Type)})
		}
	}
	return t
}

// ColumnTypes returns s with its column types as package coltype
// describes them.
func (s Schema) ColumnTypes() coltype.Schema {
	cs := make(coltype.Schema, len(s))
	for i, c := range s {
		cs[i] = coltype.Column{Name: c.Name, Type: ColumnType(c.Type)}
	}
	return cs
}
