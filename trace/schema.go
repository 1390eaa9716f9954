package trace

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Column is one state variable of a trace: a column of states.arrow.
type Column struct {
	Name string
	Type arrow.DataType
}

// Schema lists the state variables of a trace in column order. The node
// and ts columns are not part of it.
type Schema []Column

// Index returns the position of the named column, or -1.
func (s Schema) Index(name string) int {
	return slices.IndexFunc(s, func(c Column) bool { return c.Name == name })
}

// CheckType reports whether t can hold a state variable: bool, int64,
// uint64, float64, utf8, list<T>, struct or map<utf8,T>, nested at most
// MaxDepth deep (a map's items are two levels below it, as Arrow stores
// them).
func CheckType(t arrow.DataType) error {
	return checkType(t, 1)
}

func checkType(t arrow.DataType, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("type nests more than %d deep", MaxDepth)
	}
	switch t := t.(type) {
	case *arrow.BooleanType, *arrow.Int64Type, *arrow.Uint64Type, *arrow.Float64Type, *arrow.StringType:
		return nil
	case *arrow.ListType:
		return checkType(t.Elem(), depth+1)
	case *arrow.StructType:
		seen := map[string]bool{}
		for _, f := range t.Fields() {
			if f.Name == "" || seen[f.Name] {
				return fmt.Errorf("struct field name %q is empty or repeated", f.Name)
			}
			seen[f.Name] = true
			if err := checkType(f.Type, depth+1); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
		return nil
	case *arrow.MapType:
		if t.KeyType().ID() != arrow.STRING {
			return fmt.Errorf("map key type %s is not utf8", t.KeyType())
		}
		return checkType(t.ItemType(), depth+2)
	}
	return fmt.Errorf("unsupported type %s", t)
}

// Value decodes row i of arr into the Go representation documented in the
// package comment. The result does not share memory with arr.
func Value(arr arrow.Array, i int) any {
	return decode(arr, i, math.MaxInt, false)
}

// SharedValue decodes row i of arr for [Writer.AddState], copying less
// than Value: a list of int64, uint64, float64 or utf8 without nulls is a
// []int64, []uint64, []float64 or []string (8 bytes a number, where
// Value's []any takes 24), and such a list of numbers or a string of at
// least share bytes (see [ShareFrom]) is not copied but shares arr's
// memory, which it keeps alive. That memory must be Go's (arrow's memory.GoAllocator), which
// nothing else frees or reuses.
func SharedValue(arr arrow.Array, i, share int) any {
	return decode(arr, i, share, true)
}

// ShareFrom returns the share for SharedValue of the values of rec: a
// quarter of its buffers' bytes, and at least 64 KiB. A value shared
// with rec keeps it alive, at most four times the value's size; a huge
// one is then held once, not copied.
func ShareFrom(rec arrow.RecordBatch) int {
	return max(minShared, batchSize(rec)/4)
}

// decode is Value, except that a string of at least share bytes is not
// copied: it shares the memory of arr, which it keeps alive; and so, if
// typed, is SharedValue.
func decode(arr arrow.Array, i, share int, typed bool) any {
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Uint64:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return cloneBelow(a.Value(i), share)
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Uint32:
		return uint64(a.Value(i))
	case *array.Float32:
		return float64(a.Value(i))
	case *array.LargeString:
		return cloneBelow(a.Value(i), share)
	case *array.Map:
		lo, hi := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		m := make(map[string]any, hi-lo)
		for j := lo; j < hi; j++ {
			m[fmt.Sprint(decode(keys, int(j), share, typed))] = decode(items, int(j), share, typed)
		}
		return m
	case array.ListLike:
		lo, hi := a.ValueOffsets(i)
		elems := a.ListValues()
		if typed {
			if l := scalars(elems, int(lo), int(hi), share); l != nil {
				return l
			}
		}
		l := make([]any, 0, hi-lo)
		for j := lo; j < hi; j++ {
			l = append(l, decode(elems, int(j), share, typed))
		}
		return l
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		m := make(map[string]any, a.NumField())
		for f := range a.NumField() {
			m[st.Field(f).Name] = decode(a.Field(f), i, share, typed)
		}
		return m
	}
	panic(fmt.Sprintf("trace: cannot decode %s", arr.DataType()))
}

