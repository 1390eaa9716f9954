package generator

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// Constants holds the constants of x == c literals: for a node path,
// written without its node variable ("state", "meta.role"), the values
// it takes, sorted. Values are bool, int64, uint64 or string, as in a
// trace.
type Constants map[string][]any

// MaxConstantLen is the longest string mined as a constant, in bytes.
const MaxConstantLen = 256

// MineConstants collects the constants of spec's low-cardinality node
// paths from the states of tr.
//
// The paths are the variables and derived variables of spec and the
// fields of their struct types (as far as Generate expands them), of kind
// Bool, Int, Uint or String; a path qualifies when it takes between 1 and
// spec.Generate.Constants.MaxDistinct distinct non-null values over all
// states of the trace. An enum path gets its declared values instead,
// without looking at the trace; with a nil tr only enums are returned.
//
// Node names are not constants: a property about one particular node
// says nothing about the system, so string values that name a node of the
// trace are left out (and do not count towards MaxDistinct). Nor are
// strings longer than MaxConstantLen bytes: every property with such a
// literal would hold a copy of it in its text, so that one huge value
// in one state would cost its size times the properties generated.
//
// The states are read once, in order, keeping at most MaxDistinct values
// per path. Derived variables are evaluated on each state from its
// variables and the derived variables declared before them; a spec
// variable named node is the state's node.
//
// A spec whose literals, counted without constants, already exceed what
// Generate holds (MaxScopeLiterals) is refused first, with Generate's
// error, rather than after every derived variable was evaluated on every
// state (10,000 derived variables: minutes).
func MineConstants(tr *trace.Trace, spec *specs.Spec) (Constants, error) {
	if err := checkSizeUnmined(spec); err != nil {
		return nil, err
	}
	out := make(Constants)
	type miner struct {
		t       template
		derived bool
		seen    map[any]bool
	}
	var miners []*miner
	nodes := nodeTemplates(spec)
	varTemplates := 0
	for _, v := range spec.Vars {
		varTemplates += len(expand(nil, []string{v.Name}, v.Type))
	}
	for i, t := range nodes {
		switch t.typ.Kind {
		case specs.String:
			if t.typ.Enum != nil {
				vals := slices.Sorted(slices.Values(t.typ.Enum))
				vals = slices.Compact(vals)
				out[t.text] = make([]any, len(vals))
				for j, v := range vals {
					out[t.text][j] = v
				}
				continue
			}
		case specs.Bool, specs.Int, specs.Uint:
		default:
			continue
		}
		miners = append(miners, &miner{t: t, derived: i >= varTemplates, seen: make(map[any]bool)})
	}
	maxDistinct := spec.Generate.Constants.MaxDistinct
	if tr == nil || maxDistinct <= 0 || len(miners) == 0 {
		return out, nil
	}

	cols := make([]int, len(spec.Vars))
	for i, v := range spec.Vars {
		cols[i] = tr.Schema.Index(v.Name)
		if cols[i] < 0 && v.Name != "node" {
			return nil, fmt.Errorf("generator: mine constants: variable %s is not in the trace", v.Name)
		}
	}
	active, activeDerived := len(miners), 0
	for _, m := range miners {
		if m.derived {
			activeDerived++
		}
	}
	// Without derived variables to mine, a row's variables that no miner
	// reads are not decoded (the trace's strings and lists cost most).
	read := map[string]bool{}
	for _, m := range miners {
		read[m.t.fields[0]] = true
	}
	var someCols []int
	var someNames []string
	for i, v := range spec.Vars {
		if cols[i] >= 0 && read[v.Name] {
			someCols, someNames = append(someCols, cols[i]), append(someNames, v.Name)
		}
	}
	someVals := make([]any, len(someCols))
	sr := tr.States()
	defer sr.Close()
	env := make(map[string]any, len(spec.Vars)+len(spec.Derived))
	names := map[any]bool{}
	for row := 0; row < tr.NumStates() && active > 0; row++ {
		clear(env)
		var node string
		if activeDerived > 0 {
			st, err := sr.State(uint32(row))
			if err != nil {
				return nil, fmt.Errorf("generator: mine constants: %w", err)
			}
			node = st.Node
			for i, v := range spec.Vars {
				if cols[i] >= 0 {
					env[v.Name] = st.Vars[cols[i]]
				}
			}
		} else {
			var err error
			if node, err = sr.Some(uint32(row), someCols, someVals); err != nil {
				return nil, fmt.Errorf("generator: mine constants: %w", err)
			}
			for j, name := range someNames {
				env[name] = someVals[j]
			}
		}
		names[node] = true
		for i, v := range spec.Vars {
			if cols[i] < 0 {
				env[v.Name] = node
			}
		}
		if activeDerived > 0 {
			for _, d := range spec.Derived {
				// A failure is null here; the evaluator counts it.
				env[d.Name], _ = d.Eval(env)
			}
		}
		for _, m := range miners {
			if m.seen == nil {
				continue
			}
			v := lookup(env, m.t.fields)
			if v == nil {
				continue
			}
			k, ok := normalize(v, m.t.typ)
			if !ok {
				return nil, fmt.Errorf("generator: mine constants: state row %d: %s is %v (%s), not a %s",
					row, m.t.text, v, trace.KindOf(v), m.t.typ)
			}
			if s, ok := k.(string); ok && len(s) > MaxConstantLen {
				continue
			}
			if m.seen[k] {
				continue // nothing new: the test below stands as it did
			}
			m.seen[k] = true
			if len(m.seen) > maxDistinct+len(names) || len(m.seen) > maxDistinct && countNonNames(m.seen, names) > maxDistinct {
				m.seen = nil
				active--
				if m.derived {
					activeDerived--
				}
			}
		}
	}
	for _, m := range miners {
		for v := range m.seen {
			if names[v] {
				delete(m.seen, v)
			}
		}
		if len(m.seen) == 0 {
			continue
		}
		vals := make([]any, 0, len(m.seen))
		for v := range m.seen {
			vals = append(vals, v)
		}
		slices.SortFunc(vals, compareValues)
		out[m.t.text] = vals
	}
	return out, nil
}

