package spectrace

import (
	"fmt"

	"github.com/augur-dev/augur/coltype"
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
		if len(schema) == trace.MaxVariables {
			return nil, fmt.Errorf("%s: variable %s: one more than the %d a trace may hold", v.Pos, v.Name, trace.MaxVariables)
		}
		t, err := columnType(v.Type)
		if err != nil {
			return nil, fmt.Errorf("%s: variable %s: %w", v.Pos, v.Name, err)
		}
		at := trace.ArrowType(t)
		if err := trace.CheckType(at); err != nil {
			return nil, fmt.Errorf("%s: variable %s: %w", v.Pos, v.Name, err)
		}
		schema = append(schema, trace.Column{Name: v.Name, Type: at})
	}
	return schema, nil
}

// columnType returns the physical column type of t.
func columnType(t *specs.Type) (*coltype.Type, error) {
	switch t.Kind {
	case specs.Bool:
		return coltype.BoolType, nil
	case specs.Int:
		return coltype.Int64Type, nil
	case specs.Uint:
		return coltype.Uint64Type, nil
	case specs.Float:
		return coltype.Float64Type, nil
	case specs.String:
		return coltype.StringType, nil
	case specs.List, specs.Set:
		e, err := columnType(t.Elem)
		if err != nil {
			return nil, err
		}
		return coltype.ListOf(e), nil
	case specs.Map:
		e, err := columnType(t.Elem)
		if err != nil {
			return nil, err
		}
		return coltype.MapOf(coltype.StringType, e), nil
	case specs.Struct:
		fields := make([]coltype.Field, len(t.Fields))
		for i, f := range t.Fields {
			ft, err := columnType(f.Type)
			if err != nil {
				return nil, err
			}
			fields[i] = coltype.Field{Name: f.Name, Type: ft}
		}
		return coltype.StructOf(fields...), nil
	}
	return nil, fmt.Errorf("no column type for %s", t)
}