// scalars returns elements lo to hi of elems as a []int64, []uint64 or
// []float64, shared with elems if they take at least share bytes, or as
// a []string whose strings are shared as decode shares them; nil if
// elems holds other values or nulls there.
func scalars(elems arrow.Array, lo, hi, share int) any {
	if elems.NullN() > 0 {
		for j := lo; j < hi; j++ {
			if elems.IsNull(j) {
				return nil
			}
		}
	}
	switch e := elems.(type) {
	case *array.Int64:
		return shareBelow(e.Int64Values()[lo:hi], share)
	case *array.Uint64:
		return shareBelow(e.Uint64Values()[lo:hi], share)
	case *array.Float64:
		return shareBelow(e.Float64Values()[lo:hi], share)
	case *array.String:
		l := make([]string, hi-lo)
		for j := range l {
			l[j] = cloneBelow(e.Value(lo+j), share)
		}
		return l
	}
	return nil
}

// shareBelow returns l, copied if it takes less than share bytes; its
// capacity is its length, so that an append does not write into the
// memory it shares.
func shareBelow[T int64 | uint64 | float64](l []T, share int) []T {
	if 8*len(l) >= share {
		return l[:len(l):len(l)]
	}
	return append(make([]T, 0, len(l)), l...)
}

// cloneBelow returns s, copied if it is shorter than share bytes.
func cloneBelow(s string, share int) string {
	if len(s) >= share {
		return s
	}
	return strings.Clone(s)
}

// checkValue reports whether v can be stored in a column of type t, and
// returns about the bytes it takes in a record batch: 8 for a number or a
// boolean, a string's bytes, a container's members with 4 more each for
// its offsets (a map's keys counted as strings). The size bounds batches
// (Writer.AddState), so it need not be exact. The error names the
// offending part of v, as in "[3].term: want int64, got string".
func checkValue(t arrow.DataType, v any) (int, error) {
	if v == nil {
		return 0, nil
	}
	ok, size := true, 8
	switch t := t.(type) {
	case *arrow.BooleanType:
		_, ok = v.(bool)
	case *arrow.Int64Type:
		_, ok = toInt64(v)
	case *arrow.Uint64Type:
		_, ok = toUint64(v)
	case *arrow.Float64Type:
		_, ok = toFloat64(v)
	case *arrow.StringType:
		var s string
		s, ok = v.(string)
		size = len(s) + 4
	case *arrow.ListType:
		switch l := v.(type) {
		case []int64, []uint64, []float64, []string:
			if want := sliceElem(v); !arrow.TypeEqual(t.Elem(), want) {
				return 0, fmt.Errorf("[0]: want %s, got %s", t.Elem(), want)
			}
			return typedBytes(l), nil
		}
		l, isList := v.([]any)
		if !isList {
			return 0, typeError(v, "list")
		}
		size = 0
		for i, e := range l {
			n, err := checkValue(t.Elem(), e)
			if err != nil {
				return 0, fmt.Errorf("[%d]%w", i, err)
			}
			size += n + 4
		}
	case *arrow.MapType:
		m, isMap := v.(map[string]any)
		if !isMap {
			return 0, typeError(v, "map")
		}
		size = 0
		for _, k := range slices.Sorted(maps.Keys(m)) {
			n, err := checkValue(t.ItemType(), m[k])
			if err != nil {
				return 0, fmt.Errorf("[%q]%w", k, err)
			}
			size += len(k) + 8 + n
		}
	case *arrow.StructType:
		m, isMap := v.(map[string]any)
		if !isMap {
			return 0, typeError(v, "object")
		}
		size = 0
		for _, k := range slices.Sorted(maps.Keys(m)) {
			i, found := t.FieldIdx(k)
			if !found {
				return 0, fmt.Errorf(".%s: no such field in %s", k, t)
			}
			n, err := checkValue(t.Field(i).Type, m[k])
			if err != nil {
				return 0, fmt.Errorf(".%s%w", k, err)
			}
			size += n
		}
	default:
		return 0, fmt.Errorf(": unsupported column type %s", t)
	}
	if !ok {
		return 0, typeError(v, t.String())
	}
	return size, nil
}

