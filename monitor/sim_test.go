package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/collector/httpsink"
	"github.com/augur-dev/augur/ingest"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
	"github.com/augur-dev/augur/trace"
)

// toyState is the state of a node of the simulated elections.
type toyState struct {
	Term int64  `augur:"term"`
	Role string `augur:"role"`
}

// teeSink writes every record to two sinks.
type teeSink struct{ a, b collector.Sink }

func (t teeSink) Write(r *collector.Record) error {
	return errors.Join(t.a.Write(r), t.b.Write(r))
}

func (t teeSink) Close() error { return errors.Join(t.a.Close(), t.b.Close()) }

// elect runs a seeded random execution of n nodes that hold elections
// without quorums, so that two leaders of one term happen: nodes time
// out and stand in the next term they know of, win at random, tell the
// others of their term by messages stamped with their Lamport clocks,
// heartbeat, leave and crash. Every node writes through the collector
// API to the sink made by newSink.
func elect(t *testing.T, seed uint64, n, steps int, newSink func(name string) collector.Sink) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	type msg struct {
		to   int
		term int64
		ts   uint64
	}
	type simNode struct {
		node *collector.Node
		st   toyState
		gone bool // left or crashed
	}
	var (
		nodes []*simNode
		net   []msg
	)
	for i := range n {
		name := fmt.Sprintf("n%d", i+1)
		sn := &simNode{node: collector.NewNode(name, newSink(name)), st: toyState{Term: 1, Role: "follower"}}
		nodes = append(nodes, sn)
	}
	expose := func(sn *simNode) {
		if err := sn.node.Expose(&sn.st); err != nil {
			t.Fatal(err)
		}
	}
	for _, sn := range nodes {
		expose(sn)
	}
	for range steps {
		i := rng.IntN(n)
		sn := nodes[i]
		if sn.gone {
			continue
		}
		switch p := rng.IntN(1000); {
		case p < 150: // time out and stand
			sn.st.Term++
			sn.st.Role = "candidate"
			expose(sn)
		case p < 250 && sn.st.Role == "candidate": // win
			sn.st.Role = "leader"
			expose(sn)
		case p < 550: // tell a peer of the term
			j := rng.IntN(n - 1)
			if j >= i {
				j++
			}
			net = append(net, msg{j, sn.st.Term, sn.node.Stamp()})
		case p < 850 && len(net) > 0: // deliver a message
			k := rng.IntN(len(net))
			m := net[k]
			net = slices.Delete(net, k, k+1)
			rn := nodes[m.to]
			if rn.gone {
				continue
			}
			rn.node.Receive(m.ts)
			if m.term > rn.st.Term {
				rn.st.Term, rn.st.Role = m.term, "follower"
				expose(rn)
			} else if err := rn.node.Heartbeat(); err != nil {
				t.Fatal(err)
			}
		case p < 950:
			if err := sn.node.Heartbeat(); err != nil {
				t.Fatal(err)
			}
		case p < 997:
			sn.node.Tick()
		case p < 999:
			if err := sn.node.Leave(); err != nil {
				t.Fatal(err)
			}
			sn.gone = true
		default: // crash: stop recording without leaving
			sn.gone = true
		}
	}
	for _, sn := range nodes {
		if !sn.gone && rng.IntN(2) == 0 {
			if err := sn.node.Leave(); err != nil {
				t.Fatal(err)
			}
		}
		if err := sn.node.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// offline returns the violation lines augur collect --spec and augur
// check find in the node-local files: one per check and violating
// snapshot, with its first failing binding.
func offline(t *testing.T, checks string, files []string, opts ingest.Options) []string {
	t.Helper()
	f, spec, err := checker.LoadWithSpec(checks)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Schema, err = spectrace.Schema(spec); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run.trace")
	if _, err := ingest.Collect(t.Context(), dir, files, opts); err != nil {
		t.Fatal(err)
	}
	return checkTrace(t, dir, spec, f)
}

// checkTrace returns the violation lines of augur check on a trace.
func checkTrace(t *testing.T, dir string, spec *specs.Spec, f *checker.File) []string {
	t.Helper()
	tr, err := trace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	results, err := pipeline.RunChecks(context.Background(), tr, spec, f, 100000, 1)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range results {
		for _, w := range r.Stats.Witnesses() {
			line := map[string]any{"check": r.Check.Name, "property": r.Check.Property,
				"snapshot": w.Snapshot, "ts": w.TS, "binding": w.Binding, "values": w.Values}
			if w.Cut != nil {
				line["cut"] = w.Cut
			}
			b, err := json.Marshal(line)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, string(b))
		}
	}
	slices.Sort(lines)
	return lines
}

