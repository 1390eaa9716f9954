package specs

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	exprparser "github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/parser/lexer"
	"github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm"
	"go.yaml.in/yaml/v3"

	"github.com/augur-dev/augur/diag"
)

// Derived is a derived variable: a value computed from the state variables
// of one node, like Avenger's no-argument methods. Parse compiles Expr; a
// Derived built by hand has no program and evaluates to null.
type Derived struct {
	Name string
	Type *Type
	Expr string // expr-lang source
	Pos  diag.Position

	prog *vm.Program
	// The names the expression uses, whose elements make an evaluation's
	// budget; every name of the environment when it uses $env.
	reads    []string
	wholeEnv bool
}

// Predicate is a user predicate template: a boolean expression over its
// parameters, instantiated by the generator on every type-correct tuple of
// arguments. Parse compiles Expr; a Predicate built by hand is false.
type Predicate struct {
	Name   string
	Params []Param
	Expr   string // expr-lang source
	Pos    diag.Position

	prog *vm.Program
}

// Param is a parameter of a predicate.
type Param struct {
	Name string
	Type *Type
}

// scratch is what one evaluation needs besides the program: a machine and,
// for predicates, the environment that binds the parameters. Pooling both
// keeps evaluation free of per-call allocations while staying safe for
// concurrent use.
type scratch struct {
	vm  vm.VM
	env map[string]any
}

var scratchPool = sync.Pool{New: func() any { return &scratch{env: map[string]any{}} }}

// Eval evaluates d for one node state. env maps the names of the state
// variables, and of the derived variables declared before d, to their
// values in trace representation (see package trace); a caller evaluates
// the derived variables in order and stores each result in env. Eval only
// reads env.
//
// The result is in the trace representation of d.Type: int64 for Int,
// uint64 for Uint, float64 for Float, []any for List and Set,
// map[string]any for Map and Struct. It is nil (null) when the expression
// yields nil. When the expression fails at run time (a null operand, an
// index out of range) or yields a value that does not fit d.Type, such as
// a string outside an enum or a negative number for a Uint, Eval returns
// nil and an *EvalError: the caller uses null and counts the failure, so
// that a derived variable that fails on every state is reported rather
// than silently null.
//
// Eval is safe for concurrent use.
func (d *Derived) Eval(env map[string]any) (any, error) {
	if d.prog == nil {
		return nil, nil
	}
	// Only what the expression reads counts: a spec's derived variables
	// are evaluated on an environment holding all those before them, and
	// looking at each made 10,000 of them quadratic (minutes a state).
	n := 0
	if d.wholeEnv {
		for _, v := range env {
			n += elems(v)
		}
	} else {
		for _, name := range d.reads {
			n += elems(env[name])
		}
	}
	s := scratchPool.Get().(*scratch)
	s.vm.MemoryBudget = buildBudget(n)
	out, err := s.vm.Run(d.prog, env)
	scratchPool.Put(s)
	if err != nil {
		return nil, &EvalError{Kind: "derived", Name: d.Name, Err: budgetError(err, n)}
	}
	v, ok := convert(d.Type, out)
	if !ok {
		return nil, &EvalError{Kind: "derived", Name: d.Name, Err: fmt.Errorf("value %v does not fit type %s", out, d.Type.Describe())}
	}
	return v, nil
}

// Eval evaluates p on positional arguments in trace representation, one per
// parameter. When the expression fails at run time, for example on a null
// argument the expression does not test for, it returns false and an
// *EvalError: the caller counts the literal false and the failure. It
// panics when the number of arguments is wrong.
//
// Eval is safe for concurrent use: each call takes its machine and
// environment from a pool, and does not allocate when it succeeds.
func (p *Predicate) Eval(args []any) (bool, error) {
	if len(args) != len(p.Params) {
		panic(fmt.Sprintf("specs: predicate %s takes %d arguments, got %d", p.Name, len(p.Params), len(args)))
	}
	if p.prog == nil {
		return false, nil
	}
	s := scratchPool.Get().(*scratch)
	n := 0
	for i, a := range args {
		s.env[p.Params[i].Name] = a
		n += elems(a)
	}
	s.vm.MemoryBudget = buildBudget(n)
	out, err := s.vm.Run(p.prog, s.env)
	clear(s.env) // keeps the map's space, drops the arguments
	scratchPool.Put(s)
	if err != nil {
		return false, &EvalError{Kind: "predicate", Name: p.Name, Err: budgetError(err, n)}
	}
	b, _ := out.(bool)
	return b, nil
}

