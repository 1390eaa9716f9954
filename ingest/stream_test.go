package ingest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/collector/arrowsink"
	"github.com/augur-dev/augur/internal/arrowjstest"
)

// streamRec is a record read back from an Arrow stream.
type streamRec struct {
	node  string
	ts    uint64
	event collector.Event
	off   int64
	vars  []any
}

func (r streamRec) String() string {
	return fmt.Sprintf("%s %d %s %v", r.node, r.ts, r.event, r.vars)
}

// readStream reads every record of a stream file.
func readStream(t *testing.T, path string, mem memory.Allocator) ([]streamRec, *Error, error) {
	t.Helper()
	sr, err := OpenStream(path, mem)
	if err != nil {
		return nil, nil, err
	}
	defer sr.Close()
	var recs []streamRec
	for sr.Next() {
		r := sr.Record()
		recs = append(recs, streamRec{r.Node, r.TS, r.Event, r.Offset, r.Vars()})
	}
	return recs, sr.Torn(), sr.Err()
}

func readStreamBytes(t *testing.T, data []byte, mem memory.Allocator) ([]streamRec, *Error, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.arrow")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return readStream(t, path, mem)
}

type counter struct {
	N    int64             `augur:"n"`
	Name string            `augur:"name"`
	Tags map[string]string `augur:"tags"`
}

func TestArrowSinkRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	path := filepath.Join(t.TempDir(), "n1.arrow")
	sink, err := arrowsink.Create(path, arrowsink.Options{SinkOptions: collector.SinkOptions{FlushRecords: 3}, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	n := collector.NewNode("n1", sink)
	var want []string
	// A heartbeat before the first state waits for the schema.
	n.Heartbeat()
	want = append(want, "n1 1 heartbeat [<nil> <nil> <nil>]")
	for i := range 7 {
		c := counter{N: int64(i), Name: strings.Repeat("x", i), Tags: map[string]string{"k": fmt.Sprint(i)}}
		if err := n.Expose(&c); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("n1 %d state [%d %s map[k:%d]]", i+2, i, c.Name, i))
	}
	n.Leave()
	want = append(want, "n1 9 leave [<nil> <nil> <nil>]")
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	recs, torn, err := readStream(t, path, mem)
	if err != nil || torn != nil {
		t.Fatalf("torn %v, error %v", torn, err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	checkStreamIndependently(t, path, recs)

	// A node that never exposes a state writes a stream without state
	// variables.
	path = filepath.Join(t.TempDir(), "n2.arrow")
	sink, err = arrowsink.Create(path, arrowsink.Options{SinkOptions: collector.SinkOptions{FlushRecords: 1}, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	n = collector.NewNode("n2", sink)
	n.Heartbeat()
	n.Heartbeat()
	n.Leave()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	recs, torn, err = readStream(t, path, mem)
	if err != nil || torn != nil || fmt.Sprint(recs) != "[n2 1 heartbeat [] n2 2 heartbeat [] n2 3 leave []]" {
		t.Errorf("stream of no state: %v, torn %v, error %v", recs, torn, err)
	}
}

// checkStreamIndependently reads a stream with the JavaScript apache-arrow
// package and compares its rows with ours.
func checkStreamIndependently(t *testing.T, path string, recs []streamRec) {
	t.Helper()
	if !arrowjstest.Available() && os.Getenv("CI") != "true" {
		// Not skipped: the rest of the caller's test still runs. Under CI,
		// Rows fails instead.
		t.Log("apache-arrow not installed: no independent check")
		return
	}
	got := arrowjstest.Rows(t, path)
	sr, err := OpenStream(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	schema := sr.Schema()
	sr.Close()
	var want []map[string]any
	for _, r := range recs {
		row := map[string]any{"node": r.node, "ts": arrowjstest.JSONForm(r.ts), collector.EventColumn: r.event.String()}
		for i, c := range schema {
			row[c.Name] = arrowjstest.JSONForm(r.vars[i])
		}
		want = append(want, row)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\napache-arrow reads %v\naugur reads        %v", path, got, want)
	}
}

// killedStream returns the stream of node n1 that exposed the states,
// flushing every flush records, and was killed after its last flush: it
// has no end-of-stream marker.
func killedStream(mem memory.Allocator, flush int, states []counter) []byte {
	var buf bytes.Buffer
	n := collector.NewNode("n1", arrowsink.New(&buf, arrowsink.Options{SinkOptions: collector.SinkOptions{FlushRecords: flush, FlushInterval: -1}, Allocator: mem}))
	for _, c := range states {
		n.Expose(c)
	}
	n.Flush()
	data := bytes.Clone(buf.Bytes())
	n.Close()
	return data
}

// TestStreamTorn cuts a stream at every byte: the reader returns every
// record of the whole batches before the cut and reports the torn batch
// with its offset, or none when the cut falls between batches.
func TestStreamTorn(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	var states []counter
	for i := range 6 {
		states = append(states, counter{N: int64(i), Name: "v", Tags: map[string]string{"a": "b"}})
	}
	full := killedStream(mem, 2, states)

	all, torn, err := readStreamBytes(t, full, mem)
	if err != nil || torn != nil || len(all) != 6 {
		t.Fatalf("whole stream: %d records, torn %v, error %v", len(all), torn, err)
	}
	starts := []int64{all[0].off, all[2].off, all[4].off, int64(len(full))}
	path := filepath.Join(t.TempDir(), "torn.arrow")
	for cut := 1; cut < len(full); cut++ {
		if err := os.WriteFile(path, full[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		recs, torn, err := readStream(t, path, mem)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		var whole int // batches before the cut
		for whole < 3 && starts[whole+1] <= int64(cut) {
			whole++
		}
		if len(recs) != 2*whole {
			t.Errorf("cut at %d: %d records, want %d", cut, len(recs), 2*whole)
		}
		switch {
		case int64(cut) < starts[0]:
			if torn == nil || torn.Pos.Offset != 0 || !strings.Contains(torn.Msg, "schema") {
				t.Errorf("cut at %d, in the schema: torn = %v", cut, torn)
			}
		case int64(cut) == starts[whole]:
			if torn != nil {
				t.Errorf("cut at %d, between batches: torn = %v", cut, torn)
			}
		default:
			if torn == nil || torn.Pos.Offset != int(starts[whole]) || torn.Pos.Filename != path {
				t.Errorf("cut at %d: torn = %v, want offset %d", cut, torn, starts[whole])
			}
		}
	}
}

// A torn stream is collected with a warning; a corrupt one is an error
// naming the file and offset, or under Lenient a warning.
func TestCollectStreamDamage(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	write := func(name string, states int) (string, []streamRec) {
		path := filepath.Join(dir, name+".arrow")
		sink, err := arrowsink.Create(path, arrowsink.Options{SinkOptions: collector.SinkOptions{FlushRecords: 2}, Allocator: mem})
		if err != nil {
			t.Fatal(err)
		}
		n := collector.NewNode(name, sink)
		for i := range states {
			n.Expose(counter{N: int64(i)})
		}
		n.Leave()
		n.Close()
		recs, _, err := readStream(t, path, mem)
		if err != nil {
			t.Fatal(err)
		}
		return path, recs
	}
	p1, _ := write("n1", 8)
	p2, recs := write("n2", 6)
	data, err := os.ReadFile(p2)
	if err != nil {
		t.Fatal(err)
	}
	lastBatch := recs[len(recs)-1].off
	if err := os.WriteFile(p2, data[:lastBatch+10], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.trace")
	res, err := Collect(t.Context(), out, []string{p1, p2}, Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%s: offset %d: torn Arrow stream: it ends inside the record batch at this offset (its writer stopped mid-write); 6 records before it were read", p2, lastBatch)
	if len(res.Warnings) != 1 || res.Warnings[0].String() != want || res.Warnings[0].Code != WarnTorn {
		t.Errorf("warnings %v\nwant %s", res.Warnings, want)
	}
	// n2 lost its leave: the cuts after its last state are incomplete.
	if res.Snapshots != 6 || res.Incomplete != 2 {
		t.Errorf("result %s", localResult(res))
	}

	// A bad message in the middle.
	copy(data[recs[2].off:], "\xff\xff\xff\xff\x08\x00\x00\x00garbage!")
	if err := os.WriteFile(p2, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Collect(t.Context(), out, []string{p1, p2}, Options{Allocator: mem, Overwrite: true})
	if err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("%s: offset %d: malformed record batch", p2, recs[2].off)) {
		t.Errorf("error = %v", err)
	}
	// Under Lenient, it is skipped up to the next intact batch: only the
	// records of the damaged batch are lost.
	res, err = Collect(t.Context(), out, []string{p1, p2}, Options{Allocator: mem, Overwrite: true, Lenient: true})
	if err != nil || res.Skipped != 0 || len(res.Lost) != 1 {
		t.Fatalf("lenient: %v, %+v", err, res)
	}
	want = fmt.Sprintf("%s: offset %d: damaged Arrow stream: bytes %[2]d to %d skipped (%d bytes), reading on at the intact record batch at %[3]d; "+
		"the records of a record batch whose header is damaged lost (their count is unknown): malformed record batch", p2, recs[2].off, recs[4].off, recs[4].off-recs[2].off)
	if got := res.Lost[0].String(); !strings.HasPrefix(got, want) || res.Lost[0].Code != WarnDamaged {
		t.Errorf("lost: %s\nwant %s…", got, want)
	}
	// n2's states 0, 1, 4 and 5 and its leave are read.
	if res.States != 8+4 {
		t.Errorf("lenient: result %s", localResult(res))
	}
}

// TestStreamResync corrupts 8 bytes at every aligned offset of a record
// batch in the middle of a stream: every record of the other batches is
// read, by Resync past the damage, and the damage names the bytes
// skipped and the records lost, or is not seen (the bytes were values or
// padding).
func TestStreamResync(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	var states []counter
	for i := range 18 {
		states = append(states, counter{N: int64(i), Name: strings.Repeat("v", i%4), Tags: map[string]string{"a": fmt.Sprint(i)}})
	}
	full := killedStream(mem, 3, states)
	all, _, err := readStreamBytes(t, full, mem)
	if err != nil || len(all) != 18 {
		t.Fatalf("whole stream: %d records, error %v", len(all), err)
	}
	const bad = 3 // the damaged batch, of records 9 to 11
	start, end := all[3*bad].off, all[3*bad+3].off
	path := filepath.Join(t.TempDir(), "damaged.arrow")
	for at := start; at+8 <= end; at += 8 {
		data := bytes.Clone(full)
		copy(data[at:], "\xde\xad\xbe\xef\x0f\x1e\x2d\x3c")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// The Arrow library leaks the buffers of a batch whose data it
		// panics on (Go's collector frees them): no checked allocator.
		sr, err := OpenStream(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []streamRec
		var damage []*Error
		for {
			for sr.Next() {
				r := sr.Record()
				got = append(got, streamRec{r.Node, r.TS, r.Event, r.Offset, r.Vars()})
			}
			if sr.Err() == nil {
				break
			}
			damage = append(damage, sr.Resync())
		}
		torn := sr.Torn()
		sr.Close()
		if torn != nil {
			t.Errorf("damage at %d: torn %v", at, torn)
		}
		if len(damage) == 0 {
			// Only values changed: every record is read.
			if len(got) != len(all) {
				t.Errorf("damage at %d not seen, but %d records read of %d", at, len(got), len(all))
			}
			continue
		}
		want := slices.Concat(all[:3*bad], all[3*bad+3:])
		if len(damage) != 1 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("damage at %d: %v\nread  %v\nwant %v", at, damage, got, want)
			continue
		}
		head := fmt.Sprintf("%s: offset %d: damaged Arrow stream: bytes %[2]d to %d skipped (%d bytes), reading on at the intact record batch at %[3]d; ", path, start, end, end-start)
		msg := damage[0].Error()
		if !strings.HasPrefix(msg, head+"3 records lost: ") && !strings.HasPrefix(msg, head+"the records of a record batch whose header is damaged lost") {
			t.Errorf("damage at %d: %s\nwant %s…", at, msg, head)
		}
	}
}
