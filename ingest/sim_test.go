package ingest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/augur-dev/augur/collector"
)

// simState is the state of a node of the simulated message-passing
// system: how many messages it sent to each peer, the largest sequence
// number it received from each, and a version that names the exposure.
type simState struct {
	Version int64            `augur:"version"`
	Sent    map[string]int64 `augur:"sent"`
	MaxRecv map[string]int64 `augur:"max_recv"`
}

// simRecord is what the simulation knows it exposed.
type simRecord struct {
	node    string
	ts      uint64
	event   collector.Event
	version int64
}

type simMessage struct {
	from, to string
	seq      int64
	ts       uint64
}

// simulate runs a seeded random execution of n nodes that send, receive
// and change state locally, heartbeat, leave and rejoin, and crash
// (stop recording without leaving). Every node writes through the API to
// the sink made by newSink. It returns what each node exposed.
func simulate(t *testing.T, seed uint64, n, steps int, newSink func(name string) collector.Sink) []simRecord {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	type simNode struct {
		node    *collector.Node
		st      simState
		present bool // exposed and not left
		crashed bool
	}
	var (
		nodes []*simNode
		names []string
		net   []simMessage
		log   []simRecord
	)
	for i := range n {
		name := fmt.Sprintf("n%d", i+1)
		names = append(names, name)
		nodes = append(nodes, &simNode{
			node: collector.NewNode(name, newSink(name)),
			st:   simState{Sent: map[string]int64{}, MaxRecv: map[string]int64{}},
		})
	}
	expose := func(i int) {
		sn := nodes[i]
		sn.st.Version++
		if err := sn.node.Expose(&sn.st); err != nil {
			t.Fatal(err)
		}
		sn.present = true
		log = append(log, simRecord{names[i], sn.node.Clock().Now(), collector.EventState, sn.st.Version})
	}
	event := func(i int, e collector.Event) {
		sn := nodes[i]
		var err error
		if e == collector.EventLeave {
			err = sn.node.Leave()
			sn.present = false
		} else {
			err = sn.node.Heartbeat()
		}
		if err != nil {
			t.Fatal(err)
		}
		log = append(log, simRecord{names[i], sn.node.Clock().Now(), e, 0})
	}
	for range steps {
		i := rng.IntN(n)
		sn := nodes[i]
		if sn.crashed {
			continue
		}
		switch p := rng.IntN(100); {
		case !sn.present && p < 70:
			// Join, or rejoin after leaving.
			expose(i)
		case !sn.present:
			sn.node.Tick()
		case p < 35:
			// Send: expose the send, then stamp the message.
			j := rng.IntN(n - 1)
			if j >= i {
				j++
			}
			sn.st.Sent[names[j]]++
			expose(i)
			net = append(net, simMessage{names[i], names[j], sn.st.Sent[names[j]], sn.node.Stamp()})
		case p < 70 && len(net) > 0:
			k := rng.IntN(len(net))
			m := net[k]
			net = slices.Delete(net, k, k+1)
			j := slices.Index(names, m.to)
			rn := nodes[j]
			if rn.crashed || !rn.present {
				continue // lost
			}
			rn.node.Receive(m.ts)
			rn.st.MaxRecv[m.from] = max(rn.st.MaxRecv[m.from], m.seq)
			expose(j)
		case p < 80:
			expose(i)
		case p < 90:
			event(i, collector.EventHeartbeat)
		case p < 94:
			sn.node.Tick()
		case p < 98:
			event(i, collector.EventLeave)
		default:
			sn.crashed = rng.IntN(3) == 0 // stops recording, without a leave
		}
	}
	for i, sn := range nodes {
		if !sn.crashed && sn.present && rng.IntN(4) > 0 {
			event(i, collector.EventLeave)
		}
		if err := sn.node.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return log
}

// sharedSink gathers the lines of several nodes into one JSONL file.
type sharedSink struct {
	mu    *sync.Mutex
	lines *[]simLine
}

type simLine struct {
	node string
	ts   uint64
	data string
}

func (s sharedSink) Write(r *collector.Record) error {
	var buf strings.Builder
	sink := collector.NewJSONLSink(&buf, collector.SinkOptions{FlushRecords: 1})
	if err := sink.Write(r); err != nil {
		return err
	}
	sink.Close()
	s.mu.Lock()
	*s.lines = append(*s.lines, simLine{r.Node, r.TS, buf.String()})
	s.mu.Unlock()
	return nil
}

func (s sharedSink) Close() error { return nil }

// shuffleWindow orders lines as a process might log them, out of order
// within a window of w records: a reader that buffers w records sees them
// in timestamp order if the line at sorted position s is at most at
// position s+w-1, for the reader's s-th pop. Each line is taken at random among the first w of the
// remaining ones, keeping each node's lines in order, unless the first
// one is due.
func shuffleWindow(rng *rand.Rand, lines []simLine, w int) []simLine {
	type ranked struct {
		simLine
		rank int
	}
	sorted := slices.Clone(lines)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].ts < sorted[j].ts })
	var rest []ranked
	for i, l := range sorted {
		rest = append(rest, ranked{l, i})
	}
	var out []simLine
	for i := 0; len(rest) > 0; i++ {
		k := 0
		if rest[0].rank+w-1 > i {
			var choice []int
			seen := map[string]bool{}
			for j := 0; j < len(rest) && j < w; j++ {
				if !seen[rest[j].node] {
					choice = append(choice, j)
				}
				seen[rest[j].node] = true
			}
			k = choice[rng.IntN(len(choice))]
		}
		out = append(out, rest[k].simLine)
		rest = slices.Delete(rest, k, k+1)
	}
	return out
}
