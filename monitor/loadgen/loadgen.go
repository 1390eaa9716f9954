// Package loadgen is augur monitor's load and fault test: simulated
// nodes that expose states at a given rate through httpsink.Sink to
// a monitor, keep their Lamport clocks together by messages, and plant
// violations whose latency, from the exposure to the violation line on
// GET /v1/violations, it measures.
package loadgen

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/collector/httpsink"
	"github.com/augur-dev/augur/monitor"
)

// Spec and Checks are the spec and the checks file of the simulated
// system: a node's state is a sequence number and, when it plants a
// violation, the time of the exposure in Unix nanoseconds.
const (
	Spec = `# The load test's system (augur monitor load).
system: load
variables:
  seq: int64
  planted: int64
`
	Checks = `spec: spec.yaml
checks:
  - name: nothing-planted
    property: 'forall n0 in nodes: n0.planted == 0'
`
)

// The most nodes and the highest rate augur monitor load takes, and why,
// as its errors say. (100,000 nodes took 538 MB, and the largest int as a
// rate never left a node's loop: neither run ended in 90 s.)
const (
	MaxNodes    = monitor.DefaultMaxNodes
	MaxNodesWhy = "each node is a goroutine with an HTTP sink of its own, and the monitor started takes 1,024 nodes, its --max-nodes default"
	MaxRate     = 1_000_000
	MaxRateWhy  = "states a second, 20 times what a monitor on loopback took on a 2-core machine, 45,000"
)

// state is a simulated node's state.
type state struct {
	Seq     int64 `augur:"seq"`
	Planted int64 `augur:"planted"`
}

// Config is one load run.
type Config struct {
	URL, Token string
	Nodes      int
	Rate       int           // states per second, all nodes together
	Duration   time.Duration // of the exposing
	PlantEvery int           // a node plants a violation every PlantEvery states; 0 means 1000
	Flush      time.Duration // httpsink.Options.FlushInterval; 0 means its default
	// SilentAfter, if positive, makes node n1 stop pushing, without
	// leaving, that long into the run.
	SilentAfter time.Duration
	Seed        uint64
}

// Result is what a run measured.
type Result struct {
	Config
	Exposed     int64         // states exposed
	Received    int64         // records the monitor accepted (its counter)
	Cuts        int64         // cuts it checked
	Elapsed     time.Duration // from the first exposure until the monitor had them all
	Dropped     int64         // records the sinks dropped
	Planted     int           // violations planted
	Seen        int           // of which seen on the stream
	P50, P99    time.Duration // exposure to violation line
	PeakRSS     int64         // the monitor's, bytes
	MaxBuffered int64         // most records the monitor held back, sampled
	NodesFailed string        // the monitor's failure counts
}

// RecordsPerSecond is the rate the monitor took records at.
func (r *Result) RecordsPerSecond() float64 {
	return float64(r.Received) / r.Elapsed.Seconds()
}

// CutsPerSecond is the rate the monitor checked cuts at, while the
// nodes pushed.
func (r *Result) CutsPerSecond() float64 {
	return float64(r.Cuts) / r.Elapsed.Seconds()
}

