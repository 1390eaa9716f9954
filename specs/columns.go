package specs

import (
	"fmt"

	"github.com/augur-dev/augur/coltype"
	"github.com/augur-dev/augur/diag"
)

// CheckColumns reports whether every state variable of s is a column of
// schema, of a compatible type:
//
//	Bool          bool
//	Int, Uint     int64 or uint64 (JSON traces store integers as int64)
//	Float         float64, int64 or uint64
//	String, enums utf8
//	List, Set     list of a compatible element type
//	Map           map<utf8, V> with V compatible
//	Struct        struct with at least the spec's fields, compatible; others are ignored
//
// schema is a trace's (package spectrace checks traces) or a Go state
// type's (the live checker checks structs). The variable node denotes
// the trace's node column, of type utf8. The error is a diag.ErrorList,
// with each error at the declaration of the variable.
func (s *Spec) CheckColumns(schema coltype.Schema) error {
	var errs diag.ErrorList
	for _, v := range s.Vars {
		ct := coltype.StringType
		if v.Name != "node" {
			i := schema.Index(v.Name)
			if i < 0 {
				errs = append(errs, &diag.Error{Pos: v.Pos, Msg: fmt.Sprintf("variable %s is not a column of the trace (columns: %s)", v.Name, columns(schema))})
				continue
			}
			ct = schema[i].Type
		}
		path, why := mismatch(v.Type, ct, v.Name)
		switch {
		case why == "":
		case path == v.Name:
			errs = append(errs, &diag.Error{Pos: v.Pos, Msg: fmt.Sprintf("variable %s: column %s has type %s, want %s", v.Name, v.Name, quoted(ct.String()), v.Type.Describe())})
		default:
			errs = append(errs, &diag.Error{Pos: v.Pos, Msg: fmt.Sprintf("variable %s: column %s has type %s, want %s: at %s, %s", v.Name, v.Name, quoted(ct.String()), quoted(v.Type.String()), path, why)})
		}
	}
	errs.Sort()
	return errs.Err()
}

// columns lists the names a spec variable can refer to.
func columns(schema coltype.Schema) string {
	names := []string{"node"}
	for _, c := range schema {
		names = append(names, c.Name)
	}
	return listed(names)
}

// mismatch returns "" when a column of type ct can hold the values of t,
// and otherwise the path of the first part that cannot, and why.
func mismatch(t *Type, ct *coltype.Type, path string) (where, why string) {
	ok := false
	switch t.Kind {
	case Bool:
		ok = ct.Kind == coltype.Bool
	case Int, Uint:
		ok = ct.Kind == coltype.Int64 || ct.Kind == coltype.Uint64
	case Float:
		ok = ct.Kind == coltype.Float64 || ct.Kind == coltype.Int64 || ct.Kind == coltype.Uint64
	case String:
		ok = ct.Kind == coltype.String
	case List, Set:
		if ct.Kind == coltype.List {
			return mismatch(t.Elem, ct.Elem, path+"[]")
		}
	case Map:
		if ct.Kind == coltype.Map && ct.Key.Kind == coltype.String {
			return mismatch(t.Elem, ct.Elem, path+"[key]")
		}
	case Struct:
		if ct.Kind != coltype.Struct {
			break
		}
		for _, f := range t.Fields {
			i := ct.FieldIndex(f.Name)
			if i < 0 {
				return path + "." + f.Name, fmt.Sprintf("no such field in %s", ct)
			}
			if where, why := mismatch(f.Type, ct.Fields[i].Type, path+"."+f.Name); why != "" {
				return where, why
			}
		}
		return "", ""
	}
	if ok {
		return "", ""
	}
	return path, fmt.Sprintf("%s is not %s", ct, t.Describe())
}
