package arrowsink

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// appender appends the values of a state, as collector.State.Visit
// passes them, to the column builders of a record batch: the builder of
// each value follows from the containers open around it. It allocates
// nothing once its frames have grown.
type appender struct {
	cols   []array.Builder // the state variables' builders, in column order
	col    int             // the next of cols
	frames []frame         // containers being filled, innermost last
}

// frame is a container being filled.
type frame struct {
	b       array.Builder        // a list's values, a map's items; nil for a struct
	sb      *array.StructBuilder // a struct, whose fields take the members in order
	kb      *array.StringBuilder // a map's keys
	next, n int                  // members put, of n
}

// reset starts a state whose variables go to cols.
func (a *appender) reset(cols []array.Builder) {
	a.cols, a.col, a.frames = cols, 0, a.frames[:0]
}

// target returns the builder of the next value.
func (a *appender) target() array.Builder {
	if len(a.frames) == 0 {
		return a.cols[a.col]
	}
	f := &a.frames[len(a.frames)-1]
	if f.sb != nil {
		return f.sb.FieldBuilder(f.next)
	}
	return f.b
}

// done counts a value just put, and the containers it completes.
func (a *appender) done() {
	for len(a.frames) > 0 {
		f := &a.frames[len(a.frames)-1]
		f.next++
		if f.next < f.n {
			return
		}
		a.frames = a.frames[:len(a.frames)-1]
	}
	a.col++
}

// open starts a container whose members follow; an empty one is done.
func (a *appender) open(f frame) {
	if f.n == 0 {
		a.done()
		return
	}
	a.frames = append(a.frames, f)
}

// The methods of collector.Visitor.

func (a *appender) Null() {
	a.target().AppendNull()
	a.done()
}

func (a *appender) Bool(v bool) {
	a.target().(*array.BooleanBuilder).Append(v)
	a.done()
}

func (a *appender) Int(v int64) {
	a.target().(*array.Int64Builder).Append(v)
	a.done()
}

func (a *appender) Uint(v uint64) {
	a.target().(*array.Uint64Builder).Append(v)
	a.done()
}

func (a *appender) Float(v float64) {
	a.target().(*array.Float64Builder).Append(v)
	a.done()
}

func (a *appender) String(v string) {
	a.target().(*array.StringBuilder).Append(v)
	a.done()
}

func (a *appender) List(n int) {
	lb := a.target().(*array.ListBuilder)
	lb.Append(true)
	a.open(frame{b: lb.ValueBuilder(), n: n})
}

// Map starts a map or a struct, as the builder's type says.
func (a *appender) Map(n int) {
	switch b := a.target().(type) {
	case *array.MapBuilder:
		b.Append(true)
		a.open(frame{b: b.ItemBuilder(), kb: b.KeyBuilder().(*array.StringBuilder), n: n})
	case *array.StructBuilder:
		b.Append(true)
		a.open(frame{sb: b, n: n})
	default:
		panic(fmt.Sprintf("arrowsink: a map or struct value for a %T", b))
	}
}

// Key appends a map's key; a struct's fields are taken in order.
func (a *appender) Key(k string) {
	if f := &a.frames[len(a.frames)-1]; f.kb != nil {
		f.kb.Append(k)
	}
}
