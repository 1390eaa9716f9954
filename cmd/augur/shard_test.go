package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/augur-dev/augur/cluster"
)

func augur(t *testing.T, args ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("augur %v: exit %d\n%s", args, code, errb.String())
	}
}

// TestShardedStats checks that merged shards equal one run without
// filtering, exactly: counts, score sums and witnesses, whatever the
// order in which the shards are given to augur merge.
func TestShardedStats(t *testing.T) {
	dir := t.TempDir()
	spec, tr := "../../testdata/small.yaml", filepath.Join(dir, "small.trace")
	augur(t, "collect", "../../testdata/small.jsonl", "-o", tr)
	one := filepath.Join(dir, "one.arrow")
	augur(t, "infer", spec, tr, "-q", "--stats", one)
	want, err := cluster.Read(one)
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range []struct{ n, block int }{{3, 7}, {2, 1}, {5, 64}} {
		var parts []string
		for x := range sh.n {
			p := filepath.Join(dir, fmt.Sprintf("p%d.arrow", x))
			augur(t, "infer", spec, tr, "-q", "--shard", fmt.Sprintf("%d/%d", x, sh.n), "--block", fmt.Sprint(sh.block), "--stats", p)
			parts = append(parts, p)
		}
		slices.Reverse(parts)
		merged := filepath.Join(dir, "merged.arrow")
		augur(t, append(append([]string{"merge"}, parts...), "-o", merged)...)
		got, err := cluster.Read(merged)
		if err != nil {
			t.Fatal(err)
		}
		if got.Snapshots != want.Snapshots || len(got.Stats) != len(want.Stats) {
			t.Fatalf("%d/%d: %d snapshots, %d properties; want %d, %d", sh.n, sh.block, got.Snapshots, len(got.Stats), want.Snapshots, len(want.Stats))
		}
		for i := range want.Stats {
			g, w := got.Stats[i], want.Stats[i]
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(w)
			if !bytes.Equal(gj, wj) {
				t.Fatalf("%d/%d: %s:\nshards %s\none    %s", sh.n, sh.block, want.IDs[i], gj, wj)
			}
		}
	}
}
