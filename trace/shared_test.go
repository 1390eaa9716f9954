package trace_test

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/trace"
)

// SharedValue decodes lists of numbers and strings without nulls to
// []int64, []uint64, []float64 and []string, and shares with the array
// the strings and lists of numbers that take share bytes or more;
// smaller ones are copies.
func TestSharedValue(t *testing.T) {
	const share = 1 << 10
	mem := memory.NewGoAllocator()
	ib := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int64)
	defer ib.Release()
	ivb := ib.ValueBuilder().(*array.Int64Builder)
	big := make([]int64, share/8)
	for i := range big {
		big[i] = int64(i)
	}
	ib.Append(true)
	ivb.AppendValues([]int64{1, -2}, nil) // row 0: small
	ib.Append(true)
	ivb.AppendValues(big, nil) // row 1: shared
	ib.Append(true)
	ivb.AppendValues([]int64{1, 0}, []bool{true, false}) // row 2: a null
	ib.AppendNull()                                      // row 3
	ib.Append(true)                                      // row 4: empty
	ints := ib.NewArray()
	defer ints.Release()

	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	sb.AppendValues([]string{"small", strings.Repeat("x", share)}, nil)
	strs := sb.NewArray()
	defer strs.Release()

	fb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Float64)
	defer fb.Release()
	fb.Append(true)
	fb.ValueBuilder().(*array.Float64Builder).AppendValues([]float64{0.5, -1}, nil)
	floats := fb.NewArray()
	defer floats.Release()

	ub := array.NewListBuilder(mem, arrow.PrimitiveTypes.Uint64)
	defer ub.Release()
	ub.Append(true)
	ub.ValueBuilder().(*array.Uint64Builder).AppendValues([]uint64{1 << 63}, nil)
	uints := ub.NewArray()
	defer uints.Release()

	lb := array.NewListBuilder(mem, arrow.BinaryTypes.String)
	defer lb.Release()
	lb.Append(true)
	lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"a", ""}, nil)
	lb.Append(true)
	lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"a", ""}, []bool{true, false})
	strLists := lb.NewArray()
	defer strLists.Release()

	tests := []struct {
		arr    arrow.Array
		row    int
		want   string // %#v, for small values
		shared bool
	}{
		{ints, 0, "[]int64{1, -2}", false},
		{ints, 1, "", true},
		{ints, 2, "[]interface {}{1, interface {}(nil)}", false},
		{ints, 3, "<nil>", false},
		{ints, 4, "[]int64{}", false},
		{strs, 0, `"small"`, false},
		{strs, 1, "", true},
		{floats, 0, "[]float64{0.5, -1}", false},
		{uints, 0, "[]uint64{0x8000000000000000}", false},
		{strLists, 0, `[]string{"a", ""}`, false},
		{strLists, 1, `[]interface {}{"a", interface {}(nil)}`, false},
	}
	for _, tt := range tests {
		v := trace.SharedValue(tt.arr, tt.row, share)
		if tt.want != "" {
			if got := fmt.Sprintf("%#v", v); got != tt.want {
				t.Errorf("%s row %d = %s, want %s", tt.arr.DataType(), tt.row, got, tt.want)
			}
		}
		var p unsafe.Pointer
		switch v := v.(type) {
		case []int64:
			p = unsafe.Pointer(unsafe.SliceData(v))
			if cap(v) != len(v) {
				t.Errorf("%s row %d: capacity %d beyond its length %d", tt.arr.DataType(), tt.row, cap(v), len(v))
			}
			if tt.shared && fmt.Sprint(v) != fmt.Sprint(big) {
				t.Errorf("%s row %d: %d values differ", tt.arr.DataType(), tt.row, len(v))
			}
		case string:
			p = unsafe.Pointer(unsafe.StringData(v))
		}
		if shared := p != nil && inBuffers(tt.arr.Data(), p); shared != tt.shared {
			t.Errorf("%s row %d: shared = %v, want %v", tt.arr.DataType(), tt.row, shared, tt.shared)
		}
	}
	if v := trace.Value(ints, 1); fmt.Sprintf("%T", v) != "[]interface {}" {
		t.Errorf("Value of a list of int64 is a %T", v)
	}
}

// inBuffers reports whether p points into a buffer of d or its children.
func inBuffers(d arrow.ArrayData, p unsafe.Pointer) bool {
	for _, b := range d.Buffers() {
		if b == nil || b.Len() == 0 {
			continue
		}
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(b.Bytes())))
		if lo <= uintptr(p) && uintptr(p) < lo+uintptr(b.Len()) {
			return true
		}
	}
	for _, c := range d.Children() {
		if inBuffers(c, p) {
			return true
		}
	}
	return false
}
