package generator

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/combin"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

// Limits of generation. A spec asking for more is an error.
const (
	// MaxNodes bounds generate.max_nodes: node symmetry is checked over
	// all permutations of the node variables, 24 for 4 nodes.
	MaxNodes = 4
	// MaxLiterals bounds generate.max_literals.
	MaxLiterals = 8
	// MaxIterators is the number of iterator quantifiers in a generated
	// property: one, over a container of the first node variable.
	MaxIterators = 1
	// MaxSetLiterals is the longest disjunction that may hold a set(x)
	// literal. Nullness facts are short; letting set(x) into longer
	// disjunctions multiplies their number without making them more
	// telling.
	MaxSetLiterals = 2
)

// Budgets of the per-class enumeration. A class whose literal
// combinations number at most exactBudget is enumerated exhaustively,
// so its Generated count is exact. A larger class is sampled: sampleDraws
// combinations drawn by a seeded generator, from which Generated is
// estimated and the kept properties are chosen.
//
// They are variables for the tests.
var (
	exactBudget float64 = 1 << 26
	sampleDraws float64 = 1 << 20
)

// A Class groups the properties of one shape: the number of node
// variables, of iterator variables and of literals.
type Class struct {
	Nodes, Iters, Literals int
}

// String returns "nodes=2 iters=0 literals=2".
func (c Class) String() string {
	return fmt.Sprintf("nodes=%d iters=%d literals=%d", c.Nodes, c.Iters, c.Literals)
}

func (c Class) compare(d Class) int {
	return cmp.Or(cmp.Compare(c.Nodes, d.Nodes), cmp.Compare(c.Iters, d.Iters), cmp.Compare(c.Literals, d.Literals))
}

// ClassCount is the number of properties of a class before and after the
// per-class cap.
type ClassCount struct {
	Class     Class
	Generated int  // candidates after pruning, before the cap
	Kept      int  // properties in the pool
	Estimated bool // the class was too large to enumerate: Generated is estimated from a sample
}

// String returns "nodes=2 iters=0 literals=2: generated=1234 kept=1000".
func (cc ClassCount) String() string {
	s := fmt.Sprintf("%s: generated=%d kept=%d", cc.Class, cc.Generated, cc.Kept)
	if cc.Estimated {
		s += " (estimated)"
	}
	return s
}

// Pool is the result of Generate.
type Pool struct {
	// Props are canonical properties ordered by class, then by text.
	// They share syntax nodes (quantifiers, literals) with each other:
	// treat them as read-only.
	Props []*grammar.Property
	// Classes lists the non-empty classes in order of nodes, iterators
	// and literals.
	Classes []ClassCount
}

// Generate builds the property pool of spec, with the constants consts
// (from MineConstants; nil for none beyond the spec's enums). The rules
// are in the package documentation. The result depends only on its
// arguments.
func Generate(spec *specs.Spec, consts Constants) (*Pool, error) {
	g := spec.Generate
	switch {
	case g.MaxNodes < 1 || g.MaxNodes > MaxNodes:
		return nil, fmt.Errorf("generator: max_nodes is %d, want 1 to %d", g.MaxNodes, MaxNodes)
	case g.MaxLiterals < 1 || g.MaxLiterals > MaxLiterals:
		return nil, fmt.Errorf("generator: max_literals is %d, want 1 to %d", g.MaxLiterals, MaxLiterals)
	}
	nodes := nodeTemplates(spec)
	if len(nodes) == 0 {
		return nil, errors.New("generator: the spec declares no variables")
	}
	its, err := iterators(spec, nodes)
	if err != nil {
		return nil, err
	}
	cs, err := prepareConstants(nodes, consts)
	if err != nil {
		return nil, err
	}
	pool := &Pool{}
	for k := 1; k <= g.MaxNodes; k++ {
		groups := [][]*scope{{newScope(spec, k, nodes, nil, cs)}, nil}
		for i := range its {
			groups[1] = append(groups[1], newScope(spec, k, nodes, &its[i], cs))
		}
		for iters, scopes := range groups {
			if len(scopes) == 0 {
				continue
			}
			for m := 1; m <= g.MaxLiterals; m++ {
				c := Class{Nodes: k, Iters: iters, Literals: m}
				cc, props := generateClass(c, scopes, g.MaxPerClass)
				if cc.Generated == 0 {
					continue
				}
				pool.Classes = append(pool.Classes, cc)
				pool.Props = append(pool.Props, props...)
			}
		}
	}
	return pool, nil
}

