package specs

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func mustLoad(t testing.TB, path string) *Spec {
	t.Helper()
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func entry(term, index any) map[string]any {
	return map[string]any{"term": term, "index": index}
}

func TestDerivedEval(t *testing.T) {
	s := mustLoad(t, "testdata/raft.yaml")
	byName := map[string]*Derived{}
	for _, d := range s.Derived {
		byName[d.Name] = d
	}
	tests := []struct {
		derived string
		env     map[string]any
		want    any
	}{
		{"lastIndex", map[string]any{"log": []any{entry(uint64(1), uint64(1)), entry(uint64(2), uint64(2))}}, uint64(2)},
		{"lastIndex", map[string]any{"log": []any{}}, uint64(0)}, // the literal 0 becomes a uint64
		{"lastIndex", map[string]any{"log": nil}, nil},           // len(nil) fails: null
		{"lastIndex", map[string]any{}, nil},
		{"lastIndex", map[string]any{"log": []any{entry(int64(1), int64(7))}}, uint64(7)}, // int64 from a JSON trace
		{"lastIndex", map[string]any{"log": []any{entry(int64(1), int64(-1))}}, nil},      // does not fit a uint64
		{"lastIndex", map[string]any{"log": []any{nil}}, nil},
		{"lastTerm", map[string]any{"log": []any{entry(uint64(3), uint64(1))}}, uint64(3)},
		{"isLeader", map[string]any{"state": "leader"}, true},
		{"isLeader", map[string]any{"state": "follower"}, false},
		{"isLeader", map[string]any{"state": nil}, nil}, // a string comparison fails on null
	}
	for _, tt := range tests {
		// Every null here is a failure: the expressions never yield nil.
		got, err := byName[tt.derived].Eval(tt.env)
		if !reflect.DeepEqual(got, tt.want) || (err != nil) != (tt.want == nil) {
			t.Errorf("%s.Eval(%v) = %#v, %v; want %#v", tt.derived, tt.env, got, err, tt.want)
		}
		var ee *EvalError
		if err != nil && (!errors.As(err, &ee) || ee.Kind != "derived" || ee.Name != tt.derived) {
			t.Errorf("%s.Eval(%v): error %#v does not name the derived variable", tt.derived, tt.env, err)
		}
	}
}

func TestDerivedEvalTypes(t *testing.T) {
	src := `
types:
  Role: {enum: [a, b]}
variables:
  x: int64
  m: map<string, int64>
  log: "list<{term: uint64, index: uint64}>"
derived:
  half: {type: float64, expr: "x / 2"}
  neg: {type: int64, expr: "-x"}
  role: {type: Role, expr: 'x > 0 ? "a" : "c"'}
  terms: {type: list<uint64>, expr: "map(log, .term)"}
  doubled: {type: "map<string, int64>", expr: "{a: x * 2}"}
  first: {type: "{term: uint64}", expr: "log[0]"}
  plusHalf: {type: float64, expr: "half + 0.5"}
`
	s, err := Parse("types.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]any{"x": int64(3), "log": []any{entry(uint64(4), uint64(1))}}
	want := map[string]any{
		"half":     1.5,
		"neg":      int64(-3),
		"role":     "a",
		"terms":    []any{uint64(4)},
		"doubled":  map[string]any{"a": int64(6)},
		"first":    map[string]any{"term": uint64(4)}, // fields outside the type are dropped
		"plusHalf": 2.0,
	}
	for _, d := range s.Derived {
		got, err := d.Eval(env)
		if err != nil || !reflect.DeepEqual(got, want[d.Name]) {
			t.Errorf("%s = %#v, %v; want %#v", d.Name, got, err, want[d.Name])
		}
		env[d.Name] = got
	}
	env["x"] = int64(-1)
	if got, err := s.Derived[2].Eval(env); got != nil || err == nil {
		t.Errorf("role outside the enum = %#v, %v; want nil and an error", got, err)
	}
}

func TestConvert(t *testing.T) {
	u := &Type{Kind: Uint}
	i := &Type{Kind: Int}
	f := &Type{Kind: Float}
	tests := []struct {
		typ  *Type
		in   any
		want any
		ok   bool
	}{
		{i, 3, int64(3), true},
		{i, uint64(math.MaxUint64), nil, false},
		{i, 1.5, nil, false},
		{u, int64(-1), nil, false},
		{u, 7, uint64(7), true},
		{f, 2, 2.0, true},
		{f, uint64(2), 2.0, true},
		{&Type{Kind: Bool}, "true", nil, false},
		{&Type{Kind: List, Elem: i}, []int{1, 2}, []any{int64(1), int64(2)}, true},
		{&Type{Kind: List, Elem: i}, []any{1, "x"}, nil, false},
		{&Type{Kind: Map, Key: &Type{Kind: String, Enum: []string{"k"}}, Elem: i}, map[string]any{"k": 1}, map[string]any{"k": int64(1)}, true},
		{&Type{Kind: Map, Key: &Type{Kind: String, Enum: []string{"k"}}, Elem: i}, map[string]any{"j": 1}, nil, false},
		{&Type{Kind: Struct, Fields: []Field{{"a", i}, {"b", u}}}, map[string]any{"a": 1, "c": 2}, map[string]any{"a": int64(1), "b": nil}, true},
		{&Type{Kind: Struct, Fields: []Field{{"a", i}}}, []any{}, nil, false},
	}
	for _, tt := range tests {
		got, ok := convert(tt.typ, tt.in)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("convert(%s, %#v) = %#v, %v; want %#v, %v", tt.typ, tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPredicateEval(t *testing.T) {
	s := mustLoad(t, "testdata/raft.yaml")
	a := []any{entry(uint64(1), uint64(1)), entry(uint64(2), uint64(2))}
	b := []any{entry(uint64(1), uint64(1)), entry(uint64(3), uint64(2))}
	tests := []struct {
		pred  string
		args  []any
		want  bool
		fails bool
	}{
		{"prefixEqual", []any{a, b, uint64(1)}, true, false},
		{"prefixEqual", []any{a, b, uint64(2)}, false, false},
		{"prefixEqual", []any{a, []any{}, uint64(0)}, true, false},
		{"prefixEqual", []any{nil, b, uint64(1)}, false, true}, // filter(nil) fails
		{"prefixEqual", []any{a, b, nil}, false, true},
		{"behind", []any{uint64(1), uint64(3)}, true, false},
		{"behind", []any{uint64(2), uint64(3)}, false, false},
		{"behind", []any{int64(1), uint64(3)}, true, false},
		{"behind", []any{nil, uint64(3)}, false, true},
	}
	for _, tt := range tests {
		got, err := s.Predicate(tt.pred).Eval(tt.args)
		if got != tt.want || (err != nil) != tt.fails {
			t.Errorf("%s%v = %v, %v; want %v (fails: %v)", tt.pred, tt.args, got, err, tt.want, tt.fails)
		}
	}
}

func TestPredicateEvalArity(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Eval with too few arguments did not panic")
		}
	}()
	mustLoad(t, "testdata/raft.yaml").Predicate("behind").Eval([]any{uint64(1)})
}

// TestEvalConcurrent runs predicates and derived variables from many
// goroutines; run it with -race.
func TestEvalConcurrent(t *testing.T) {
	s := mustLoad(t, "testdata/raft.yaml")
	behind := s.Predicate("behind")
	last := s.Derived[0]
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				x, y := uint64(g), uint64(i)
				if got, _ := behind.Eval([]any{x, y}); got != (x+1 < y) {
					t.Errorf("behind(%d, %d) = %v", x, y, got)
					return
				}
				env := map[string]any{"log": []any{entry(x, y)}}
				if got, _ := last.Eval(env); got != y {
					t.Errorf("lastIndex = %v, want %d", got, y)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestPredicateEvalAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	behind := mustLoad(t, "testdata/raft.yaml").Predicate("behind")
	args := []any{uint64(1), uint64(3)}
	behind.Eval(args) // fill the pool
	if n := testing.AllocsPerRun(100, func() { behind.Eval(args) }); n > 0 {
		t.Errorf("Predicate.Eval allocates %v times per call", n)
	}
}

func BenchmarkPredicateEval(b *testing.B) {
	s := mustLoad(b, "testdata/raft.yaml")
	for _, name := range []string{"behind", "prefixEqual"} {
		p := s.Predicate(name)
		var args []any
		if name == "behind" {
			args = []any{uint64(1), uint64(3)}
		} else {
			l := []any{entry(uint64(1), uint64(1)), entry(uint64(2), uint64(2))}
			args = []any{l, l, uint64(2)}
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Eval(args)
			}
		})
	}
}

// TestLoopDepth checks that loops nested MaxLoopDepth deep compile, and
// one more do not.
func TestLoopDepth(t *testing.T) {
	for _, tt := range []struct {
		expr string
		ok   bool
	}{
		{"len(l)", true},
		{"reduce(l, #acc + #, 0)", true},
		{"reduce(l, #acc + reduce(l, #acc + #, 0), 0) + count(l, # > 0)", true},
		{"sum(map(l, {sum(filter(l, {# > 0}))}))", true},
		{"reduce(l, #acc + reduce(l, #acc + reduce(l, #acc + #, 0), 0), 0)", false},
	} {
		src := "variables:\n  l: list<int64>\nderived:\n  d: {type: int64, expr: \"" + tt.expr + "\"}\n"
		_, err := Parse("d.yaml", []byte(src))
		if (err == nil) != tt.ok {
			t.Errorf("%s: error %v, want ok=%v", tt.expr, err, tt.ok)
		}
	}
}

// TestBuildBudget checks that what an evaluation builds is bounded by its
// input: a range over constants beyond BuildBase is refused when the spec
// is parsed, one over a number of the state fails at once with an error
// that says why, and ranges as long as the input's lists, nested twice,
// still run (issue 31, case 7). The input is what the expression reads,
// not the whole environment.
func TestBuildBudget(t *testing.T) {
	parse := func(expr string) (*Spec, error) {
		src := "variables:\n  commit: int64\n  l: list<int64>\nderived:\n  d: {type: int64, expr: \"" + expr + "\"}\n"
		return Parse("d.yaml", []byte(src))
	}
	refused := []string{
		"sum(map(1..999999, # * commit))",
		"count(0..10000, # > commit)",
		"sum(1..9223372036854775807)",                    // folded to a constant that overflowed
		"len(-9223372036854775807..9223372036854775807)", // its length overflows int64
	}
	for _, expr := range refused {
		if _, err := parse(expr); err == nil || !strings.Contains(err.Error(), "more than the 10000 a range over constants may have") {
			t.Errorf("%s: error %v, want the range refused", expr, err)
		}
	}
	long := make([]any, 900)
	for i := range long {
		long[i] = int64(i)
	}
	tests := []struct {
		expr string
		env  map[string]any
		want any    // the value, or nil for an error
		err  string // part of the error
	}{
		{"sum(map(1..9999, # * commit))", map[string]any{"commit": int64(1)}, int64(9999 * 10000 / 2), ""},
		{"sum(map(1..commit, #))", map[string]any{"commit": int64(999999)}, nil, "builds more than 10000 elements"},
		{"sum(map(1..commit, #)) + len(l)", map[string]any{"commit": int64(999999), "l": long}, nil, "plus the square of the 900 elements"},
		// Only what the expression reads counts, not the whole
		// environment (every variable and earlier derived variable).
		{"sum(map(1..commit, #))", map[string]any{"commit": int64(20000), "l": long}, nil, "plus the square of the 0 elements"},
		{"sum(map(1..commit, #)) + len(l)", map[string]any{"commit": int64(20000), "l": long}, int64(20000*20001/2 + 900), ""},
		{"count(0..len(l)-1, l[#] == #)", map[string]any{"l": long}, int64(900), ""},
		{"sum(map(0..len(l)-1, count(0..len(l)-1, # < 2)))", map[string]any{"l": long}, int64(1800), ""},
	}
	for _, tt := range tests {
		s, err := parse(tt.expr)
		if err != nil {
			t.Fatalf("%s: %v", tt.expr, err)
		}
		start := time.Now()
		got, err := s.Derived[0].Eval(tt.env)
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: took %v", tt.expr, d)
		}
		switch {
		case tt.want != nil && (err != nil || got != tt.want):
			t.Errorf("%s = %v, %v; want %v", tt.expr, got, err, tt.want)
		case tt.want == nil && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s = %v, %v; want an error saying %q", tt.expr, got, err, tt.err)
		}
	}
}

// TestDerivedOrder checks that a derived variable that uses itself, one
// declared after it, or one that leads back to it is reported as such,
// not as an unknown name (issue 31).
func TestDerivedOrder(t *testing.T) {
	for _, tt := range []struct {
		derived string // the entries of the derived section
		want    string // part of the error; "" for none
	}{
		{"x: {type: int64, expr: \"a + 1\"}\n  y: {type: int64, expr: \"x + 1\"}", ""},
		{"x: {type: int64, expr: \"x + 1\"}", "derived x: x → x is a cycle"},
		{"x: {type: int64, expr: \"y + 1\"}\n  y: {type: int64, expr: \"x + 1\"}", "derived x: x → y → x is a cycle"},
		{"x: {type: int64, expr: \"y + a\"}\n  y: {type: int64, expr: \"z\"}\n  z: {type: int64, expr: \"x\"}", "derived x: x → y → z → x is a cycle"},
		{"x: {type: int64, expr: \"y + a\"}\n  y: {type: int64, expr: \"a + 1\"}", "derived x: uses y, declared after it"},
		{"x: {type: int64, expr: \"b + 1\"}", "derived x: unknown name b"},
	} {
		_, err := Parse("d.yaml", []byte("variables:\n  a: int64\nderived:\n  "+tt.derived+"\n"))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.derived, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want it to say %q", tt.derived, err, tt.want)
		}
	}
}

func TestNesting(t *testing.T) {
	tests := []struct {
		src  string
		want int
	}{
		{"a + b * c - d", 0},
		{"-a", 1},
		{"- - !a", 3},
		{"a - -b", 1},
		{"not a and not b", 2}, // each counted until its bracket closes
		{"a not in b", 0},
		{"(a + (b))", 2},
		{"-(-(a))", 4},
		{"f(a, [b, {c: d}])", 3},
		{"a ? b : c ? d : e", 2},
		{"a ** b ** c", 2},
		{"let x = 1; let y = x; y", 2},
		{"map(l, #.x + .y)", 1},
		{"a?.b::c", 0},
		{"((a) + (b)) + ((c))", 2},
		{"\"unclosed", 0},
	}
	for _, tt := range tests {
		if got := nesting(tt.src); got != tt.want {
			t.Errorf("nesting(%q) = %d, want %d", tt.src, got, tt.want)
		}
	}
}
