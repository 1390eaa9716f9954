package pipeline_test

import (
	"context"
	"log"
	"os"
	"path/filepath"

	"github.com/augur-dev/augur/ingest"
	"github.com/augur-dev/augur/pipeline"
)

// Infer takes a spec and a trace to a report. Here the trace is
// collected from the repository's small JSON-lines run, as augur collect
// does, and the spec asks for one-literal properties only, so that the
// example runs in a moment; the tour's spec is ../testdata/small.yaml.
func ExampleInfer() {
	dir, err := os.MkdirTemp("", "augur-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	tracePath := filepath.Join(dir, "run.trace")
	if _, err := ingest.Collect(context.Background(), tracePath, []string{"../testdata/small.jsonl"}, ingest.Options{}); err != nil {
		log.Fatal(err)
	}
	specPath := filepath.Join(dir, "spec.yaml")
	spec := `system: toy-raft
types:
  Index: int64
  Entry: "{term: int64, index: Index}"
variables:
  commit: Index
  applied: Index
  log: list<Entry>
derived:
  lastIndex: {type: Index, expr: "len(log) == 0 ? 0 : log[len(log)-1].index"}
generate: {max_nodes: 1, max_literals: 1}
report: {size: 2, min_support: 10}
`
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		log.Fatal(err)
	}

	rep, err := pipeline.Infer(context.Background(), specPath, tracePath, pipeline.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if err := rep.Write(os.Stdout, "text"); err != nil {
		log.Fatal(err)
	}
	// Output:
	// toy-raft: 300 snapshots, 26 properties generated, 26 evaluated, 0 pruned
	// candidates: 2 almost-invariants in 2 anomalies (0 equivalent and 0 more listed under a simpler one), 5 invariants; 0 dropped as or-effects
	//
	// Almost-invariants (2)
	//   1  0.99889  1/820  forall n0 in nodes: n0.applied <= n0.lastIndex
	//                        at snapshot 200 (ts 6373): n0="n3"; n0.applied=22 n0.lastIndex=21
	//                        1 violating snapshot, 1 violation event, tagged bug:commit-beyond-log×1
	//   2  0.99667  3/820  forall n0 in nodes: n0.commit <= n0.lastIndex
	//                        at snapshot 198 (ts 6363): n0="n3"; n0.commit=22 n0.lastIndex=21
	//                        3 violating snapshots, 1 violation event, tagged bug:commit-beyond-log×3
	//
	// Invariants (5, top 2)
	//   1  1.00000  0/820  forall n0 in nodes: n0.applied <= n0.commit
	//   2  1.00000  0/820  forall n0 in nodes: not empty(n0.log)
}
