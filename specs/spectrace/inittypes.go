package spectrace

import (
	"cmp"
	"fmt"
	"hash/maphash"
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
// hold some value in common, zero left out of both; the types are the
// groups this relation connects. The rule is scale-free: commit and
// applied indices run over the same range and share a type whatever the
// length of the run, and so do a term and the terms of log entries,
// which take a subset of its values; a small counter, an epoch or a
// term, spans a small part of an index's range and stays apart from it.
// Zero mostly stands for none (no lease granted, nothing accepted, no
// vote): in a position whose other values start far from it, it would
// stretch the range over values the position never takes. A position
// that holds one value in the whole trace compares with nothing
// meaningfully and keeps its own type; so does a field of a struct
// whose fields all name nodes of the trace (a version vector, recorded
// from a JSON object keyed by node): one node's entry (see slot).
//
// On the traces of testdata/testbeds (etcd raft, Paxos, Chord, RandTree)
// and three primary/backup systems of the quality benchmark, the pairs
// of one meaning overlap over 0.91 or more of their union, the others
// over 0.46 or less. On the 62 systems with planted properties of the
// quality benchmark's development seeds 1 to 80, against their
// hand-written specs, counting zero in the ranges missed 3 of the 72
// pairs of integers of one type and joined 15 of different types; left
// out, it misses 1 (two message counters) and joins 7: a lease's epoch,
// 0 (none) or 8 to 16, and epochs 8 to 15 overlapped on 47% with it and
// on 89% without.

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
	lo, hi float64 // the least and greatest value other than zero
	ranged bool    // some value other than zero was added
	vals   map[uint64]struct{}
}

func (l *intLeaf) add(bits uint64, x float64) {
	if len(l.vals) < maxIntValues {
		l.vals[bits] = struct{}{}
	}
	if x == 0 {
		return // not a point of the range: see the rule
	}
	if !l.ranged {
		l.lo, l.hi, l.ranged = x, x, true
	}
	l.lo, l.hi = min(l.lo, x), max(l.hi, x)
}

// overlap returns the share of the union of the value ranges of a and b
// that their intersection covers, counting integers, and whether they
// hold a value other than zero in common.
func overlap(a, b *intLeaf) (float64, bool) {
	in := min(a.hi, b.hi) - max(a.lo, b.lo) + 1
	if !a.ranged || !b.ranged || in <= 0 {
		return 0, false
	}
	if len(a.vals) > len(b.vals) {
		a, b = b, a
	}
	common := false
	for x := range a.vals {
		if x == 0 {
			continue
		}
		if _, common = b.vals[x]; common {
			break
		}
	}
	return in / (max(a.hi, b.hi) - min(a.lo, b.lo) + 1), common
}

// A strLeaf is a string position of the schema (a column, or a field or
// element below one), whose values may all name nodes of the trace.
type strLeaf struct {
	path  string
	name  string              // the last name on the path
	key   bool                // the keys of a map, which a spec types string
	used  bool                // some value is not empty
	vals  map[uint64]struct{} // hashes of the values other than empty, up to maxIntValues
	other map[string]struct{} // values not known as node names when read
	many  bool                // past 2*maxEnum of those: it names no nodes
}

// strSeed hashes string values (strLeaf.vals): a value of megabytes is
// kept as 8 bytes, and equal values hash equal within a run.
var strSeed = maphash.MakeSeed()

func (l *strLeaf) add(v string, names map[string]bool) {
	if v == "" {
		return
	}
	l.used = true
	if len(l.vals) < maxIntValues {
		l.vals[maphash.String(strSeed, v)] = struct{}{}
	}
	if l.many || names[v] {
		return
	}
	// A node may show up after values that name it; past a few such
	// values the position does not hold node names.
	if l.other[v] = struct{}{}; len(l.other) > 2*maxEnum {
		l.many, l.other = true, nil
	}
}

