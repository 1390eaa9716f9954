package trace

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// MaxLens returns the length of the longest container at each place of
// the state variables' types, over every state of the trace, so that the
// work of a property can be bounded before it is evaluated. A place is
// named by its column, then ".field" for a struct field, ".*" for the
// values of a map and "[]" for the elements of a list: "peers",
// "log[].acks", "inflight.*". Places that hold no container are absent.
// The lengths are read from the Arrow offsets, once, without decoding
// values.
func (t *Trace) MaxLens() (map[string]int, error) {
	t.lensOnce.Do(func() {
		lens := map[string]int{}
		for b := range t.states.f.NumBatches() {
			rec, _, err := t.states.shared(b)
			if err != nil {
				t.lensErr = err
				return
			}
			for c := 2; c < int(rec.NumCols()); c++ {
				maxLens(lens, rec.ColumnName(c), rec.Column(c))
			}
			rec.Release()
		}
		t.lens = lens
	})
	return t.lens, t.lensErr
}

// maxLens records in lens the longest container of arr at place and
// below.
func maxLens(lens map[string]int, place string, arr arrow.Array) {
	switch a := arr.(type) {
	case *array.Map:
		longest(lens, place, a.Offsets())
		maxLens(lens, place+".*", a.Items())
	case *array.List:
		longest(lens, place, a.Offsets())
		maxLens(lens, place+"[]", a.ListValues())
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		for i := range a.NumField() {
			maxLens(lens, place+"."+st.Field(i).Name, a.Field(i))
		}
	}
}

// longest records in lens[place] the longest of the lists with offsets
// off; a decreasing pair, which only a damaged file has, counts as none.
func longest(lens map[string]int, place string, off []int32) {
	n := lens[place]
	for i := 1; i < len(off); i++ {
		n = max(n, int(off[i]-off[i-1]))
	}
	lens[place] = n
}