// BuildBase bounds what one evaluation builds, whatever its input. Its
// loops over the input are bounded by the input and MaxLoopDepth; what it
// builds besides, the elements of ranges, arrays and maps (which
// expr-lang counts as its memory), is bounded by the input too, so that a
// range over a constant or a number of the state (1..999999, 1..commit)
// cannot take a second an evaluation: at most BuildBase elements, plus
// the square of the elements of the lists, maps and strings it reads (two
// nested loops over them), and never more than BuildMax.
const BuildBase = 10_000

// BuildMax bounds what one evaluation builds, whatever it reads.
const BuildMax = 1_000_000

// buildBudget returns the elements an evaluation may build when what it
// reads holds n elements.
func buildBudget(n int) uint {
	if n >= 1000 { // n² alone reaches BuildMax
		return BuildMax
	}
	return uint(min(BuildBase+n*n, BuildMax))
}

// elems returns the elements of a container or the bytes of a string, the
// bound of a loop or a range over it; 0 for a scalar.
func elems(v any) int {
	switch v := v.(type) {
	case []any:
		return len(v)
	case map[string]any:
		return len(v)
	case string:
		return len(v)
	}
	return 0
}

// budgetError returns err, or for expr-lang's "memory budget exceeded"
// an error that says which budget and why, for an evaluation that read n
// elements.
func budgetError(err error, n int) error {
	if fe := (*file.Error)(nil); !errors.As(err, &fe) || fe.Message != "memory budget exceeded" {
		return err
	}
	return fmt.Errorf("builds more than %d elements (ranges, arrays, maps, bytes of strings): an evaluation may build %d, plus the square of the %d elements of the lists, maps and strings it reads, at most %d",
		buildBudget(n), BuildBase, n, BuildMax)
}

// EvalError is a run-time failure of a derived variable or a predicate.
type EvalError struct {
	Kind string // "derived" or "predicate"
	Name string
	Err  error
}

// Error returns "derived NAME: message", without the source excerpt the
// expression engine adds, so that it fits on one line.
func (e *EvalError) Error() string {
	msg := e.Err.Error()
	if fe := (*file.Error)(nil); errors.As(e.Err, &fe) {
		msg = fe.Message
	}
	return e.Kind + " " + e.Name + ": " + msg
}

// Unwrap returns the expression engine's error.
func (e *EvalError) Unwrap() error { return e.Err }

// compileDerived compiles the expression of d, found at n, against the
// variables and the derived variables declared before d, whose expression
// types known holds. refs holds the names each derived variable of the
// spec uses (see derivedRefs), so that a use of one declared later is
// reported as such, and as a cycle when it is one, rather than as an
// unknown name. The expression is compiled against the names it uses
// only, all of known for one that reads $env: with the whole of known,
// 10,000 derived variables took minutes, each compiled against all
// those before it.
func (p *parser) compileDerived(n *yaml.Node, d *Derived, refs map[string][]string, known types.Map) *vm.Program {
	for _, name := range refs[d.Name] {
		_, declared := p.names[name]
		if _, derived := refs[name]; !derived || declared && name != d.Name {
			continue
		}
		at := p.identPos(deref(n), d.Expr, name)
		if cycle := refCycle(refs, name, d.Name); cycle != nil {
			p.errorAt(at, "derived %s: %s is a cycle: a derived variable cannot depend on itself", d.Name, strings.Join(append([]string{d.Name}, cycle...), " → "))
		} else {
			p.errorAt(at, "derived %s: uses %s, declared after it: a derived variable may use only the variables and the derived variables declared before it", d.Name, name)
		}
		return nil
	}
	env := known
	d.reads, d.wholeEnv = refs[d.Name], slices.Contains(refs[d.Name], "$env")
	if !d.wholeEnv {
		env = types.Map{}
		for _, name := range refs[d.Name] {
			if t, ok := known[name]; ok {
				env[name] = t
			}
		}
	}
	prog := p.compile(n, "derived "+d.Name, d.Expr, expr.Env(env))
	if prog == nil || d.Type == nil {
		return prog
	}
	if rt := prog.Node().Type(); !fits(d.Type, rt) {
		p.errorf(deref(n), "derived %s: expression has type %s, want %s", d.Name, rt, d.Type.Describe())
		return nil
	}
	return prog
}

