package spectrace

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
	"github.com/augur-dev/augur/trace/tracetest"
)

// TestCheckEnums checks a trace's values against a spec's enums, and
// stops when its context is done (it reads every state: augur check and
// infer of a large trace went on through SIGINT).
func TestCheckEnums(t *testing.T) {
	b := tracetest.New(t, trace.Schema{{Name: "role", Type: arrow.BinaryTypes.String}}, trace.Options{System: "enums"})
	for i, v := range []string{"leader", "follower", "boss"} {
		b.Snapshot(trace.Snapshot{ID: uint64(i), TS: uint64(i), Members: []uint32{b.State("n0", uint64(i), v)}})
	}
	tr := b.Open()
	spec, err := specs.Parse("s.yaml", []byte("system: enums\nvariables:\n  role: {enum: [leader, follower]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckEnums(context.Background(), spec, tr); err == nil || !strings.Contains(err.Error(), "in state row 2 (node n0)") {
		t.Errorf("CheckEnums = %v, want an error at row 2", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := CheckEnums(ctx, spec, tr); !errors.Is(err, context.Canceled) {
		t.Errorf("CheckEnums with a done context = %v, want context.Canceled", err)
	}
}
