package ingest_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/augur-dev/augur/ingest"
)

func ExampleCollectJSONL() {
	dir, err := os.MkdirTemp("", "augur-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// Three global snapshots of a two-node system; n2 changes once.
	input := filepath.Join(dir, "run.jsonl")
	err = os.WriteFile(input, []byte(`
{"snapshot": 1, "ts": 10, "nodes": {"n1": {"term": 1, "leader": true}, "n2": {"term": 1, "leader": false}}}
{"snapshot": 2, "ts": 20, "nodes": {"n1": {"term": 1, "leader": true}, "n2": {"term": 2, "leader": true}}}
{"snapshot": 3, "ts": 30, "tags": ["steady"], "nodes": {"n1": {"term": 1, "leader": true}, "n2": {"term": 2, "leader": true}}}
`), 0o644)
	if err != nil {
		log.Fatal(err)
	}

	res, err := ingest.CollectJSONL(context.Background(), filepath.Join(dir, "run.trace"), []string{input}, ingest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d snapshots, %d states, %d nodes\n", res.Snapshots, res.States, res.Nodes)
	for _, c := range res.Schema {
		fmt.Printf("%s: %s\n", c.Name, c.Type)
	}

	// A string where the other lines hold integers is an error.
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"snapshot": 1, "nodes": {"n1": {"term": 1}}}
{"snapshot": 2, "nodes": {"n1": {"term": "two"}}}
`), 0o644)
	_, err = ingest.CollectJSONL(context.Background(), filepath.Join(dir, "bad.trace"), []string{bad}, ingest.Options{})
	fmt.Println(err.(*ingest.Error).Pos.Line, err.(*ingest.Error).Field, err.(*ingest.Error).Msg)
	// Output:
	// 3 snapshots, 3 states, 2 nodes
	// leader: bool
	// term: int64
	// 2 nodes.n1.term string, but earlier lines (first at line 1: nodes.n1.term) hold integers
}