// derivedRefs returns, for each derived variable of pairs (the entries of
// a spec's derived section), the names its expression uses; one whose
// expression does not parse uses none.
func derivedRefs(pairs []pair) map[string][]string {
	refs := make(map[string][]string, len(pairs))
	for _, kv := range pairs {
		var names []string
		if v := deref(kv.value); v.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(v.Content); i += 2 {
				if v.Content[i].Value != "expr" {
					continue
				}
				src := deref(v.Content[i+1]).Value
				if _, deep := tooDeep(src); deep {
					continue // compile reports it
				}
				if tree, err := exprparser.Parse(src); err == nil {
					ast.Find(tree.Node, func(n ast.Node) bool {
						if id, ok := n.(*ast.IdentifierNode); ok && !slices.Contains(names, id.Value) {
							names = append(names, id.Value)
						}
						return false
					})
				}
			}
		}
		refs[kv.key.Value] = names
	}
	return refs
}

// identPos returns the position of the first use of name in src, the
// expression held by the scalar n.
func (p *parser) identPos(n *yaml.Node, src, name string) diag.Position {
	tree, err := exprparser.Parse(src)
	if err != nil {
		return p.pos(n)
	}
	found := ast.Find(tree.Node, func(node ast.Node) bool {
		id, ok := node.(*ast.IdentifierNode)
		return ok && id.Value == name
	})
	if found == nil {
		return p.pos(n)
	}
	runes := []rune(src)
	before := string(runes[:min(found.Location().From, len(runes))])
	line := 1 + strings.Count(before, "\n")
	col := utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:])
	return p.posIn(n, line, col)
}

// refCycle returns the derived variables from "from" to "to" along refs,
// from included, or nil if there is no such path.
func refCycle(refs map[string][]string, from, to string) []string {
	parent := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if name == to {
			var path []string
			for ; name != ""; name = parent[name] {
				path = append(path, name)
			}
			slices.Reverse(path)
			return path
		}
		for _, next := range refs[name] {
			if _, derived := refs[next]; !derived {
				continue
			}
			if _, seen := parent[next]; !seen {
				parent[next] = name
				queue = append(queue, next)
			}
		}
	}
	return nil
}

// compilePredicate compiles the expression of pr, found at n, against its
// parameters.
func (p *parser) compilePredicate(n *yaml.Node, pr *Predicate) *vm.Program {
	env := types.Map{}
	for _, a := range pr.Params {
		env[a.Name] = exprType(a.Type)
	}
	return p.compile(n, "predicate "+pr.Name, pr.Expr, expr.Env(env), expr.AsBool())
}

// MaxLoopDepth bounds how deeply the loops of an expression (all, any,
// filter, map, reduce, …) nest. The time of one evaluation grows as the
// length of the lists to that power: three reduces over one list of a few
// hundred entries took 15 s a state. Ranges (1..n) are bounded apart, by
// the input (see BuildBase); one over constants by BuildBase alone, when
// the expression is compiled.
const MaxLoopDepth = 2

// MaxNesting bounds how deeply an expression nests, counted in brackets
// and in the operators that each take the expression parser one call
// deeper: unary operators (-, +, !, not), let, if, ?, and the
// right-associative ** and ^, each counted until its bracket closes (an
// upper bound: the parser returns from a unary operator at the end of its
// operand). The parser recurses once for each: a million minus signs
// before a name overflowed its stack, which ends the process.
const MaxNesting = 1000

