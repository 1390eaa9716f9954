package evaluator

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/ir"
	"github.com/augur-dev/augur/specs"
)

// plan is the fast evaluator's form of a Program, shared read-only by its
// engines. Properties with the same quantifier prefix share a scope: its
// bindings are enumerated once per snapshot, and each distinct atom of its
// properties is evaluated once per binding into a bitset.
type plan struct {
	prog     *Program
	cols     []pcol   // node path columns: a variable and fields
	doms     []pdom   // containers iterators range over
	consts   []any    // constant operands
	rowAtoms []fatom  // atoms over one node, on slot 0: evaluated once per state row
	scopes   []*scope // in order of first use
	fallback []int    // properties evaluated binding by binding (exists, iterators over elements)
}

// pcol is a path from a node: a variable (spec variables, then derived)
// and fields.
type pcol struct {
	variable int
	fields   []string
	needs    needs
}

// needs says what the atoms ask of a column's cells besides the value.
type needs uint8

const (
	needID    needs = 1 << iota // intern scalars too (operand x of x in S)
	needMem                     // members of the container (S of x in S, subset)
	needExact                   // an id of the value's exact representation (predicate arguments, see cell.xid)
)

// pdom is a container iterators range over: a node column, and the paths
// from its elements (elements of lists and sets, keys of maps).
type pdom struct {
	col   int
	elems []pelem
}

type pelem struct {
	fields []string
	needs  needs
}

// scope is a quantifier prefix and the atoms and properties over it.
type scope struct {
	quants   []pquant
	nslots   int
	nodeOnly bool // no iterator: the bindings depend only on the number of nodes
	atoms    []fatom
	props    []pprop
	// tri are the properties again, as the engine counts those of at
	// most three literals: a missing literal is atom zero, an index past
	// the atoms whose bitset the engine keeps all zeros, so that one
	// loop counts every such property.
	tri  []ptri
	zero int32
	// pairs are the pairs of atoms, lower first, that three-literal
	// properties combine: the engine counts the bindings where both
	// hold once for all the properties that share them (fast.derive).
	pairs [][2]int32
}

// ptri is a property of at most three literals: the atoms of its
// literals and a bit per negated one. atoms[0] < 0 marks a longer one.
type ptri struct {
	atoms [3]int32
	neg   uint8 // bit i: literal i is negated
}

// pquant is a node group (dom < 0) or an iterator.
type pquant struct {
	group []int32 // node slots
	slot  int32   // iterator slot
	owner int32   // node slot of the container
	dom   int32   // index in plan.doms; -1 for a node group
}

// pprop is a property of a scope.
type pprop struct {
	index    int      // in Program.Props
	lits     []int32  // atom of each literal
	xor      []uint64 // of each literal: all ones if it is negated
	patterns bool     // keep Stats.Patterns
	// pairs are, for three literals, the indexes in scope.pairs of the
	// atoms of literals 0 and 1, 0 and 2, 1 and 2.
	pairs [3]int32
}

// fatom is an atom over the slots of a scope.
type fatom struct {
	kind ir.Kind
	op   grammar.Op
	args []fop
	pred *specs.Predicate
	row  int32 // ≥ 0: the atom reads one node only; its index in plan.rowAtoms
	slot int32 // that node's slot

	cols  []int32 // node columns it reads
	slots []int32 // node slots it reads, for node-only scopes
}

// fop is an operand of an atom.
type fop struct {
	src   opSrc
	slot  int32 // opNode: node slot; opElem: iterator slot
	owner int32 // opElem: node slot of the container
	dom   int32 // opElem: index in plan.doms
	col   int32 // opNode: index in plan.cols; opElem: in the domain's elems; opConst: in plan.consts
}

type opSrc uint8

const (
	opConst opSrc = iota
	opNode
	opElem
)

func newPlan(prog *Program) *plan {
	b := planner{
		plan:   &plan{prog: prog},
		cols:   map[string]int{},
		doms:   map[int]int{},
		consts: map[string]int{},
		rows:   map[string]int{},
		scopes: map[string]*scope{},
		atoms:  map[*scope]map[string]int32{},
	}
	for i, p := range prog.Props {
		if !b.add(i, p) {
			b.plan.fallback = append(b.plan.fallback, i)
		}
	}
	for _, sc := range b.plan.scopes {
		sc.pack()
	}
	return b.plan
}

