package speed

import (
	"fmt"

	"github.com/augur-dev/augur/trace"
)

// Churn is how much of a trace changes from one snapshot to the next.
type Churn struct {
	Nodes    float64 // share of the nodes whose state row changed
	Bindings float64 // share of the two-node bindings with a node that changed
}

// String returns "62% of nodes and 86% of two-node bindings change per
// snapshot".
func (c Churn) String() string {
	return fmt.Sprintf("%.0f%% of nodes and %.0f%% of two-node bindings change per snapshot", 100*c.Nodes, 100*c.Bindings)
}

// MeasureChurn reads the snapshots of tr and returns their churn, over
// every snapshot after the first. Members are sorted by node: a node
// changed if the row at its position differs from the previous
// snapshot's, and every node of a snapshot whose number of nodes differs
// from the previous one's counts as changed. A binding of two nodes (an
// ordered pair) changed if one of its nodes did: of n nodes of which u
// stayed, n(n-1) - u(u-1) bindings.
func MeasureChurn(tr *trace.Trace) (Churn, error) {
	sr := tr.Snapshots()
	defer sr.Close()
	var prev []uint32
	var nodes, changed, bindings, moved float64
	for first := true; sr.Next(); first = false {
		m := sr.Snapshot().Members
		if !first {
			n, u := float64(len(m)), 0.0
			if len(m) == len(prev) {
				for i, row := range m {
					if prev[i] == row {
						u++
					}
				}
			}
			nodes += n
			changed += n - u
			bindings += n * (n - 1)
			moved += n*(n-1) - u*(u-1)
		}
		prev = append(prev[:0], m...)
	}
	if err := sr.Err(); err != nil {
		return Churn{}, err
	}
	var c Churn
	if nodes > 0 {
		c.Nodes = changed / nodes
	}
	if bindings > 0 {
		c.Bindings = moved / bindings
	}
	return c, nil
}
