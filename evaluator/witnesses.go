package evaluator

import (
	"github.com/augur-dev/augur/ir"
	"github.com/augur-dev/augur/trace"
)

// A witnessLog holds the witnesses of one property in little memory. A
// witness's binding and values are two maps, some 700 bytes for a few
// variables, and a run keeps up to Options.MaxWitnesses of them for
// every property that fails, while a report shows those of a few dozen:
// they were a third of the live heap of augur infer over a three-literal
// pool. The log keeps, of each witness, the values its maps would hold,
// a word pair each, and builds the witness when asked (Stats.Witnesses).
// A witness with a value it keeps only in part (ir.Fits) is built at
// once, since the part is a copy and the log must not hold the whole.
//
// An engine adds a witness as pending, with the binding slots of a
// snapshot of the chunk (node states and elements); Run logs the pending
// ones it keeps at the end of the chunk, while the chunk's states live.
type witnessLog struct {
	prop *Prop // whose witnesses these are; nil when all are built
	ws   []loggedWitness
	vals []any // the values of the logged witnesses, in turn
	// slots are the binding slots of the pending witnesses, in turn;
	// nil when none is pending.
	slots []any
}

// A loggedWitness is one witness of a witnessLog.
type loggedWitness struct {
	id, ts uint64
	// snap is the snapshot of a pending witness, whose slots are at
	// off:off+n of the log's; nil once logged, and its values there in
	// vals (the binding's, then the paths' of its prop).
	snap   *trace.Snapshot
	off, n int32
	built  *Witness // built already: a witness it keeps a value of in part, or one given to SetWitnesses
}

// addWitness records the witness at binding slots of snapshot snap as
// pending, one of at most max.
func (s *Stats) addWitness(snap *trace.Snapshot, slots []any, max int) {
	l := s.wits
	if l == nil {
		l = &witnessLog{ws: make([]loggedWitness, 0, max)}
		s.wits = l
	}
	if l.slots == nil { // room for every pending witness the chunk may take
		l.slots = make([]any, 0, (max-len(l.ws))*len(slots))
	}
	l.ws = append(l.ws, loggedWitness{id: snap.ID, ts: snap.TS, snap: snap, off: int32(len(l.slots)), n: int32(len(slots))})
	l.slots = append(l.slots, slots...)
}

// NumWitnesses returns the number of witnesses recorded so far, pending
// or not: those Witnesses returns once the run has logged them, without
// building them.
func (s *Stats) NumWitnesses() int {
	if s.wits == nil {
		return 0
	}
	return len(s.wits.ws)
}

// pending reports whether s has witnesses pending.
func (s *Stats) pending() bool {
	l := s.wits
	return l != nil && len(l.ws) > 0 && l.ws[len(l.ws)-1].snap != nil
}

// logWitnesses logs the pending witnesses of property p that keep at
// most max in all, and drops the others. The states of their snapshots'
// chunk must still be there.
func (s *Stats) logWitnesses(p *Prop, max int) {
	l := s.wits
	if l == nil {
		return
	}
	bound := p.ir.Bound()
	nvals := bound
	for _, x := range p.ir.Paths {
		if x.Slot < bound {
			nvals++
		}
	}
	l.prop = p
	kept := len(l.ws)
	for i := range l.ws {
		w := &l.ws[i]
		if w.snap == nil {
			continue
		}
		if i >= max {
			kept = min(kept, i)
			break
		}
		slots := l.slots[w.off : w.off+w.n]
		off := len(l.vals)
		if cap(l.vals)-off < nvals { // grown to size, not doubled: most logs take one to three
			l.vals = append(make([]any, 0, off+nvals), l.vals...)
		}
		for k := range bound {
			if n, ok := slots[k].(*nodeState); ok {
				l.vals = append(l.vals, n.name)
			} else {
				l.vals = append(l.vals, slots[k])
			}
		}
		for _, x := range p.ir.Paths {
			if x.Slot < bound {
				l.vals = append(l.vals, readPath(slots, x))
			}
		}
		whole := true
		for _, v := range l.vals[off:] {
			if !ir.Fits(v) {
				whole = false
				break
			}
		}
		if !whole {
			clear(l.vals[off:])
			l.vals = l.vals[:off]
			b := witness(p, w.snap, slots)
			w.built = &b
		}
		w.snap, w.off, w.n = nil, int32(off), int32(len(l.vals)-off)
	}
	clear(l.ws[kept:])
	l.ws = l.ws[:kept]
	// Most properties take no witness in most chunks: the buffer goes,
	// and the next chunk's first pending witness makes one.
	l.slots = nil
}

// Witnesses returns the first violations, in snapshot order, built
// anew at each call: those a run kept (Options.MaxWitnesses) or that
// SetWitnesses gave. It returns nil if there are none.
func (s *Stats) Witnesses() []Witness {
	l := s.wits
	if l == nil || len(l.ws) == 0 {
		return nil
	}
	ws := make([]Witness, len(l.ws))
	for i, lw := range l.ws {
		if lw.built != nil {
			ws[i] = *lw.built
			continue
		}
		w := ir.NewWitness(lw.id, lw.ts)
		p := l.prop
		vals := l.vals[lw.off : lw.off+lw.n]
		bound := p.ir.Bound()
		for k, name := range p.ir.Vars[:bound] {
			w.Bind(name, vals[k])
		}
		k := bound
		for _, x := range p.ir.Paths {
			if x.Slot < bound {
				w.SetValue(x.Text, vals[k])
				k++
			}
		}
		ws[i] = w
	}
	return ws
}

// SetWitnesses sets the witnesses Witnesses returns to ws, in snapshot
// order: those of stats read from a file or merged. s keeps ws, which the
// caller leaves as it is.
func (s *Stats) SetWitnesses(ws []Witness) {
	if len(ws) == 0 {
		s.wits = nil
		return
	}
	l := &witnessLog{ws: make([]loggedWitness, len(ws))}
	for i := range ws {
		l.ws[i] = loggedWitness{id: ws[i].Snapshot, ts: ws[i].TS, built: &ws[i]}
	}
	s.wits = l
}