// A scope is a quantifier prefix and the literals over its variables.
type scope struct {
	nodes  int       // node variables n0…
	iter   *iterator // the iterator e0 over n0, or nil
	quants []*grammar.Quantifier
	prefix string // the prefix's text, with the ": " after it
	paths  []path
	dom    int // the iterator's domain (a path on n0), or -1
	elem   int // the iterator's element e0, or -1
	atoms  []atom
	lits   []literal // sorted by text

	words   int        // uint64 words of a bitset over lits
	all     []uint64   // every literal
	setLits []uint64   // the set(x) literals
	compat  []uint64   // row i (words long): literals that may share a disjunction with literal i
	cover   [][]uint64 // cover[r]: literals whose variables include the variable mask r
	full    uint8      // mask of all variables
	start   uint8      // variables used by the prefix: n0, the iterator's domain

	perms    [][]int32 // literal renamings for the non-identity node permutations
	fewNames bool      // at most 64 path names: focus uses nameMasks

	// The theory of the literals, for theoryOK (prune.go).
	cons       [][2]constraint // per literal: its constraint when true, when false
	background []constraint    // facts of the scope: e0 in its domain
	termBits   []uint64        // per literal: its terms, hashed to bits
	constIDs   map[string]int32
	constVals  []any     // values of the constant terms
	domains    [][]int32 // per path of a finite type: its values, as terms

	// Per literal, apart from lits for the hot loops.
	vars       []uint8  // literal.vars
	nameMasks  []uint64 // literal names as a bit set, when fewNames
	textHash   []uint64 // hash of the literal's text
	prefixHash uint64
	enumCheck  bool // some literal has enumMax > 0
}

// A literal of a scope.
type literal struct {
	lit   *grammar.Literal // canonical
	text  string
	sign  sign
	vars  uint8   // bit v set when variable v occurs
	names []int32 // distinct variable-free path names, for ranking
	set   bool    // a set(x) literal
	// a positive constant on an enum of 4 or more values: at most enumMax
	// such literals of one path (enumPath) may share a disjunction.
	enumPath int
	enumMax  int
}

func newScope(spec *specs.Spec, k int, nodes []template, it *iterator, cs map[string]constSet) *scope {
	s := &scope{nodes: k, iter: it}
	vars := make([]string, k)
	for i := range vars {
		vars[i] = nodeVar(i)
	}
	s.quants = []*grammar.Quantifier{{Kind: grammar.Forall, Vars: vars}}
	nvars := k
	if it != nil {
		dom := &grammar.Path{Var: nodeVar(0), Fields: it.domain.fields}
		s.quants = append(s.quants, &grammar.Quantifier{Kind: grammar.Forall, Vars: []string{iterVar}, Domain: dom})
		nvars++
		s.start = 1
	}
	s.full = uint8(1)<<nvars - 1
	var b strings.Builder
	for _, q := range s.quants {
		b.WriteString(q.String())
		b.WriteString(": ")
	}
	s.prefix = b.String()

	s.paths = scopePaths(k, nodes, it)
	s.dom, s.elem = -1, -1
	if it != nil {
		s.dom = findTemplate(nodes, it.domain.text) // on n0
		s.elem = k * len(nodes)                     // the first element path is e0 itself
	}
	s.atoms = atoms(s.paths, spec, cs, s.dom, s.elem)
	s.buildLiterals()
	s.buildTheory()
	s.buildCompat()
	s.buildPerms(len(nodes))
	return s
}

// canonical returns the canonical form of l in s.
func (s *scope) canonical(l *grammar.Literal) *grammar.Literal {
	return grammar.Canonical(&grammar.Property{Quants: s.quants, Matrix: []*grammar.Literal{l}}).Matrix[0]
}