// namesNodes reports whether every non-empty value of the position, and
// there is one, names a node of names, the trace's.
func (l *strLeaf) namesNodes(names map[string]bool) bool {
	if l.many || !l.used {
		return false
	}
	for v := range l.other {
		if !names[v] {
			return false
		}
	}
	return true
}

// leafScan collects the values of the integer and string positions of a
// schema.
type leafScan struct {
	leaves []*intLeaf
	strs   []*strLeaf
	names  map[string]bool // the nodes of the states read
	// structs are the field names of each struct position, by path.
	structs map[string][]string
	cols    []func(v any) // by column: adds a value's leaves; nil for none
	// self is, by column, whether it is a string column that has held
	// its node's name in every state read.
	self []bool
	// shifts finds the integer columns that restate another.
	shifts *shiftScan
}

// maxShifted bounds the integer columns whose pairs spec init follows,
// each pair a candidate after the first state: past it, no column is said
// to restate another.
const maxShifted = 256

// A shiftScan finds the pairs of integer columns whose difference is the
// same in every state, both set in the same states (log_start and
// snapshot_index + 1): each pair of a column and an earlier one stays a
// candidate until a state breaks it, and most break in the first states.
type shiftScan struct {
	cols     []int  // the integer columns, in schema order
	unsigned []bool // by index in cols
	live     []shift
	first    bool // no state read yet
	vals     []int64
	set      []bool
	distinct []map[int64]struct{} // by index in cols: up to two values seen
}

// A shift is a candidate pair: column b is column a plus by.
type shift struct {
	a, b int // indexes in cols, a < b
	by   int64
}

// add reads a state: vals at the columns cols. Once every pair is
// broken, it reads nothing more.
func (s *shiftScan) add(cols []int, vals []any) {
	if !s.first && len(s.live) == 0 {
		return
	}
	clear(s.set)
	for k, c := range s.cols {
		j, ok := slices.BinarySearch(cols, c)
		if !ok {
			continue
		}
		switch x := vals[j].(type) {
		case int64:
			s.vals[k], s.set[k] = x, true
		case uint64:
			s.vals[k], s.set[k] = int64(x), true // a difference of uint64 wraps alike
		}
		if s.set[k] && len(s.distinct[k]) < 2 {
			s.distinct[k][s.vals[k]] = struct{}{}
		}
	}
	if s.first {
		s.first = false
		for b := range s.cols {
			for a := range b {
				if s.set[a] && s.set[b] && s.unsigned[a] == s.unsigned[b] {
					s.live = append(s.live, shift{a, b, s.vals[b] - s.vals[a]})
				}
			}
		}
		return
	}
	s.live = slices.DeleteFunc(s.live, func(p shift) bool {
		return s.set[p.a] != s.set[p.b] || s.set[p.a] && s.vals[p.b]-s.vals[p.a] != p.by
	})
}

// restated returns, by column, the earlier column it restates and the
// shift: a column that takes two values or more and is another plus a
// constant in every state.
func (s *shiftScan) restated() map[int]shift {
	out := map[int]shift{}
	for _, p := range s.live {
		if _, ok := out[s.cols[p.b]]; ok || len(s.distinct[p.b]) < 2 {
			continue
		}
		out[s.cols[p.b]] = shift{s.cols[p.a], s.cols[p.b], p.by}
	}
	return out
}

// newLeafScan returns a scan of the integers and strings of the columns
// of schema that keep takes.
func newLeafScan(schema trace.Schema, keep func(col int) bool) *leafScan {
	s := &leafScan{cols: make([]func(any), len(schema)), names: map[string]bool{}, structs: map[string][]string{}, self: make([]bool, len(schema))}
	sh := &shiftScan{first: true}
	for i, c := range schema {
		if keep(i) {
			s.cols[i] = s.walker(c.Type, c.Name, c.Name)
			s.self[i] = c.Type.ID() == arrow.STRING
			if id := c.Type.ID(); id == arrow.INT64 || id == arrow.UINT64 {
				sh.cols = append(sh.cols, i)
				sh.unsigned = append(sh.unsigned, id == arrow.UINT64)
				sh.distinct = append(sh.distinct, map[int64]struct{}{})
			}
		}
	}
	if len(sh.cols) >= 2 && len(sh.cols) <= maxShifted {
		sh.vals, sh.set = make([]int64, len(sh.cols)), make([]bool, len(sh.cols))
		s.shifts = sh
	}
	return s
}

