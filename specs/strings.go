package specs

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/vm/runtime"
)

// A string that one call of an expression builds is at most BuildMax
// bytes, and those that replace, repeat and join build count towards
// the budget of an evaluation (see BuildBase), a byte as an element, as
// expr-lang counts repeat's: each reckons the length of its result
// before building it and fails the evaluation rather than build a longer
// one. expr-lang counts none of replace and join, and repeat's only after
// building it: three nested replaces of a 1,000-byte string built a
// gigabyte, taking infer minutes and 2 GB, deaf to Ctrl-C. expr-lang
// compiles its builtins from its own table, not from a compilation's
// options, so init puts these in that table (specs is the only user of
// expr-lang here). + on strings, which expr-lang's machine adds without
// counting, is compiled to boundedConcat (where one side is a string and
// the other of no type known when the expression is compiled, as a
// loop's accumulator, too), bounded to BuildMax bytes a call.
func init() {
	for name, fn := range map[string]func(args ...any) (any, uint, error){
		"replace": boundedReplace,
		"repeat":  boundedRepeat,
		"join":    boundedJoin,
	} {
		f := builtin.Builtins[builtin.Index[name]]
		f.Fast, f.Func, f.Safe = nil, nil, fn
	}
}

// stringOptions compile + on strings to boundedConcat.
var stringOptions = []expr.Option{
	expr.Function(concatName, boundedConcat,
		new(func(string, string) string),
		new(func(any, string) any), // a loop's accumulator, of no known type
		new(func(string, any) any)),
	expr.Operator("+", concatName),
}

// concatName is the function + on two strings is compiled to.
const concatName = "$concat"

// buildLength returns an error when a string of n bytes is more than one
// call may build.
func buildLength(fn string, n int) error {
	if n > BuildMax || n < 0 { // negative: the sum overflowed
		return fmt.Errorf("%s would build a string of more than %d bytes, the most one call may build", fn, BuildMax)
	}
	return nil
}

// boundedReplace is replace(s, old, new[, n]): strings.Replace, refused
// when the result would be longer than BuildMax bytes.
func boundedReplace(args ...any) (any, uint, error) {
	s, old, repl := args[0].(string), args[1].(string), args[2].(string)
	n := -1
	if len(args) == 4 {
		n = runtime.ToInt(args[3])
	}
	count := strings.Count(s, old) // an empty old matches before each rune and at the end
	if old == "" {
		count = utf8.RuneCountInString(s) + 1
	}
	if n >= 0 {
		count = min(count, n)
	}
	if grow := len(repl) - len(old); grow > 0 && count > 0 {
		if grow > (BuildMax-len(s))/count+1 {
			return nil, 0, buildLength("replace", BuildMax+1)
		}
		if err := buildLength("replace", len(s)+count*grow); err != nil {
			return nil, 0, err
		}
	}
	out := strings.Replace(s, old, repl, n)
	return out, uint(len(out)), nil
}

// boundedRepeat is repeat(s, n): strings.Repeat, refused when n is
// negative or the result would be longer than BuildMax bytes.
func boundedRepeat(args ...any) (any, uint, error) {
	s, n := args[0].(string), runtime.ToInt(args[1])
	if n < 0 {
		return nil, 0, fmt.Errorf("repeat: negative count %d", n)
	}
	if len(s) > 0 && n > BuildMax/len(s) {
		return nil, 0, buildLength("repeat", BuildMax+1)
	}
	return strings.Repeat(s, n), uint(len(s) * n), nil
}

// boundedJoin is join(list[, sep]) of a list of strings: strings.Join,
// refused when the result would be longer than BuildMax bytes.
func boundedJoin(args ...any) (any, uint, error) {
	sep := ""
	if len(args) == 2 {
		sep = args[1].(string)
	}
	var elems []string
	switch l := args[0].(type) {
	case []string:
		elems = l
	case []any:
		elems = make([]string, len(l))
		for i, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, 0, fmt.Errorf("join: element %d is %T, not a string", i, e)
			}
			elems[i] = s
		}
	default:
		return nil, 0, fmt.Errorf("join: %T is not a list of strings", args[0])
	}
	n := len(sep) * max(len(elems)-1, 0)
	for _, s := range elems {
		n += len(s)
	}
	if err := buildLength("join", n); err != nil {
		return nil, 0, err
	}
	return strings.Join(elems, sep), uint(n), nil
}

// boundedConcat is a + b where one of a and b is a string: their
// concatenation, refused when it would be longer than BuildMax bytes;
// expr-lang's + when the other is not a string (which fails unless it is
// null).
func boundedConcat(args ...any) (any, error) {
	a, aok := args[0].(string)
	b, bok := args[1].(string)
	if !aok || !bok {
		return runtime.Add(args[0], args[1]), nil
	}
	if err := buildLength("+", len(a)+len(b)); err != nil {
		return nil, err
	}
	return a + b, nil
}
