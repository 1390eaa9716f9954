package ingest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/collector/arrowsink"
	"github.com/augur-dev/augur/internal/arrowjstest"
	"github.com/augur-dev/augur/trace"
)

// oracleCut is a snapshot as the naive construction sees it.
type oracleCut struct {
	seq      int
	ts       uint64
	versions map[string]int64
}

// oracle builds the snapshots of log naively, from the definition: the
// cut times are the exposure times; a node is live at t if it exposed a
// state at or before t since it last left (and, with a timeout, its
// latest record is recent enough); a cut is complete if every live node
// has a record at or after t. It returns the complete cuts and the
// number of incomplete ones.
func oracle(log []simRecord, failAfter uint64) ([]oracleCut, int) {
	byNode := map[string][]simRecord{}
	var times []uint64
	for _, r := range log {
		byNode[r.node] = append(byNode[r.node], r)
		if r.event == collector.EventState {
			times = append(times, r.ts)
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	var (
		cuts       []oracleCut
		incomplete int
	)
	for seq, t := range times {
		c := oracleCut{seq: seq, ts: t, versions: map[string]int64{}}
		complete := true
		for name, recs := range byNode {
			var (
				version int64 = -1
				last    uint64
				later   bool
			)
			for _, r := range recs {
				if r.ts > t {
					later = true
					break
				}
				last = r.ts
				switch r.event {
				case collector.EventState:
					version = r.version
				case collector.EventLeave:
					version = -1
				}
				if r.ts == t {
					later = true
				}
			}
			if version < 0 || failAfter > 0 && t-last > failAfter {
				continue
			}
			c.versions[name] = version
			complete = complete && later
		}
		if complete {
			cuts = append(cuts, c)
		} else {
			incomplete++
		}
	}
	return cuts, incomplete
}

// TestCutSemantics records random executions through the API, in every
// kind of input, and checks every snapshot built from them: it is a
// consistent cut (no node has received a message its sender has not
// sent in the same snapshot), and the snapshots are exactly the complete
// cuts of the definition, computed naively.
func TestCutSemantics(t *testing.T) {
	const seeds = 25
	kinds := []string{"arrow", "jsonl", "shared"}
	for seed := range uint64(seeds) {
		for _, kind := range kinds {
			t.Run(fmt.Sprintf("%s/seed=%d", kind, seed), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
				defer mem.AssertSize(t, 0)
				rng := rand.New(rand.NewPCG(seed, 2))
				dir := t.TempDir()
				var (
					mu     sync.Mutex
					shared []simLine
					inputs []string
				)
				newSink := func(name string) collector.Sink {
					path := filepath.Join(dir, name+"."+kind)
					var (
						s   collector.Sink
						err error
					)
					switch kind {
					case "arrow":
						s, err = arrowsink.Create(path, arrowsink.Options{SinkOptions: collector.SinkOptions{FlushRecords: 1 + rng.IntN(8)}, Allocator: mem})
					case "jsonl":
						s, err = collector.CreateJSONLSink(path, collector.SinkOptions{FlushRecords: 1 + rng.IntN(8)})
					case "shared":
						return sharedSink{&mu, &shared}
					}
					if err != nil {
						t.Fatal(err)
					}
					inputs = append(inputs, path)
					return s
				}
				n := 2 + rng.IntN(5)
				log := simulate(t, seed, n, 150+rng.IntN(150), newSink)
				window := 0
				if kind == "shared" {
					window = 1 + rng.IntN(6)
					var data strings.Builder
					for _, l := range shuffleWindow(rng, shared, window) {
						data.WriteString(l.data)
					}
					inputs = []string{filepath.Join(dir, "all.jsonl")}
					if err := os.WriteFile(inputs[0], []byte(data.String()), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				var failAfter uint64
				if rng.IntN(3) == 0 {
					failAfter = uint64(5 + rng.IntN(30))
				}
				want, incomplete := oracle(log, failAfter)
				out := filepath.Join(dir, "out.trace")
				res, err := Collect(t.Context(), out, inputs, Options{FailAfter: failAfter, Window: window, Allocator: mem})
				if len(want) == 0 {
					if err == nil {
						t.Fatalf("no complete cut expected, got %d snapshots", res.Snapshots)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if res.Incomplete != incomplete || res.Snapshots != len(want) {
					t.Errorf("%d snapshots, %d incomplete; want %d and %d", res.Snapshots, res.Incomplete, len(want), incomplete)
				}
				got := readCuts(t, out)
				checkConsistent(t, got)
				var gs, ws []string
				for _, c := range got {
					gs = append(gs, c.String())
				}
				for _, c := range want {
					ws = append(ws, fmt.Sprintf("#%d ts=%d %s", c.seq, c.ts, versionsString(c.versions)))
				}
				if d := firstDiff(gs, ws); d != "" {
					t.Errorf("snapshots differ from the naive construction (fail-after %d): %s", failAfter, d)
				}
			})
		}
	}
}

// cutState is a member of a snapshot read back from a trace.
type cutState struct {
	version       int64
	sent, maxRecv map[string]int64
}

type readCut struct {
	id, ts  uint64
	members map[string]cutState
}

func (c readCut) String() string {
	v := map[string]int64{}
	for name, s := range c.members {
		v[name] = s.version
	}
	return fmt.Sprintf("#%d ts=%d %s", c.id, c.ts, versionsString(v))
}

func versionsString(v map[string]int64) string {
	var parts []string
	for name, ver := range v {
		parts = append(parts, fmt.Sprintf("%s:v%d", name, ver))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

func firstDiff(got, want []string) string {
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("at %d: got %q, want %q", i, g, w)
		}
	}
	return ""
}

// readCuts reads the snapshots of a trace of simState.
func readCuts(t *testing.T, dir string) []readCut {
	t.Helper()
	tr, err := trace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	iv, is, ir := tr.Schema.Index("version"), tr.Schema.Index("sent"), tr.Schema.Index("max_recv")
	states, snaps := tr.States(), tr.Snapshots()
	defer states.Close()
	defer snaps.Close()
	counts := func(v any) map[string]int64 {
		m := map[string]int64{}
		for k, x := range v.(map[string]any) {
			if x != nil {
				m[k] = x.(int64)
			}
		}
		return m
	}
	var cuts []readCut
	for snaps.Next() {
		s := snaps.Snapshot()
		c := readCut{id: s.ID, ts: s.TS, members: map[string]cutState{}}
		for _, row := range s.Members {
			st, err := states.State(row)
			if err != nil {
				t.Fatal(err)
			}
			c.members[st.Node] = cutState{st.Vars[iv].(int64), counts(st.Vars[is]), counts(st.Vars[ir])}
		}
		cuts = append(cuts, c)
	}
	if err := snaps.Err(); err != nil {
		t.Fatal(err)
	}
	return cuts
}

// checkConsistent checks that no member of a snapshot has received a
// message that its sender, also a member, has not sent.
func checkConsistent(t *testing.T, cuts []readCut) {
	t.Helper()
	for _, c := range cuts {
		for recv, r := range c.members {
			for from, seq := range r.maxRecv {
				s, ok := c.members[from]
				if ok && seq > s.sent[recv] {
					t.Errorf("snapshot %d (ts %d) is not a consistent cut: %s received message %d from %s, which has sent only %d",
						c.id, c.ts, recv, seq, from, s.sent[recv])
				}
			}
		}
	}
}

// TestCollectLocalIndependent reads a trace built from node-local Arrow
// streams with the JavaScript apache-arrow package and checks that it sees
// what our reader sees.
func TestCollectLocalIndependent(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	var inputs []string
	simulate(t, 7, 4, 200, func(name string) collector.Sink {
		path := filepath.Join(dir, name+".arrow")
		s, err := arrowsink.Create(path, arrowsink.Options{Allocator: mem})
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, path)
		return s
	})
	out := filepath.Join(dir, "out.trace")
	res, err := Collect(t.Context(), out, inputs, Options{FailAfter: 40, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshots < 10 {
		t.Fatalf("only %d snapshots", res.Snapshots)
	}
	arrowjstest.CheckTrace(t, out)
}