// walker returns a function adding the integers and strings of a value
// of type dt at path to their leaves, or nil when dt holds none.
func (s *leafScan) walker(dt arrow.DataType, path, name string) func(any) {
	switch dt := dt.(type) {
	case *arrow.StringType:
		l := &strLeaf{path: path, name: name, vals: map[uint64]struct{}{}, other: map[string]struct{}{}}
		s.strs = append(s.strs, l)
		return func(v any) {
			switch x := v.(type) {
			case string:
				l.add(x, s.names)
			case []string: // a list of strings, decoded typed: see the list's walker
				for _, e := range x {
					l.add(e, s.names)
				}
			}
		}
	case *arrow.Int64Type, *arrow.Uint64Type:
		l := &intLeaf{path: path, name: name, kind: dt.ID(), vals: map[uint64]struct{}{}}
		s.leaves = append(s.leaves, l)
		return func(v any) {
			switch x := v.(type) {
			case int64:
				l.add(uint64(x), float64(x))
			case uint64:
				l.add(x, float64(x))
			case []int64: // a list of integers, decoded typed: see the list's walker
				for _, e := range x {
					l.add(uint64(e), float64(e))
				}
			case []uint64:
				for _, e := range x {
					l.add(e, float64(e))
				}
			}
		}
	case *arrow.ListType:
		elem := s.walker(dt.Elem(), path+"[]", name)
		if elem == nil {
			return nil
		}
		// trace.TypedStates decodes a list of integers or strings without
		// nulls to a []int64, []uint64 or []string, which the element's
		// walker takes whole: boxing each element again would allocate
		// (a 2M-integer list cost spec init 48 MB a state, boxed).
		return func(v any) {
			l, ok := v.([]any)
			if !ok {
				elem(v)
				return
			}
			for _, e := range l {
				elem(e)
			}
		}
	case *arrow.MapType:
		item := s.walker(dt.ItemType(), path+"[]", name)
		var keys *strLeaf
		if dt.KeyType().ID() == arrow.STRING {
			// A spec types the keys string whatever they hold: a plain
			// string sharing their values stays string (strTypes).
			keys = &strLeaf{path: path + "{}", name: name, key: true, vals: map[uint64]struct{}{}, other: map[string]struct{}{}}
			s.strs = append(s.strs, keys)
		}
		if item == nil && keys == nil {
			return nil
		}
		return func(v any) {
			m, _ := v.(map[string]any)
			for k, e := range m {
				if keys != nil {
					keys.add(k, s.names)
				}
				if item != nil {
					item(e)
				}
			}
		}
	case *arrow.StructType:
		type field struct {
			name string
			add  func(any)
		}
		var fields []field
		for _, f := range dt.Fields() {
			s.structs[path] = append(s.structs[path], f.Name)
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

// scanned returns the columns whose values add integers or strings to
// leaves, in order.
func (s *leafScan) scanned() []int {
	var cols []int
	for i, add := range s.cols {
		if add != nil {
			cols = append(cols, i)
		}
	}
	return cols
}

// add adds the integers and strings of the values of a state of node:
// vals holds the values of the columns that scanned returns, in order.
func (s *leafScan) add(node string, cols []int, vals []any) {
	s.names[node] = true
	for j, c := range cols {
		s.cols[c](vals[j])
		if s.self[c] && vals[j] != node {
			s.self[c] = false
		}
	}
	if s.shifts != nil {
		s.shifts.add(cols, vals)
	}
}

// namesSelf reports whether some string column holds its node's name in
// every state: an id a node exposes, which makes the node column's
// variable, node, its equivalent.
func (s *leafScan) namesSelf() bool {
	return slices.Contains(s.self, true)
}

// nodeIDs returns the paths of the string positions whose values name
// nodes of the trace, which get the type NodeID so that they compare with
// each other.
func (s *leafScan) nodeIDs() map[string]bool {
	ids := map[string]bool{}
	for _, l := range s.strs {
		if l.namesNodes(s.names) {
			ids[l.path] = true
		}
	}
	return ids
}

// A semType is a semantic type Init declares for integer positions or
// plain strings.
type semType struct {
	name   string
	expr   string   // int64, uint64 or string
	leaves []string // paths, in schema order
	why    string   // the comment beside its declaration
}

// types groups the leaves by the rule above and names each group
// (groupName), capitalized, made unique against taken. It returns the
// types in the order of their first positions, and the type name of
// every leaf path.
func (s *leafScan) types(taken map[string]bool) ([]semType, map[string]string) {
	groups := newGroups(len(s.leaves))
	least := make([]float64, len(s.leaves)) // by root: the least overlap of the pairs that joined the group
	for i := range least {
		least[i] = 1
	}
	// Only pairs of positions of one kind, each holding two values or
	// more, and whose ranges intersect can join; sorted by the start of
	// their ranges, a position meets only those that start before its
	// range ends. The groups and their least overlaps do not depend on
	// the order the pairs are met in, and comparing every pair made
	// spec init quadratic in the positions (a state of 100,000 integer
	// variables took 106 s).
	var cand []int
	for i, l := range s.leaves {
		if len(l.vals) >= 2 && l.ranged && !s.slot(l) {
			cand = append(cand, i)
		}
	}
	slices.SortStableFunc(cand, func(i, j int) int {
		a, b := s.leaves[i], s.leaves[j]
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.lo, b.lo))
	})
	for x, i := range cand {
		a := s.leaves[i]
		for _, j := range cand[x+1:] {
			b := s.leaves[j]
			if b.kind != a.kind || b.lo > a.hi {
				break
			}
			if r, common := overlap(a, b); common && r >= minOverlap {
				ri, rj := groups.find(i), groups.find(j)
				lo := min(r, least[ri], least[rj])
				groups.join(ri, rj)
				least[ri] = lo
			}
		}
	}
	var out []semType
	names := map[string]string{}
	byRoot := map[int]int{}  // root → index in out
	var members [][]*intLeaf // by index in out
	for i, l := range s.leaves {
		r := groups.find(i)
		k, ok := byRoot[r]
		if !ok {
			k = len(out)
			byRoot[r] = k
			out = append(out, semType{expr: "int64"})
			members = append(members, nil)
			if l.kind == arrow.UINT64 {
				out[k].expr = "uint64"
			}
		}
		out[k].leaves = append(out[k].leaves, l.path)
		members[k] = append(members[k], l)
	}
	for r, k := range byRoot {
		t := &out[k]
		ps := make([]position, len(members[k]))
		for i, m := range members[k] {
			ps[i] = position{m.path, m.name}
		}
		t.name = groupName(ps)
		if m := members[k][0]; s.slot(m) {
			parent := strings.TrimSuffix(m.path, "."+m.name)
			t.name = typeWords(parent) + "_" + m.name
			t.why = fmt.Sprintf("%s: a field named after a node, as each of %s's: one node's entry, compared only with the same node's", m.path, parent)
			continue
		}
		switch {
		case len(members[k]) > 1:
			t.why = fmt.Sprintf("%s: their value ranges overlap on %.0f%% of their union or more", strings.Join(t.leaves, ", "), 100*least[r])
		case len(members[k][0].vals) < 2:
			t.why = fmt.Sprintf("%s holds one value in the trace", t.leaves[0])
		default:
			t.why = fmt.Sprintf("%s: its value range overlaps no other integer's over half", t.leaves[0])
		}
	}
	// Name in the order of first positions, so that a clash is resolved
	// the same way every time.
	un := uniqueNames{taken: taken, next: map[string]int{}}
	for k := range out {
		t := &out[k]
		t.name = un.name(typeName(t.name))
		for _, p := range t.leaves {
			names[p] = t.name
		}
	}
	return out, names
}

// groups are disjoint groups of positions, joined one pair at a time
// (union-find): each position's parent, a group's root its own.
type groups []int

func newGroups(n int) groups {
	g := make(groups, n)
	for i := range g {
		g[i] = i
	}
	return g
}

// find returns the root of i's group, pointing the positions on the way
// at it.
func (g groups) find(i int) int {
	if g[i] != i {
		g[i] = g.find(g[i])
	}
	return g[i]
}

// join puts the group of root b under root a.
func (g groups) join(a, b int) { g[b] = a }

// slot reports whether l is a field of a struct whose fields, two or
// more, all name nodes of the trace: a version vector, a leader's
// match index per follower, as collect records a JSON object keyed by
// node. Each such field is one node's entry; the entries of two nodes
// run over the same values, and the range rule would join them, though
// comparing one node's entry with another's (r1's counter with r3's)
// means nothing, and the pool would fill with such comparisons (a blind
// user's OR-Set replicas: 64,633 properties, the report headed by
// n0.vv.r4 != n0.vv.r6). A slot gets a type of its own, which the same
// entry of every node shares.
func (s *leafScan) slot(l *intLeaf) bool {
	parent, ok := strings.CutSuffix(l.path, "."+l.name)
	if !ok {
		return false
	}
	fields := s.structs[parent]
	return len(fields) >= 2 && !slices.ContainsFunc(fields, func(f string) bool { return !s.names[f] })
}

// typeWords returns a path as words for a type name: state_vv of
// state.vv, log_vv of log[].vv.
func typeWords(path string) string {
	return strings.NewReplacer("[]", "", ".", "_").Replace(path)
}

// uniqueNames names types apart from those taken, which it adds to.
type uniqueNames struct {
	taken map[string]bool
	next  map[string]int // by base name: the least number not yet tried
}

// name returns base, or base followed by the least number from 2 on that
// makes it a name not taken, and takes it.
func (u uniqueNames) name(base string) string {
	name := base
	if u.taken[name] {
		// Numbers below next[base] are taken already, and taken only
		// grows: starting there keeps many positions of one name (a field
		// of 100,000 structs) linear.
		n := max(u.next[base], 2)
		for u.taken[fmt.Sprintf("%s%d", base, n)] {
			n++
		}
		name = fmt.Sprintf("%s%d", base, n)
		u.next[base] = n + 1
	}
	u.taken[name] = true
	return name
}

// strTypes gives the string positions that are neither node names nor
// enums (plain, by path) semantic types by this rule: two such positions
// share a type when they hold a value in common, other than the empty
// string; the types are the groups this relation connects. Two positions
// that never hold one value make every literal comparing them constant
// over the trace (x == y never holds, x in ys never), so a type apart
// loses no property the trace can tell anything of, and spares the
// generator every such literal: a session id is not compared with a
// lock's name. A group holding a map's keys, which a spec types string,
// stays string; and the types are declared only when there are two
// groups or more: one type of every plain string separates nothing. It
// returns them in the order of their first positions, named as the
// integer types are and apart from taken, and the type name of every
// position path.
func (s *leafScan) strTypes(plain func(path string) bool, taken map[string]bool) ([]semType, map[string]string) {
	var ls []*strLeaf
	for _, l := range s.strs {
		// A map's keys join whatever they hold, node names too: what
		// shares their values keeps the type string they have.
		if l.used && (l.key || plain(l.path)) {
			ls = append(ls, l)
		}
	}
	groups := newGroups(len(ls))
	// Each value joins the first position holding it with every other:
	// linear in the values held, where comparing every pair of positions
	// would be quadratic in them.
	first := map[uint64]int{}
	for i, l := range ls {
		for v := range l.vals {
			j, ok := first[v]
			if !ok {
				first[v] = i
				continue
			}
			ri, rj := groups.find(i), groups.find(j)
			groups.join(min(ri, rj), max(ri, rj))
		}
	}
	type group struct {
		members []position // but a map's keys
		keyed   bool       // it holds a map's keys: it stays string
	}
	var gs []group
	byRoot := map[int]int{} // root → index in gs
	for i, l := range ls {
		r := groups.find(i)
		k, ok := byRoot[r]
		if !ok {
			k = len(gs)
			byRoot[r] = k
			gs = append(gs, group{})
		}
		if l.key {
			gs[k].keyed = true
			continue
		}
		gs[k].members = append(gs[k].members, position{l.path, l.name})
	}
	if len(gs) < 2 {
		return nil, map[string]string{}
	}
	var out []semType
	names := map[string]string{}
	un := uniqueNames{taken: taken, next: map[string]int{}}
	for _, g := range gs {
		if g.keyed || len(g.members) == 0 {
			continue
		}
		t := semType{name: un.name(typeName(groupName(g.members))), expr: "string"}
		for _, m := range g.members {
			t.leaves = append(t.leaves, m.path)
			names[m.path] = t.name
		}
		if len(t.leaves) > 1 {
			t.why = fmt.Sprintf("%s: they hold values in common, and no other string's", strings.Join(t.leaves, ", "))
		} else {
			t.why = fmt.Sprintf("%s: it holds no value another string holds", t.leaves[0])
		}
		out = append(out, t)
	}
	return out, names
}

// groupName names a group of positions, in schema order: after the word
// of their names (snake_case or camelCase, two letters or more) that
// most of them share, when two or more do, the shortest on a tie (index,
// of commit_index, snapshot_index and log_start; index again, of commit,
// applied, kv_applied, last_index and log[].index; ver, of cache.x.ver
// and cache.y.ver, not x); else after the column they all lie in
// (queued, of queued.x and queued.y); else after the shortest name, the
// first on a tie (index, of commit, applied and log[].index).
func groupName(ms []position) string {
	count := map[string]int{} // by word: the positions whose name holds it
	var order []string        // the words, in order of first position
	for _, m := range ms {
		for _, w := range slices.Compact(slices.Sorted(slices.Values(nameWords(m.name)))) {
			if count[w] == 0 {
				order = append(order, w)
			}
			count[w]++
		}
	}
	best := ""
	for _, w := range order { // the most shared, the shortest on a tie
		if c := count[w]; c > max(1, count[best]) || c > 1 && c == count[best] && len(w) < len(best) {
			best = w
		}
	}
	if best != "" {
		return best
	}
	col := column(ms[0].path)
	if len(ms) > 1 && !slices.ContainsFunc(ms, func(m position) bool { return column(m.path) != col }) {
		return col
	}
	return slices.MinFunc(ms, func(a, b position) int { return len(a.name) - len(b.name) }).name
}

// A position is an integer or string position that groupName names: its
// path, and the last name on it.
type position struct{ path, name string }

// nameWords returns the words of a name, lower case: split at
// underscores and where a lower-case letter or digit meets an upper-case
// one (lastIndex: last, index), those of one letter left out.
func nameWords(name string) []string {
	var words []string
	add := func(w string) {
		if utf8.RuneCountInString(w) >= 2 {
			words = append(words, strings.ToLower(w))
		}
	}
	for part := range strings.SplitSeq(name, "_") {
		start, prev := 0, rune(0)
		for i, r := range part {
			if i > 0 && unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)) {
				add(part[start:i])
				start = i
			}
			prev = r
		}
		add(part[start:])
	}
	return words
}

// column returns the column a position lies in: its path up to the
// first field or element.
func column(path string) string {
	if i := strings.IndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return path
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
