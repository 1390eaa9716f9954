package arrowsink_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/collector/arrowsink"
	"github.com/augur-dev/augur/trace"
)

// readStream reads back an Arrow stream written by a Sink with the Arrow
// IPC reader alone: the stream's schema, and the events and state
// variables of its records, in the representation of package trace. A
// stream whose writer has flushed nothing yet holds no record. (The reader
// of package ingest, which also checks a stream and finds a torn end, is
// tested there with the sink's output.)
func readStream(t *testing.T, data []byte, mem memory.Allocator) (schema string, events []string, recs [][]any) {
	t.Helper()
	if len(data) == 0 {
		return "", nil, nil
	}
	r, err := ipc.NewReader(bytes.NewReader(data), ipc.WithAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var cols []string
	for _, f := range r.Schema().Fields() {
		cols = append(cols, f.Name+":"+f.Type.String())
	}
	for r.Next() {
		b := r.RecordBatch()
		for row := range int(b.NumRows()) {
			events = append(events, trace.Value(b.Column(2), row).(string))
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
	return strings.Join(cols, " "), events, recs
}

type entry struct {
	Term uint64 `augur:"term"`
	Cmd  string `augur:"cmd"`
}

// nested has a field of every kind of column, containers inside
// containers, and empty and null ones.
type nested struct {
	Up      bool                       `augur:"up"`
	Term    int64                      `augur:"term"`
	Commit  uint64                     `augur:"commit"`
	Load    float64                    `augur:"load"`
	Log     []entry                    `augur:"log"`
	Votes   [][]string                 `augur:"votes"`
	ByPeer  map[string]map[int][]entry `augur:"by_peer"`
	Last    *entry                     `augur:"last"`
	Since   time.Time                  `augur:"since"`
	Hash    [2]byte                    `augur:"hash"`
	Nothing map[string]bool            `augur:"nothing"`
}

// TestValues checks that the stream holds the values State.Values gives,
// under the columns the state's schema names, for every kind of column.
func TestValues(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	states := []*nested{
		{Up: true, Term: -2, Commit: 1 << 63, Load: 0.5,
			Log:    []entry{{1, "a"}, {2, "b\xff"}},
			Votes:  [][]string{{"n1"}, {}, {"n2", "n3"}},
			ByPeer: map[string]map[int][]entry{"n2": {10: {{3, "c"}}, 2: nil}, "n1": {}},
			Last:   &entry{4, "d"}, Since: time.Unix(0, 7), Hash: [2]byte{0xab, 0x01}},
		{},
	}
	var buf bytes.Buffer
	n := collector.NewNode("n1", arrowsink.New(&buf, arrowsink.Options{Allocator: mem}))
	n.Heartbeat()
	for _, st := range states {
		if err := n.Expose(st); err != nil {
			t.Fatal(err)
		}
	}
	n.Leave()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	schema, events, recs := readStream(t, buf.Bytes(), mem)
	cs, err := collector.StateOf(states[0])
	if err != nil {
		t.Fatal(err)
	}
	want := "node:utf8 ts:uint64 @event:utf8"
	for _, c := range cs.Schema() {
		want += " " + c.Name + ":" + c.Type.String()
	}
	if schema != want {
		t.Errorf("schema\n%s\nwant\n%s", schema, want)
	}
	if got := strings.Join(events, " "); got != "heartbeat state state leave" {
		t.Errorf("events %s", got)
	}
	for i, st := range states {
		cs, _ := collector.StateOf(st)
		if got, want := fmt.Sprint(recs[i+1]), fmt.Sprint(cs.Values()); got != want {
			t.Errorf("state %d:\n%s\nwant\n%s", i, got, want)
		}
	}
	for _, i := range []int{0, 3} {
		for _, v := range recs[i] {
			if v != nil {
				t.Errorf("record %d (%s) holds %v", i, events[i], recs[i])
				break
			}
		}
	}
}

type counter struct {
	N int64 `augur:"n"`
}

func TestFlush(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	count := func(path string) int {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, _, recs := readStream(t, data, mem)
		return len(recs)
	}

	// By count: nothing is written before the third record.
	path := filepath.Join(dir, "count.arrow")
	opts := arrowsink.Options{SinkOptions: collector.SinkOptions{FlushRecords: 3, FlushInterval: -1}, Allocator: mem}
	sink, err := arrowsink.Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	n := collector.NewNode("n1", sink)
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

	// By time: a record is written within the interval, heartbeats held
	// until the first state included.
	path = filepath.Join(dir, "time.arrow")
	opts.FlushRecords, opts.FlushInterval = 1000, 5*time.Millisecond
	sink, err = arrowsink.Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	n = collector.NewNode("n1", sink)
	defer n.Close()
	n.Heartbeat()
	n.Expose(counter{N: 1})
	deadline := time.Now().Add(5 * time.Second)
	for count(path) != 2 {
		if time.Now().After(deadline) {
			t.Fatal("the records were not flushed by the timer")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestStateTypeChanged checks that a sink shared by two nodes refuses a
// state of another type than the first (a Node refuses it itself).
func TestStateTypeChanged(t *testing.T) {
	sink := arrowsink.New(&bytes.Buffer{}, arrowsink.Options{})
	defer sink.Close()
	cs, _ := collector.StateOf(counter{})
	other, _ := collector.StateOf(entry{})
	if err := sink.Write(&collector.Record{Node: "a", TS: 1, Event: collector.EventState, State: cs}); err != nil {
		t.Fatal(err)
	}
	err := sink.Write(&collector.Record{Node: "b", TS: 1, Event: collector.EventState, State: other})
	if want := "arrowsink: state type changed from arrowsink_test.counter to arrowsink_test.entry"; err == nil || err.Error() != want {
		t.Errorf("Write of another type = %v, want %s", err, want)
	}
}

// flatState is the shape of a typical node state without maps: Expose
// through the sink allocates nothing once the builders have grown.
type flatState struct {
	Term    uint64
	Commit  int64
	Role    string
	Leader  bool
	Load    float64
	Peers   []string
	Log     []entry
	Pending *entry
}

func TestExposeAllocs(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	var buf bytes.Buffer
	opts := arrowsink.Options{SinkOptions: collector.SinkOptions{FlushRecords: 1 << 30, FlushInterval: -1}, Allocator: mem}
	n := collector.NewNode("n1", arrowsink.New(&buf, opts))
	defer n.Close()
	st := &flatState{Term: 3, Role: "leader", Peers: []string{"n2", "n3"}, Log: []entry{{Term: 1, Cmd: "x"}}}
	if err := n.Expose(st); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		st.Commit++
		if err := n.Expose(st); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Expose allocates %v times per call", allocs)
	}
}
