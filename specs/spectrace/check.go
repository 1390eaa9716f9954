package spectrace

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// Check reports whether every state variable of spec s is a column of a trace
// with the given schema, of a compatible physical type:
//
//	Bool          bool
//	Int, Uint     int64 or uint64 (JSON traces store integers as int64)
//	Float         float64, int64 or uint64
//	String, enums utf8
//	List, Set     list of a compatible element type
//	Map           map<utf8, V> with V compatible
//	Struct        struct with at least the spec's fields, compatible; others are ignored
//
// The variable node denotes the trace's node column, of type utf8. The
// error is a diag.ErrorList, with each error at the declaration of the variable.
func Check(s *specs.Spec, schema trace.Schema) error {
	var errs diag.ErrorList
	for _, v := range s.Vars {
		var dt arrow.DataType = arrow.BinaryTypes.String
		if v.Name != "node" {
			i := schema.Index(v.Name)
			if i < 0 {
				errs = append(errs, &diag.Error{Pos: v.Pos, Msg: fmt.Sprintf("variable %s is not a column of the trace (columns: %s)", v.Name, columns(schema))})
				continue
			}
			dt = schema[i].Type
		}
		path, why := mismatch(v.Type, dt, v.Name)
		switch {
		case why == "":
		case path == v.Name:
			errs = append(errs, &diag.Error{Pos: v.Pos, Msg: fmt.Sprintf("variable %s: column %s has type %s, want %s", v.Name, v.Name, dt, v.Type.Describe())})
		default:
			errs = append(errs, &diag.Error{Pos: v.Pos, Msg: fmt.Sprintf("variable %s: column %s has type %s, want %s: at %s, %s", v.Name, v.Name, dt, v.Type, path, why)})
		}
	}
	errs.Sort()
	return errs.Err()
}

// columns lists the names a spec variable can refer to.
func columns(schema trace.Schema) string {
	names := []string{"node"}
	for _, c := range schema {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// mismatch returns "" when a column of type dt can hold the values of t,
// and otherwise the path of the first part that cannot, and why.
func mismatch(t *specs.Type, dt arrow.DataType, path string) (where, why string) {
	id, ok := dt.ID(), false
	switch t.Kind {
	case specs.Bool:
		ok = id == arrow.BOOL
	case specs.Int, specs.Uint:
		ok = id == arrow.INT64 || id == arrow.UINT64
	case specs.Float:
		ok = id == arrow.FLOAT64 || id == arrow.INT64 || id == arrow.UINT64
	case specs.String:
		ok = id == arrow.STRING
	case specs.List, specs.Set:
		if l, isList := dt.(*arrow.ListType); isList {
			return mismatch(t.Elem, l.Elem(), path+"[]")
		}
	case specs.Map:
		if m, isMap := dt.(*arrow.MapType); isMap && m.KeyType().ID() == arrow.STRING {
			return mismatch(t.Elem, m.ItemType(), path+"[key]")
		}
	case specs.Struct:
		st, isStruct := dt.(*arrow.StructType)
		if !isStruct {
			break
		}
		for _, f := range t.Fields {
			i, found := st.FieldIdx(f.Name)
			if !found {
				return path + "." + f.Name, fmt.Sprintf("no such field in %s", dt)
			}
			if where, why := mismatch(f.Type, st.Field(i).Type, path+"."+f.Name); why != "" {
				return where, why
			}
		}
		return "", ""
	}
	if ok {
		return "", ""
	}
	return path, fmt.Sprintf("%s is not %s", dt, t.Describe())
}
