package ingest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/collector/arrowsink"
)

// BenchmarkCollectJSONL collects raft-like snapshots of 5 nodes in which
// about a third of the states change from one snapshot to the next.
func BenchmarkCollectJSONL(b *testing.B) {
	for _, snaps := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("snapshots=%d", snaps), func(b *testing.B) {
			dir := b.TempDir()
			var sb strings.Builder
			for s := range snaps {
				fmt.Fprintf(&sb, `{"snapshot": %d, "ts": %d, "tags": ["steady"], "nodes": {`, s, 10*s)
				for n := range 5 {
					if n > 0 {
						sb.WriteString(", ")
					}
					v := (s + n) / 3
					fmt.Fprintf(&sb, `"n%d": {"term": %d, "role": "follower", "commit": %d, "load": %g, "log": [{"term": %d, "cmd": "x=%d"}, {"term": %d, "cmd": "y"}], "peers": {"a": %d, "b": %d}}`,
						n, v/10, v, float64(v)/7, v/10, v, v/10+1, v, v+1)
				}
				sb.WriteString("}}\n")
			}
			in := filepath.Join(dir, "in.jsonl")
			if err := os.WriteFile(in, []byte(sb.String()), 0o644); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(sb.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := CollectJSONL(b.Context(), filepath.Join(dir, "out.trace"), []string{in}, Options{Overwrite: true}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*snaps)/b.Elapsed().Seconds(), "snapshots/s")
		})
	}
}

// benchState is a small node state for the construction benchmark.
type benchState struct {
	Term   int64        `augur:"term"`
	Commit int64        `augur:"commit"`
	Role   string       `augur:"role"`
	Log    []benchEntry `augur:"log"`
}

// benchEntry is an entry of benchState's log.
type benchEntry struct {
	Term  uint64 `augur:"term"`
	Index uint64 `augur:"index"`
	Cmd   string `augur:"cmd"`
}

// writeBenchInputs records a random message-passing run of nodes nodes,
// each exposing states times, into one file per node.
func writeBenchInputs(b *testing.B, dir, kind string, nodes, states int) []string {
	rng := rand.New(rand.NewPCG(1, 1))
	var (
		ns     []*collector.Node
		paths  []string
		st     []benchState
		counts = make([]int, nodes)
	)
	for i := range nodes {
		path := filepath.Join(dir, fmt.Sprintf("n%02d.%s", i, kind))
		var (
			s   collector.Sink
			err error
		)
		if kind == "arrow" {
			s, err = arrowsink.Create(path, arrowsink.Options{SinkOptions: collector.SinkOptions{FlushRecords: 256}})
		} else {
			s, err = collector.CreateJSONLSink(path, collector.SinkOptions{FlushRecords: 256})
		}
		if err != nil {
			b.Fatal(err)
		}
		paths = append(paths, path)
		ns = append(ns, collector.NewNode(fmt.Sprintf("n%02d", i), s))
		st = append(st, benchState{Role: "follower", Log: []benchEntry{{Term: 1, Index: 1, Cmd: "x"}}})
	}
	for left := nodes * states; left > 0; {
		i := rng.IntN(nodes)
		if counts[i] == states {
			continue
		}
		if rng.IntN(2) == 0 {
			// A message from a random peer.
			ns[i].Receive(ns[rng.IntN(nodes)].Clock().Now())
		}
		st[i].Commit++
		st[i].Term = st[i].Commit / 50
		if err := ns[i].Expose(&st[i]); err != nil {
			b.Fatal(err)
		}
		counts[i]++
		left--
	}
	for _, n := range ns {
		n.Leave()
		if err := n.Close(); err != nil {
			b.Fatal(err)
		}
	}
	return paths
}

// BenchmarkCollectLocal measures snapshot construction from the files of
// 32 nodes.
//
//	go test -run - -bench CollectLocal -benchmem ./ingest
func BenchmarkCollectLocal(b *testing.B) {
	for _, kind := range []string{"arrow", "jsonl"} {
		b.Run("nodes=32/input="+kind, func(b *testing.B) {
			dir := b.TempDir()
			inputs := writeBenchInputs(b, dir, kind, 32, 500)
			out := filepath.Join(dir, "out.trace")
			var snaps int
			b.ReportAllocs()
			for b.Loop() {
				res, err := Collect(b.Context(), out, inputs, Options{Overwrite: true})
				if err != nil {
					b.Fatal(err)
				}
				snaps = res.Snapshots
			}
			if snaps == 0 {
				b.Fatal("no snapshots")
			}
			b.ReportMetric(float64(b.N*snaps)/b.Elapsed().Seconds(), "snapshots/s")
			b.ReportMetric(float64(b.N*32*501)/b.Elapsed().Seconds(), "records/s")
			b.ReportMetric(float64(snaps), "snapshots/op")
		})
	}
}
