package collector

import (
	"reflect"
	"testing"
)

// valueBuilder is a Visitor that builds the values State.Values returns.
type valueBuilder struct {
	out   []any
	stack []*frame
}

type frame struct {
	list []any
	m    map[string]any
	key  string
	left int
}

func (b *valueBuilder) put(v any) {
	if len(b.stack) == 0 {
		b.out = append(b.out, v)
	} else {
		f := b.stack[len(b.stack)-1]
		if f.m != nil {
			f.m[f.key] = v
		} else {
			f.list[len(f.list)-f.left] = v
		}
		f.left--
	}
	for len(b.stack) > 0 && b.stack[len(b.stack)-1].left == 0 {
		b.stack = b.stack[:len(b.stack)-1]
	}
}

func (b *valueBuilder) Null()           { b.put(nil) }
func (b *valueBuilder) Bool(v bool)     { b.put(v) }
func (b *valueBuilder) Int(v int64)     { b.put(v) }
func (b *valueBuilder) Uint(v uint64)   { b.put(v) }
func (b *valueBuilder) Float(v float64) { b.put(v) }
func (b *valueBuilder) String(v string) { b.put(v) }
func (b *valueBuilder) Key(k string)    { b.stack[len(b.stack)-1].key = k }

func (b *valueBuilder) List(n int) {
	f := &frame{list: make([]any, n), left: n}
	b.put(f.list)
	if n > 0 {
		b.stack = append(b.stack, f)
	}
}

func (b *valueBuilder) Map(n int) {
	f := &frame{m: make(map[string]any, n), left: n}
	b.put(f.m)
	if n > 0 {
		b.stack = append(b.stack, f)
	}
}

func TestVisitState(t *testing.T) {
	st := newRichState()
	v, p, err := stateValue(st)
	if err != nil {
		t.Fatal(err)
	}
	want := State{p, v}.Values()
	schema, err := SchemaOf(reflect.TypeOf(st))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(schema, p.schema) {
		t.Errorf("SchemaOf = %v, want %v", schema, p.schema)
	}
	all := make([]int, len(schema))
	for i := range all {
		all[i] = i
	}
	var b valueBuilder
	if err := VisitState(st, all, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.out, want) {
		t.Errorf("visited\n%v\nwant\n%v", b.out, want)
	}

	// A selection, in its order.
	b = valueBuilder{}
	if err := VisitState(*st, []int{7, 1}, &b); err != nil {
		t.Fatal(err)
	}
	if want := []any{want[7], want[1]}; !reflect.DeepEqual(b.out, want) {
		t.Errorf("visited %v, want %v", b.out, want)
	}
}

func TestVisitStateErrors(t *testing.T) {
	tests := []struct {
		name  string
		state any
		vars  []int
		msg   string
	}{
		{"nil", nil, nil, "collector: cannot expose a nil state"},
		{"nil pointer", (*richState)(nil), nil, "collector: cannot expose a nil *collector.richState"},
		{"not a struct", 3, nil, "collector: cannot expose int: a state must be a struct or a pointer to one (its fields are the state variables)"},
		{"out of range", &richState{}, []int{40}, "collector: collector.richState has no state variable 40 (it has 18)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VisitState(tt.state, tt.vars, &valueBuilder{})
			if err == nil || err.Error() != tt.msg {
				t.Errorf("VisitState error = %v, want %s", err, tt.msg)
			}
		})
	}
	if _, err := SchemaOf(reflect.TypeFor[chan int]()); err == nil {
		t.Error("SchemaOf(chan int) did not fail")
	}
	if _, err := SchemaOf(nil); err == nil {
		t.Error("SchemaOf(nil) did not fail")
	}
}

// countVisitor counts what it is given, allocating nothing.
type countVisitor struct{ n int }

func (c *countVisitor) Null()         { c.n++ }
func (c *countVisitor) Bool(bool)     { c.n++ }
func (c *countVisitor) Int(int64)     { c.n++ }
func (c *countVisitor) Uint(uint64)   { c.n++ }
func (c *countVisitor) Float(float64) { c.n++ }
func (c *countVisitor) String(string) { c.n++ }
func (c *countVisitor) List(int)      { c.n++ }
func (c *countVisitor) Map(int)       { c.n++ }
func (c *countVisitor) Key(string)    {}

// TestVisitStateAllocs pins VisitState at no allocation for a pointer
// to a struct without []byte, maps and String fields.
func TestVisitStateAllocs(t *testing.T) {
	st := newRichState()
	st.Log[1].Cmd = "valid" // invalid UTF-8 is replaced, in a new string
	// All but role, match, labels, hash and raw.
	vars := []int{0, 1, 3, 4, 5, 6, 7, 8, 11, 12, 15, 16, 17}
	c := &countVisitor{}
	allocs := testing.AllocsPerRun(100, func() {
		if err := VisitState(st, vars, c); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("VisitState: %v allocations per call, want 0", allocs)
	}
}