// nesting returns how deeply src nests as MaxNesting counts it, an upper
// bound of the expression parser's recursion, or 0 when src does not lex
// (the parser reports why). It reads src token by token, without
// recursion.
func nesting(src string) int {
	l := lexer.New()
	l.Reset(file.NewSource(src))
	levels := []int{0}     // for each bracket open, and the expression outside them: the operators counted in it
	depth, deepest := 0, 0 // the brackets open and the operators counted in them
	operand := true        // an operand comes next: an operator here is unary
	for {
		t, err := l.Next()
		if err != nil {
			return deepest // io.EOF at the end; a lexing error, which the parser reports
		}
		switch {
		case t.Kind == lexer.Bracket && strings.Contains("([{", t.Value):
			levels = append(levels, 0)
			depth++
			operand = true
		case t.Kind == lexer.Bracket:
			if len(levels) > 1 {
				depth -= 1 + levels[len(levels)-1]
				levels = levels[:len(levels)-1]
			}
			operand = false
		case t.Kind != lexer.Operator:
			operand = false
		case t.Value == "#" || t.Value == "." || t.Value == "?." || t.Value == "::":
			// A closure's element or a member: no recursion.
		case operand || nestingOps[t.Value]:
			levels[len(levels)-1]++
			depth++
			operand = true
		default: // a binary operator; "not" of "not in" is followed by one
			operand = t.Value != "not"
		}
		deepest = max(deepest, depth)
	}
}

// nestingOps are the operators that take the parser one call deeper
// wherever they are; others do only as unary operators.
var nestingOps = map[string]bool{"let": true, "if": true, "?": true, "**": true, "^": true}

// tooDeep reports whether src nests more than MaxNesting deep, and how
// deep.
func tooDeep(src string) (int, bool) {
	d := nesting(src)
	return d, d > MaxNesting
}

// compile compiles src, reporting an error at its place inside n.
func (p *parser) compile(n *yaml.Node, name, src string, opts ...expr.Option) *vm.Program {
	if d, deep := tooDeep(src); deep {
		p.errorf(deref(n), "%s: the expression nests %d deep, more than %d (counting brackets and unary operators, let, if, ?, ** and ^, each of which takes the parser one call deeper)", name, d, MaxNesting)
		return nil
	}
	prog, err := expr.Compile(src, append(opts, stringOptions...)...)
	if err == nil {
		if d := loopDepth(prog); d > MaxLoopDepth {
			p.errorf(deref(n), "%s: loops nest %d deep, more than %d (the time of one evaluation grows as the length of a list to that power)", name, d, MaxLoopDepth)
			return nil
		}
		if from, to, ok := largeConstRange(src, prog); ok {
			p.errorf(deref(n), "%s: the range %d..%d has %d elements, more than the %d a range over constants may have (an evaluation builds it whatever its input)", name, from, to, uint64(to)-uint64(from)+1, BuildBase)
			return nil
		}
		return prog
	}
	n = deref(n)
	pos, msg := p.pos(n), err.Error()
	if fe := (*file.Error)(nil); errors.As(err, &fe) {
		pos, msg = p.posIn(n, fe.Line, fe.Column), fe.Message
	}
	p.errorAt(pos, "%s: %s", name, msg)
	return nil
}

// loopDepth returns how deeply the loops of prog nest: each loop is an
// OpBegin … OpEnd scope of its bytecode.
func loopDepth(prog *vm.Program) int {
	depth, deepest := 0, 0
	for _, op := range prog.Bytecode {
		switch op {
		case vm.OpBegin:
			depth++
			deepest = max(deepest, depth)
		case vm.OpEnd:
			depth--
		}
	}
	return deepest
}

// largeConstRange returns the bounds of a range over integer constants
// with more than BuildBase elements in src, compiled to prog, if there is
// one. It reads src's tree as parsed: the optimizer folds some ranges
// away (sum(1..n) to a constant, which overflowed silently).
func largeConstRange(src string, prog *vm.Program) (from, to int, found bool) {
	node := prog.Node()
	if tree, err := exprparser.Parse(src); err == nil {
		node = tree.Node
	}
	ast.Find(node, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryNode)
		if !ok || b.Operator != ".." {
			return false
		}
		l, lok := constInt(b.Left)
		r, rok := constInt(b.Right)
		if lok && rok && r > l && uint64(r)-uint64(l) >= BuildBase { // no overflow
			from, to, found = l, r, true
		}
		return found
	})
	return from, to, found
}

// constInt returns the value of n, an integer constant or its negation.
func constInt(n ast.Node) (int, bool) {
	switch n := n.(type) {
	case *ast.IntegerNode:
		return n.Value, true
	case *ast.UnaryNode:
		if v, ok := constInt(n.Node); ok && n.Operator == "-" {
			return -v, true
		}
	}
	return 0, false
}