func (s *scope) buildLiterals() {
	nameIDs := make(map[string]int32)
	for i := range s.atoms {
		a := &s.atoms[i]
		var vars uint8
		var names []int32
		for _, j := range a.args {
			p := s.paths[j]
			vars |= 1 << p.v
			id, ok := nameIDs[p.name]
			if !ok {
				id = int32(len(nameIDs))
				nameIDs[p.name] = id
			}
			if !slices.Contains(names, id) {
				names = append(names, id)
			}
		}
		for _, neg := range []bool{false, true} {
			if neg && !a.kind.negatable() {
				continue
			}
			l := s.canonical(a.literal(s.paths, neg))
			lit := literal{
				lit: l, text: l.String(), sign: sign{a, neg},
				vars: vars, names: names, set: a.kind == atomSet,
				enumPath: -1,
			}
			if a.kind == atomConst && !neg && a.enum >= 4 {
				lit.enumPath, lit.enumMax = a.args[0], a.enum-2
				s.enumCheck = true
			}
			s.lits = append(s.lits, lit)
		}
	}
	slices.SortFunc(s.lits, func(a, b literal) int { return strings.Compare(a.text, b.text) })
	// Distinct atoms print distinctly; this only guards the invariant
	// that a literal's text identifies it.
	s.lits = slices.CompactFunc(s.lits, func(a, b literal) bool { return a.text == b.text })

	s.fewNames = len(nameIDs) <= 64
	s.vars = make([]uint8, len(s.lits))
	s.nameMasks = make([]uint64, len(s.lits))
	s.textHash = make([]uint64, len(s.lits))
	for i, l := range s.lits {
		s.vars[i] = l.vars
		if s.fewNames {
			for _, n := range l.names {
				s.nameMasks[i] |= 1 << n
			}
		}
		s.textHash[i] = textHash(l.text)
	}
	s.prefixHash = textHash(s.prefix)
}

// textHash is FNV-1a, mixed.
func textHash(text string) uint64 {
	h := uint64(14695981039346656037)
	for i := range len(text) {
		h ^= uint64(text[i])
		h *= 1099511628211
	}
	return mix(h)
}

func (s *scope) buildCompat() {
	n := len(s.lits)
	w := (n + 63) / 64
	s.words = w
	s.all = make([]uint64, w)
	s.setLits = make([]uint64, w)
	for i, l := range s.lits {
		s.all[i>>6] |= 1 << (i & 63)
		if l.set {
			s.setLits[i>>6] |= 1 << (i & 63)
		}
	}
	s.compat = make([]uint64, n*w)
	for i := range n {
		for j := i + 1; j < n; j++ {
			pair := [2]int32{int32(i), int32(j)}
			if !redundant(s.lits[i].sign, s.lits[j].sign) && s.theoryOK(pair[:], 2) {
				s.compat[i*w+(j>>6)] |= 1 << (j & 63)
				s.compat[j*w+(i>>6)] |= 1 << (i & 63)
			}
		}
	}
	s.cover = make([][]uint64, int(s.full)+1)
	for r := range s.cover {
		s.cover[r] = make([]uint64, w)
		for i, l := range s.lits {
			if l.vars&uint8(r) == uint8(r) {
				s.cover[r][i>>6] |= 1 << (i & 63)
			}
		}
	}
}

// buildPerms computes, for each permutation of the node variables other
// than the identity (fixing n0 when there is an iterator, whose domain is
// on n0), the literal each literal is renamed to. ntmpl is the number of
// node paths per node variable: node path v*ntmpl+t is template t on
// variable v.
func (s *scope) buildPerms(ntmpl int) {
	first := 0
	if s.iter != nil {
		first = 1
	}
	free := s.nodes - first
	if free < 2 {
		return
	}
	index := make(map[string]int32, len(s.lits))
	for i, l := range s.lits {
		index[l.text] = int32(i)
	}
	for _, perm := range combin.Permutations(free, free) {
		sigma := make([]int, s.nodes)
		identity := true
		for v := range s.nodes {
			sigma[v] = v
			if v >= first {
				sigma[v] = first + perm[v-first]
			}
			identity = identity && sigma[v] == v
		}
		if identity {
			continue
		}
		mapPath := func(p int) int {
			if p >= s.nodes*ntmpl {
				return p // an iterator path
			}
			return sigma[p/ntmpl]*ntmpl + p%ntmpl
		}
		m := make([]int32, len(s.lits))
		for i, l := range s.lits {
			a := *l.sign.a
			a.args = make([]int, len(a.args))
			for j, p := range l.sign.a.args {
				a.args[j] = mapPath(p)
			}
			text := s.canonical(a.literal(s.paths, l.sign.neg)).String()
			j, ok := index[text]
			if !ok {
				panic("generator: literals not closed under node renaming: " + text)
			}
			m[i] = j
		}
		s.perms = append(s.perms, m)
	}
}

