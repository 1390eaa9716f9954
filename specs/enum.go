package specs

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// An EnumError is a string that a variable holds, at Path below it, and
// that is not among the values of its enum.
type EnumError struct {
	Var   string // the variable; "" where the caller names it
	Path  string // below the variable: "", "[2]", ".role", "[\"key\"]"
	Value string
	Enum  *Type
}

func (e *EnumError) Error() string {
	at := e.Var + e.Path
	if at != "" {
		at += ": "
	}
	return fmt.Sprintf("%s%q is not a value of the enum %s (%s)", at, e.Value, e.Enum.Name, listed(e.Enum.Enum))
}

// HasEnum reports whether a value of t can hold a value of an enum.
func (t *Type) HasEnum() bool {
	switch t.Kind {
	case String:
		return t.Enum != nil
	case List, Set, Map:
		return t.Elem.HasEnum()
	case Struct:
		return slices.ContainsFunc(t.Fields, func(f Field) bool { return f.Type.HasEnum() })
	}
	return false
}

// outsideEnum returns the first string in v, a value of type t in the
// representation of package trace, that is not a value of its enum, as
// an EnumError with Path set; nil when there is none. A value whose
// shape does not fit t is left to the checks of its physical type. The
// path is built on the way out, so that a value without error costs no
// allocation.
func outsideEnum(t *Type, v any) *EnumError {
	switch t.Kind {
	case String:
		if s, ok := v.(string); ok && t.Enum != nil && !slices.Contains(t.Enum, s) {
			return &EnumError{Value: s, Enum: t}
		}
	case List, Set:
		l, _ := v.([]any)
		for i, e := range l {
			if err := outsideEnum(t.Elem, e); err != nil {
				err.Path = "[" + strconv.Itoa(i) + "]" + err.Path
				return err
			}
		}
	case Map:
		m, _ := v.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if err := outsideEnum(t.Elem, m[k]); err != nil {
				err.Path = "[" + strconv.Quote(k) + "]" + err.Path
				return err
			}
		}
	case Struct:
		m, _ := v.(map[string]any)
		for _, f := range t.Fields {
			if err := outsideEnum(f.Type, m[f.Name]); err != nil {
				err.Path = "." + f.Name + err.Path
				return err
			}
		}
	}
	return nil
}

// CheckEnum returns an *EnumError when x, a value of v in the
// representation of package trace, holds a string outside its enum, at
// any depth; nil otherwise.
func (v *Var) CheckEnum(x any) error {
	if !v.Type.HasEnum() {
		return nil
	}
	if err := outsideEnum(v.Type, x); err != nil {
		err.Var = v.Name
		return err
	}
	return nil
}

// EnumCheck returns a function that checks a value of column col of
// the trace schema of s (spectrace.Schema) as [Var.CheckEnum] does, for collectors that take their
// types from the spec; its *EnumError leaves the variable to the caller
// to name. EnumCheck returns nil when no variable holds an enum.
func (s *Spec) EnumCheck() func(col int, x any) error {
	var cols []*Var // by column of s.Schema(); nil for one without enums
	some := false
	for _, v := range s.Vars {
		switch {
		case v.Name == "node":
			continue
		case v.Type.HasEnum():
			cols, some = append(cols, v), true
		default:
			cols = append(cols, nil)
		}
	}
	if !some {
		return nil
	}
	return func(col int, x any) error {
		if col < 0 || col >= len(cols) || cols[col] == nil {
			return nil
		}
		if err := outsideEnum(cols[col].Type, x); err != nil {
			return err // the caller names the column
		}
		return nil
	}
}
