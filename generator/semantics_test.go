package generator

import (
	"strings"
	"testing"

	"github.com/augur-dev/augur/grammar"
)

// This file checks the pruning rules against the null semantics of the
// property language (== and != are null-safe; <, <= and in are false on
// null; a null container is empty), with a small evaluator of its own:
// over every valuation of the paths of a property of testdata/tiny.yaml
// from small domains, a generated disjunction must be false somewhere (it
// is no tautology) and each of its literals must be the only true one
// somewhere (no literal is implied by the others' being false, so no
// shorter disjunction is equivalent). Properties without set(x) are
// checked on non-null values, as the rules reason; properties with set(x)
// also get null values.

// A value of the test evaluator: nil (null), bool, int64, string, or a
// set of node ids as a bitmask (peerSet).
type peerSet uint8

// The domains leave two values on each side of the constants (ids "c",
// terms 2 and 3), so that an order chain of a disjunction of three
// literals fits: the rules do not reason about the ends of a domain.
var nodeIDs = []string{"a", "b", "c", "d", "e"}

// domain returns the values of a path of tiny.yaml, named by its last
// field ("" for the element of peers), with null when nulls.
func domain(field string, nulls bool) []any {
	var vs []any
	switch field {
	case "id", "":
		for _, id := range nodeIDs {
			vs = append(vs, id)
		}
	case "term":
		vs = []any{int64(0), int64(1), int64(2), int64(3), int64(4), int64(5)}
	case "role":
		vs = []any{"follower", "leader"}
	case "up":
		vs = []any{false, true}
	case "peers":
		for s := range 1 << len(nodeIDs) {
			vs = append(vs, peerSet(s))
		}
		return vs // a null container is empty: no separate null
	default:
		panic("no domain for " + field)
	}
	if nulls {
		vs = append(vs, nil)
	}
	return vs
}

// compile turns l into a function of the values of paths, indexed as in
// index.
func compile(l *grammar.Literal, index map[string]int) func([]any) bool {
	operand := func(x grammar.Operand) func([]any) any {
		switch x := x.(type) {
		case *grammar.Path:
			i := index[x.String()]
			return func(v []any) any { return v[i] }
		case *grammar.Const:
			var c any
			switch x.Kind {
			case grammar.ConstString:
				c = x.Str
			case grammar.ConstInt:
				c = x.Int
			case grammar.ConstBool:
				c = x.Bool
			}
			return func([]any) any { return c }
		}
		panic("bad operand")
	}
	var f func([]any) bool
	switch a := l.Atom.(type) {
	case *grammar.Compare:
		x, y := operand(a.X), operand(a.Y)
		switch a.Op {
		case grammar.OpEq:
			f = func(v []any) bool { return x(v) == y(v) }
		case grammar.OpNe:
			f = func(v []any) bool { return x(v) != y(v) }
		case grammar.OpLt:
			f = func(v []any) bool { return less(x(v), y(v), false) }
		case grammar.OpLe:
			f = func(v []any) bool { return less(x(v), y(v), true) }
		}
	case *grammar.In:
		x, s := operand(a.X), operand(a.S)
		f = func(v []any) bool { return member(x(v), s(v)) }
	case *grammar.Subset:
		x, y := operand(a.X), operand(a.Y)
		f = func(v []any) bool { return x(v).(peerSet)&^y(v).(peerSet) == 0 }
	case *grammar.Empty:
		s := operand(a.S)
		f = func(v []any) bool { return s(v).(peerSet) == 0 }
	case *grammar.IsSet:
		x := operand(a.X)
		f = func(v []any) bool { return x(v) != nil }
	case *grammar.Truth:
		x := operand(a.X)
		f = func(v []any) bool { return x(v) == true }
	default:
		panic("unexpected atom " + a.String())
	}
	if l.Neg {
		return func(v []any) bool { return !f(v) }
	}
	return f
}

func less(a, b any, orEqual bool) bool {
	if a == nil || b == nil {
		return false
	}
	switch a := a.(type) {
	case int64:
		return a < b.(int64) || orEqual && a == b.(int64)
	case string:
		return a < b.(string) || orEqual && a == b.(string)
	}
	panic("unordered")
}

func member(x any, s any) bool {
	id, ok := x.(string)
	if !ok {
		return false
	}
	for i, n := range nodeIDs {
		if n == id {
			return s.(peerSet)&(1<<i) != 0
		}
	}
	return false
}

// checkSemantics evaluates p on every valuation of its paths.
func checkSemantics(t *testing.T, p *grammar.Property) {
	t.Helper()
	nulls := strings.Contains(p.String(), "set(")
	var paths []string
	var doms [][]any
	seen := make(map[string]bool)
	for path := range grammar.Paths(p) {
		text := path.String()
		if seen[text] {
			continue
		}
		seen[text] = true
		field := ""
		if len(path.Fields) > 0 {
			field = path.Fields[len(path.Fields)-1]
		}
		paths = append(paths, text)
		doms = append(doms, domain(field, nulls))
	}
	index := make(map[string]int, len(paths))
	for i, text := range paths {
		index[text] = i
	}
	lits := make([]func([]any) bool, len(p.Matrix))
	for j, l := range p.Matrix {
		lits[j] = compile(l, index)
	}
	elem, dom := -1, -1
	if len(p.Quants) > 1 {
		elem, dom = index[p.Quants[1].Vars[0]], index[p.Quants[1].Domain.String()]
	}
	allFalse := false
	onlyTrue := make([]bool, len(p.Matrix))
	v := make([]any, len(paths))
	missing := len(p.Matrix) + 1 // witnesses still to find
	var walk func(i int)
	walk = func(i int) {
		if i < len(paths) {
			for _, x := range doms[i] {
				v[i] = x
				walk(i + 1)
				if missing == 0 {
					return
				}
			}
			return
		}
		if elem >= 0 {
			// A container may hold a null element.
			d := v[dom].(peerSet)
			if e := v[elem]; e == nil && d == 0 || e != nil && !member(e, d) {
				return // no such binding
			}
		}
		trues, last := 0, -1
		for j, l := range lits {
			if l(v) {
				trues++
				last = j
			}
		}
		switch {
		case trues == 0 && !allFalse:
			allFalse = true
			missing--
		case trues == 1 && !onlyTrue[last]:
			onlyTrue[last] = true
			missing--
		}
	}
	walk(0)
	if !allFalse {
		t.Errorf("tautology: %s", p)
	}
	for j, ok := range onlyTrue {
		if !ok {
			t.Errorf("%s: %s is never the only true literal", p, p.Matrix[j])
		}
	}
}

func TestSemantics(t *testing.T) {
	spec := loadSpec(t, "tiny")
	spec.Generate.MaxPerClass = 0
	spec.Generate.MaxLiterals = 3
	pool := generate(t, spec, tinyConsts)
	// Every property of up to two literals, every fifth of three.
	n := 0
	for i, p := range pool.Props {
		if len(p.Matrix) < 3 || i%5 == 0 {
			checkSemantics(t, p)
			n++
		}
	}
	t.Logf("%d of %d properties checked", n, len(pool.Props))
}