// each calls fn with the literal indexes, increasing, of every candidate
// disjunction of m literals of s: no two literals redundant together,
// every variable used, and the representative of its class under node
// renaming. fn must not keep idx.
func (s *scope) each(m int, fn func(idx []int32)) {
	w := s.words
	if w == 0 || m > len(s.lits) {
		return
	}
	allowed := make([]uint64, m*w)
	copy(allowed, s.all)
	if m > MaxSetLiterals {
		for i := range w {
			allowed[i] &^= s.setLits[i]
		}
	}
	idx := make([]int32, m)
	var rec func(d, from int, used uint8)
	rec = func(d, from int, used uint8) {
		cur := allowed[d*w : (d+1)*w]
		last := d == m-1
		var need []uint64
		if last {
			need = s.cover[s.full&^used]
		}
		// Leave room for the literals after this one.
		limit := len(s.lits) - (m - 1 - d)
		for wi := from >> 6; wi < w && wi<<6 < limit; wi++ {
			word := cur[wi]
			if wi == from>>6 {
				word &= ^uint64(0) << (from & 63)
			}
			if last {
				word &= need[wi]
			}
			for word != 0 {
				i := wi<<6 | bits.TrailingZeros64(word)
				word &= word - 1
				if i >= limit {
					break
				}
				idx[d] = int32(i)
				if last {
					if s.valid(idx) {
						fn(idx)
					}
					continue
				}
				next := allowed[(d+1)*w : (d+2)*w]
				row := s.compat[i*w : (i+1)*w]
				// Words below wi are never read again at depth d+1.
				for x := wi; x < w; x++ {
					next[x] = cur[x] & row[x]
				}
				rec(d+1, i+1, used|s.vars[i])
			}
		}
	}
	rec(0, 0, s.start)
}

// check reports whether the increasing literal indexes idx make a
// candidate: the test each applies, for a combination drawn at random.
func (s *scope) check(idx []int32) bool {
	w := s.words
	used := s.start
	for a, i := range idx {
		if len(idx) > MaxSetLiterals && s.lits[i].set {
			return false
		}
		row := s.compat[int(i)*w : (int(i)+1)*w]
		for _, j := range idx[a+1:] {
			if row[j>>6]&(1<<(j&63)) == 0 {
				return false
			}
		}
		used |= s.vars[i]
	}
	return used == s.full && s.valid(idx)
}

// valid applies the rules each cannot express as a bitset: the enum count
// and node symmetry.
func (s *scope) valid(idx []int32) bool {
	if s.enumCheck && !s.enumOK(idx) {
		return false
	}
	var buf [MaxLiterals]int32
	for _, p := range s.perms {
		mapped := buf[:len(idx)]
		for j, i := range idx {
			mapped[j] = p[i]
		}
		insertionSort(mapped)
		if slices.Compare(mapped, idx) < 0 {
			return false
		}
	}
	return len(idx) < 3 || s.theoryOK(idx, 3)
}

// enumOK reports whether idx holds at most enumMax positive constants of
// each enum path: on non-null values, x == a or x == b or x == c on an
// enum of four values is x != d.
func (s *scope) enumOK(idx []int32) bool {
	for a, i := range idx {
		l := &s.lits[i]
		if l.enumPath < 0 {
			continue
		}
		n := 1
		for _, j := range idx[a+1:] {
			if s.lits[j].enumPath == l.enumPath {
				n++
			}
		}
		if n > l.enumMax {
			return false
		}
	}
	return true
}

func insertionSort(x []int32) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

// rank orders the candidates for the cap, lower first: by their number
// of set(x) literals, then by focus. Nullness facts are cheap to state
// and rarely the point of a longer disjunction; a focused disjunction,
// about few state variables, is more often a telling one than a
// disjunction of unrelated facts.
func (s *scope) rank(idx []int32) int {
	sets := 0
	for _, i := range idx {
		sets += int(s.setLits[i>>6] >> (i & 63) & 1)
	}
	return sets<<16 | s.focus(idx)
}

// focus returns the number of distinct variable-free path names in idx:
// the number of state variables (and fields) the disjunction talks about.
func (s *scope) focus(idx []int32) int {
	if s.fewNames {
		var m uint64
		for _, i := range idx {
			m |= s.nameMasks[i]
		}
		return bits.OnesCount64(m)
	}
	var buf [4 * MaxLiterals]int32
	seen := buf[:0]
	for _, i := range idx {
		for _, n := range s.lits[i].names {
			if !slices.Contains(seen, n) {
				seen = append(seen, n)
			}
		}
	}
	return len(seen)
}

