package ingest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/trace"
)

func TestLocalDecoder(t *testing.T) {
	schema := trace.Schema{
		{Name: "role", Type: arrow.BinaryTypes.String},
		{Name: "term", Type: arrow.PrimitiveTypes.Int64},
	}
	d, err := NewLocalDecoder(schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Decode("push", 3, []byte(`{"node": "n1", "ts": 7, "state": {"term": 2}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Node != "n1" || r.TS != 7 || r.Event != collector.EventState || r.Vars[0] != nil || r.Vars[1] != int64(2) {
		t.Errorf("got %+v", r)
	}
	r, err = d.Decode("push", 4, []byte(`{"node": "n1", "ts": 8, "leave": true}`))
	if err != nil || r.Event != collector.EventLeave || r.Vars != nil {
		t.Errorf("got %+v, %v", r, err)
	}
	if r, err := d.Decode("push", 5, []byte("  \t")); r != nil || err != nil {
		t.Errorf("blank line: got %+v, %v", r, err)
	}
	for _, tt := range []struct{ line, want string }{
		{`{"node": "n1", "ts": 9, "state": {"term": "x"}}`, `push:6: node n1: state.term: string, but the schema's type is int64`},
		{`{"node": "n1", "ts": 9, "state": {"vote": "n2"}}`, `push:6: node n1: state.vote: no such state variable in the schema`},
		{`{"node": "n1", "ts": 9`, `push:6:23: malformed JSON: line ends inside a value`},
		{`{"node": "n1", "ts": -1, "heartbeat": true}`, `push:6: node n1: ts: `},
	} {
		_, err := d.Decode("push", 6, []byte(tt.line))
		var e *Error
		if !errors.As(err, &e) || len(err.Error()) < len(tt.want) || err.Error()[:len(tt.want)] != tt.want {
			t.Errorf("Decode(%s) = %v, want %s…", tt.line, err, tt.want)
		}
	}
}

// TestLocalDecoderCheckValue: a value the check refuses makes the record
// bad, naming the field, with the check's error underneath.
func TestLocalDecoderCheckValue(t *testing.T) {
	schema := trace.Schema{
		{Name: "role", Type: arrow.BinaryTypes.String},
		{Name: "term", Type: arrow.PrimitiveTypes.Int64},
	}
	errBoss := errors.New(`"boss" is not a role`)
	d, err := NewLocalDecoder(schema, func(col int, v any) error {
		if col == 0 && v == "boss" {
			return errBoss
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Decode("push", 1, []byte(`{"node": "n1", "ts": 1, "state": {"role": "leader", "term": 2}}`)); err != nil {
		t.Fatalf("a value the check takes: %v", err)
	}
	_, err = d.Decode("push", 2, []byte(`{"node": "n1", "ts": 2, "state": {"role": "boss", "term": 2}}`))
	const want = `push:2: node n1: state.role: "boss" is not a role`
	if err == nil || err.Error() != want || !errors.Is(err, errBoss) {
		t.Errorf("Decode = %v, want %s wrapping the check's error", err, want)
	}
}

// The lists of numbers that parseLine reads as []int64 or []float64 come
// out of a decoder as package trace reads lists back, []any, at any depth.
func TestLocalDecoderNumberLists(t *testing.T) {
	schema := trace.Schema{
		{Name: "log", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)},
		{Name: "acks", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.ListOf(arrow.PrimitiveTypes.Float64))},
		{Name: "big", Type: arrow.ListOf(arrow.PrimitiveTypes.Uint64)},
	}
	d, err := NewLocalDecoder(schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Decode("push", 1, []byte(`{"node": "n1", "ts": 1, "state": {"log": [1, 2], "acks": {"n2": [1, 2], "n3": [0.5]}, "big": [7]}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []any{
		[]any{int64(1), int64(2)},
		map[string]any{"n2": []any{1.0, 2.0}, "n3": []any{0.5}},
		[]any{uint64(7)},
	}
	if fmt.Sprintf("%#v", r.Vars) != fmt.Sprintf("%#v", want) {
		t.Errorf("Vars = %#v, want %#v", r.Vars, want)
	}
}
