package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/augur-dev/augur/cluster"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/ingest"
	"github.com/augur-dev/augur/pipeline"
	"github.com/augur-dev/augur/reporter"
)

// smallTrace collects the repository's small JSONL run into a trace.
func smallTrace(t *testing.T) (spec, tr string) {
	t.Helper()
	tr = filepath.Join(t.TempDir(), "small.trace")
	if _, err := ingest.Collect(t.Context(), tr, []string{"../testdata/small.jsonl"}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	return "../testdata/small.yaml", tr
}

func reportJSON(t *testing.T, r *reporter.Report) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestInferAgrees checks that a report does not depend on how it was
// computed: the reference evaluator, the fast one on one worker or two,
// and three shards merged in reverse order make the same report. Shards
// evaluate without filtering, so the single runs do too.
func TestInferAgrees(t *testing.T) {
	ctx := context.Background()
	spec, tr := smallTrace(t)
	want, err := pipeline.Infer(ctx, spec, tr, pipeline.Options{NoFilter: true, Top: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.AlmostInvariants) == 0 {
		t.Fatal("the small run reports no almost-invariant")
	}
	wantJSON := reportJSON(t, want)
	for _, o := range []pipeline.Options{
		{NoFilter: true, Top: 20, Evaluator: evaluator.Reference},
		{NoFilter: true, Top: 20, Workers: 1},
		{NoFilter: true, Top: 20, Workers: 2},
	} {
		got, err := pipeline.Infer(ctx, spec, tr, o)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(reportJSON(t, got), wantJSON) {
			t.Errorf("%+v: report differs from the fast evaluator's on every CPU", o)
		}
	}

	var parts []*cluster.Stats
	for i := 2; i >= 0; i-- {
		st, err := pipeline.Shard(ctx, spec, tr, evaluator.Shard{Index: i, Count: 3}, pipeline.Options{})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, st)
	}
	merged, err := cluster.Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pipeline.ReportStats(ctx, spec, tr, merged, pipeline.Options{Top: 20})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(reportJSON(t, got), wantJSON) {
		t.Error("the report of three merged shards differs from one run's")
	}
}

// TestInferCancelled checks that a cancelled run stops with the context's
// error and no report.
func TestInferCancelled(t *testing.T) {
	spec, tr := smallTrace(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := pipeline.Infer(ctx, spec, tr, pipeline.Options{})
	if !errors.Is(err, context.Canceled) || r != nil {
		t.Fatalf("cancelled Infer = %v, %v; want no report and an error", r, err)
	}
}
