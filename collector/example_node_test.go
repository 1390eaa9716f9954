package collector_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/collector/arrowsink"
	"github.com/augur-dev/augur/ingest"
	"github.com/augur-dev/augur/trace"
)

// Three nodes pass a token around a ring, each in its own goroutine. Each
// node writes its exposures to its own Arrow stream file; ingest.Collect
// then builds consistent snapshots from the three files. No snapshot shows
// two holders of the token, although the nodes never stop together.
func Example_messagePassing() {
	dir, err := os.MkdirTemp("", "augur-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	type message struct {
		ts    uint64 // the sender's Lamport time
		count int64
	}
	type state struct {
		Token bool  `augur:"token"`
		Count int64 `augur:"count"` // times this node held the token
	}
	names := []string{"n1", "n2", "n3"}
	inbox := map[string]chan message{}
	for _, name := range names {
		inbox[name] = make(chan message, 1)
	}
	var (
		files []string
		wg    sync.WaitGroup
	)
	for i, name := range names {
		path := filepath.Join(dir, name+".arrow")
		files = append(files, path)
		sink, err := arrowsink.Create(path, arrowsink.Options{})
		if err != nil {
			log.Fatal(err)
		}
		node := collector.NewNode(name, sink) // instrumentation: 1
		next := inbox[names[(i+1)%len(names)]]
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer node.Close() // 2
			defer node.Leave() // 3
			var st state
			node.Expose(&st) // 4
			for m := range inbox[name] {
				node.Receive(m.ts) // 5
				st.Token, st.Count = true, st.Count+1
				node.Expose(&st)  // 6
				if m.count == 5 { // the sixth hop ends the run
					for _, ch := range inbox {
						close(ch)
					}
					continue
				}
				st.Token = false
				node.Expose(&st)                           // 7: expose before stamping a message
				next <- message{node.Stamp(), m.count + 1} // 8
			}
		}()
	}
	inbox["n1"] <- message{}
	wg.Wait()

	out := filepath.Join(dir, "ring.trace")
	res, err := ingest.Collect(context.Background(), out, files, ingest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d snapshots, %d states, %d cuts incomplete\n", res.Snapshots, res.States, res.Incomplete)

	tr, err := trace.Open(out)
	if err != nil {
		log.Fatal(err)
	}
	defer tr.Close()
	states, snaps := tr.States(), tr.Snapshots()
	defer states.Close()
	defer snaps.Close()
	for snaps.Next() {
		s := snaps.Snapshot()
		var holders []string
		for _, row := range s.Members {
			st, err := states.State(row)
			if err != nil {
				log.Fatal(err)
			}
			if st.Vars[tr.Schema.Index("token")] == true {
				holders = append(holders, st.Node)
			}
		}
		if len(holders) == 0 {
			holders = []string{"none"}
		}
		fmt.Printf("ts %2d: %d nodes, token at %s\n", s.TS, len(s.Members), strings.Join(holders, ","))
	}
	// Output:
	// 12 snapshots, 14 states, 0 cuts incomplete
	// ts  1: 3 nodes, token at none
	// ts  3: 3 nodes, token at n1
	// ts  4: 3 nodes, token at none
	// ts  7: 3 nodes, token at n2
	// ts  8: 3 nodes, token at none
	// ts 11: 3 nodes, token at n3
	// ts 12: 3 nodes, token at none
	// ts 15: 3 nodes, token at n1
	// ts 16: 3 nodes, token at none
	// ts 19: 2 nodes, token at n2
	// ts 20: 2 nodes, token at none
	// ts 23: 1 nodes, token at n3
}
