package generator

import (
	"slices"
	"strings"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

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
	compat  []uint64   // row i (words long): literals that may share a disjunction with literal i; nil until buildCompat
	cover   [][]uint64 // cover[r]: literals whose variables include the variable mask r
	full    uint8      // mask of all variables
	start   uint8      // variables used by the prefix: n0, the iterator's domain

	perms    [][]int32 // literal renamings for the non-identity node permutations
	fewNames bool      // at most 64 path names: focus uses nameMasks

	// The theory of the literals, for theoryOK (theory.go).
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
	paths []int   // its paths, indexes in scope.paths
	set   bool    // a set(x) literal
	// a positive constant on an enum of 4 or more values: at most enumMax
	// such literals of one path (enumPath) may share a disjunction.
	enumPath int
	enumMax  int
}

// newScope builds the scope of k node variables and the iterator it (nil
// for none): its literals, their theory, and the tables that enumeration
// and node symmetry read.
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
	s.prefix = prefixText(s.quants)

	s.paths = scopePaths(k, nodes, it)
	s.dom, s.elem = -1, -1
	if it != nil {
		s.dom = findTemplate(nodes, it.domain.text) // on n0
		s.elem = k * len(nodes)                     // the first element path is e0 itself
	}
	s.atoms = atoms(s.paths, spec, cs, s.dom, s.elem)
	s.buildLiterals()
	s.buildTheory()
	s.buildSets()
	s.buildPerms(len(nodes))
	return s
}

// prefixText returns the text of a quantifier prefix, with the ": "
// after each quantifier.
func prefixText(quants []*grammar.Quantifier) string {
	var b strings.Builder
	for _, q := range quants {
		b.WriteString(q.String())
		b.WriteString(": ")
	}
	return b.String()
}

// canonical returns the canonical form of l in s.
func (s *scope) canonical(l *grammar.Literal) *grammar.Literal {
	return grammar.Canonical(&grammar.Property{Quants: s.quants, Matrix: []*grammar.Literal{l}}).Matrix[0]
}

// buildLiterals builds the literals of the atoms and their negations, in
// text order, and the per-literal tables of the hot loops.
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
				vars: vars, names: names, paths: a.args, set: a.kind == atomSet,
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