// hash returns a hash of the texts of the literals idx (and of the
// scope's prefix), independent of how the literals are numbered.
func (s *scope) hash(idx []int32) uint64 {
	h := s.prefixHash
	for _, i := range idx {
		h = mix(h ^ s.textHash[i])
	}
	return h
}

// mix is the finalizer of SplitMix64.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// property builds the property of idx and its canonical text.
func (s *scope) property(idx []int32) (*grammar.Property, string) {
	p := &grammar.Property{Quants: s.quants, Matrix: make([]*grammar.Literal, len(idx))}
	var b strings.Builder
	b.WriteString(s.prefix)
	for j, i := range idx {
		p.Matrix[j] = s.lits[i].lit
		if j > 0 {
			b.WriteString(" or ")
		}
		b.WriteString(s.lits[i].text)
	}
	return p, b.String()
}

// A selector keeps the candidates of a class that survive the cap: the
// n smallest by (rank, hash), in a max-heap. The rank prefers few set(x)
// literals, then few distinct state variables; among candidates of equal
// rank the hash of the literal texts makes a deterministic, evenly spread
// choice that does not lean towards the start of the alphabet and that
// stays put when the spec gains a variable.
type selector struct {
	n     int // the cap; 0 keeps everything
	total int // candidates offered
	heap  []pick
}

// A pick is a candidate: a combination of literals of one scope.
type pick struct {
	rank  int
	hash  uint64
	scope int32
	idx   [MaxLiterals]int32
}

func (a *pick) less(b *pick) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	if a.hash != b.hash {
		return a.hash < b.hash
	}
	if a.scope != b.scope {
		return a.scope < b.scope
	}
	return slices.Compare(a.idx[:], b.idx[:]) < 0
}

// offer counts a candidate and keeps it if it is among the n best so far.
func (sl *selector) offer(s *scope, si int, idx []int32) {
	sl.total++
	r := s.rank(idx)
	h := sl.heap
	full := sl.n > 0 && len(h) >= sl.n
	if full && r > h[0].rank {
		return // the common case once the heap is full
	}
	p := pick{rank: r, hash: s.hash(idx), scope: int32(si)}
	copy(p.idx[:], idx)
	if !full {
		h = append(h, p)
		if sl.n > 0 {
			// sift up
			for i := len(h) - 1; i > 0; {
				parent := (i - 1) / 2
				if !h[parent].less(&h[i]) {
					break
				}
				h[parent], h[i] = h[i], h[parent]
				i = parent
			}
		}
		sl.heap = h
		return
	}
	if !p.less(&h[0]) {
		return
	}
	h[0] = p
	// sift down
	for i := 0; ; {
		l, r, big := 2*i+1, 2*i+2, i
		if l < len(h) && h[big].less(&h[l]) {
			big = l
		}
		if r < len(h) && h[big].less(&h[r]) {
			big = r
		}
		if big == i {
			break
		}
		h[i], h[big] = h[big], h[i]
		i = big
	}
}

// generateClass enumerates (or, beyond exactBudget, samples) the
// candidates of class c over scopes, applies the cap n and returns the
// kept properties in text order.
func generateClass(c Class, scopes []*scope, n int) (ClassCount, []*grammar.Property) {
	cc := ClassCount{Class: c}
	m := c.Literals
	var raw float64
	for _, s := range scopes {
		if len(s.lits) >= m {
			raw += combin.GeneralizedBinomial(float64(len(s.lits)), float64(m))
		}
	}
	if raw == 0 {
		return cc, nil
	}
	sl := selector{n: n}
	if raw <= exactBudget {
		for si, s := range scopes {
			s.each(m, func(idx []int32) { sl.offer(s, si, idx) })
		}
		cc.Generated = sl.total
	} else {
		cc.Estimated = true
		var est float64
		for si, s := range scopes {
			if len(s.lits) < m {
				continue
			}
			size := combin.GeneralizedBinomial(float64(len(s.lits)), float64(m))
			before := sl.total
			visited := s.sample(m, int(sampleDraws*size/raw)+1, seed(c, si), func(idx []int32) {
				sl.offer(s, si, idx)
			})
			if visited > 0 {
				est += size * float64(sl.total-before) / float64(visited)
			}
		}
		cc.Generated = int(math.Round(est))
	}

	type kept struct {
		p    *grammar.Property
		text string
	}
	out := make([]kept, 0, len(sl.heap))
	for i := range sl.heap {
		pk := &sl.heap[i]
		p, text := scopes[pk.scope].property(pk.idx[:m])
		out = append(out, kept{p, text})
	}
	slices.SortFunc(out, func(a, b kept) int { return strings.Compare(a.text, b.text) })
	// Random draws (beyond 62 bits of combinations) may repeat one.
	out = slices.CompactFunc(out, func(a, b kept) bool { return a.text == b.text })
	props := make([]*grammar.Property, len(out))
	for i, k := range out {
		props[i] = k.p
	}
	cc.Kept = len(props)
	return cc, props
}