// exprType returns the expr-lang type of values of t in trace
// representation. Structs are maps with fixed keys, so that a misspelt
// field is a compile error; a nil t (a type already reported as bad) is
// any, so that it causes no further errors.
func exprType(t *Type) types.Type {
	if t == nil {
		return types.Any
	}
	switch t.Kind {
	case Bool:
		return types.Bool
	case Int:
		return types.Int64
	case Uint:
		return types.Uint64
	case Float:
		return types.Float64
	case String:
		return types.String
	case List, Set:
		return types.Array(exprType(t.Elem))
	case Map:
		return types.Map{types.Extra: exprType(t.Elem)}
	case Struct:
		m := types.Map{}
		for _, f := range t.Fields {
			m[f.Name] = exprType(f.Type)
		}
		return m
	}
	return types.Any
}

// fits reports whether an expression of static type rt may yield values of
// t. An unknown (interface) type fits anything; the value is checked when
// it is converted.
func fits(t *Type, rt reflect.Type) bool {
	if rt == nil || rt.Kind() == reflect.Interface {
		return true
	}
	switch k := rt.Kind(); t.Kind {
	case Bool:
		return k == reflect.Bool
	case Int, Uint:
		return isInt(k) || isUint(k)
	case Float:
		return isInt(k) || isUint(k) || k == reflect.Float32 || k == reflect.Float64
	case String:
		return k == reflect.String
	case List, Set:
		return k == reflect.Slice || k == reflect.Array
	case Map, Struct:
		return k == reflect.Map
	}
	return false
}

func isInt(k reflect.Kind) bool  { return reflect.Int <= k && k <= reflect.Int64 }
func isUint(k reflect.Kind) bool { return reflect.Uint <= k && k <= reflect.Uintptr }

// convert returns v in the trace representation of t, and whether v fits
// t. Null fits every type.
func convert(t *Type, v any) (any, bool) {
	if v == nil {
		return nil, true
	}
	switch v := v.(type) { // the common cases, without reflection
	case bool:
		if t.Kind == Bool {
			return v, true
		}
	case string:
		if t.Kind == String && (t.Enum == nil || slices.Contains(t.Enum, v)) {
			return v, true
		}
	case int64:
		if t.Kind == Int {
			return v, true
		}
	case uint64:
		if t.Kind == Uint {
			return v, true
		}
	case float64:
		if t.Kind == Float {
			return v, true
		}
	}
	rv := reflect.ValueOf(v)
	k := rv.Kind()
	switch t.Kind {
	case Int:
		switch {
		case isInt(k):
			return rv.Int(), true
		case isUint(k) && rv.Uint() <= math.MaxInt64:
			return int64(rv.Uint()), true
		}
	case Uint:
		switch {
		case isInt(k) && rv.Int() >= 0:
			return uint64(rv.Int()), true
		case isUint(k):
			return rv.Uint(), true
		}
	case Float:
		switch {
		case isInt(k):
			return float64(rv.Int()), true
		case isUint(k):
			return float64(rv.Uint()), true
		case k == reflect.Float32 || k == reflect.Float64:
			return rv.Float(), true
		}
	case List, Set:
		if k != reflect.Slice && k != reflect.Array {
			break
		}
		out := make([]any, rv.Len())
		for i := range out {
			e, ok := convert(t.Elem, rv.Index(i).Interface())
			if !ok {
				return nil, false
			}
			out[i] = e
		}
		return out, true
	case Map:
		if k != reflect.Map || rv.Type().Key().Kind() != reflect.String {
			break
		}
		out := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			key := it.Key().String()
			e, ok := convert(t.Elem, it.Value().Interface())
			if _, keyOK := convert(t.Key, key); !ok || !keyOK {
				return nil, false
			}
			out[key] = e
		}
		return out, true
	case Struct:
		m, isMap := v.(map[string]any)
		if !isMap {
			break
		}
		out := make(map[string]any, len(t.Fields))
		for _, f := range t.Fields {
			e, ok := convert(f.Type, m[f.Name])
			if !ok {
				return nil, false
			}
			out[f.Name] = e
		}
		return out, true
	}
	return nil, false
}
