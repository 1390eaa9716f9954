package generator

import (
	"slices"

	"github.com/augur-dev/augur/specs"
)

// maxTerms bounds the terms of one satisfiability check; a larger one is
// taken as satisfiable, which only keeps a disjunction.
const maxTerms = 64

// A solver decides the satisfiability of a conjunction of constraints on
// non-null values: equalities by union-find, orders by the transitive
// closure of < and <= (a cycle through < is a contradiction, a cycle of
// <= an equality), distinct constants, the finite domains of bools and
// enums, and membership and inclusion (x in S and S subset T give x in T;
// an empty container has no element and is a subset of everything).
type solver struct {
	s      *scope
	n      int
	term   [maxTerms]int32
	parent [maxTerms]int8
}

func (v *solver) id(t int32) int {
	for i := range v.n {
		if v.term[i] == t {
			return i
		}
	}
	if v.n == maxTerms {
		return -1
	}
	v.term[v.n] = t
	v.parent[v.n] = int8(v.n)
	v.n++
	return v.n - 1
}

func (v *solver) find(i int) int {
	for int(v.parent[i]) != i {
		v.parent[i] = v.parent[v.parent[i]]
		i = int(v.parent[i])
	}
	return i
}

func (v *solver) union(i, j int) { v.parent[v.find(i)] = int8(v.find(j)) }

func (v *solver) isConst(i int) bool { return int(v.term[i]) >= len(v.s.paths) }

// satisfiable reports whether the constraints cs can all hold at once.
func (s *scope) satisfiable(cs []constraint) bool {
	v := solver{s: s}
	type local struct {
		kind conKind
		a, b int
	}
	var lc [MaxLiterals + 1]local
	for j, c := range cs {
		a, b := v.id(c.a), v.id(c.b)
		if a < 0 || b < 0 {
			return true
		}
		lc[j] = local{c.kind, a, b}
	}
	ls := lc[:len(cs)]
	for _, c := range ls {
		if c.kind == conEq {
			v.union(c.a, c.b)
		}
	}

	// Orders: edges between classes, and between the constants present.
	var reach [maxTerms]uint64 // reach[i]: classes i is <= to
	var involved uint64
	type edge struct{ u, w int }
	var strict [MaxLiterals + maxTerms]edge
	ns := 0
	addEdge := func(u, w int, isStrict bool) {
		u, w = v.find(u), v.find(w)
		reach[u] |= 1 << w
		involved |= 1<<u | 1<<w
		if isStrict {
			strict[ns] = edge{u, w}
			ns++
		}
	}
	for _, c := range ls {
		switch c.kind {
		case conLt:
			addEdge(c.a, c.b, true)
		case conLe:
			addEdge(c.a, c.b, false)
		}
	}
	if involved != 0 {
		for i := range v.n {
			if !v.isConst(i) {
				continue
			}
			for j := range v.n {
				if j != i && v.isConst(j) {
					if o, ok := s.constOrder(v.term[i], v.term[j]); ok && o < 0 && ns < len(strict) {
						addEdge(i, j, true)
					}
				}
			}
		}
		for k := range v.n {
			if involved&(1<<k) == 0 {
				continue
			}
			for i := range v.n {
				if reach[i]&(1<<k) != 0 {
					reach[i] |= reach[k]
				}
			}
		}
		for _, e := range strict[:ns] {
			if e.u == e.w || reach[e.w]&(1<<e.u) != 0 {
				return false
			}
		}
		for i := range v.n {
			for j := i + 1; j < v.n; j++ {
				if reach[i]&(1<<j) != 0 && reach[j]&(1<<i) != 0 {
					v.union(i, j)
				}
			}
		}
	}

	// Distinct values.
	for i := range v.n {
		if !v.isConst(i) {
			continue
		}
		for j := i + 1; j < v.n; j++ {
			if v.isConst(j) && v.find(i) == v.find(j) {
				return false
			}
		}
	}
	hasNe := false
	for _, c := range ls {
		if c.kind == conNe {
			if v.find(c.a) == v.find(c.b) {
				return false
			}
			hasNe = true
		}
	}
	if hasNe {
		var ne [MaxLiterals + 1][2]int
		n := 0
		for _, c := range ls {
			if c.kind == conNe {
				ne[n] = [2]int{c.a, c.b}
				n++
			}
		}
		if !v.colorable(ne[:n]) {
			return false
		}
	}

	// Containers.
	var sub [maxTerms]uint64 // sub[i]: classes class i is a subset of
	var empty uint64
	for i := range v.n {
		sub[i] = 1 << i
	}
	containers := false
	for _, c := range ls {
		switch c.kind {
		case conSub:
			sub[v.find(c.a)] |= 1 << v.find(c.b)
			containers = true
		case conEmpty:
			empty |= 1 << v.find(c.a)
			containers = true
		case conIn, conNin, conNsub, conNempty:
			containers = true
		case conNe:
			containers = containers || !v.isConst(c.a) && s.paths[v.term[c.a]].typ.Container()
		}
	}
	if !containers {
		return true
	}
	for k := range v.n {
		for i := range v.n {
			if sub[i]&(1<<k) != 0 {
				sub[i] |= sub[k]
			}
		}
	}
	isEmpty := func(c int) bool { return sub[c]&empty != 0 }
	for _, c := range ls {
		a, b := v.find(c.a), v.find(c.b)
		switch c.kind {
		case conNe:
			// Two empty containers are equal; two sets each a subset of
			// the other too.
			if !v.isConst(c.a) && s.paths[v.term[c.a]].typ.Container() {
				if isEmpty(a) && isEmpty(b) {
					return false
				}
				if s.paths[v.term[c.a]].typ.Kind == specs.Set && sub[a]&(1<<b) != 0 && sub[b]&(1<<a) != 0 {
					return false
				}
			}
		case conNempty:
			if isEmpty(a) {
				return false
			}
		case conNsub:
			if sub[a]&(1<<b) != 0 || isEmpty(a) {
				return false
			}
		case conIn:
			if isEmpty(b) {
				return false
			}
			for _, d := range ls {
				if d.kind == conNin && v.find(d.a) == a && sub[b]&(1<<v.find(d.b)) != 0 {
					return false
				}
			}
		}
	}
	return true
}

