package collector_test

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/collector/arrowsink"
)

// kbState is a node state of about 1 KB (as JSON): raft-like scalars, a
// short log, peers and per-peer progress.
type kbState struct {
	ID       string         `augur:"id"`
	Term     uint64         `augur:"term"`
	Vote     string         `augur:"vote"`
	Lead     string         `augur:"lead"`
	Role     string         `augur:"role"`
	Commit   uint64         `augur:"commit"`
	Applied  uint64         `augur:"applied"`
	Load     float64        `augur:"load"`
	Healthy  bool           `augur:"healthy"`
	Peers    []string       `augur:"peers"`
	Log      []benchEntry   `augur:"log"`
	Progress []benchMatch   `augur:"progress"`
	Snapshot *benchEntry    `augur:"snapshot"`
	Extra    map[string]int `augur:"extra"`
}

type benchEntry struct {
	Term  uint64 `augur:"term"`
	Index uint64 `augur:"index"`
	Cmd   string `augur:"cmd"`
}

type benchMatch struct {
	Peer  string `augur:"peer"`
	Match uint64 `augur:"match"`
	Next  uint64 `augur:"next"`
}

func newKBState(withMap bool) *kbState {
	s := &kbState{ID: "node-7", Term: 12, Vote: "node-3", Lead: "node-3", Role: "follower",
		Commit: 1041, Applied: 1040, Load: 0.37, Healthy: true,
		Peers: []string{"node-1", "node-2", "node-3", "node-4", "node-5", "node-6"}}
	for i := range 8 {
		s.Log = append(s.Log, benchEntry{Term: 12, Index: uint64(1034 + i), Cmd: fmt.Sprintf("put key-%04d value-%08d", i, i*7919)})
	}
	for _, p := range s.Peers {
		s.Progress = append(s.Progress, benchMatch{Peer: p, Match: 1040, Next: 1041})
	}
	if withMap {
		s.Extra = map[string]int{"a": 1, "b": 2, "c": 3}
	}
	return s
}

// BenchmarkExpose measures one Expose of a 1 KB state through the JSONL
// sink and the Arrow sink of package arrowsink, the sink writing to
// io.Discard.
//
//	go test -run - -bench Expose -benchmem ./collector
func BenchmarkExpose(b *testing.B) {
	for _, withMap := range []bool{false, true} {
		st := newKBState(withMap)
		cs, _ := collector.StateOf(st)
		js, _ := cs.AppendJSON(nil)
		for _, sink := range []string{"arrow", "jsonl"} {
			b.Run(fmt.Sprintf("sink=%s/map=%v", sink, withMap), func(b *testing.B) {
				var s collector.Sink
				opts := collector.SinkOptions{FlushRecords: 64, FlushInterval: -1}
				if sink == "arrow" {
					s = arrowsink.New(io.Discard, arrowsink.Options{SinkOptions: opts})
				} else {
					s = collector.NewJSONLSink(io.Discard, opts)
				}
				n := collector.NewNode("node-7", s)
				defer n.Close()
				b.SetBytes(int64(len(js)))
				b.ReportAllocs()
				for b.Loop() {
					st.Commit++
					if err := n.Expose(st); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
			})
		}
	}
}

// BenchmarkArrowSink measures records per second through an Arrow stream
// file on disk, flushed every 64 records.
//
//	go test -run - -bench ArrowSink -benchmem ./collector
func BenchmarkArrowSink(b *testing.B) {
	opts := arrowsink.Options{SinkOptions: collector.SinkOptions{FlushRecords: 64, FlushInterval: -1}}
	sink, err := arrowsink.Create(filepath.Join(b.TempDir(), "n.arrow"), opts)
	if err != nil {
		b.Fatal(err)
	}
	n := collector.NewNode("node-7", sink)
	defer n.Close()
	st := newKBState(false)
	b.ReportAllocs()
	for b.Loop() {
		st.Commit++
		if err := n.Expose(st); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
