package trace

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A column holds the values of one column of states.arrow in the record
// batch being built. The scalar columns keep their values in Go slices
// grown from empty and a validity bitmap made at the first null, so that
// a column costs about what it holds: an Arrow builder reserves room for
// 32 values and a bitmap, 64-byte aligned, at its first value, over
// 1 KB with the builder itself, which a state of many variables of one
// value each paid per variable (collect of a million took 2.4 GB).
// Columns of nested types append to an Arrow builder.
type column interface {
	// append appends v, of the column's type as checkValue accepts it.
	append(v any)
	// newArray returns the values appended since the last call, and
	// starts over.
	newArray() arrow.Array
	release()
}

// newColumn returns an empty column of type t.
func newColumn(mem memory.Allocator, t arrow.DataType) column {
	switch t.ID() {
	case arrow.INT64:
		return &fixedColumn[int64]{dt: t, conv: toInt64}
	case arrow.UINT64:
		return &fixedColumn[uint64]{dt: t, conv: toUint64}
	case arrow.FLOAT64:
		return &fixedColumn[float64]{dt: t, conv: toFloat64}
	case arrow.BOOL:
		return &boolColumn{}
	case arrow.STRING:
		return &stringColumn{offsets: []int32{0}}
	}
	return &builderColumn{t: t, b: array.NewBuilder(mem, t)}
}

// validity is the validity bitmap of a column, nil while no value is
// null.
type validity struct {
	bits  []byte
	n     int // values
	nulls int
}

func (v *validity) add(valid bool) {
	if !valid && v.bits == nil {
		v.bits = make([]byte, bitutil.BytesForBits(int64(v.n+1)))
		for i := range v.n {
			bitutil.SetBit(v.bits, i)
		}
	}
	if v.bits != nil {
		if len(v.bits) < int(bitutil.BytesForBits(int64(v.n+1))) {
			v.bits = append(v.bits, 0)
		}
		if valid {
			bitutil.SetBit(v.bits, v.n)
		}
	}
	if !valid {
		v.nulls++
	}
	v.n++
}

// data returns the array data of the values and starts over. The
// bitmap is as long as an Arrow builder's would be, a bit for each of the
// 32 values it starts with or the power of two it grows to, since the
// IPC writer records a bitmap's length: the files stay the same bytes.
func (v *validity) data(t arrow.DataType, values ...*memory.Buffer) arrow.ArrayData {
	var bitmap *memory.Buffer
	if v.bits != nil {
		n := max(32, bitutil.NextPowerOf2(v.n)) / 8
		bitmap = memory.NewBufferBytes(append(v.bits, make([]byte, n-len(v.bits))...))
	}
	d := array.NewData(t, v.n, append([]*memory.Buffer{bitmap}, values...), nil, v.nulls, 0)
	*v = validity{}
	return d
}

// newArray returns the array of data d, released.
func newArray(d arrow.ArrayData) arrow.Array {
	defer d.Release()
	return array.MakeFromData(d)
}

// fixedColumn is a column of int64, uint64 or float64.
type fixedColumn[T int64 | uint64 | float64] struct {
	dt    arrow.DataType
	conv  func(any) (T, bool)
	vals  []T
	valid validity
}

func (c *fixedColumn[T]) append(v any) {
	x, _ := c.conv(v)
	c.vals = append(c.vals, x)
	c.valid.add(v != nil)
}

func (c *fixedColumn[T]) newArray() arrow.Array {
	vals := c.vals
	c.vals = nil
	return newArray(c.valid.data(c.dt, memory.NewBufferBytes(arrow.GetBytes(vals))))
}

func (c *fixedColumn[T]) release() {}

// boolColumn is a column of bool.
type boolColumn struct {
	bits  []byte
	valid validity
}

func (c *boolColumn) append(v any) {
	if len(c.bits) < int(bitutil.BytesForBits(int64(c.valid.n+1))) {
		c.bits = append(c.bits, 0)
	}
	if x, _ := v.(bool); x {
		bitutil.SetBit(c.bits, c.valid.n)
	}
	c.valid.add(v != nil)
}

func (c *boolColumn) newArray() arrow.Array {
	bits := c.bits
	c.bits = nil
	return newArray(c.valid.data(arrow.FixedWidthTypes.Boolean, memory.NewBufferBytes(bits)))
}

func (c *boolColumn) release() {}

// stringColumn is a column of utf8.
type stringColumn struct {
	offsets []int32
	bytes   []byte
	valid   validity
}

func (c *stringColumn) append(v any) {
	s, _ := v.(string)
	// Grown to a power of two, as a builder grows its buffer: append's
	// steps of a quarter would copy a huge string a few times over.
	if need := len(c.bytes) + len(s); need > cap(c.bytes) {
		c.bytes = slices.Grow(c.bytes, bitutil.NextPowerOf2(need)-len(c.bytes))
	}
	c.bytes = append(c.bytes, s...)
	c.offsets = append(c.offsets, int32(len(c.bytes)))
	c.valid.add(v != nil)
}

func (c *stringColumn) newArray() arrow.Array {
	offsets, bytes := c.offsets, c.bytes
	c.offsets, c.bytes = []int32{0}, nil
	return newArray(c.valid.data(arrow.BinaryTypes.String, memory.NewBufferBytes(arrow.GetBytes(offsets)), memory.NewBufferBytes(bytes)))
}

func (c *stringColumn) release() {}

// builderColumn is a column of a nested type, appended to an Arrow
// builder.
type builderColumn struct {
	t arrow.DataType
	b array.Builder
}

func (c *builderColumn) append(v any)          { appendValue(c.b, c.t, v) }
func (c *builderColumn) newArray() arrow.Array { return c.b.NewArray() }
func (c *builderColumn) release()              { c.b.Release() }
