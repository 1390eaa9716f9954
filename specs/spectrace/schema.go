package spectrace

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// Schema returns the trace columns that store the variables of spec s, for
// collectors that take their types from a spec instead of inferring
// them. The node variable, which is the trace's node column, is left out.
func Schema(s *specs.Spec) (trace.Schema, error) {
	var schema trace.Schema
	for _, v := range s.Vars {
		if v.Name == "node" {
			continue
		}
		t, err := arrowType(v.Type)
		if err != nil {
			return nil, fmt.Errorf("%s: variable %s: %w", v.Pos, v.Name, err)
		}
		schema = append(schema, trace.Column{Name: v.Name, Type: t})
	}
	return schema, nil
}

// arrowType returns the physical column type of t.
func arrowType(t *specs.Type) (arrow.DataType, error) {
	switch t.Kind {
	case specs.Bool:
		return arrow.FixedWidthTypes.Boolean, nil
	case specs.Int:
		return arrow.PrimitiveTypes.Int64, nil
	case specs.Uint:
		return arrow.PrimitiveTypes.Uint64, nil
	case specs.Float:
		return arrow.PrimitiveTypes.Float64, nil
	case specs.String:
		return arrow.BinaryTypes.String, nil
	case specs.List, specs.Set:
		e, err := arrowType(t.Elem)
		if err != nil {
			return nil, err
		}
		return arrow.ListOf(e), nil
	case specs.Map:
		e, err := arrowType(t.Elem)
		if err != nil {
			return nil, err
		}
		return arrow.MapOf(arrow.BinaryTypes.String, e), nil
	case specs.Struct:
		fields := make([]arrow.Field, len(t.Fields))
		for i, f := range t.Fields {
			ft, err := arrowType(f.Type)
			if err != nil {
				return nil, err
			}
			fields[i] = arrow.Field{Name: f.Name, Type: ft, Nullable: true}
		}
		return arrow.StructOf(fields...), nil
	}
	return nil, fmt.Errorf("no column type for %s", t)
}