// typedBytes is checkValue's size of a typed list: 8 bytes an element
// and 4 for its offset, or a string's bytes and 8.
func typedBytes(l any) int {
	switch l := l.(type) {
	case []int64:
		return 12 * len(l)
	case []uint64:
		return 12 * len(l)
	case []float64:
		return 12 * len(l)
	case []string:
		n := 0
		for _, e := range l {
			n += len(e) + 8
		}
		return n
	}
	return 0
}

// appendValue appends v, already accepted by checkValue as a value of
// type t, to b, a builder of t. The type comes from the schema because
// StructBuilder.Type builds a new type on every call.
func appendValue(b array.Builder, t arrow.DataType, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(v.(bool))
	case *array.Int64Builder:
		x, _ := toInt64(v)
		b.Append(x)
	case *array.Uint64Builder:
		x, _ := toUint64(v)
		b.Append(x)
	case *array.Float64Builder:
		x, _ := toFloat64(v)
		b.Append(x)
	case *array.StringBuilder:
		b.Append(v.(string))
	case *array.MapBuilder:
		m := v.(map[string]any)
		b.Append(true)
		kb, ib := b.KeyBuilder().(*array.StringBuilder), b.ItemBuilder()
		for _, k := range slices.Sorted(maps.Keys(m)) {
			kb.Append(k)
			appendValue(ib, t.(*arrow.MapType).ItemType(), m[k])
		}
	case *array.ListBuilder:
		b.Append(true)
		switch l := v.(type) {
		case []int64:
			b.ValueBuilder().(*array.Int64Builder).AppendValues(l, nil)
		case []uint64:
			b.ValueBuilder().(*array.Uint64Builder).AppendValues(l, nil)
		case []float64:
			b.ValueBuilder().(*array.Float64Builder).AppendValues(l, nil)
		case []string:
			appendStrings(b.ValueBuilder().(*array.StringBuilder), l)
		default:
			for _, e := range v.([]any) {
				appendValue(b.ValueBuilder(), t.(*arrow.ListType).Elem(), e)
			}
		}
	case *array.StructBuilder:
		m := v.(map[string]any)
		st := t.(*arrow.StructType)
		b.Append(true)
		for f := range b.NumField() {
			appendValue(b.FieldBuilder(f), st.Field(f).Type, m[st.Field(f).Name])
		}
	default:
		panic(fmt.Sprintf("trace: append to %s", b.Type()))
	}
}

// appendStrings appends l to b one by one, which grows b's buffer by
// doubling: b.AppendValues reserves exactly the bytes l needs, so that
// appending many short lists (tags to each snapshot, a list of lists)
// copied the buffer each time.
func appendStrings(b *array.StringBuilder, l []string) {
	for _, s := range l {
		b.Append(s)
	}
}

func typeError(v any, want string) error {
	return fmt.Errorf(": want %s, got %s", want, KindOf(v))
}

// KindOf names the kind of a decoded value, for error messages.
func KindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case int, int64, uint64:
		return "integer"
	case float64:
		return "number"
	case string:
		return "string"
	case []any, []int64, []uint64, []float64, []string:
		return "list"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// sliceElem is the element type of v, a []int64, []uint64, []float64
// or []string.
func sliceElem(v any) arrow.DataType {
	switch v.(type) {
	case []int64:
		return arrow.PrimitiveTypes.Int64
	case []uint64:
		return arrow.PrimitiveTypes.Uint64
	case []float64:
		return arrow.PrimitiveTypes.Float64
	}
	return arrow.BinaryTypes.String
}

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case uint64:
		return int64(x), x <= math.MaxInt64
	}
	return 0, false
}

func toUint64(v any) (uint64, bool) {
	switch x := v.(type) {
	case uint64:
		return x, true
	case int64:
		return uint64(x), x >= 0
	case int:
		return uint64(x), x >= 0
	}
	return 0, false
}

func toFloat64(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}