// colorable reports whether the classes of terms of finite types (bools,
// enums) can take values of their domains that respect the disequalities
// ne: x != "a" and x != "b" cannot both hold on an enum of a and b.
func (v *solver) colorable(ne [][2]int) bool {
	s := v.s
	// The classes with a finite domain, and the values they may take.
	var classes []int
	var domains [][]int32
	for i := range v.n {
		t := v.term[i]
		if int(t) >= len(s.paths) || s.domains[t] == nil {
			continue
		}
		c := v.find(i)
		if !slices.Contains(classes, c) {
			classes = append(classes, c)
			domains = append(domains, s.domains[t])
		}
	}
	if len(classes) == 0 {
		return true
	}
	// A class holding a constant has that value.
	fixed := make([]int32, len(classes))
	for k, c := range classes {
		fixed[k] = -1
		for i := range v.n {
			if v.isConst(i) && v.find(i) == c {
				fixed[k] = v.term[i]
			}
		}
	}
	value := make([]int32, len(classes))
	var try func(k int) bool
	try = func(k int) bool {
		if k == len(classes) {
			return true
		}
		for _, d := range domains[k] {
			if fixed[k] >= 0 && d != fixed[k] {
				continue
			}
			ok := true
			for _, p := range ne {
				a, b := v.find(p[0]), v.find(p[1])
				var other int
				switch classes[k] {
				case a:
					other = b
				case b:
					other = a
				default:
					continue
				}
				// The other side is a constant term, or a class already set.
				for i := range v.n {
					if v.find(i) == other && v.isConst(i) && v.term[i] == d {
						ok = false
					}
				}
				for j := range k {
					if classes[j] == other && value[j] == d {
						ok = false
					}
				}
			}
			if ok {
				value[k] = d
				if try(k + 1) {
					return true
				}
			}
		}
		return false
	}
	return try(0)
}