// countNonNames returns how many values of seen are not node names.
func countNonNames(seen, names map[any]bool) int {
	n := 0
	for v := range seen {
		if !names[v] {
			n++
		}
	}
	return n
}

// lookup returns the value at fields in env: a variable, then struct
// fields. A missing value is nil.
func lookup(env map[string]any, fields []string) any {
	v := env[fields[0]]
	for _, f := range fields[1:] {
		s, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = s[f]
	}
	return v
}

// normalize converts v to the representation of kind t.Kind: bool, int64,
// uint64 or string. Derived variables may yield other Go integer types,
// and a trace collected without a spec stores every integer as int64.
func normalize(v any, t *specs.Type) (any, bool) {
	switch t.Kind {
	case specs.Bool:
		b, ok := v.(bool)
		return b, ok
	case specs.String:
		s, ok := v.(string)
		return s, ok
	case specs.Int:
		i, ok := toInt64(v)
		return i, ok
	case specs.Uint:
		u, ok := toUint64(v)
		return u, ok
	}
	return nil, false
}

func toInt64(v any) (int64, bool) {
	switch v := v.(type) {
	case int64:
		return v, true
	case int:
		return int64(v), true
	case int32:
		return int64(v), true
	case uint64:
		return int64(v), v <= math.MaxInt64
	case uint:
		return int64(v), uint64(v) <= math.MaxInt64
	case uint32:
		return int64(v), true
	case float64:
		return int64(v), v == math.Trunc(v) && v >= math.MinInt64 && v < math.MaxInt64
	}
	return 0, false
}

func toUint64(v any) (uint64, bool) {
	switch v := v.(type) {
	case uint64:
		return v, true
	case uint:
		return uint64(v), true
	case uint32:
		return uint64(v), true
	case int64:
		return uint64(v), v >= 0
	case int:
		return uint64(v), v >= 0
	case int32:
		return uint64(v), v >= 0
	case float64:
		return uint64(v), v == math.Trunc(v) && v >= 0 && v < math.MaxUint64
	}
	return 0, false
}

// compareValues orders normalized values of one kind.
func compareValues(a, b any) int {
	switch a := a.(type) {
	case bool:
		b := b.(bool)
		switch {
		case a == b:
			return 0
		case !a:
			return -1
		}
		return 1
	case int64:
		return cmp.Compare(a, b.(int64))
	case uint64:
		return cmp.Compare(a, b.(uint64))
	case string:
		return cmp.Compare(a, b.(string))
	}
	return 0
}