// canonical re-encodes the monitor's violation lines as checkTrace does,
// sorted.
func canonical(t *testing.T, out string) []string {
	t.Helper()
	var lines []string
	for l := range strings.Lines(out) {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	slices.Sort(lines)
	return lines
}

// tee returns the sinks of nodes that write every record both to a JSONL
// file in dir, whose path it appends to files, and through an httpsink.Sink to
// the monitor at url.
func tee(dir, url string, files *[]string) func(name string) (collector.Sink, error) {
	return func(name string) (collector.Sink, error) {
		file := filepath.Join(dir, name+".jsonl")
		*files = append(*files, file)
		js, err := collector.CreateJSONLSink(file, collector.SinkOptions{})
		if err != nil {
			return nil, err
		}
		hs := httpsink.New(url+"/v1/records", httpsink.Options{
			Token: token, BatchRecords: 37, FlushInterval: 5 * time.Millisecond})
		return teeSink{js, hs}, nil
	}
}

// compare closes m, whose violation lines went to out, once its nodes
// have written files and closed their sinks, and checks that it streamed
// exactly the violations that augur collect with opts and augur check of
// checks find in the files, which must have some. It returns them.
func compare(t *testing.T, m *Monitor, out *syncBuffer, checks string, files []string, opts ingest.Options) []string {
	t.Helper()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if late := m.met.late.Load(); late != 0 {
		t.Fatalf("%d records late", late)
	}
	want := offline(t, checks, files, opts)
	if len(want) == 0 {
		t.Fatal("the run has no violations to compare")
	}
	got := canonical(t, out.String())
	if !slices.Equal(got, want) {
		t.Errorf("online: %d violations, offline %d\nonline:\n%s\noffline:\n%s", len(got), len(want),
			strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	return want
}

// TestOnlineEqualsOffline runs seeded elections whose nodes write every
// record both to a JSONL file and through an httpsink.Sink to a monitor, and
// checks that the monitor streams exactly the violations that augur
// collect and augur check find in the files, and records a trace on
// which augur check finds them too.
func TestOnlineEqualsOffline(t *testing.T) {
	for _, tt := range []struct {
		seed         uint64
		nodes, steps int
		collapse     bool
		failAfterTS  uint64
	}{
		{1, 3, 3000, false, 0},
		{2, 5, 3000, false, 0},
		{3, 4, 3000, true, 0},
		{4, 5, 3000, false, 40},
	} {
		t.Run(fmt.Sprintf("seed=%d", tt.seed), func(t *testing.T) {
			dir := t.TempDir()
			var out syncBuffer
			rec := filepath.Join(dir, "online.trace")
			m := newTest(t, Options{Violations: &out, Nodes: tt.nodes, Record: rec,
				Collapse: tt.collapse, FailAfterTS: tt.failAfterTS})
			srv := httptest.NewServer(m)
			defer srv.Close()
			var files []string
			newSink := tee(dir, srv.URL, &files)
			elect(t, tt.seed, tt.nodes, tt.steps, func(name string) collector.Sink {
				s, err := newSink(name)
				if err != nil {
					t.Fatal(err)
				}
				return s
			})
			want := compare(t, m, &out, "testdata/checks.yaml", files, ingest.Options{Collapse: tt.collapse, FailAfter: tt.failAfterTS})
			f, _ := checker.Load("testdata/checks.yaml")
			spec, _ := specs.Load(f.Spec)
			if rec := checkTrace(t, rec, spec, f); !slices.Equal(rec, want) {
				t.Errorf("the recorded trace has %d violations, the files %d", len(rec), len(want))
			}
			t.Logf("%d violations in %d cuts", len(want), m.met.cuts.Load())
		})
	}
}
