package ipcfile

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// file writes one batch of rows of a single column of type t, built by
// fill, as an Arrow IPC file.
func file(t *testing.T, typ arrow.DataType, fill func(b array.Builder), opts ...ipc.Option) []byte {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: typ, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	fill(b.Field(0))
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, append([]ipc.Option{ipc.WithSchema(schema)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func open(data []byte, opts Options) (*File, error) {
	return Open("x.arrow", bytes.NewReader(data), int64(len(data)), opts)
}

func TestRoundTrip(t *testing.T) {
	typ := arrow.ListOf(arrow.StructOf(
		arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64), Nullable: true},
	))
	fill := func(b array.Builder) {
		lb := b.(*array.ListBuilder)
		sb := lb.ValueBuilder().(*array.StructBuilder)
		for i := range 5 {
			lb.Append(true)
			for range i {
				sb.Append(true)
				sb.FieldBuilder(0).(*array.StringBuilder).Append("v")
				mb := sb.FieldBuilder(1).(*array.MapBuilder)
				mb.Append(true)
				mb.KeyBuilder().(*array.StringBuilder).Append("k")
				mb.ItemBuilder().(*array.Float64Builder).Append(float64(i))
			}
		}
		lb.AppendNull()
	}
	for _, opts := range [][]ipc.Option{nil, {ipc.WithZstd()}, {ipc.WithLZ4()}} {
		f, err := open(file(t, typ, fill, opts...), Options{Compressed: true})
		if err != nil {
			t.Fatal(err)
		}
		if f.NumBatches() != 1 || f.BatchRows(0) != 6 {
			t.Errorf("%d batches, %d rows", f.NumBatches(), f.BatchRows(0))
		}
		rec, err := f.Batch(0)
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.Column(0).(*array.List).ListValues().Len(); got != 10 || rec.Column(0).NullN() != 1 {
			t.Errorf("%d elements, %d nulls", got, rec.Column(0).NullN())
		}
		rec.Release()
		f.Close()
	}
}

func TestRefused(t *testing.T) {
	ints := func(b array.Builder) { b.(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil) }
	tests := []struct {
		name string
		data []byte
		opts Options
		want string
	}{
		{"compressed", file(t, arrow.PrimitiveTypes.Int64, ints, ipc.WithZstd()), Options{}, "record batch 0 is compressed; compression is not part of this format"},
		{"timestamp", file(t, arrow.FixedWidthTypes.Timestamp_s, func(b array.Builder) { b.AppendNull() }), Options{}, "a field of type Timestamp, which is not part of this format"},
		{"dictionary", file(t, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String},
			func(b array.Builder) { b.(*array.BinaryDictionaryBuilder).AppendString("a") }), Options{}, "dictionary"},
		{"too deep", file(t, arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int64)), func(b array.Builder) { b.AppendNull() }), Options{MaxDepth: 2}, "types nest more than 2 deep"},
		{"empty", nil, Options{}, "not an Arrow IPC file"},
		{"no magic", append([]byte("ARROW0\x00\x00"), make([]byte, 40)...), Options{}, "no ARROW1 magic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := open(tt.data, tt.opts)
			var fe *Error
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "x.arrow: ") {
				t.Fatalf("error = %v, want an *Error naming x.arrow with %q", err, tt.want)
			}
		})
	}
}