// seed derives the sampling seed of a scope of a class, so that a run
// samples the same combinations whatever else the spec holds.
func seed(c Class, scope int) uint64 {
	return uint64(c.Nodes)<<48 ^ uint64(c.Iters)<<40 ^ uint64(c.Literals)<<32 ^ uint64(scope) ^ 0x9e3779b97f4a7c15
}

// sample visits up to n combinations of m literals of s, spread over all
// of them, and calls fn with those that make candidates. It returns the
// number of combinations visited.
//
// When the combinations can be counted in 62 bits, it visits distinct
// ones: the ranks b, b+a, b+2a, … modulo their number, with a coprime to
// it and near the golden section (a Weyl sequence, evenly spread), each
// turned into a combination in colexicographic order. Otherwise the
// combinations are drawn at random, with replacement: among so many,
// repeats are rare (and the caller drops them).
func (s *scope) sample(m, n int, seed uint64, fn func(idx []int32)) int {
	L := len(s.lits)
	idx := make([]int32, m)
	total := binomial(L, m)
	if total < 1<<62 {
		if total == 0 {
			return 0
		}
		a := uint64(float64(total)*0.6180339887498949) | 1
		for gcd(a, total) != 1 {
			a += 2
		}
		a %= total
		r := seed % total
		visits := min(uint64(n), total)
		// binom[i][c] = C(c, i+1) for c < L, increasing in c.
		binom := make([][]uint64, m)
		for i := range binom {
			binom[i] = make([]uint64, L)
			for c := range L {
				binom[i][c] = binomial(c, i+1)
			}
		}
		for range visits {
			unrank(binom, r, idx)
			if s.check(idx) {
				fn(idx)
			}
			r = (r + a) % total
		}
		return int(visits)
	}
	rng := splitmix(seed)
	for range n {
		// Floyd's algorithm: m distinct values of [0, L).
		idx = idx[:0]
		for j := L - m; j < L; j++ {
			t := int32(rng.next() % uint64(j+1))
			if slices.Contains(idx, t) {
				t = int32(j)
			}
			idx = append(idx, t)
		}
		insertionSort(idx)
		if s.check(idx) {
			fn(idx)
		}
	}
	return n
}

// unrank sets idx to the combination of rank r in colexicographic order:
// the one with r = C(idx[0], 1) + C(idx[1], 2) + … . binom[i][c] is
// C(c, i+1).
func unrank(binom [][]uint64, r uint64, idx []int32) {
	hi := len(binom[0]) // idx[i] < hi
	for i := len(idx) - 1; i >= 0; i-- {
		// The largest c < hi with C(c, i+1) <= r; C(i, i+1) = 0.
		row := binom[i][:hi]
		c, _ := slices.BinarySearch(row, r+1) // the first entry > r
		c--
		idx[i] = int32(c)
		r -= row[c]
		hi = c
	}
}

// binomial returns C(n, k), or math.MaxUint64 when it does not fit.
func binomial(n, k int) uint64 {
	if k < 0 || k > n {
		return 0
	}
	c := uint64(1)
	for j := range k {
		hi, lo := bits.Mul64(c, uint64(n-j))
		if hi != 0 {
			return math.MaxUint64
		}
		c = lo / uint64(j+1) // exact: c·(n-j) = C(n, j+1)·(j+1)
	}
	return c
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// splitmix is the SplitMix64 generator: small, fast and the same on every
// platform and Go release.
type splitmix uint64

func (r *splitmix) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	return mix(uint64(*r))
}