// pack moves the literals of the scope's properties into one array each,
// in property order: the engine reads them property after property. It
// also lists the pairs of atoms of the three-literal properties, and
// fills scope.tri.
func (sc *scope) pack() {
	pairs := map[[2]int32]int32{}
	for k := range sc.props {
		pp := &sc.props[k]
		if len(pp.lits) != 3 {
			continue
		}
		for n, ij := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			key := [2]int32{pp.lits[ij[0]], pp.lits[ij[1]]}
			if key[0] > key[1] {
				key[0], key[1] = key[1], key[0]
			}
			id, ok := pairs[key]
			if !ok {
				id = int32(len(sc.pairs))
				pairs[key] = id
				sc.pairs = append(sc.pairs, key)
			}
			pp.pairs[n] = id
		}
	}
	n := 0
	for _, pp := range sc.props {
		n += len(pp.lits)
	}
	lits, xor := make([]int32, 0, n), make([]uint64, 0, n)
	for k := range sc.props {
		pp := &sc.props[k]
		lits, xor = append(lits, pp.lits...), append(xor, pp.xor...)
		pp.lits, pp.xor = lits[len(lits)-len(pp.lits):len(lits):len(lits)], xor[len(xor)-len(pp.xor):len(xor):len(xor)]
	}
	sc.zero = int32(len(sc.atoms))
	sc.tri = make([]ptri, len(sc.props))
	for k, pp := range sc.props {
		t := &sc.tri[k]
		if len(pp.lits) > len(t.atoms) {
			t.atoms[0] = -1
			continue
		}
		t.atoms = [3]int32{sc.zero, sc.zero, sc.zero}
		for i, a := range pp.lits {
			t.atoms[i] = a
			if pp.xor[i] != 0 {
				t.neg |= 1 << i
			}
		}
	}
}

type planner struct {
	plan   *plan
	cols   map[string]int
	doms   map[int]int
	consts map[string]int
	rows   map[string]int
	scopes map[string]*scope
	atoms  map[*scope]map[string]int32
	key    []byte
}

// add places property i in its scope, or reports that it is evaluated
// binding by binding.
func (b *planner) add(i int, p *Prop) bool {
	if !p.Flat() || len(p.ir.Quants) == 0 {
		return false
	}
	// The scope's key, and the iterators by slot; the scope's quantifiers
	// are built only for a new scope. Most properties share a scope, so
	// this allocates nothing for them.
	var (
		kb    [64]byte
		key   = kb[:0]
		iters map[int32]pquant
	)
	for _, q := range p.ir.Quants {
		if q.Domain == nil {
			key = append(strconv.AppendInt(append(key, 'N'), int64(len(q.Slots)), 10), ';')
			continue
		}
		d := q.Domain
		if !d.Node {
			return false // an iterator over an element's container
		}
		col := b.column(d.Variable, d.Fields)
		dom, ok := b.doms[col]
		if !ok {
			dom = len(b.plan.doms)
			b.doms[col] = dom
			b.plan.doms = append(b.plan.doms, pdom{col: col})
		}
		pq := pquant{slot: int32(q.Slots[0]), owner: int32(d.Slot), dom: int32(dom)}
		if iters == nil {
			iters = map[int32]pquant{}
		}
		iters[pq.slot] = pq
		key = append(strconv.AppendInt(append(strconv.AppendInt(append(key, 'I'), int64(d.Slot), 10), ':'), int64(col), 10), ';')
	}
	sc, ok := b.scopes[string(key)]
	if !ok {
		var quants []pquant
		for _, q := range p.ir.Quants {
			if q.Domain == nil {
				g := make([]int32, len(q.Slots))
				for k, s := range q.Slots {
					g[k] = int32(s)
				}
				quants = append(quants, pquant{group: g, dom: -1})
			} else {
				quants = append(quants, iters[int32(q.Slots[0])])
			}
		}
		sc = &scope{quants: quants, nslots: len(p.ir.Vars), nodeOnly: len(iters) == 0}
		b.scopes[string(key)] = sc
		b.plan.scopes = append(b.plan.scopes, sc)
	}
	pp := pprop{index: i, patterns: len(p.ir.Lits) <= MaxPatternLiterals,
		lits: make([]int32, 0, len(p.ir.Lits)), xor: make([]uint64, 0, len(p.ir.Lits))}
	for _, l := range p.ir.Lits {
		a, neg := l.Atom, l.Neg
		if a.Kind == ir.Compare && a.Op == grammar.OpNe {
			// x != y is the negation of x == y (ir.Holds): the literals
			// of both share one atom, whose bitset is evaluated once and
			// negated as the literal asks. A pool holds both (n0.lead ==
			// n1.id and n0.lead != n1.id), and the atoms of ScaleSpec's
			// two-node scope fall from 124 to 83.
			a.Op, neg = grammar.OpEq, !neg
		}
		pp.lits = append(pp.lits, b.atom(sc, &a, iters))
		var x uint64
		if neg {
			x = ^x
		}
		pp.xor = append(pp.xor, x)
	}
	sc.props = append(sc.props, pp)
	return true
}

