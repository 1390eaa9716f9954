package spectrace

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/trace"
)

// Init gives the integers of a trace semantic types by this rule: two
// integer positions (a column, or a field or element below one) of the
// same physical type share a type when their value ranges, from least to
// greatest value, overlap over at least half of their union, and they
// hold some value in common; the types are the groups this relation
// connects. The rule is scale-free: commit and applied indices run over
// the same range and share a type whatever the length of the run, and
// so do a term and the terms of log entries, which take a subset of its
// values; a small counter, an epoch or a term, spans a small part of an
// index's range and stays apart from it. A position that holds one value
// in the whole trace compares with nothing meaningfully and keeps its
// own type.
//
// On the traces of testdata/testbeds (etcd raft, Paxos, Chord, RandTree)
// and three primary/backup systems of the quality benchmark, the pairs
// of one meaning overlap over 0.91 or more of their union, the others
// over 0.46 or less.

// minOverlap is the share of the union of two value ranges that their
// intersection must cover for the positions to share a semantic type.
const minOverlap = 0.5

// maxIntValues bounds the distinct values kept per integer position, to
// find a value two positions hold in common: past it, the values seen
// first stand for the rest.
const maxIntValues = 1 << 16

// intLeaf is an integer position of the schema.
type intLeaf struct {
	path   string // as typeExpr names it: commit, log[].index, acks[]
	name   string // the last name on the path: commit, index, acks
	kind   arrow.Type
	lo, hi float64 // the least and greatest value
	vals   map[uint64]struct{}
}

func (l *intLeaf) add(bits uint64, x float64) {
	if len(l.vals) == 0 {
		l.lo, l.hi = x, x
	}
	l.lo, l.hi = min(l.lo, x), max(l.hi, x)
	if len(l.vals) < maxIntValues {
		l.vals[bits] = struct{}{}
	}
}

// overlap returns the share of the union of the value ranges of a and b
// that their intersection covers, counting integers, and whether they
// hold a value in common.
func overlap(a, b *intLeaf) (float64, bool) {
	in := min(a.hi, b.hi) - max(a.lo, b.lo) + 1
	if in <= 0 {
		return 0, false
	}
	if len(a.vals) > len(b.vals) {
		a, b = b, a
	}
	common := false
	for x := range a.vals {
		if _, common = b.vals[x]; common {
			break
		}
	}
	return in / (max(a.hi, b.hi) - min(a.lo, b.lo) + 1), common
}

// intScan collects the values of the integer positions of a schema.
type intScan struct {
	leaves []*intLeaf
	cols   []func(v any) // by column: adds a value's integers; nil for none
}

// newIntScan returns a scan of the integers of the columns of schema
// that keep takes.
func newIntScan(schema trace.Schema, keep func(col int) bool) *intScan {
	s := &intScan{cols: make([]func(any), len(schema))}
	for i, c := range schema {
		if keep(i) {
			s.cols[i] = s.walker(c.Type, c.Name, c.Name)
		}
	}
	return s
}

// walker returns a function adding the integers of a value of type dt at
// path to their leaves, or nil when dt holds none.
func (s *intScan) walker(dt arrow.DataType, path, name string) func(any) {
	switch dt := dt.(type) {
	case *arrow.Int64Type, *arrow.Uint64Type:
		l := &intLeaf{path: path, name: name, kind: dt.ID(), vals: map[uint64]struct{}{}}
		s.leaves = append(s.leaves, l)
		return func(v any) {
			switch x := v.(type) {
			case int64:
				l.add(uint64(x), float64(x))
			case uint64:
				l.add(x, float64(x))
			}
		}
	case *arrow.ListType:
		elem := s.walker(dt.Elem(), path+"[]", name)
		if elem == nil {
			return nil
		}
		return func(v any) {
			l, _ := v.([]any)
			for _, e := range l {
				elem(e)
			}
		}
	case *arrow.MapType:
		item := s.walker(dt.ItemType(), path+"[]", name)
		if item == nil {
			return nil
		}
		return func(v any) {
			m, _ := v.(map[string]any)
			for _, e := range m {
				item(e)
			}
		}
	case *arrow.StructType:
		type field struct {
			name string
			add  func(any)
		}
		var fields []field
		for _, f := range dt.Fields() {
			if add := s.walker(f.Type, path+"."+f.Name, f.Name); add != nil {
				fields = append(fields, field{f.Name, add})
			}
		}
		if len(fields) == 0 {
			return nil
		}
		return func(v any) {
			m, _ := v.(map[string]any)
			for _, f := range fields {
				f.add(m[f.name])
			}
		}
	}
	return nil
}