// Run runs one load test against the monitor at cfg.URL, which must
// check Checks and not have seen these nodes.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.PlantEvery <= 0 {
		cfg.PlantEvery = 1000
	}
	res := &Result{Config: cfg}
	base := strings.TrimSuffix(cfg.URL, "/")
	client := &monitor.Client{URL: base, Token: cfg.Token}
	before, err := client.Metrics(ctx)
	if err != nil {
		return nil, err
	}

	// Follow the violations.
	var (
		mu        sync.Mutex
		latencies []time.Duration
		seen      = map[int64]bool{}
	)
	sctx, stopStream := context.WithCancel(ctx)
	defer stopStream()
	streamDone := make(chan error, 1)
	stream, err := client.Violations(sctx)
	if err != nil {
		return nil, err
	}
	go func() {
		defer stream.Close()
		sc := bufio.NewScanner(stream)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			now := time.Now()
			var v struct {
				Values map[string]int64 `json:"values"`
			}
			if json.Unmarshal(sc.Bytes(), &v) != nil {
				continue
			}
			p := v.Values["n0.planted"]
			mu.Lock()
			if p != 0 && !seen[p] {
				seen[p] = true
				latencies = append(latencies, now.Sub(time.Unix(0, p)))
			}
			mu.Unlock()
		}
		streamDone <- sc.Err()
	}()

	// Sample the monitor's held-back records.
	var maxBuffered atomic.Int64
	sampleDone := make(chan struct{})
	go func() {
		defer close(sampleDone)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-sctx.Done():
				return
			case <-t.C:
				if m, err := client.Metrics(sctx); err == nil {
					if b := int64(m["augur_monitor_records_buffered"]); b > maxBuffered.Load() {
						maxBuffered.Store(b)
					}
				}
			}
		}
	}()

	// The nodes.
	type simNode struct {
		node *collector.Node
		sink *httpsink.Sink
		st   state
	}
	nodes := make([]*simNode, cfg.Nodes)
	for i := range nodes {
		sink := httpsink.New(base+"/v1/records", httpsink.Options{Token: cfg.Token, FlushInterval: cfg.Flush})
		nodes[i] = &simNode{node: collector.NewNode(fmt.Sprintf("load%d", i+1), sink), sink: sink}
	}
	var exposed, planted atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	perNode := float64(cfg.Rate) / float64(cfg.Nodes)
	const tick = 10 * time.Millisecond
	for i, sn := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
			t := time.NewTicker(tick)
			defer t.Stop()
			due := 0.0
			for {
				var now time.Time
				select {
				case <-ctx.Done():
					return
				case now = <-t.C:
				}
				el := now.Sub(start)
				if el >= cfg.Duration || i == 0 && cfg.SilentAfter > 0 && el >= cfg.SilentAfter {
					return
				}
				due += perNode * tick.Seconds()
				// A tick's states are exposed within the run: a rate beyond
				// what the node can expose does not prolong it.
				for ; due >= 1 && time.Since(start) < cfg.Duration && ctx.Err() == nil; due-- {
					// A message from a peer keeps the clocks together.
					peer := nodes[rng.IntN(len(nodes))]
					sn.node.Receive(peer.node.Clock().Now())
					sn.st.Seq++
					sn.st.Planted = 0
					if sn.st.Seq%int64(cfg.PlantEvery) == 0 {
						sn.st.Planted = time.Now().UnixNano()
						planted.Add(1)
					}
					if err := sn.node.Expose(&sn.st); err != nil {
						return
					}
					exposed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	// The silent node stays silent: it neither leaves nor flushes.
	for i, sn := range nodes {
		if i == 0 && cfg.SilentAfter > 0 {
			continue
		}
		sn.node.Leave()
		sn.sink.Flush()
	}
	res.Exposed = exposed.Load()
	leaves := int64(cfg.Nodes)
	if cfg.SilentAfter > 0 {
		leaves--
	}
	var after map[string]float64
	for {
		var dropped int64
		for _, sn := range nodes {
			dropped += sn.sink.Dropped()
		}
		want := int64(before["augur_monitor_records_received_total"]) + res.Exposed + leaves - dropped
		if after, err = client.Metrics(ctx); err != nil {
			return nil, err
		}
		if int64(after["augur_monitor_records_received_total"]) >= want || time.Since(start) > cfg.Duration+time.Minute {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	res.Elapsed = time.Since(start)
	res.Received = int64(after["augur_monitor_records_received_total"] - before["augur_monitor_records_received_total"])
	res.Cuts = int64(after["augur_monitor_cuts_total"] - before["augur_monitor_cuts_total"])
	// Let the last violations arrive.
	time.Sleep(300 * time.Millisecond)
	for i, sn := range nodes {
		res.Dropped += sn.sink.Dropped()
		if i == 0 && cfg.SilentAfter > 0 {
			sn.sink.Close() // its unsent records are dropped, not pushed
			continue
		}
		sn.node.Close()
	}
	after, err = client.Metrics(ctx)
	if err != nil {
		return nil, err
	}
	stopStream()
	<-sampleDone
	res.PeakRSS = int64(after["augur_monitor_peak_rss_bytes"])
	res.MaxBuffered = maxBuffered.Load()
	res.NodesFailed = fmt.Sprintf("silent=%d buffer=%d",
		int64(after[`augur_monitor_nodes_failed_total{reason="silent"}`]), int64(after[`augur_monitor_nodes_failed_total{reason="buffer"}`]))
	mu.Lock()
	res.Planted, res.Seen = int(planted.Load()), len(latencies)
	slices.Sort(latencies)
	if n := len(latencies); n > 0 {
		res.P50 = latencies[n/2]
		res.P99 = latencies[min(n-1, n*99/100)]
	}
	mu.Unlock()
	return res, nil
}
