package ir

import (
	"fmt"
	"slices"
	"strings"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

// Codes of the errors [Check] reports, in addition to those of grammar.
const (
	CodeUnknownVar   diag.Code = "unknown variable"
	CodeUnknownField diag.Code = "unknown field"
	CodeUnknownPred  diag.Code = "unknown predicate"
	CodeType         diag.Code = "type mismatch"
)

// Typed type-checks p against spec, as [Check], and returns its canonical
// form, which [Build] takes, and its text. Generated properties are
// canonical already (generator doc): those need no canonical copy.
func Typed(spec *specs.Spec, p *grammar.Property) (canon *grammar.Property, text string, err error) {
	if err := Check(spec, p); err != nil {
		return nil, "", err
	}
	text, canon = p.Text(), p
	if p.String() != text {
		canon = grammar.Canonical(p)
	}
	return canon, text, nil
}

// varType is what a variable ranges over: a node (typ nil) or the
// elements of a container of type typ.
type varType struct {
	typ *specs.Type
}

// Check type-checks p against spec as written, so that errors point into its source.
func Check(spec *specs.Spec, p *grammar.Property) error {
	scope := map[string]varType{}
	for _, q := range p.Quants {
		if q.Domain == nil {
			for _, v := range q.Vars {
				scope[v] = varType{}
			}
			continue
		}
		t, err := pathType(spec, p, scope, q.Domain)
		if err != nil {
			return err
		}
		if !t.Container() {
			return p.Errorf(q.Domain.Pos(), CodeType, "cannot iterate over %s of type %s", q.Domain, t)
		}
		scope[q.Vars[0]] = varType{typ: MemberType(t)}
	}
	for _, l := range p.Matrix {
		if err := checkAtom(spec, p, scope, l.Atom); err != nil {
			return err
		}
	}
	return nil
}

// MemberType is the type of the members of a container: what an
// iterator binds and what "x in S" looks for. The members of a map are its
// keys.
func MemberType(t *specs.Type) *specs.Type {
	if t.Kind == specs.Map {
		return t.Key
	}
	return t.Elem
}

func pathType(spec *specs.Spec, p *grammar.Property, scope map[string]varType, x *grammar.Path) (*specs.Type, error) {
	vt, ok := scope[x.Var]
	if !ok {
		return nil, p.Errorf(x.Pos(), grammar.CodeUnbound, "variable %s is not bound", x.Var)
	}
	t, fields := vt.typ, x.Fields
	if t == nil {
		if len(fields) == 0 {
			return nil, p.Errorf(x.Pos(), CodeType, "%s is a node; use one of its variables, such as %s.id", x.Var, x.Var)
		}
		if t, ok = spec.Lookup(fields[0]); !ok {
			return nil, p.Errorf(x.Pos(), CodeUnknownVar, "unknown variable %s in %s (the spec declares %s)", fields[0], x, declaredNames(spec))
		}
		fields = fields[1:]
	}
	for _, f := range fields {
		switch t.Kind {
		case specs.Struct:
			i := slices.IndexFunc(t.Fields, func(sf specs.Field) bool { return sf.Name == f })
			if i < 0 {
				return nil, p.Errorf(x.Pos(), CodeUnknownField, "%s has no field %s in %s", t, f, x)
			}
			t = t.Fields[i].Type
		case specs.Map:
			t = t.Elem
		default:
			return nil, p.Errorf(x.Pos(), CodeUnknownField, "%s of type %s has no field %s", x, t, f)
		}
	}
	return t, nil
}

// declaredNames lists the variables and derived variables of spec for a
// message: "no variables" if there are none, and at most the first
// maxListed of them.
func declaredNames(spec *specs.Spec) string {
	const maxListed = 20
	var names []string
	for _, v := range spec.Vars {
		names = append(names, v.Name)
	}
	for _, d := range spec.Derived {
		names = append(names, d.Name)
	}
	switch {
	case len(names) == 0:
		return "no variables"
	case len(names) > maxListed:
		return fmt.Sprintf("%s and %d more", strings.Join(names[:maxListed], ", "), len(names)-maxListed)
	}
	return strings.Join(names, ", ")
}

// operandType returns the type of a path operand, or nil for a constant.
func operandType(spec *specs.Spec, p *grammar.Property, scope map[string]varType, o grammar.Operand) (*specs.Type, error) {
	if x, ok := o.(*grammar.Path); ok {
		return pathType(spec, p, scope, x)
	}
	return nil, nil
}

func checkAtom(spec *specs.Spec, p *grammar.Property, scope map[string]varType, a grammar.Atom) error {
	typeOf := func(o grammar.Operand) (*specs.Type, error) { return operandType(spec, p, scope, o) }
	switch a := a.(type) {
	case *grammar.Compare:
		tx, err := typeOf(a.X)
		if err != nil {
			return err
		}
		ty, err := typeOf(a.Y)
		if err != nil {
			return err
		}
		if err := checkComparable(p, a, a.X, tx, a.Y, ty); err != nil {
			return err
		}
		if (a.Op == grammar.OpLt || a.Op == grammar.OpLe) && !ordered(tx, ty) {
			return p.Errorf(a.Pos(), CodeType, "%s: %s values are not ordered", a, typeName(tx, ty))
		}
	case *grammar.In:
		ts, err := containerOperand(spec, p, scope, a.S)
		if err != nil {
			return err
		}
		tx, err := typeOf(a.X)
		if err != nil {
			return err
		}
		return checkComparable(p, a, a.X, tx, a.S, MemberType(ts))
	case *grammar.Subset:
		tx, err := containerOperand(spec, p, scope, a.X)
		if err != nil {
			return err
		}
		ty, err := containerOperand(spec, p, scope, a.Y)
		if err != nil {
			return err
		}
		if !specs.Comparable(MemberType(tx), MemberType(ty)) {
			return p.Errorf(a.Pos(), CodeType, "%s: members of %s and %s are not comparable", a, tx, ty)
		}
	case *grammar.Empty:
		_, err := containerOperand(spec, p, scope, a.S)
		return err
	case *grammar.IsSet:
		if _, ok := a.X.(*grammar.Path); !ok {
			return p.Errorf(a.Pos(), CodeType, "set() takes a variable, not a constant")
		}
		_, err := typeOf(a.X)
		return err
	case *grammar.Truth:
		t, err := typeOf(a.X)
		if err != nil {
			return err
		}
		if t == nil || t.Kind != specs.Bool {
			return p.Errorf(a.Pos(), CodeType, "%s is not a bool variable", a.X)
		}
	case *grammar.Call:
		pred := spec.Predicate(a.Name)
		if pred == nil {
			return p.Errorf(a.Pos(), CodeUnknownPred, "unknown predicate %s", a.Name)
		}
		if len(a.Args) != len(pred.Params) {
			return p.Errorf(a.Pos(), CodeType, "%s takes %d arguments, not %d", a.Name, len(pred.Params), len(a.Args))
		}
		for i, arg := range a.Args {
			t, err := typeOf(arg)
			if err != nil {
				return err
			}
			if err := checkComparable(p, a, arg, t, nil, pred.Params[i].Type); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("ir: unknown atom %T", a)
	}
	return nil
}

func containerOperand(spec *specs.Spec, p *grammar.Property, scope map[string]varType, o grammar.Operand) (*specs.Type, error) {
	t, err := operandType(spec, p, scope, o)
	if err != nil {
		return nil, err
	}
	if t == nil || !t.Container() {
		return nil, p.Errorf(o.Pos(), CodeType, "%s is not a container", o)
	}
	return t, nil
}

// checkComparable checks that x (of type tx, nil for a constant) may be
// compared with y (of type ty, nil for a constant).
func checkComparable(p *grammar.Property, a grammar.Atom, x grammar.Operand, tx *specs.Type, y grammar.Operand, ty *specs.Type) error {
	switch {
	case tx == nil && ty == nil:
		return p.Errorf(a.Pos(), CodeType, "%s compares two constants", a)
	case tx == nil:
		return constFits(p, x.(*grammar.Const), ty)
	case ty == nil:
		return constFits(p, y.(*grammar.Const), tx)
	case !specs.Comparable(tx, ty):
		return p.Errorf(a.Pos(), CodeType, "%s: cannot compare %s with %s", a, tx, ty)
	}
	return nil
}

// constFits checks that constant c may stand for a value of type t.
func constFits(p *grammar.Property, c *grammar.Const, t *specs.Type) error {
	ok := false
	switch c.Kind {
	case grammar.ConstString:
		ok = t.Kind == specs.String
		if ok && t.Enum != nil && !slices.Contains(t.Enum, c.Str) {
			return p.Errorf(c.Pos(), CodeType, "%s is not a value of %s (%s)", c, t, strings.Join(t.Enum, ", "))
		}
	case grammar.ConstInt, grammar.ConstUint:
		ok = t.Kind == specs.Int || t.Kind == specs.Uint || t.Kind == specs.Float
	case grammar.ConstFloat:
		ok = t.Kind == specs.Float
	case grammar.ConstBool:
		ok = t.Kind == specs.Bool
	}
	if !ok {
		return p.Errorf(c.Pos(), CodeType, "constant %s does not fit type %s", c, t)
	}
	return nil
}

func ordered(tx, ty *specs.Type) bool {
	for _, t := range []*specs.Type{tx, ty} {
		if t != nil && !t.Ordered() {
			return false
		}
	}
	return true
}

func typeName(tx, ty *specs.Type) string {
	if tx != nil {
		return tx.String()
	}
	return ty.String()
}
