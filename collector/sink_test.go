package collector

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/trace"
)

// readVars reads back the records of an Arrow stream written by an
// ArrowSink with the Arrow IPC reader alone, and returns the state
// variables of each, in the representation of package trace. A stream
// whose writer has flushed nothing yet holds no record. (The reader of
// package ingest, which also checks a stream and finds a torn end, is
// tested there with the sinks' output.)
func readVars(t *testing.T, data []byte, mem memory.Allocator) [][]any {
	t.Helper()
	if len(data) == 0 {
		return nil
	}
	r, err := ipc.NewReader(bytes.NewReader(data), ipc.WithAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var recs [][]any
	for r.Next() {
		b := r.RecordBatch()
		for row := range int(b.NumRows()) {
			var vars []any
			for c := 3; c < int(b.NumCols()); c++ {
				vars = append(vars, trace.Value(b.Column(c), row))
			}
			recs = append(recs, vars)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

type counter struct {
	N    int64             `augur:"n"`
	Name string            `augur:"name"`
	Tags map[string]string `augur:"tags"`
}

func TestJSONLSink(t *testing.T) {
	var buf bytes.Buffer
	n := NewNode("n\"1", NewJSONLSink(&buf, SinkOptions{}))
	n.Heartbeat()
	n.Expose(counter{N: 1, Name: "a\tb", Tags: map[string]string{"z": "1", "a": "2"}})
	n.Receive(10)
	n.Expose(&counter{N: 2})
	n.Leave()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	const want = `{"node":"n\"1","ts":1,"heartbeat":true}
{"node":"n\"1","ts":2,"state":{"n":1,"name":"a\tb","tags":{"a":"2","z":"1"}}}
{"node":"n\"1","ts":12,"state":{"n":2,"name":"","tags":{}}}
{"node":"n\"1","ts":13,"leave":true}
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestSinkFlush(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	count := func(path string) int {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return len(readVars(t, data, mem))
	}

	// By count: nothing is written before the third record.
	path := filepath.Join(dir, "count.arrow")
	sink, err := CreateArrowSink(path, SinkOptions{FlushRecords: 3, FlushInterval: -1, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	n := NewNode("n1", sink)
	for i := range 5 {
		n.Expose(counter{N: int64(i)})
		if got, want := count(path), (i+1)/3*3; got != want {
			t.Errorf("after %d records, %d readable; want %d", i+1, got, want)
		}
	}
	if err := n.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := count(path); got != 5 {
		t.Errorf("after Flush, %d readable; want 5", got)
	}
	n.Close()

	// By time: a record is written within the interval.
	path = filepath.Join(dir, "time.arrow")
	sink, err = CreateArrowSink(path, SinkOptions{FlushRecords: 1000, FlushInterval: 5 * time.Millisecond, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	n = NewNode("n1", sink)
	defer n.Close()
	n.Expose(counter{N: 1})
	deadline := time.Now().Add(5 * time.Second)
	for count(path) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the record was not flushed by the timer")
		}
		time.Sleep(time.Millisecond)
	}
}