// add adds the integers of a state's values, one per column.
func (s *intScan) add(vars []any) {
	for i, add := range s.cols {
		if add != nil {
			add(vars[i])
		}
	}
}

// An intType is a semantic type Init declares for integer positions.
type intType struct {
	name   string
	expr   string   // int64 or uint64
	leaves []string // paths, in schema order
	why    string   // the comment beside its declaration
}

// types groups the leaves by the rule above and names each group after
// its shortest position name, capitalized (the first in schema order on
// a tie), made unique against taken. It returns the types in the order
// of their first positions, and the type name of every leaf path.
func (s *intScan) types(taken map[string]bool) ([]intType, map[string]string) {
	parent := make([]int, len(s.leaves))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	least := make([]float64, len(s.leaves)) // by root: the least overlap of the pairs that joined the group
	for i := range least {
		least[i] = 1
	}
	for i, a := range s.leaves {
		for j := i + 1; j < len(s.leaves); j++ {
			b := s.leaves[j]
			if a.kind != b.kind || len(a.vals) < 2 || len(b.vals) < 2 {
				continue
			}
			if r, common := overlap(a, b); common && r >= minOverlap {
				ri, rj := find(i), find(j)
				lo := min(r, least[ri], least[rj])
				if ri != rj {
					parent[rj] = ri
				}
				least[ri] = lo
			}
		}
	}
	var out []intType
	names := map[string]string{}
	byRoot := map[int]int{} // root → index in out
	for i, l := range s.leaves {
		r := find(i)
		k, ok := byRoot[r]
		if !ok {
			k = len(out)
			byRoot[r] = k
			out = append(out, intType{expr: "int64"})
			if l.kind == arrow.UINT64 {
				out[k].expr = "uint64"
			}
		}
		out[k].leaves = append(out[k].leaves, l.path)
	}
	for r, k := range byRoot {
		t := &out[k]
		var members []*intLeaf
		for i, l := range s.leaves {
			if find(i) == r {
				members = append(members, l)
			}
		}
		short := slices.MinFunc(members, func(a, b *intLeaf) int { return len(a.name) - len(b.name) })
		t.name = short.name
		switch {
		case len(members) > 1:
			t.why = fmt.Sprintf("%s: their value ranges overlap on %.0f%% of their union or more", strings.Join(t.leaves, ", "), 100*least[r])
		case len(members[0].vals) < 2:
			t.why = fmt.Sprintf("%s holds one value in the trace", t.leaves[0])
		default:
			t.why = fmt.Sprintf("%s: its value range overlaps no other integer's over half", t.leaves[0])
		}
	}
	// Name in the order of first positions, so that a clash is resolved
	// the same way every time.
	for k := range out {
		t := &out[k]
		base := typeName(t.name)
		t.name = base
		for n := 2; taken[t.name]; n++ {
			t.name = fmt.Sprintf("%s%d", base, n)
		}
		taken[t.name] = true
		for _, p := range t.leaves {
			names[p] = t.name
		}
	}
	return out, names
}

// typeName turns a position name into a type name: each word of a
// snake_case name capitalized, first_index into FirstIndex.
func typeName(name string) string {
	var b strings.Builder
	for w := range strings.SplitSeq(name, "_") {
		r, n := utf8.DecodeRuneInString(w)
		if n > 0 {
			b.WriteRune(unicode.ToUpper(r))
			b.WriteString(w[n:])
		}
	}
	if b.Len() == 0 { // a name of underscores
		return "T" + name
	}
	return b.String()
}
