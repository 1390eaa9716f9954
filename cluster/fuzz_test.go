package cluster

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/augur-dev/augur/evaluator"
)

// FuzzRead reads stats files from bytes. Reading must fail or succeed,
// never panic or exhaust memory. The digest stops nearly every mutation,
// so each input is also read without comparing it: what is then accepted
// must be a valid header and figures, so that writing it and reading it
// back gives the same stats. Run it with
//
//	go test ./cluster -run '^$' -fuzz FuzzRead -fuzztime 2m
//
// (add -fuzzminimizetime 100x to spend the time fuzzing rather than
// minimizing the inputs that find new code).
func FuzzRead(f *testing.F) {
	empty := &Stats{Header: Header{Spec: specSum, Trace: traceSum, Shard: evaluator.Shard{Count: 1, Block: 1}, Merged: true}}
	for _, s := range []*Stats{part(0, 1), part(1, 3), empty} {
		for _, opts := range [][]ipc.Option{{ipc.WithZstd()}, {ipc.WithLZ4()}, nil} {
			rec, err := signed(s)
			if err != nil {
				f.Fatal(err)
			}
			var buf bytes.Buffer
			if err := encode(&buf, rec, opts...); err != nil {
				f.Fatal(err)
			}
			rec.Release()
			f.Add(buf.Bytes())
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		read(context.Background(), "fuzz.arrow", data, true)
		s, err := read(context.Background(), "fuzz.arrow", data, false)
		if err != nil {
			return
		}
		rec, err := signed(s)
		if err != nil {
			t.Fatalf("accepted stats cannot be written: %v", err)
		}
		defer rec.Release()
		var buf bytes.Buffer
		if err := encode(&buf, rec, ipc.WithZstd()); err != nil {
			t.Fatal(err)
		}
		back, err := read(context.Background(), "fuzz.arrow", buf.Bytes(), true)
		if err != nil {
			t.Fatalf("accepted stats written again cannot be read: %v", err)
		}
		if !sameStats(t, s, back) {
			t.Fatalf("stats changed when written and read again")
		}
	})
}