// column returns the index of the node path column variable.fields.
func (b *planner) column(variable int, fields []string) int {
	b.key = binary.AppendUvarint(b.key[:0], uint64(variable))
	for _, f := range fields {
		b.key = append(append(b.key, f...), 0)
	}
	c, ok := b.cols[string(b.key)]
	if ok {
		return c
	}
	key := string(b.key)
	if !ok {
		c = len(b.plan.cols)
		b.cols[key] = c
		b.plan.cols = append(b.plan.cols, pcol{variable: variable, fields: fields})
	}
	return c
}

func (b *planner) operand(o ir.Operand[any], iters map[int32]pquant) fop {
	x := o.Path
	switch {
	case x == nil:
		key := fmt.Sprintf("%T %v", o.Const, o.Const)
		c, ok := b.consts[key]
		if !ok {
			c = len(b.plan.consts)
			b.consts[key] = c
			b.plan.consts = append(b.plan.consts, o.Const)
		}
		return fop{src: opConst, col: int32(c)}
	case x.Node:
		return fop{src: opNode, slot: int32(x.Slot), col: int32(b.column(x.Variable, x.Fields))}
	}
	it := iters[int32(x.Slot)]
	d := &b.plan.doms[it.dom]
	e := slices.IndexFunc(d.elems, func(pe pelem) bool { return slices.Equal(pe.fields, x.Fields) })
	if e < 0 {
		e = len(d.elems)
		d.elems = append(d.elems, pelem{fields: x.Fields})
	}
	return fop{src: opElem, slot: it.slot, owner: it.owner, dom: it.dom, col: int32(e)}
}

// need records what the atoms ask of an operand's cells.
func (b *planner) need(o fop, n needs) {
	switch o.src {
	case opNode:
		b.plan.cols[o.col].needs |= n
	case opElem:
		b.plan.doms[o.dom].elems[o.col].needs |= n
	}
}

// atom returns the index of a in the scope's atoms, adding it if new.
func (b *planner) atom(sc *scope, a *ir.Atom[any], iters map[int32]pquant) int32 {
	fa := fatom{kind: a.Kind, op: a.Op, pred: a.Pred, row: -1, slot: -1}
	for _, o := range a.Args {
		fo := b.operand(o, iters)
		fa.args = append(fa.args, fo)
		if fo.src == opNode {
			if !slices.Contains(fa.cols, fo.col) {
				fa.cols = append(fa.cols, fo.col)
			}
			if !slices.Contains(fa.slots, fo.slot) {
				fa.slots = append(fa.slots, fo.slot)
			}
		}
	}
	switch a.Kind {
	case ir.In:
		b.need(fa.args[0], needID)
		b.need(fa.args[1], needMem)
	case ir.Subset:
		b.need(fa.args[0], needMem)
		b.need(fa.args[1], needMem)
	case ir.Call:
		for _, o := range fa.args {
			b.need(o, needExact)
		}
	}
	known := b.atoms[sc]
	if known == nil {
		known = map[string]int32{}
		b.atoms[sc] = known
	}
	b.key = appendAtomKey(b.key[:0], &fa)
	if k, ok := known[string(b.key)]; ok {
		return k
	}
	known[string(b.key)] = int32(len(sc.atoms))
	// An atom that reads one node only is a function of its state row.
	slot, single := int32(-1), true
	for _, o := range fa.args {
		switch {
		case o.src == opConst:
		case o.src == opNode && (slot < 0 || slot == o.slot):
			slot = o.slot
		default:
			single = false
		}
	}
	if single && slot >= 0 {
		ra := fa
		ra.args = make([]fop, len(fa.args))
		for k, o := range fa.args {
			if o.src == opNode {
				o.slot = 0
			}
			ra.args[k] = o
		}
		b.key = appendAtomKey(b.key[:0], &ra)
		r, ok := b.rows[string(b.key)]
		if !ok {
			r = len(b.plan.rowAtoms)
			b.rows[string(b.key)] = r
			b.plan.rowAtoms = append(b.plan.rowAtoms, ra)
		}
		fa.row, fa.slot = int32(r), slot
	}
	sc.atoms = append(sc.atoms, fa)
	return int32(len(sc.atoms) - 1)
}

// appendAtomKey appends a key that identifies a's evaluation.
func appendAtomKey(key []byte, a *fatom) []byte {
	key = append(key, byte(a.kind), byte(a.op))
	if a.pred != nil {
		key = append(append(key, a.pred.Name...), 0)
	}
	for _, o := range a.args {
		key = append(key, byte(o.src))
		for _, x := range [...]int32{o.slot, o.owner, o.dom, o.col} {
			key = binary.AppendVarint(key, int64(x))
		}
	}
	return key
}
